import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiJACK
import TuttiTestSupport

/// A two-route engine as a JACK client: port groups `main_1/2` and `cue_1/2`, each carrying
/// its own route. Two recorders, one per group, measured by tone level.
extension JACKTests {
    @Suite(.enabled(if: JACKServer.isAvailable, JACKServer.skipReason))
    struct JACKRouteTests {
        @Test func eachRouteHasItsOwnPortGroup() throws {
            let server = try JACKServer()
            var config = EngineConfiguration()
            config.routes = ["main", "cue"]
            let engine = try Engine(configuration: config)
            let bus = try engine.addBus()
            let deck = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: bus, loop: true)
            let preview = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.25), bus: bus, loop: true)
            try engine.send(.setRoute(preview, route: 1))
            try engine.send(.play(deck))
            try engine.send(.play(preview))

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
            while !finished, Date() < deadline { finished = output.waitUntilFinished(timeout: 0.01) }
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
    }
}
