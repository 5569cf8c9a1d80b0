import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiJACK
import TuttiOutput
import TuttiTestSupport

/// A two-route engine as a JACK client: port groups `main_1/2` and `cue_1/2`, each carrying
/// its own route. Two recorders, one per group, measured by tone level.
extension JACKTests {
    @Suite(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
    struct JACKRouteTests {
        @Test func eachRouteHasItsOwnPortGroup() throws {
            let server = try JACKServer()
            let (engine, _, _) = try twoRouteToneEngine()

            let frames = 48_000
            let main = try Recorder(server: server.name, name: "recmain", seconds: 4)
            let cue = try Recorder(server: server.name, name: "reccue", seconds: 4)
            let output = try JACKOutput(
                engine: engine, configuration: JACKOutputConfiguration(serverName: server.name, connection: .ports(main.portNames)),
                log: { _ in })
            try output.start(frameLimit: Int64(frames))
            let client = output.negotiated.clientName
            #expect(cue.connect("\(client):cue_1", toChannel: 1))
            #expect(cue.connect("\(client):cue_2", toChannel: 2))
            let deadline = Date().addingTimeInterval(10)
            var finished = false
            while !finished, Date() < deadline { finished = output.waitUntilFinished(timeoutSeconds: 0.01) }
            output.stop(drain: true)
            main.close()
            cue.close()
            #expect(finished)

            /// The level of `frequency` on the left channel over the loudest 0.25 s stretch.
            func level(_ r: Recorder, _ frequency: Double) -> Double {
                let recording = r.recording
                let left = stride(from: 0, to: recording.count, by: 2).map { Double(recording[$0]) }
                var best = 0.0
                var start = 0
                while start + 12_000 <= left.count {
                    best = max(best, Analysis.toneAmplitude(left[start..<start + 12_000], frequency: frequency, sampleRate: 48_000))
                    start += 6_000
                }
                return best
            }
            #expect(abs(level(main, 440) - 0.5) < 0.02)
            #expect(level(main, 1_000) < 1e-3)
            #expect(abs(level(cue, 1_000) - 0.25) < 0.02)
            #expect(level(cue, 440) < 1e-3)
        }

        /// The level of `own` on the left channel over its loudest 0.25 s stretch, and of
        /// `other` over the same stretch (steady tone: no onset in it to leak).
        static func levels(_ r: Recorder, own: Double, other: Double) -> (own: Double, other: Double) {
            let recording = r.recording
            let left = stride(from: 0, to: recording.count, by: 2).map { Double(recording[$0]) }
            var best = (0.0, 0.0)
            var start = 0
            while start + 12_000 <= left.count {
                let window = left[start..<start + 12_000]
                let level = Analysis.toneAmplitude(window, frequency: own, sampleRate: 48_000)
                if level > best.0 { best = (level, Analysis.toneAmplitude(window, frequency: other, sampleRate: 48_000)) }
                start += 6_000
            }
            return best
        }

        /// `tutti play --bus-output NAME=PORTS`: each output bus's group goes to its own recorder, checked
        /// like `--connect` (a port that is not there: exit 1 naming it; an unknown bus: 64).
        @Test(.enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle"))
        func playRouteConnectsEachGroup() throws {
            let server = try JACKServer()
            let dir = makeTemporaryFolder("tutti-jroute")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            try """
            {"engine": {"sampleRate": 48000, "channels": 2, "outputBuses": ["main", "cue"]},
             "duration": 1,
             "sessions": [{"id": "dj", "category": "multiRoute"}],
             "sources": [{"id": "deck", "session": "dj", "tone": {"frequency": 440, "amplitude": 0.5}},
                         {"id": "preview", "session": "dj", "outputBus": "cue", "tone": {"frequency": 1000, "amplitude": 0.25}}],
             "events": [{"at": 0, "session": "dj", "action": "activate"},
                        {"at": 0, "source": "deck", "action": "play"}, {"at": 0, "source": "preview", "action": "play"}]}
            """.write(toFile: scenePath, atomically: true, encoding: .utf8)

            let main = try Recorder(server: server.name, name: "recmain", seconds: 12)
            let cue = try Recorder(server: server.name, name: "reccue", seconds: 12)
            // Bad destinations first (the recorders' ports must exist for the checks to reach
            // the bad one).
            let missing = try server.run(
                [Tool.tutti!, "play", scenePath, "--backend", "jack", "--bus-output", "cue=reccue:in_1,nope:in_9"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("output bus cue (reccue:in_1,nope:in_9): no JACK port \"nope:in_9\""), "\(missing.stderr)")
            let count = try server.run([Tool.tutti!, "play", scenePath, "--backend", "jack", "--bus-output", "cue=reccue:in_1"])
            #expect(count.status == 1)
            #expect(count.stderr.contains("1 port to connect for 2 output channels"), "\(count.stderr)")
            let unknown = try server.run([Tool.tutti!, "play", scenePath, "--backend", "jack", "--bus-output", "booth=reccue:in_1"])
            #expect(unknown.status == 64)
            #expect(unknown.stderr.contains("the scene has no output bus \"booth\" (engine.outputBuses: main, cue)"), "\(unknown.stderr)")
            let both = try server.run(
                [Tool.tutti!, "play", scenePath, "--backend", "jack", "--no-connect", "--bus-output", "main=reccue:in_1,reccue:in_2"])
            #expect(both.status == 64)
            let play = try server.run(
                [
                    Tool.tutti!, "play", scenePath, "--backend", "jack", "--bus-output", "main=recmain:in_1,recmain:in_2",
                    "--bus-output", "cue=reccue:in_1,reccue:in_2",
                ])
            main.close()
            cue.close()
            print("tutti play --backend jack --bus-output: \(play.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
            #expect(play.status == 0, "\(play.stderr)")
            #expect(play.stdout.contains("played 1.00 s in "))
            #expect(play.stdout.contains("; output bus cue on \"reccue:in_1,reccue:in_2\": "), "\(play.stdout)")
            #expect(!play.stdout.contains("(unconnected)"), "\(play.stdout)")
            let m = JACKRouteTests.levels(main, own: 440, other: 1_000)
            let c = JACKRouteTests.levels(cue, own: 1_000, other: 440)
            print("JACK --bus-output levels: main 440 Hz \(m.own), 1 kHz \(m.other); cue 1 kHz \(c.own), 440 Hz \(c.other)")
            #expect(abs(m.own - 0.5) < 0.005)
            #expect(m.other < 1e-4)
            #expect(abs(c.own - 0.25) < 0.0025)
            #expect(c.other < 1e-4)

        }
    }
}
