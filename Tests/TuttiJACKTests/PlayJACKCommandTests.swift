import Foundation
import Glibc
import Testing
import TuttiScene
import TuttiTestSupport

/// `tutti play --backend jack` and `tutti devices --backend jack` end to end, as subprocesses
/// against a private dummy-driver server, with a recording client in the test process.
extension JACKTests {
    @Suite(
        .enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle (swift build --build-tests builds it)"))
    struct PlayJACKCommandTests {
        /// A scene with file sources at three rates, ducking, a system sound, a phone call,
        /// volume changes and a tone.
        static func scene(seconds: Double, sampleRate: Int = 48_000) -> String {
            let audio = Tool.repositoryRoot + "/fixtures/audio"
            return """
                {
                  "engine": {"sampleRate": \(sampleRate), "channels": 2, "blockFrames": 256, "resampler": "sincFastest", "output": "float32"},
                  "duration": \(seconds),
                  "sessions": [
                    {"id": "music", "category": "playback"},
                    {"id": "game", "category": "ambient"},
                    {"id": "nav", "category": "playback", "options": ["duckOthers"]}
                  ],
                  "sources": [
                    {"id": "song", "session": "music", "file": "\(audio)/music-44100.wav", "loop": true},
                    {"id": "bg", "session": "game", "file": "\(audio)/game-bg-22050.wav", "gain": 0.6, "loop": true},
                    {"id": "hum", "session": "game", "tone": {"frequency": 220, "amplitude": 0.1}, "loop": true},
                    {"id": "prompt", "session": "nav", "file": "\(audio)/voice-22050.wav"}
                  ],
                  "events": [
                    {"at": 0.0, "session": "music", "action": "activate"},
                    {"at": 0.0, "source": "song", "action": "play"},
                    {"at": 0.25, "session": "game", "action": "activate"},
                    {"at": 0.25, "source": "bg", "action": "play"},
                    {"at": 0.5, "source": "hum", "action": "play"},
                    {"at": 0.75, "session": "nav", "action": "activate"},
                    {"at": 0.75, "source": "prompt", "action": "play"},
                    {"at": 1.5, "session": "nav", "action": "deactivate", "notifyOthers": true},
                    {"at": 1.75, "device": "volume", "value": 0.7},
                    {"at": 2.0, "system": "systemSound", "file": "\(audio)/ui-chime-44100.wav"},
                    {"at": 2.25, "source": "song", "action": "setGain", "value": 0.5, "ramp": 0.5},
                    {"at": 2.5, "system": "phoneCall", "action": "begin", "file": "\(audio)/call-16000.wav"},
                    {"at": 3.0, "system": "phoneCall", "action": "end"},
                    {"at": 3.0, "source": "song", "action": "play"}
                  ]
                }
                """
        }

        static func workDirectory() throws -> String { makeTemporaryFolder("tutti-jack") }

        /// "engine frame 0 at device frame T" from `tutti play`'s stderr.
        static func startFrameTime(_ stderr: String) -> UInt32? {
            guard let r = stderr.range(of: "engine frame 0 at device frame ") else { return nil }
            return UInt32(stderr[r.upperBound...].prefix { $0.isNumber })
        }

        /// Play `scenePath` into a recorder (server from `JACK_DEFAULT_SERVER`, as libjack reads
        /// it) and compare with `tutti render --format f32` of `renderPath`, aligned by frame time.
        func playAndCompare(_ server: JACKServer, scenePath: String, renderPath: String, extra: [String] = [], frames: Int) throws
            -> Tool.Result
        {
            let dir = (scenePath as NSString).deletingLastPathComponent
            let render = try Tool.run([Tool.tutti!, "render", renderPath, "-o", dir + "/offline.wav", "--format", "f32", "--quiet"])
            #expect(render.status == 0, "\(render.stderr)")
            let recorder = try Recorder(server: server.name, seconds: Double(frames) / 48_000 + 6)
            let play = try server.run(
                [Tool.tutti!, "play", scenePath, "--backend", "jack", "--connect"] + recorder.portNames + extra)
            recorder.close()
            print("tutti play --backend jack: \(play.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
            #expect(play.status == 0, "\(play.stderr)")
            let offline = try Tool.wavFloats(dir + "/offline.wav")
            let start = try #require(PlayJACKCommandTests.startFrameTime(play.stderr), "no start frame in: \(play.stderr)")
            let index = try #require(recorder.frameIndex(ofCycleAt: start))
            let rec = recorder.recording
            #expect(recorder.discontinuities == 0)
            #expect(rec[0..<index * 2].allSatisfy { $0 == 0 })
            #expect(rec.count >= (index + frames) * 2, "recorded \(rec.count / 2 - index) frames after the start")
            let played = rec[index * 2..<min(rec.count, (index + frames) * 2)]
            let diff = firstDifference(played, offline.prefix(frames * 2))
            #expect(diff == nil, "first difference at sample \(diff ?? -1)")
            return play
        }

        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func playEqualsRenderSampleForSample() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            try PlayJACKCommandTests.scene(seconds: 3.5).write(toFile: scenePath, atomically: true, encoding: .utf8)
            let play = try playAndCompare(server, scenePath: scenePath, renderPath: scenePath, frames: 168_000)
            #expect(play.stdout.contains("played 3.50 s in "))
            #expect(
                play.stdout.contains("(jack \"\(server.name):tutti\": 48000 Hz, 2 ch, float32, period 128 frames, latency "),
                "\(play.stdout)")
        }

        /// Control lines on stdin change the policy while it plays, at the first frame not decided
        /// yet (printed): the recording equals the offline render of the scene with the same
        /// action as a scene event at that frame. Bad lines are one line on stderr each.
        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func controlLinesOnStdinChangeThePolicyWhilePlaying() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            try PlayJACKCommandTests.scene(seconds: 3.5).write(toFile: scenePath, atomically: true, encoding: .utf8)
            let frames = 168_000
            let recorder = try Recorder(server: server.name, seconds: Double(frames) / 48_000 + 6)
            let play = try server.run(
                [Tool.tutti!, "play", scenePath, "--backend", "jack", "--connect"] + recorder.portNames,
                stdin: "volume 0.5\nvolme 1\nmic\n\n")
            recorder.close()
            #expect(play.status == 0, "\(play.stderr)")
            #expect(play.stderr.contains("tutti: control: line 2: unknown command \"volme\""), "\(play.stderr)")
            #expect(play.stderr.contains("tutti: control: line 3: \"mic\" takes one on/off"), "\(play.stderr)")
            let applied = try #require(play.stderr.split(separator: "\n").first { $0.hasPrefix("tutti: control: volume 0.5 at ") })
            let marker = try #require(applied.range(of: "(frame "), "\(applied)")
            let frame = try #require(Int64(String(applied[marker.upperBound...].prefix { $0.isNumber })))
            #expect(frame > 0 && frame < 96_000, "\(applied)")

            var scene = try OfflineRenderer.loadScene(path: scenePath)
            scene.events.append(Scene.Event(at: Double(frame) / 48_000, action: .device(.volume(0.5)), place: "control"))
            scene.events = scene.events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
            var offline: [Float] = []
            try OfflineRenderer(scene: scene).render { offline.append(contentsOf: $0) }

            let start = try #require(PlayJACKCommandTests.startFrameTime(play.stderr), "no start frame in: \(play.stderr)")
            let index = try #require(recorder.frameIndex(ofCycleAt: start))
            let rec = recorder.recording
            #expect(rec.count >= (index + frames) * 2, "recorded \(rec.count / 2 - index) frames after the start")
            let played = rec[index * 2..<min(rec.count, (index + frames) * 2)]
            let diff = firstDifference(played, offline.prefix(frames * 2)[...])
            #expect(diff == nil, "first difference at sample \(diff ?? -1)")
            // The line did something: the output from its frame on is not the plain scene's.
            var plain: [Float] = []
            try OfflineRenderer(scene: OfflineRenderer.loadScene(path: scenePath)).render { plain.append(contentsOf: $0) }
            let later = (Int(frame) + 2_400) * 2..<(Int(frame) + 12_000) * 2
            #expect(offline[later] != plain[later] && offline[..<(Int(frame) * 2)] == plain[..<(Int(frame) * 2)])
        }

