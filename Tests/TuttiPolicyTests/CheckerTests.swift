import Testing
import TuttiPolicy

// The property checkers must be able to fail: each gets a real trace (no violation)
// and the same trace broken in one place (at least one violation).

@Suite("the property checkers catch broken traces")
struct CheckerTests {
    func trace(_ sessions: [String], _ actions: [PolicyAction]) -> Trace {
        Trace(makeState(sessions), actions)
    }

    @Test("ducks: a duck that outlives its ducker")
    func ducks() {
        var t = trace(["music", "nav"], [.play(source: "song"), .activate(session: "nav"), .deactivate(session: "nav")])
        #expect(Checks.ducks(t).isEmpty)
        #expect(t.steps[2].outcome.journal.contains(.duckingEnded(session: "music")))
        t.steps[2].outcome.journal.removeAll { $0 == .duckingEnded(session: "music") }
        #expect(!Checks.ducks(t).isEmpty)
    }

    @Test("call: a session heard during the call")
    func call() {
        var t = trace(["music"], [.play(source: "song"), .phoneCallBegin])
        #expect(Checks.call(t).isEmpty)
        t.steps[1].afterView.sessions[0].state = .audible
        #expect(!Checks.call(t).isEmpty)
    }

    @Test("mic: a muted session that restarts by itself")
    func mic() {
        var t = trace(["voip"], [.play(source: "voice"), .micMuted(true), .micMuted(false)])
        #expect(Checks.micMuted(t).isEmpty)
        t.steps[2].outcome.journal.append(.sourceStarted(source: "voice", reason: .resume))
        #expect(!Checks.micMuted(t).isEmpty)
    }

    @Test("interruptions: an end without a beginning, and a beginning without an end")
    func interruptions() {
        let good = trace(
            ["music", "podcast"],
            [
                .play(source: "song"), .play(source: "episode"),
                .deactivate(session: "podcast", notifyOthers: true),
            ])
        #expect(Checks.interruptions(good).isEmpty)
        var doubled = good
        doubled.steps[2].outcome.journal.append(.interruptionEnded(session: "music", shouldResume: true))
        #expect(!Checks.interruptions(doubled).isEmpty)
        var lost = good
        lost.steps[2].outcome.journal.removeAll { $0 == .interruptionEnded(session: "music", shouldResume: true) }
        #expect(!Checks.interruptions(lost).isEmpty)
    }

    @Test("remote: a command sent to a session that did not list it, or pausing another session")
    func remote() {
        let good = trace(["music", "amb"], [.play(source: "song"), .play(source: "rain"), .remote(.pause)])
        #expect(Checks.remote(good).isEmpty)
        var wrongTarget = good
        wrongTarget.steps[2].outcome.journal[0] = .remoteCommand(command: .pause, session: "amb")
        #expect(!Checks.remote(wrongTarget).isEmpty)
        var collateral = good
        collateral.steps[2].outcome.journal.append(.sourcePaused(source: "rain", reason: .remoteCommand))
        #expect(!Checks.remote(collateral).isEmpty)
    }

    @Test("volume: a reported value that is not the new volume")
    func volume() {
        var t = trace(["music"], [.play(source: "song"), .volumeDown])
        #expect(Checks.volume(t).isEmpty)
        t.steps[1].outcome.journal = [.volumeChanged(target: .system, value: 0.5)]
        #expect(!Checks.volume(t).isEmpty)
    }

    @Test("coherence: silenced twice, and a view that is not the state's")
    func coherence() {
        let good = trace(["amb"], [.play(source: "rain"), .silentSwitch(true)])
        #expect(Checks.coherence(good).isEmpty)
        var twice = good
        twice.steps[1].outcome.journal.append(.silenced(session: "amb", reason: .locked))
        #expect(!Checks.coherence(twice).isEmpty)
        var stale = good
        stale.steps[1].afterView.systemVolume = 0.5
        #expect(!Checks.coherence(stale).isEmpty)
    }
}
