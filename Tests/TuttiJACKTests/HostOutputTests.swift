import Foundation
import Glibc
import Testing
import Tutti
import TuttiTestSupport

/// `AudioEngine.startOutput` with the JACK backend, and what a lost server does to the policy
/// (issue 11.4): the route's device goes away, media pauses and does not resume by itself.
extension JACKTests {
    @Suite(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
    struct HostOutputTests {
        /// Poll the engine's events until `done` holds for what came so far (or `seconds` pass).
        func events(of engine: AudioEngine, within seconds: Double, until done: ([AudioEvent.Kind]) -> Bool) -> [AudioEvent.Kind] {
            var seen: [AudioEvent.Kind] = []
            let deadline = Date().addingTimeInterval(seconds)
            while !done(seen), Date() < deadline {
                seen += engine.pollEvents().map(\.kind)
                usleep(5_000)
            }
            return seen
        }

        @Test func aLostServerIsARouteChangeThatPausesMediaUntilPlayedAgain() throws {
            let server = try JACKServer()
            let engine = try AudioEngine()
            let music = try engine.makeSession(named: "music", category: .playback)
            let song = try music.makeToneSource(frequency: 440, amplitude: 0.5)
            try song.play()
            var output = OutputConfiguration()
            output.backend = .jack
            output.device = server.name
            try engine.startOutput(output)
            defer { engine.stopOutput() }
            #expect(engine.isOutputRunning)
            let warm = Date().addingTimeInterval(5)
            while engine.framesRendered < 24_000, Date() < warm { usleep(1_000) }
            #expect(engine.framesRendered >= 24_000, "JACK did not render")
            #expect(try song.state == .playing)
            _ = engine.pollEvents()

            server.kill(SIGKILL)
            let lost = events(of: engine, within: 5) { $0.contains { if case .deviceLost = $0 { true } else { false } } }
            let route = lost.firstIndex { $0 == .routeChanged(reason: .oldDeviceUnavailable, previous: .speaker, current: .speaker) }
            let device = lost.firstIndex { if case .deviceLost(device: "jack", _) = $0 { true } else { false } }
            #expect(route != nil && device != nil && route! < device!, "\(lost)")

            try server.start()
            let back = events(of: engine, within: 10) { $0.contains(.deviceRestored(device: "jack")) }
            #expect(back.contains(.routeChanged(reason: .newDeviceAvailable, previous: .speaker, current: .speaker)), "\(back)")
            #expect(back.contains(.deviceRestored(device: "jack")), "\(back)")
            // The pause was queued for the first block after the loss: rendering resumed with it.
            let resumed = engine.framesRendered
            let deadline = Date().addingTimeInterval(5)
            while engine.framesRendered < resumed + 4_800, Date() < deadline { usleep(1_000) }
            #expect(try song.state == .paused, "media resumed by itself after the device came back")
            try song.play()
            let replay = Date().addingTimeInterval(5)
            while (try? song.state) != .playing, Date() < replay { usleep(1_000) }
            #expect(try song.state == .playing)
        }

        @Test func jackSettingsAreCheckedBeforeAnythingStarts() throws {
            let engine = try AudioEngine()
            var output = OutputConfiguration()
            output.backend = .jack
            output.periodFrames = 256
            #expect(throws: TuttiError.self) { try engine.startOutput(output) }
            output.periodFrames = nil
            output.device = "tutti-no-such-server-\(getpid())"
            let error = try #require(throws: TuttiError.self) { try engine.startOutput(output) }
            #expect(error.code == .device && error.message.contains(output.device!), "\(error)")
            #expect(!engine.isOutputRunning)
            var block = [Float](repeating: 0, count: 512)
            #expect(
                block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frameCount: 256) },
                "pull render after a failed start")
        }
    }
}
