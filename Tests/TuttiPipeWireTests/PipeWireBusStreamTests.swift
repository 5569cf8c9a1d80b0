import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiOutput
import TuttiPipeWire
import TuttiTestSupport

/// Output buses past main through streams of their own, against a private daemon with two
/// null sinks: main (440 Hz, 0.5) to "testsink", bus "cue" (1 kHz, 0.25) to "cuesink", each
/// sink's monitor recorded.
@Suite(.serialized) struct PipeWireBusStreamTests {
    /// Each sink gets its own bus's tone at its level and frequency, the other bus's tone is
    /// at least 40 dB below it, the bus stream plays without a gap, nothing is dropped or
    /// inserted, and `status` lists both buses with their destinations.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func eachBusPlaysIntoItsOwnSink() throws {
        let server = try PipeWireServer(extraSinks: ["cuesink"])
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings()
        settings.clientName = "tutti-test"
        settings.busDestinations = ["main": [PipeWireServer.sink], "cue": ["cuesink"]]
        // node.latency 2048/48000, as the main-bus test: a loaded machine does not make the
        // private daemon run a cycle late.
        settings.periodFrames = 2_048
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let mainRecording = try PipeWireServer.Recording(server, name: "main")
        let cueRecording = try PipeWireServer.Recording(server, name: "cue", target: "cuesink")
        let frames = 6 * 48_000
        try output.start(frameLimit: Int64(frames))
        let nodes = try server.cli(["ls", "Node"]).stdout
        #expect(nodes.contains("node.name = \"tutti-test-cue\""), "\(nodes)")
        let finished = output.waitUntilFinished(timeoutSeconds: 60)
        let status = output.status
        output.stop(drain: true)
        // After the drain: what the bus stream took includes the ring's last frames.
        let clocks = output.busClocks
        // The sinks' monitors deliver the last cycles after the streams are gone: give the
        // recorders half a second more (a loaded machine ran them late and cut the tail).
        usleep(500_000)
        let main = try mainRecording.finish()
        let cue = try cueRecording.finish()

        #expect(finished)
        #expect(status.buses.map(\.name) == ["main", "cue"])
        #expect(status.buses.map(\.destination) == [PipeWireServer.sink, "cuesink"])
        let clock = try #require(clocks.first)
        #expect(clocks.count == 1 && clock.name == "cue")
        #expect(clock.framesDropped == 0 && clock.framesInserted == 0 && clock.underruns == 0, "\(clock)")
        // The bus stream took every frame rendered for it (and the silence after).
        #expect(clock.framesPlayed >= Int64(frames), "\(clock)")
        #expect(abs(clock.clockRatio - 1) < 0.005, "\(clock)")