        /// `--control-lookahead` sets how far ahead a control line lands while stdin is open:
        /// with the default (0.05 s), a line there at the start applies before frame 9 600,
        /// which 0.2 s can never reach — the scene is decided that far before the first frame
        /// plays. Bad values are usage errors.
        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func controlLookaheadSetsHowSoonALineApplies() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            try PlayJACKCommandTests.scene(seconds: 3.5).write(toFile: scenePath, atomically: true, encoding: .utf8)
            func appliedFrame(_ extra: [String]) throws -> Int64 {
                // stdin stays open while it plays (an ended stdin decides a second ahead).
                let command = ([Tool.tutti!, "play", scenePath, "--backend", "jack", "--no-connect", "--seconds", "1"] + extra)
                    .joined(separator: " ")
                let play = try server.run(["/bin/sh", "-c", "(echo 'volume 0.5'; sleep 2) | \(command)"])
                #expect(play.status == 0, "\(play.stderr)")
                let applied = try #require(play.stderr.split(separator: "\n").first { $0.hasPrefix("tutti: control: volume 0.5 at ") })
                let marker = try #require(applied.range(of: "(frame "), "\(applied)")
                return try #require(Int64(String(applied[marker.upperBound...].prefix { $0.isNumber })))
            }
            let short = try appliedFrame([])
            let long = try appliedFrame(["--control-lookahead", "0.2"])
            print("control line applied at frame \(short) with the default --control-lookahead (0.05 s), \(long) with 0.2 s")
            #expect(short >= 2_400 && short < 9_600, "with the default 0.05 s: frame \(short)")
            #expect(long >= 9_600, "with 0.2 s: frame \(long)")
            for bad in ["0", "11", "nan"] {
                let r = try Tool.run([Tool.tutti!, "play", scenePath, "--backend", "alsa", "--control-lookahead", bad])
                #expect(r.status == 64, "--control-lookahead \(bad): \(r.stderr)")
                #expect(r.stderr.contains("--control-lookahead must be a number of seconds above 0, at most 10"), "\(r.stderr)")
            }
        }

        /// A 44.1 kHz scene on a 48 kHz server renders at 48 kHz (said once): the recording equals
        /// the render of the same scene at 48 kHz.
        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func aSceneAtAnotherRateRendersAtTheServerRate() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            let at48 = dir + "/scene48.json"
            try PlayJACKCommandTests.scene(seconds: 3.5, sampleRate: 44_100).write(toFile: scenePath, atomically: true, encoding: .utf8)
            try PlayJACKCommandTests.scene(seconds: 3.5).write(toFile: at48, atomically: true, encoding: .utf8)
            let play = try playAndCompare(server, scenePath: scenePath, renderPath: at48, extra: ["--seconds", "2"], frames: 96_000)
            let note = "tutti: the scene is at 44100 Hz, the jack device runs at 48000 Hz: rendering at 48000 Hz"
            #expect(play.stderr.components(separatedBy: note).count == 2, "\(play.stderr)")
            #expect(play.stdout.contains("played 2.00 s in "))
        }

        @Test func noServerIsAClearErrorAndExit1() throws {
            let play = try Tool.run(
                [Tool.tutti!, "play", Tool.repositoryRoot + "/fixtures/scenes/demo.json", "--backend", "jack"],
                environment: ["JACK_DEFAULT_SERVER": "tutti-no-server-\(getpid())"])
            #expect(play.status == 1)
            #expect(
                play.stderr
                    == "tutti: error: no JACK server running (server name \"tutti-no-server-\(getpid())\"); start jackd, or use --backend alsa\n"
            )
            let devices = try Tool.run(
                [Tool.tutti!, "devices", "--backend", "jack"], environment: ["JACK_DEFAULT_SERVER": "tutti-no-server-\(getpid())"])
            #expect(devices.status == 1)
            #expect(devices.stderr.hasPrefix("tutti: error: no JACK server running (server name"), "\(devices.stderr)")
            #expect(devices.stderr.hasSuffix("; start jackd, or use --backend alsa\n"), "\(devices.stderr)")
        }

        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func unknownConnectPortIsNamed() throws {
            let server = try JACKServer()
            let scene = Tool.repositoryRoot + "/fixtures/scenes/demo.json"
            let play = try server.run([Tool.tutti!, "play", scene, "--backend", "jack", "--connect", "system:playback_1", "nope:in_9"])
            #expect(play.status == 1)
            #expect(play.stderr.contains("tutti: error: no JACK port \"nope:in_9\""), "\(play.stderr)")
            let count = try server.run([Tool.tutti!, "play", scene, "--backend", "jack", "--connect", "system:playback_1"])
            #expect(count.status == 1)
            #expect(count.stderr.contains("1 port to connect for 2 output channels"), "\(count.stderr)")
            let both = try server.run([Tool.tutti!, "play", scene, "--backend", "jack", "--no-connect", "--connect", "system:playback_1"])
            #expect(both.status == 64)
            #expect(both.stderr.contains("--no-connect and --connect exclude each other"))
            let alsa = try server.run([Tool.tutti!, "play", scene, "--backend", "alsa", "--connect", "system:playback_1"])
            #expect(alsa.status == 64)
            #expect(alsa.stderr.contains("--connect is for --backend jack"))
        }

        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func devicesListsTheServerAndItsPhysicalPorts() throws {
            let server = try JACKServer()
            let devices = try Tool.run([Tool.tutti!, "devices", "--backend", "jack", "--jack-server", server.name])
            #expect(devices.status == 0, "\(devices.stderr)")
            #expect(
                devices.stdout == """
                    JACK server "\(server.name)": 48000 Hz, buffer 128 frames (2.7 ms)
                    playback ports (physical):
                        system:playback_1
                        system:playback_2
                    capture ports (physical):
                        system:capture_1
                        system:capture_2

                    """)
        }

        /// `auto` with no PipeWire daemon reachable (`PIPEWIRE_REMOTE` a socket that is not
        /// there) and this server running picks JACK: `tutti devices` says so on stderr and lists
        /// the server; `tutti play` reports it and plays the half second asked for.
        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func autoPicksJACKWhenAServerRuns() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let noPipeWire = ["PIPEWIRE_REMOTE": dir + "/no-pipewire-0"]
            let devices = try server.run([Tool.tutti!, "devices"], environment: noPipeWire)
            #expect(devices.status == 0, "\(devices.stderr)")
            #expect(devices.stderr == "tutti: backend: jack (auto)\n", "\(devices.stderr)")
            #expect(devices.stdout.hasPrefix("JACK server \"\(server.name)\": 48000 Hz"), "\(devices.stdout)")
            let scenePath = dir + "/scene.json"
            try PlayJACKCommandTests.scene(seconds: 3.5).write(toFile: scenePath, atomically: true, encoding: .utf8)
            let play = try server.run([Tool.tutti!, "play", scenePath, "--seconds", "0.5"], environment: noPipeWire)
            #expect(play.status == 0, "\(play.stderr)")
            #expect(play.stdout.contains("backend: jack (auto)\nplayed 0.50 s"), "\(play.stdout)")
            #expect(play.stdout.contains("(jack \""), "\(play.stdout)")
        }

        /// The server is killed mid-play and started again: `tutti play` reports the loss and
        /// the return, and plays the whole scene; a server that stays away makes it give up
        /// after --reconnect-timeout with exit 1.
        @Test(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
        func serverLossDuringPlay() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            try PlayJACKCommandTests.scene(seconds: 3).write(toFile: scenePath, atomically: true, encoding: .utf8)

            func playInBackground(_ extra: [String]) throws -> (Process, String, String) {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: Tool.tutti!)
                p.arguments = [scenePath, "--backend", "jack"] + extra
                p.arguments!.insert("play", at: 0)
                p.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server.name]) { $1 }
                let out = dir + "/out-\(UUID().uuidString.prefix(4))"
                let err = out + ".err"
                _ = FileManager.default.createFile(atPath: out, contents: nil)
                _ = FileManager.default.createFile(atPath: err, contents: nil)
                p.standardInput = FileHandle.nullDevice
                p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
                p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
                try p.run()
                return (p, out, err)
            }
            func waitFor(_ path: String, _ text: String, seconds: Double) -> Bool {
                let end = Date().addingTimeInterval(seconds)
                while Date() < end {
                    if ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").contains(text) { return true }
                    usleep(10_000)
                }
                return false
            }

            let (p, out, err) = try playInBackground([])
            #expect(waitFor(err, "engine frame 0 at device frame", seconds: 10))
            usleep(500_000)
            server.kill(SIGKILL)
            #expect(waitFor(err, "device lost", seconds: 5))
            usleep(300_000)
            try server.start()
            p.waitUntilExit()
            let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            let stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            print("after a restart: \(stdout)")
            #expect(p.terminationStatus == 0, "\(stderr)")
            #expect(stderr.contains("tutti: device lost: "), "\(stderr)")
            #expect(stderr.contains("tutti: device restored: jack \"\(server.name):tutti\""), "\(stderr)")
            #expect(stdout.contains("played 3.00 s in "))

            let (q, _, err2) = try playInBackground(["--reconnect-timeout", "1"])
            #expect(waitFor(err2, "engine frame 0 at device frame", seconds: 10))
            let lost = Date()
            server.kill(SIGTERM)
            q.waitUntilExit()
            let took = Date().timeIntervalSince(lost)
            let stderr2 = (try? String(contentsOfFile: err2, encoding: .utf8)) ?? ""
            #expect(q.terminationStatus == 1)
            #expect(
                stderr2.contains(
                    "the JACK server did not come back within 1 s (last attempt: no JACK server running (server name"
                ), "\(stderr2)")
            #expect(took >= 0.99 && took < 4, "gave up after \(took) s")
        }
    }
}
