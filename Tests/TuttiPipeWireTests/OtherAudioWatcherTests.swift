import Foundation
import Glibc
import Synchronization
import Testing
import Tutti
import TuttiOutput
import TuttiPipeWire
import TuttiTestSupport

/// Other applications' audio seen from PipeWire: the role table and the snapshot (pure), the
/// watcher against a private daemon with `pw-play` as the other application, and `tutti play
/// --backend pipewire` handing it to the policy (journal and fallback category). The tests with a
/// daemon are in the serialized suites `PipeWireOutputTests` and `PlayPipeWireCommandTests`
/// (below): a third suite of them running beside those loads a busy machine enough to make
/// their private daemons run cycles late.
@Suite struct OtherAudioWatcherTests {
    static let pwPlay = Tool.find("pw-play")

    /// Music, Movie, Communication and no role are not mixable; every other role is.
    @Test func theRoleTable() {
        for role in ["Music", "Movie", "Communication", "", nil] as [String?] {
            #expect(OtherAudioWatcher.silencesSecondary(mediaRole: role), "\(String(describing: role))")
        }
        for role in ["Game", "Notification", "Event", "Accessibility", "Alarm", "Test", "Production", "DSP", "music"] {
            #expect(!OtherAudioWatcher.silencesSecondary(mediaRole: role), "\(role)")
        }
    }

    /// Names: application.name, else node.name; sorted, each once. Not mixable when any stream
    /// is; nothing running is `silent`.
    @Test func theSnapshotOfTheRunningStreams() {
        let s = OtherAudioWatcher.Snapshot(streams: [
            (application: "vlc", node: "vlc-out", role: "Game"), (application: nil, node: "mpv", role: "Notification"),
            (application: "", node: "aplay", role: "Event"), (application: "vlc", node: "vlc-2", role: "Game"),
        ])
        #expect(s == OtherAudioWatcher.Snapshot(playing: true, silenceSecondary: false, clients: ["aplay", "mpv", "vlc"]))
        let music = OtherAudioWatcher.Snapshot(streams: [
            (application: "game", node: nil, role: "Game"), (application: "player", node: nil, role: nil),
        ])
        #expect(music == OtherAudioWatcher.Snapshot(playing: true, silenceSecondary: true, clients: ["game", "player"]))
        #expect(OtherAudioWatcher.Snapshot(streams: []) == .silent)
    }

    /// A WAV of `seconds` of 440 Hz (48 kHz stereo) in `dir`.
    static func wav(_ dir: String, seconds: Double) -> String {
        let path = dir + "/other.wav"
        writeWAV(path, sine(440, rate: 48_000, seconds: seconds, amplitude: 0.25, channels: 2), rate: 48_000, channels: 2)
        return path
    }

    /// `pw-play FILE` against `server`, linked to the null sink.
    static func pwPlay(_ server: PipeWireServer, _ file: String, log: String) throws -> Child {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
        for (k, v) in server.clientEnvironment { env[k] = v }
        return try Child(
            [pwPlay!, "--target", PipeWireServer.sink, file], environment: env.map { "\($0.key)=\($0.value)" }, stdout: log)
    }
}

/// Other applications' audio seen by the watcher and by an engine playing through PipeWire.
extension PipeWireOutputTests {
    /// The watcher in this process: nothing while only this process's own stream (a
    /// `PipeWireOutput`) plays; pw-play's running stream is `playing`, named "pw-play", not
    /// mixable (pw-play's role is Music); its end is `silent` again.
    @Test(.enabled(if: PipeWireServer.isAvailable && OtherAudioWatcherTests.pwPlay != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func seesAnotherApplicationsStreamAndNotItsOwn() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-watch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let seen = Mutex<[OtherAudioWatcher.Snapshot]>([])
        let watcher = try OtherAudioWatcher(remote: server.socket) { s in seen.withLock { $0.append(s) } }
        defer { watcher.close() }
        // Our own stream, running for a second: not another application's (for this watcher
        // nor for the output's own).
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        let own = try PipeWireOutput(
            renderer: engine.renderer, settings: OutputSettings(device: PipeWireServer.sink), remote: server.socket,
            log: collector.log, onEvent: collector.onEvent)
        try own.start(frameLimit: nil)
        usleep(1_000_000)
        own.stop(drain: false)
        #expect(own.framesRendered > 0)
        #expect(seen.withLock { $0 }.isEmpty, "\(seen.withLock { $0 })")
        #expect(!collector.events.contains { if case .otherAudioChanged = $0 { true } else { false } }, "\(collector.lines)")

        let player = try OtherAudioWatcherTests.pwPlay(server, OtherAudioWatcherTests.wav(dir, seconds: 2), log: dir + "/pw-play.log")
        defer { player.stop() }
        #expect(
            eventually(10) { seen.withLock { $0 }.contains { $0.playing } },
            "\(seen.withLock { $0 }) \(player.output)")
        let playing = try #require(seen.withLock { $0 }.first { $0.playing })
        #expect(playing == OtherAudioWatcher.Snapshot(playing: true, silenceSecondary: true, clients: ["pw-play"]))
        _ = player.wait(seconds: 15)
        #expect(eventually(10) { seen.withLock { $0 }.last == .silent }, "\(seen.withLock { $0 })")
        #expect(watcher.snapshot == .silent)
    }