        let mainSpan = try #require(Measure.played(main), "main's sink is silent")
        let cueSpan = try #require(Measure.played(cue), "cue's sink is silent")
        let mainTone = Measure.medianTone(main, in: mainSpan, low: 400, high: 480)
        let cueTone = Measure.medianTone(cue, in: cueSpan, low: 950, high: 1_050)
        #expect(abs(mainTone.frequency - 440) < 1, "main's frequency \(mainTone.frequency)")
        #expect(abs(mainTone.amplitude - 0.5) < 0.01, "main's amplitude \(mainTone.amplitude)")
        #expect(abs(cueTone.frequency - 1_000) < 1, "cue's frequency \(cueTone.frequency)")
        #expect(abs(cueTone.amplitude - 0.25) < 0.01, "cue's amplitude \(cueTone.amplitude)")
        // The other bus's tone in each sink: at least 40 dB below its own level.
        let mainMid = mainSpan.lowerBound + mainSpan.count / 2
        let cueMid = cueSpan.lowerBound + cueSpan.count / 2
        let cueInMain = Analysis.toneAmplitude(
            main[mainMid - 2_400..<mainMid + 2_400].map(Double.init)[...], frequency: 1_000, sampleRate: 48_000)
        let mainInCue = Analysis.toneAmplitude(
            cue[cueMid - 2_400..<cueMid + 2_400].map(Double.init)[...], frequency: 440, sampleRate: 48_000)
        #expect(cueInMain < 0.25 * 0.01, "cue's tone in main's sink: \(cueInMain)")
        #expect(mainInCue < 0.5 * 0.01, "main's tone in cue's sink: \(mainInCue)")
        // The bus played all its frames (± the correction) without a gap.
        #expect(abs(cueSpan.count - frames) <= 2 * 2_048, "cue played \(cueSpan.count) frames")
        let gap = Measure.longestZeroRun(cue, in: cueSpan)
        #expect(gap < 4, "a run of \(gap) zero samples inside cue's played span")
        print(
            "PipeWire bus streams: main \(mainTone.amplitude) at \(mainTone.frequency) Hz, cue \(cueTone.amplitude) at "
                + "\(cueTone.frequency) Hz; cue in main \(20 * log10(max(cueInMain, 1e-12) / 0.25)) dB, main in cue "
                + "\(20 * log10(max(mainInCue, 1e-12) / 0.5)) dB; cue's clock \(clock); latency \(status.buses.map(\.latencyFrames)); cue played \(cueSpan.count) frames, main \(mainSpan.count)"
        )
    }

    /// The daemon restarted while main and cue play: one `deviceLost`, then `deviceRestored`
    /// once every stream runs again, and each bus plays into its own sink of the new daemon
    /// (its tone at its level, the other's absent); no bus is reported lost.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aRestartedDaemonReconnectsEveryBus() throws {
        let server = try PipeWireServer(extraSinks: ["cuesink"])
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings()
        settings.busDestinations = ["main": [PipeWireServer.sink], "cue": ["cuesink"]]
        settings.periodFrames = 2_048
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        try output.start(frameLimit: nil)
        var deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 9_600, Date() < deadline { usleep(10_000) }
        server.stopDaemon()
        deadline = Date().addingTimeInterval(30)
        while !collector.events.contains(where: { if case .deviceLost = $0 { true } else { false } }), Date() < deadline {
            usleep(10_000)
        }
        let lost = output.status.buses
        #expect(lost.allSatisfy { $0.isLost }, "\(lost)")
        try server.startDaemon()
        deadline = Date().addingTimeInterval(30)
        while !collector.events.contains(where: { if case .deviceRestored = $0 { true } else { false } }), Date() < deadline {
            usleep(10_000)
        }
        #expect(collector.events.contains { if case .deviceRestored = $0 { true } else { false } }, "\(collector.lines)")
        let mainRecording = try PipeWireServer.Recording(server, name: "main")
        let cueRecording = try PipeWireServer.Recording(server, name: "cue", target: "cuesink")
        let resumed = output.framesRendered
        deadline = Date().addingTimeInterval(30)
        while output.framesRendered < resumed + 96_000, Date() < deadline { usleep(10_000) }
        let main = try mainRecording.finish()
        let cue = try cueRecording.finish()
        let status = output.status
        output.stop(drain: false)
        #expect(output.failure == nil)
        #expect(status.buses.map(\.name) == ["main", "cue"])
        #expect(!status.buses.contains { $0.isLost }, "\(status.buses)")
        let mainSpan = try #require(Measure.played(main), "main's sink is silent after the reconnect")
        let cueSpan = try #require(Measure.played(cue), "cue's sink is silent after the reconnect")
        let mainTone = Measure.tone(main, in: mainSpan, low: 400, high: 480)
        let cueTone = Measure.tone(cue, in: cueSpan, low: 950, high: 1_050)
        #expect(abs(mainTone.frequency - 440) < 1 && abs(mainTone.amplitude - 0.5) < 0.01, "main \(mainTone)")
        #expect(abs(cueTone.frequency - 1_000) < 1 && abs(cueTone.amplitude - 0.25) < 0.01, "cue \(cueTone)")
        let cueMid = cueSpan.lowerBound + cueSpan.count / 2
        let mainInCue = Analysis.toneAmplitude(
            cue[cueMid - 2_400..<cueMid + 2_400].map(Double.init)[...], frequency: 440, sampleRate: 48_000)
        #expect(mainInCue < 0.5 * 0.01, "main's tone in cue's sink: \(mainInCue)")
    }

    /// `tutti play --backend pipewire --bus-output main=testsink --bus-output cue=cuesink` with a
    /// multiRoute scene (440 Hz 0.5 on main, 1 kHz 0.25 on cue): each sink gets its route's
    /// tone and not the other's; a route to a node that is no sink is an error listing the
    /// sinks, before anything plays.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func playRoutesEachBusToItsSink() throws {
        let server = try PipeWireServer(extraSinks: ["cuesink"])
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-routes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        {"engine": {"sampleRate": 48000, "channels": 2, "outputBuses": ["main", "cue"]},
         "duration": 3,
         "sessions": [{"id": "dj", "category": "multiRoute"}],
         "sources": [{"id": "deck", "session": "dj", "tone": {"frequency": 440, "amplitude": 0.5}, "loop": true},
                     {"id": "preview", "session": "dj", "outputBus": "cue", "tone": {"frequency": 1000, "amplitude": 0.25}, "loop": true}],
         "events": [{"at": 0, "session": "dj", "action": "activate"},
                    {"at": 0, "source": "deck", "action": "play"}, {"at": 0, "source": "preview", "action": "play"}]}
        """.write(toFile: dir + "/routes.json", atomically: true, encoding: .utf8)
        let wrong = try Tool.run(
            [
                Tool.tutti!, "play", dir + "/routes.json", "--backend", "pipewire", "--bus-output", "main=testsink", "--bus-output",
                "cue=nosink",
            ],
            environment: server.clientEnvironment)
        #expect(wrong.status == 1 && wrong.stderr.contains("--bus-output cue=nosink: no PipeWire sink"), "\(wrong.stderr)")
        let mainRecording = try PipeWireServer.Recording(server, name: "main")
        let cueRecording = try PipeWireServer.Recording(server, name: "cue", target: "cuesink")
        let play = try Tool.run(
            [
                Tool.tutti!, "play", dir + "/routes.json", "--backend", "pipewire", "--period", "2048", "--bus-output", "main=testsink",
                "--bus-output", "cue=cuesink",
            ], environment: server.clientEnvironment)
        let main = try mainRecording.finish()
        let cue = try cueRecording.finish()
        #expect(play.status == 0, "\(play.stderr)")
        let mainSpan = try #require(Measure.played(main), "main's sink is silent")
        let cueSpan = try #require(Measure.played(cue), "cue's sink is silent")
        let mainTone = Measure.medianTone(main, in: mainSpan, low: 400, high: 480)
        let cueTone = Measure.medianTone(cue, in: cueSpan, low: 950, high: 1_050)
        #expect(abs(mainTone.frequency - 440) < 1 && abs(mainTone.amplitude - 0.5) < 0.01, "main \(mainTone)")
        #expect(abs(cueTone.frequency - 1_000) < 1 && abs(cueTone.amplitude - 0.25) < 0.01, "cue \(cueTone)")
        let mainMid = mainSpan.lowerBound + mainSpan.count / 2
        let cueMid = cueSpan.lowerBound + cueSpan.count / 2
        let cueInMain = Analysis.toneAmplitude(
            main[mainMid - 2_400..<mainMid + 2_400].map(Double.init)[...], frequency: 1_000, sampleRate: 48_000)
        let mainInCue = Analysis.toneAmplitude(
            cue[cueMid - 2_400..<cueMid + 2_400].map(Double.init)[...], frequency: 440, sampleRate: 48_000)
        #expect(cueInMain < 0.25 * 0.01 && mainInCue < 0.5 * 0.01, "cue in main \(cueInMain), main in cue \(mainInCue)")
        print("tutti play --bus-output (PipeWire): main \(mainTone), cue \(cueTone); stdout: \(play.stdout)")
    }
}
