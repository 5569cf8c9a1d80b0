import Foundation
import Testing
import Tutti
import TuttiTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Events reach the host once rendering has passed their frame, in frame order, each once,
/// by polling, as an AsyncStream, or through a file descriptor for event loops.
@Suite struct EventTests {
    /// Decisions at frames 100, 200 and 300 of a music session that plays.
    func scenario() throws -> (AudioEngine, SessionHandle) {
        let (engine, music, _, song, _) = try makeEngine()
        try music.setActive(true)
        try song.play()
        try engine.setRoute(.headphones, at: .frame(300))
        try engine.beginPhoneCall(at: .frame(100))
        try engine.endPhoneCall(at: .frame(200))
        return (engine, music)
    }

    func policyEvents(_ events: [AudioEvent]) -> [AudioEvent] {
        events.filter { if case .silenceSecondaryAudioHint = $0.kind { false } else { true } }
    }

    @Test func deliveredAfterRenderingPassesThemInFrameOrderAndOnce() throws {
        let (engine, music) = try scenario()
        #expect(policyEvents(engine.pollEvents()).isEmpty) // nothing rendered yet
        _ = render(engine, frames: 150, block: 150)
        #expect(
            policyEvents(engine.pollEvents()) == [
                AudioEvent(frame: 100, kind: .interruptionBegan(session: music.id, reason: .phoneCall, by: nil))
            ])
        _ = render(engine, frames: 512)
        #expect(
            policyEvents(engine.pollEvents()) == [
                AudioEvent(frame: 200, kind: .interruptionEnded(session: music.id, shouldResume: true)),
                AudioEvent(frame: 300, kind: .routeChanged(reason: .newDeviceAvailable, previous: .speaker, current: .headphones)),
            ])
        #expect(engine.pollEvents().isEmpty)
    }

    @Test func streamsGetTheSameEventsInTheSameOrder() async throws {
        let (engine, music) = try scenario()
        let stream = engine.events()
        _ = render(engine, frames: 1_024)
        var got: [AudioEvent] = []
        for await e in stream {
            if case .silenceSecondaryAudioHint = e.kind { continue }
            got.append(e)
            if got.count == 3 { break }
        }
        #expect(got.map(\.frame) == [100, 200, 300])
        #expect(got.first?.kind == .interruptionBegan(session: music.id, reason: .phoneCall, by: nil))
    }

    @Test func theFileDescriptorIsReadableWhileEventsWait() throws {
        let (engine, _) = try scenario()
        let fd = try engine.eventFileDescriptor()
        func readable(timeoutMilliseconds: Int32) -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, timeoutMilliseconds) == 1 && p.revents & Int16(POLLIN) != 0
        }
        _ = engine.pollEvents()
        #expect(!readable(timeoutMilliseconds: 20))
        _ = render(engine, frames: 1_024)
        // The library's thread notices within a few milliseconds.
        #expect(readable(timeoutMilliseconds: 1_000))
        #expect(!engine.pollEvents().isEmpty)
        #expect(!readable(timeoutMilliseconds: 20))
    }

    @Test func endsInterruptionsDucksAndRoutesAllArrive() throws {
        let (engine, music, nav, song, prompt) = try makeEngine()
        try music.setActive(true)
        try song.play()
        try nav.setActive(true, at: .frame(1_000))
        try prompt.play(at: .frame(1_000))
        try nav.setActive(false, options: .notifyOthersOnDeactivation, at: .frame(2_000))
        _ = render(engine, frames: 4_096)
        let kinds = policyEvents(engine.pollEvents()).map(\.kind)
        #expect(kinds == [.duckingBegan(session: music.id, by: nav.id), .duckingEnded(session: music.id)])
        _ = prompt
    }
}