    /// The host API: an `AudioEngine` playing through PipeWire (`startOutput`) hands pw-play's
    /// stream to the policy — the session's `isOtherAudioPlaying` and hint turn on, the event
    /// `otherAudioChanged` names pw-play — and pw-play's end turns them off again; with
    /// `watchDesktop` false nothing is reported.
    @Test(.enabled(if: PipeWireServer.isAvailable && OtherAudioWatcherTests.pwPlay != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func theHostAPIHandsItToThePolicy() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-watch-host")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = OtherAudioWatcherTests.wav(dir, seconds: 1.5)
        for watching in [true, false] {
            let engine = try AudioEngine()
            let game = try engine.makeSession(SessionConfiguration(id: "game", categoryWhenOtherAudioPlaying: .ambient))
            var configuration = OutputConfiguration()
            configuration.backend = .pipewire
            configuration.device = PipeWireServer.sink
            configuration.watchDesktop = watching
            try engine.startOutput(configuration, pipeWireRemote: server.socket)
            defer { engine.stopOutput() }
            var kinds: [AudioEvent.Kind] = []
            func others() -> [AudioEvent.Kind] {
                kinds += engine.pollEvents().map(\.kind)
                return kinds.filter { if case .otherAudioChanged = $0 { true } else { false } }
            }
            let player = try OtherAudioWatcherTests.pwPlay(server, file, log: dir + "/pw-play.log")
            defer { player.stop() }
            if watching {
                #expect(eventually(10) { !others().isEmpty }, "\(kinds)")
                #expect(others().first == .otherAudioChanged(playing: true, silenceSecondary: true, clients: ["pw-play"]))
                #expect(try game.isOtherAudioPlaying && game.secondaryAudioShouldBeSilencedHint)
                _ = player.wait(seconds: 15)
                #expect(eventually(10) { others().count == 2 }, "\(kinds)")
                #expect(others().last == .otherAudioChanged(playing: false, silenceSecondary: false, clients: []))
                #expect(try !game.isOtherAudioPlaying)
            } else {
                _ = player.wait(seconds: 15)
                usleep(300_000)
                #expect(others().isEmpty, "\(kinds)")
                #expect(try !game.isOtherAudioPlaying)
            }
        }
    }
}

/// Other applications' audio in `tutti play --backend pipewire`.
extension PlayPipeWireCommandTests {
    /// `tutti play --backend pipewire --events FILE`: pw-play starting is journalled as
    /// `otherAudioChanged` playing (client pw-play, not mixable); a session with
    /// `categoryWhenOtherAudioPlaying` activated meanwhile (a control line) takes that
    /// category; pw-play's end is journalled as playing false. Tutti's own stream never
    /// counts (no entry before pw-play starts). The journal is polled with deadlines.
    @Test(
        .enabled(
            if: PipeWireServer.isAvailable && OtherAudioWatcherTests.pwPlay != nil && Tool.tutti != nil,
            Comment(rawValue: PipeWireServer.skipReason)))
    func tuttiPlayHandsItToThePolicy() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-watch-play")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        {"engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 256, "output": "float32"},
         "duration": 60,
         "sessions": [{"id": "music", "category": "playback"},
                      {"id": "game", "category": "soloAmbient", "categoryWhenOtherAudioPlaying": "ambient"}],
         "sources": [{"id": "tone", "session": "music", "tone": {"frequency": 1000, "amplitude": 0.5}, "loop": true},
                     {"id": "fx", "session": "game", "tone": {"frequency": 440, "amplitude": 0.25}, "loop": true}],
         "events": [{"at": 0.0, "session": "music", "action": "activate"}, {"at": 0.0, "source": "tone", "action": "play"}]}
        """.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let events = dir + "/events.jsonl"
        let fifo = dir + "/stdin"
        #expect(mkfifo(fifo, 0o600) == 0)
        let input = open(fifo, O_RDWR | O_CLOEXEC)
        defer { close(input) }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
        for (k, v) in server.clientEnvironment { env[k] = v }
        let play = try spawnChild(
            [
                Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--events", events,
                "--no-mpris",
            ],
            environment: env.map { "\($0.key)=\($0.value)" }, stdin: fifo, stdout: dir + "/out", stderr: .file(dir + "/err"))
        var reaped = false
        defer {
            if !reaped {
                kill(play, SIGKILL)
                _ = waitForChild(play)
            }
        }
        func stderr() -> String { (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "" }
        func journal() -> [String] {
            ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        func others() -> [String] { journal().filter { $0.contains(#""type":"otherAudioChanged""#) } }
        #expect(eventually(20) { stderr().contains("render thread:") }, "\(stderr())")
        usleep(500_000)
        #expect(others().isEmpty, "tutti's own stream counted: \(others())")

        let player = try OtherAudioWatcherTests.pwPlay(server, OtherAudioWatcherTests.wav(dir, seconds: 4), log: dir + "/pw-play.log")
        defer { player.stop() }
        let on = #""type":"otherAudioChanged","playing":true,"silenceSecondary":true,"clients":["pw-play"]"#
        #expect(eventually(10) { others().contains { $0.contains(on) } }, "\(others()) \(stderr())")
        // While pw-play plays: the game activates in its fallback category.
        let line = Array("activate game\nplay fx\n".utf8)
        _ = line.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        let activated = #""type":"sessionActivated","session":"game""#
        #expect(eventually(10) { journal().contains { $0.contains(activated) } }, "\(journal()) \(stderr())")
        let activation = journal().first { $0.contains(activated) } ?? ""
        #expect(activation.contains(#""category":"ambient""#), "\(activation)")
        #expect(player.isRunning, "pw-play ended before the activation was decided: the test proves nothing")

        _ = player.wait(seconds: 15)
        let off = #""type":"otherAudioChanged","playing":false,"silenceSecondary":false,"clients":[]"#
        #expect(eventually(10) { others().last?.contains(off) == true }, "\(others())")
        #expect(others().count == 2, "\(others())")
        // A scene that records nothing ends at SIGTERM's default action.
        kill(play, SIGTERM)
        let status = waitForChild(play)
        reaped = true
        #expect(status == SIGTERM, "\(stderr())")
        #expect(stderr().contains("other apps' audio: playing (pw-play), not mixable"), "\(stderr())")
    }

    /// `--no-watch-desktop`: pw-play plays its 2 s to the same sink and nothing of it
    /// reaches the policy (no `otherAudioChanged` entry, no stderr line); `other` control
    /// lines still do. With `--backend alsa` or `jack` the flag is a usage error (exit 64),
    /// under its former name `--no-watch-other-audio` too (deprecated, the same flag).
    @Test(
        .enabled(
            if: PipeWireServer.isAvailable && OtherAudioWatcherTests.pwPlay != nil && Tool.tutti != nil,
            Comment(rawValue: PipeWireServer.skipReason)))
    func noWatchDesktopLeavesItToTheControlLines() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-nowatch-play")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 60, sampleRate: 48_000).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        for (backend, flag) in [("alsa", "--no-watch-desktop"), ("jack", "--no-watch-desktop"), ("alsa", "--no-watch-other-audio")] {
            let usage = try Tool.run([Tool.tutti!, "play", dir + "/scene.json", "--backend", backend, flag])
            #expect(usage.status == 64, "\(backend) \(flag): \(usage.stderr)")
            #expect(
                usage.stderr.contains("--no-watch-desktop is for --backend pipewire (\(backend) sees no other apps)"), "\(usage.stderr)")
        }
        let events = dir + "/events.jsonl"
        let fifo = dir + "/stdin"
        #expect(mkfifo(fifo, 0o600) == 0)
        let input = open(fifo, O_RDWR | O_CLOEXEC)
        defer { close(input) }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
        for (k, v) in server.clientEnvironment { env[k] = v }
        let play = try spawnChild(
            [
                Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--events", events,
                "--no-mpris", "--no-watch-desktop",
            ],
            environment: env.map { "\($0.key)=\($0.value)" }, stdin: fifo, stdout: dir + "/out", stderr: .file(dir + "/err"))
        var reaped = false
        defer {
            if !reaped {
                kill(play, SIGKILL)
                _ = waitForChild(play)
            }
        }
        func stderr() -> String { (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "" }
        func others() -> [String] {
            ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                .filter { $0.contains(#""type":"otherAudioChanged""#) }
        }
        #expect(eventually(20) { stderr().contains("render thread:") }, "\(stderr())")
        let player = try OtherAudioWatcherTests.pwPlay(server, OtherAudioWatcherTests.wav(dir, seconds: 2), log: dir + "/pw-play.log")
        defer { player.stop() }
        let started = Date()
        #expect(player.wait(seconds: 15) == 0, "pw-play failed")
        let played = Date().timeIntervalSince(started)
        #expect(played >= 1.5, "pw-play ran \(played) s, not its 2 s: the test proves nothing")
        usleep(500_000)
        #expect(others().isEmpty, "watched anyway: \(others())")
        #expect(!stderr().contains("other apps' audio"), "\(stderr())")
        // The control line still sets it: the flag turns off the watcher, not rule 10.
        let line = Array("other on mpv\n".utf8)
        _ = line.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        #expect(eventually(10) { others().contains { $0.contains(#""clients":["mpv"]"#) } }, "\(others()) \(stderr())")
        kill(play, SIGTERM)
        #expect(waitForChild(play) == SIGTERM, "\(stderr())")
        reaped = true
    }
}
