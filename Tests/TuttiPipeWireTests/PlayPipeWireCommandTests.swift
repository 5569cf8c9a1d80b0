import Foundation
import Glibc
import Testing
import TuttiTestSupport

/// `tutti play --backend pipewire` end to end, as a subprocess against a private daemon
/// (`PipeWireServer`), recorded from the null sink's monitor.
@Suite(
    .serialized,
    .enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle (swift build --build-tests builds it)"))
struct PlayPipeWireCommandTests {
    /// A 1 kHz tone of amplitude 0.5 for `seconds`, at `sampleRate`.
    static func toneScene(seconds: Double, sampleRate: Int) -> String {
        """
        {"engine": {"sampleRate": \(sampleRate), "channels": 2, "blockFrames": 256, "output": "float32"},
         "duration": \(seconds),
         "sessions": [{"id": "music", "category": "playback"}],
         "sources": [{"id": "tone", "session": "music", "tone": {"frequency": 1000, "amplitude": 0.5}, "loop": true}],
         "events": [{"at": 0.0, "session": "music", "action": "activate"}, {"at": 0.0, "source": "tone", "action": "play"}]}
        """
    }

    /// The scene at 48 kHz and (resampled by PipeWire) at 44.1 kHz, with a period: the tone
    /// arrives at 1 kHz and amplitude 0.5 for the scene's duration (gaps from a late graph
    /// cycle aside: `playsTheMainBusIntoTheTargetSink` checks there are none at the default
    /// quantum), and the report names the backend, the target and the granted period.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)), arguments: [48_000, 44_100])
    func playsASceneToTheTarget(sampleRate: Int) throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-play")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 2, sampleRate: sampleRate).write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        let recording = try PipeWireServer.Recording(server)
        let play = try Tool.run(
            [Tool.tutti!, "play", dir + "/tone.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--period", "512"],
            environment: server.clientEnvironment)
        let left = try recording.finish()
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stdout.contains("played 2.00 s"), "\(play.stdout)")
        #expect(play.stdout.contains("pipewire \"tutti → testsink\": \(sampleRate) Hz, 2 ch, float32"), "\(play.stdout)")
        // node.latency 512/RATE: the graph runs 512-frame cycles (at 48 kHz; the stream's
        // share of a cycle at 44.1 kHz is about 470).
        if sampleRate == 48_000 { #expect(play.stdout.contains("period 512 frames"), "\(play.stdout)") }
        // The data thread keeps module-rt's priority (client-rt.conf, as pw-play's; root may):
        // module-rt's SCHED_FIFO | SCHED_RESET_ON_FORK is read as real-time, not lowered to 50.
        if geteuid() == 0 {
            #expect(
                play.stderr.contains("render thread: PipeWire's data thread, SCHED_FIFO priority 88 (PipeWire's module-rt)"),
                "\(play.stderr)")
        }
        try expectTwoSecondsOfTheTone(left, report: play.stdout)
    }

    /// `--periods 16` with `--period 4096` renders 65 536 frames (1.37 s) ahead of the graph on
    /// a thread of Tutti's own: stderr says so, the reported latency counts the ring (at least
    /// 3 of its 4 quarters), and the whole 2 s of the tone arrive: the drained stop plays the
    /// ring out, longer than its usual one-second limit.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func periodsRenderAheadOfTheGraph() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-ahead")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 2, sampleRate: 48_000).write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        let recording = try PipeWireServer.Recording(server)
        let play = try Tool.run(
            [
                Tool.tutti!, "play", dir + "/tone.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--period", "4096",
                "--periods", "16",
            ], environment: server.clientEnvironment)
        let left = try recording.finish()
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stderr.contains("; rendering 65536 frames ahead on tutti-pw-ahead, "), "\(play.stderr)")
        #expect(play.stderr.contains("rendering ahead: ") && play.stderr.contains(" cycles found the ring short; "), "\(play.stderr)")
        let latency = play.stdout.split(separator: "\n").first { $0.hasPrefix("played ") }.flatMap { line -> Int? in
            guard let end = line.range(of: " frames (", options: .backwards) else { return nil }
            return Int(line[..<end.lowerBound].split(separator: " ").last ?? "")
        }
        let frames = try #require(latency, "no latency in \(play.stdout)")
        #expect(frames >= 49_152, "latency \(frames) frames: the ring is not counted")
        try expectTwoSecondsOfTheTone(left, report: play.stdout)
    }

    /// `--backend auto` with a daemon answering picks PipeWire (the report says so) and plays
    /// to the default sink (the private daemon's only one): the tone arrives, measured as above.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func autoPicksPipeWireWhenADaemonAnswers() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-auto")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 2, sampleRate: 48_000).write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        let recording = try PipeWireServer.Recording(server)
        var environment = server.clientEnvironment
        environment["JACK_DEFAULT_SERVER"] = "tutti-no-server-\(getpid())"
        // --period names no backend (ALSA and PipeWire take it): the same 512-frame quantum as
        // `playsASceneToTheTarget`.
        let play = try Tool.run(
            [Tool.tutti!, "play", dir + "/tone.json", "--backend", "auto", "--period", "512"], environment: environment)
        let left = try recording.finish()
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stdout.contains("backend: pipewire (auto)\nplayed 2.00 s"), "\(play.stdout)")
        #expect(play.stdout.contains("pipewire \"tutti → default\": 48000 Hz, 2 ch, float32"), "\(play.stdout)")
        try expectTwoSecondsOfTheTone(left, report: play.stdout)
    }

    /// `--backend auto` with no PipeWire daemon and no JACK server reachable falls back to
    /// ALSA: the report says so, and main (`--bus-output main=PCM`, which names no backend) is
    /// written through an ALSA file plugin: 0.5 s of the 1 kHz tone at amplitude 0.5.
    @Test func autoFallsBackToALSAWithoutASoundServer() throws {
        let dir = makeTemporaryFolder("tutti-auto-alsa")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 0.5, sampleRate: 48_000).write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        try "pcm.autofile { type file slave.pcm null file \"\(dir)/main.raw\" format raw }\n"
            .write(toFile: dir + "/auto.conf", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true)
        let play = try Tool.run(
            [Tool.tutti!, "play", dir + "/tone.json", "--backend", "auto", "--bus-output", "main=autofile", "--format", "f32"],
            environment: [
                "XDG_RUNTIME_DIR": dir + "/run", "PIPEWIRE_RUNTIME_DIR": dir + "/run", "PIPEWIRE_REMOTE": "pipewire-0",
                "JACK_DEFAULT_SERVER": "tutti-no-server-\(getpid())-\(UInt32.random(in: 0...UInt32.max))",
                "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(dir)/auto.conf",
            ])
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stdout.contains("backend: alsa (auto)\nplayed 0.50 s"), "\(play.stdout)")
        #expect(play.stdout.contains("(alsa \"autofile\": 48000 Hz, 2 ch, float32"), "\(play.stdout)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/main.raw"))
        let left: [Float] = data.withUnsafeBytes { raw in
            let floats = raw.bindMemory(to: Float.self)
            return stride(from: 0, to: floats.count - 1, by: 2).map { floats[$0] }
        }
        #expect(left.count == 24_000, "\(left.count) frames written")
        let span = try #require(Measure.played(left), "the file is silent")
        let tone = Measure.medianTone(left, in: span, low: 960, high: 1_040)
        #expect(abs(tone.frequency - 1_000) < 1, "frequency \(tone.frequency)")
        #expect(abs(tone.amplitude - 0.5) < 0.01, "amplitude \(tone.amplitude)")
    }

    /// An unknown backend is a usage error listing every name, auto included.
    @Test func anUnknownBackendListsTheKnownOnes() throws {
        for command in [["play", "scene.json"], ["devices"], ["bench", "loopback"], ["bench", "--loopback"]] {
            let r = try Tool.run([Tool.tutti!] + command + ["--backend", "pulse"])
            #expect(r.status == 64, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("'pulse'") && r.stderr.contains("'auto'"), "\(command): \(r.stderr)")
            for name in ["alsa", "jack", "pipewire"] { #expect(r.stderr.contains("'\(name)'"), "\(command): \(r.stderr)") }
        }
        // `--help` says auto is the default by name (it once showed the enum's raw value, "3").
        for command in [["play"], ["devices"], ["bench", "loopback"]] {
            let help = try Tool.run([Tool.tutti!] + command + ["--help"])
            let line = help.stdout.split(separator: "\n").first { $0.contains("--backend <backend>") && !$0.contains("USAGE") }
            #expect(line?.contains("auto") == true, "\(command): \(line ?? "no --backend line")")
            #expect(!help.stdout.contains("(default: 3)"), "\(command): \(help.stdout)")
        }
    }

    /// No daemon: exit 1 before anything plays, the library's message plus the CLI's way out.
    @Test(.enabled(if: PipeWireOutputTests.libraryLoads, "libpipewire-0.3.so.0 is not installed"))
    func aMissingDaemonIsAClearError() throws {
        let dir = makeTemporaryFolder("tutti-pw-none")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 1, sampleRate: 48_000).write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        let play = try Tool.run(
            [Tool.tutti!, "play", dir + "/tone.json", "--backend", "pipewire"],
            environment: ["XDG_RUNTIME_DIR": dir, "PIPEWIRE_REMOTE": "pipewire-0", "PIPEWIRE_RUNTIME_DIR": dir])
        #expect(play.status == 1)
        #expect(
            play.stderr.contains("no PipeWire daemon answers at \(dir)/pipewire-0 (")
                && play.stderr.contains("(start pipewire, or use --backend alsa|jack)"), "\(play.stderr)")
    }

    /// Options of the other backends are usage errors (exit 64) naming them.
    @Test func optionsOfOtherBackendsAreUsageErrors() throws {
        let dir = makeTemporaryFolder("tutti-pw-usage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.toneScene(seconds: 1, sampleRate: 48_000).write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        for (extra, named) in [
            (["--periods", "1"], "--periods"), (["--device", "hw:0"], "--device"), (["--jack-name", "x"], "--jack-name"),
        ] {
            let play = try Tool.run([Tool.tutti!, "play", dir + "/tone.json", "--backend", "pipewire"] + extra)
            #expect(play.status == 64 && play.stderr.contains(named), "\(extra): \(play.stderr)")
        }
        let alsa = try Tool.run([Tool.tutti!, "play", dir + "/tone.json", "--backend", "alsa", "--target", "x"])
        #expect(alsa.status == 64 && alsa.stderr.contains("--target is for --backend pipewire"), "\(alsa.stderr)")
    }
    /// `left` holds the scene's 2 s of 1 kHz at amplitude 0.5, measured so that a cycle the
    /// graph ran late (a loaded machine, a 512-frame quantum, no real-time priority for the
    /// private daemon) cannot fail it when the product reported it: the played frames are the
    /// span less its zero runs, the tone the median of five windows — and a zero run is allowed
    /// only when `report` (`tutti play`'s stdout) counts an xrun (a lost cycle is always one).
    private func expectTwoSecondsOfTheTone(_ left: [Float], report: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let span = try #require(Measure.played(left), "the recording is silent", sourceLocation: sourceLocation)
        let gaps = Measure.zeroRunFrames(left, in: span)
        let xruns = try #require(Self.xruns(report), "no xrun count in \(report)", sourceLocation: sourceLocation)
        #expect(gaps == 0 || xruns > 0, "\(gaps) frames in gaps with 0 xruns reported", sourceLocation: sourceLocation)
        #expect(
            abs(span.count - gaps - 96_000) <= 1_024, "played \(span.count - gaps) frames at 48 kHz (\(gaps) in gaps)",
            sourceLocation: sourceLocation)
        let tone = Measure.medianTone(left, in: span, low: 960, high: 1_040)
        #expect(abs(tone.frequency - 1_000) < 1, "frequency \(tone.frequency)", sourceLocation: sourceLocation)
        #expect(abs(tone.amplitude - 0.5) < 0.01, "amplitude \(tone.amplitude)", sourceLocation: sourceLocation)
    }

    /// N of "played … s in … s: N xruns" in `tutti play`'s report.
    static func xruns(_ report: String) -> Int? {
        guard let line = report.split(separator: "\n").first(where: { $0.hasPrefix("played ") }),
            let colon = line.range(of: ": "), let end = line.range(of: " xruns", range: colon.upperBound..<line.endIndex)
        else { return nil }
        return Int(line[colon.upperBound..<end.lowerBound])
    }
}
