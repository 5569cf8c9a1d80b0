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

/// A signal-triggered ducking rule through the host API: the music's `duckingBegan` /
/// `duckingEnded` events come where the prompt's level crosses the threshold (window ends),
/// not at nav's activation; nav leaving while the prompt sounds ends the duck at that frame.
@Suite struct SignalDuckingEventTests {
    @Test func theEventsFollowThePromptsLevel() throws {
        let (engine, music, nav, song, prompt) = try makeEngine()
        try engine.setDuckingRules([
            DuckingRule(
                by: .session("nav"), duck: .session("music"),
                settings: DuckingSettings(levelDB: -12, attackSeconds: 0.01, releaseSeconds: 0.01),
                trigger: .signal(thresholdDB: -40, holdSeconds: 0.05))
        ])
        try music.setActive(true)
        try song.play()
        try nav.setActive(true)
        try prompt.play(at: .frame(4_800))
        try prompt.pause(at: .frame(9_600))
        try prompt.play(at: .frame(14_400))
        try nav.setActive(false, at: .frame(19_200))
        let x = render(engine, frames: 24_000)
        let events = engine.pollEvents().filter {
            switch $0.kind {
            case .duckingBegan, .duckingEnded: true
            default: false
            }
        }
        // The first window with the prompt ends at 5 280; silent from 10 080 (its 10 ms fade),
        // five windows spend the 50 ms hold at 12 480; again at 14 880; nav leaves at 19 200.
        #expect(
            events == [
                AudioEvent(frame: 5_280, kind: .duckingBegan(session: music.id, by: nav.id)),
                AudioEvent(frame: 12_480, kind: .duckingEnded(session: music.id)),
                AudioEvent(frame: 14_880, kind: .duckingBegan(session: music.id, by: nav.id)),
                AudioEvent(frame: 19_200, kind: .duckingEnded(session: music.id)),
            ], "\(events)")
        // Measured: ducked by 12 dB under the prompt, at unity between.
        let ducked = Analysis.dB(level(x, 6_000..<9_600, 440) / 0.5)
        let gap = Analysis.dB(level(x, 13_000..<14_400, 440) / 0.5)
        #expect(abs(ducked - -12) <= 0.1, "\(ducked) dB")
        #expect(abs(gap) <= 0.1, "\(gap) dB")
    }
}
