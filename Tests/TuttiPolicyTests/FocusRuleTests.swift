import Testing
import TuttiPolicy

// Policy beyond both phones (issue 22): focus requests, pause instead of duck, delayed grants.
// Every case checks the journal of one action and what a listener would hear (the render
// view's gate and duck per session).

/// Sessions of these tests, each with one source "<id>.x".
let focusSessions: [String: SessionConfiguration] = [
    "music": SessionConfiguration(id: "music", category: .playback, playbackControls: true, remoteCommands: allRemote),
    "radio": SessionConfiguration(id: "radio", category: .playback),
    "amb": SessionConfiguration(id: "amb", category: .ambient),
    "nav": SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers]),
    "prompt": SessionConfiguration(
        id: "prompt", category: .playback,
        ducking: DuckingSettings(levelDB: -24, attackSeconds: 0.02, releaseSeconds: 0.2)),
    "alert": SessionConfiguration(id: "alert", category: .playback),
    "book": SessionConfiguration(
        id: "book", category: .playback, options: [.mixWithOthers], playbackControls: true, remoteCommands: [.play, .pause],
        pausesWhenDucked: true),
    "talk": SessionConfiguration(id: "talk", category: .playback, options: [.mixWithOthers], content: .speech),
    "rec": SessionConfiguration(id: "rec", category: .record),
    "game": SessionConfiguration(id: "game", acceptsDelayedActivation: true),
    "player": SessionConfiguration(id: "player", category: .playback, acceptsDelayedActivation: true),
    "bgPlayer": SessionConfiguration(id: "bgPlayer", category: .playback, foreground: false),
    "reader": SessionConfiguration(id: "reader", accessibility: true),
]

func focusWorld(_ ids: [String]) -> PolicyState {
    do {
        return try PolicyState(
            sessions: ids.map { focusSessions[$0]! }, sources: ids.map { SourceConfiguration(id: "\($0).x", session: $0) })
    } catch {
        fatalError("focus fixture does not validate: \(error)")
    }
}

/// The engine default duck level as a gain.
let engineDuckGain = DuckingSettings.default.linearGain

/// One row: a world, a setup, one action, its exact journal, then gates and ducks.
struct FocusCase: Sendable, CustomTestStringConvertible {
    var name: String
    var sessions: [String]
    var given: [PolicyAction] = []
    var when: PolicyAction
    var journal: [JournalEntry]
    var error: PolicyError? = nil
    /// `policyGain` of sessions after `when` (1 audible, the duck level, 0 otherwise).
    var gains: [String: Double] = [:]
    /// Who ducks each session after `when` ("" for nobody).
    var duckedBy: [String: String] = [:]
    /// Render states after `when`.
    var states: [String: SessionRenderState] = [:]
    var systemSoundsAllowed: Bool? = nil

    var testDescription: String { name }
}

@discardableResult
func checkFocus(_ c: FocusCase, sourceLocation: SourceLocation = #_sourceLocation) -> PolicyState {
    var state = focusWorld(c.sessions)
    applyGiven(c.given, to: &state, caseName: c.name, sourceLocation: sourceLocation)
    let before = state
    let outcome = state.apply(c.when)
    #expect(outcome.journal == c.journal, "journal of '\(c.name)'", sourceLocation: sourceLocation)
    #expect(outcome.error == c.error, "error of '\(c.name)'", sourceLocation: sourceLocation)
    if c.error != nil { #expect(state == before, "refused but changed ('\(c.name)')", sourceLocation: sourceLocation) }
    let view = state.renderView
    for (id, gain) in c.gains.sorted(by: { $0.key < $1.key }) {
        let g = view.session(id)?.policyGain ?? -1
        #expect(abs(g - gain) < 1e-12, "gain of \(id) in '\(c.name)': \(g)", sourceLocation: sourceLocation)
    }
    for (id, by) in c.duckedBy.sorted(by: { $0.key < $1.key }) {
        #expect((view.session(id)?.duckedBy ?? "") == by, "ducker of \(id) in '\(c.name)'", sourceLocation: sourceLocation)
    }
    for (id, s) in c.states.sorted(by: { $0.key < $1.key }) {
        #expect(view.session(id)?.state == s, "state of \(id) in '\(c.name)'", sourceLocation: sourceLocation)
    }
    if let allowed = c.systemSoundsAllowed {
        #expect(view.systemSoundsAllowed == allowed, "system sounds in '\(c.name)'", sourceLocation: sourceLocation)
    }
    return state
}

@Suite("focus requests on activation")
struct FocusRequestTests {
    @Test(
        "focus: transient, transientMayDuck and transientExclusive against gain",
        arguments: [
            FocusCase(
                name: "gain (the default) interrupts a playing player, not transiently", sessions: ["music", "alert"],
                given: [.play(source: "music.x")], when: .activate(session: "alert", focus: .gain),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "alert"),
                    .sourcePaused(source: "music.x", reason: .interruption),
                ],
                gains: ["music": 0, "alert": 1], states: ["music": .interrupted]),
            FocusCase(
                name: "transient interrupts like gain, marked transient", sessions: ["music", "alert"],
                given: [.play(source: "music.x")], when: .activate(session: "alert", focus: .transient),
                journal: [
                    .sessionActivated(session: "alert", category: .playback, focus: .transient),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "alert", transient: true),
                    .sourcePaused(source: "music.x", reason: .interruption),
                ],
                gains: ["music": 0, "alert": 1], states: ["music": .interrupted]),
            FocusCase(
                name: "transient, like gain, leaves mixable sessions alone", sessions: ["amb", "alert"],
                given: [.play(source: "amb.x")], when: .activate(session: "alert", focus: .transient),
                journal: [.sessionActivated(session: "alert", category: .playback, focus: .transient)],
                gains: ["amb": 1, "alert": 1]),
            FocusCase(
                name: "gain: deactivating without notifyOthers gives no resume (a media player stays paused)",
                sessions: ["music", "alert"], given: [.play(source: "music.x"), .activate(session: "alert")],
                when: .deactivate(session: "alert"),
                journal: [
                    .sessionDeactivated(session: "alert", notifyOthers: false),
                    .interruptionEnded(session: "music", shouldResume: false),
                ],
                gains: ["music": 0], states: ["music": .inactive]),
            FocusCase(
                name: "transient: deactivating without notifyOthers still says shouldResume, and the player resumes",
                sessions: ["music", "alert"], given: [.play(source: "music.x"), .activate(session: "alert", focus: .transient)],
                when: .deactivate(session: "alert"),
                journal: [
                    .sessionDeactivated(session: "alert", notifyOthers: false),
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "music.x", reason: .resume),
                ],
                gains: ["music": 1, "alert": 0], states: ["music": .audible]),
            FocusCase(
                name: "transientMayDuck interrupts nobody and ducks every other audible session, non-mixable ones too",
                sessions: ["music", "amb", "alert"], given: [.play(source: "music.x"), .play(source: "amb.x")],
                when: .activate(session: "alert", focus: .transientMayDuck),
                journal: [
                    .sessionActivated(session: "alert", category: .playback, focus: .transientMayDuck),
                    .duckingBegan(session: "music", by: "alert", rule: .engine),
                    .duckingBegan(session: "amb", by: "alert", rule: .engine),
                ],
                gains: ["music": engineDuckGain, "amb": engineDuckGain, "alert": 1],
                duckedBy: ["music": "alert", "amb": "alert", "alert": ""]),
            FocusCase(
                name: "transientMayDuck with its own ducking settings ducks to its level", sessions: ["music", "prompt"],
                given: [.play(source: "music.x")], when: .activate(session: "prompt", focus: .transientMayDuck),
                journal: [
                    .sessionActivated(session: "prompt", category: .playback, focus: .transientMayDuck),
                    .duckingBegan(session: "music", by: "prompt", rule: .session),
                ],
                gains: ["music": DuckingSettings(levelDB: -24, attackSeconds: 0, releaseSeconds: 0).linearGain, "prompt": 1]),
            FocusCase(
                name: "transientMayDuck ends: the duck ends, nothing was interrupted so nothing resumes",
                sessions: ["music", "alert"], given: [.play(source: "music.x"), .activate(session: "alert", focus: .transientMayDuck)],
                when: .deactivate(session: "alert"),
                journal: [.sessionDeactivated(session: "alert", notifyOthers: false), .duckingEnded(session: "music")],
                gains: ["music": 1], duckedBy: ["music": ""]),
            FocusCase(
                name: "transientExclusive interrupts every other session, mixable ones included, and suppresses system sounds",
                sessions: ["music", "amb", "nav", "alert"],
                given: [.play(source: "music.x"), .play(source: "amb.x"), .activate(session: "nav")],
                when: .activate(session: "alert", focus: .transientExclusive),
                journal: [
                    .sessionActivated(session: "alert", category: .playback, focus: .transientExclusive),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "alert", transient: true),
                    .sourcePaused(source: "music.x", reason: .interruption),
                    .interruptionBegan(session: "amb", reason: .otherSession, by: "alert", transient: true),
                    .sourcePaused(source: "amb.x", reason: .interruption),
                    .interruptionBegan(session: "nav", reason: .otherSession, by: "alert", transient: true),
                    .duckingEnded(session: "music"),
                    .duckingEnded(session: "amb"),
                ],
                gains: ["music": 0, "amb": 0, "nav": 0, "alert": 1], systemSoundsAllowed: false),
            FocusCase(
                name: "transientExclusive: a system sound is suppressed", sessions: ["music", "alert"],
                given: [.activate(session: "alert", focus: .transientExclusive)], when: .systemSound(name: "click"),
                journal: [.systemSoundSuppressed(sound: "click", reason: .transientExclusive)], systemSoundsAllowed: false),
            FocusCase(
                name: "transientExclusive ends: everything resumes (shouldResume), system sounds play again",
                sessions: ["music", "amb", "alert"],
                given: [.play(source: "music.x"), .play(source: "amb.x"), .activate(session: "alert", focus: .transientExclusive)],
                when: .deactivate(session: "alert"),
                journal: [
                    .sessionDeactivated(session: "alert", notifyOthers: false),
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "music.x", reason: .resume),
                    .interruptionEnded(session: "amb", shouldResume: true),
                    .sessionActivated(session: "amb", category: .ambient),
                    .sourceStarted(source: "amb.x", reason: .resume),
                ],
                gains: ["music": 1, "amb": 1, "alert": 0], systemSoundsAllowed: true),
            FocusCase(
                name: "from the background, transientMayDuck may start over a playing player (it interrupts nobody)",
                sessions: ["music", "bgPlayer"], given: [.play(source: "music.x")],
                when: .activate(session: "bgPlayer", focus: .transientMayDuck),
                journal: [
                    .sessionActivated(session: "bgPlayer", category: .playback, focus: .transientMayDuck),
                    .duckingBegan(session: "music", by: "bgPlayer", rule: .engine),
                ],
                gains: ["music": engineDuckGain]),
            FocusCase(
                name: "from the background, transient is refused over a playing player, as gain is",
                sessions: ["music", "bgPlayer"], given: [.play(source: "music.x")],
                when: .activate(session: "bgPlayer", focus: .transient),
                journal: [
                    .activationFailed(
                        session: "bgPlayer", error: .cannotInterruptOthers(session: "bgPlayer", playing: "music"))
                ],
                error: .cannotInterruptOthers(session: "bgPlayer", playing: "music"), gains: ["music": 1]),
        ])
    func focus(_ c: FocusCase) { checkFocus(c) }

    @Test("a ducking rule sets the level of a transientMayDuck duck, and the journal names the rule")
    func mayDuckFollowsRules() {
        var state = focusWorld(["music", "alert"])
        run(
            &state,
            [
                .setDuckingRules([rule(.session("alert"), .category(.playback), -30)]), .play(source: "music.x"),
            ])
        let journal = run(&state, [.activate(session: "alert", focus: .transientMayDuck)])
        #expect(journal.last == .duckingBegan(session: "music", by: "alert", rule: .rule(0)))
        #expect(state.renderView.session("music")?.duck?.levelDB == -30)
        #expect(state.session("alert")?.focus == .transientMayDuck)
        // Deactivated, the focus is gain again: a plain play interrupts the player.
        run(&state, [.deactivate(session: "alert")])
        #expect(state.session("alert")?.focus == .gain)
        let again = run(&state, [.play(source: "alert.x")])
        #expect(again.contains(.interruptionBegan(session: "music", reason: .otherSession, by: "alert")))
    }

    @Test("an interrupted session resumes with the focus it had: a transientMayDuck session ducks again after a call")
    func focusSurvivesInterruption() {
        // (A non-mixable player resuming after the call would interrupt it by rule 2.1: an ambient one does not.)
        var state = focusWorld(["amb", "alert"])
        run(&state, [.play(source: "amb.x"), .activate(session: "alert", focus: .transientMayDuck), .play(source: "alert.x")])
        run(&state, [.phoneCallBegin])
        let journal = run(&state, [.phoneCallEnd])
        #expect(journal.contains(.sessionActivated(session: "alert", category: .playback, focus: .transientMayDuck)))
        #expect(journal.last == .duckingBegan(session: "amb", by: "alert", rule: .engine))
        #expect(state.renderView.session("amb")?.duckedBy == "alert")
        #expect(state.renderView.session("amb")?.policyGain == engineDuckGain)
    }

    @Test("journal fields: focus and transient are written only when they say something")
    func fields() {
        #expect(JournalEntry.sessionActivated(session: "a", category: .playback).fields.map(\.key) == ["session", "category"])
        #expect(
            JournalEntry.sessionActivated(session: "a", category: .playback, focus: .transientMayDuck).fields.map(\.key)
                == ["session", "category", "focus"])
        #expect(
            JournalEntry.sessionActivated(session: "a", category: .playback, focus: .transient).fields.last?.value
                == .string("transient"))
        #expect(JournalEntry.interruptionBegan(session: "a", reason: .otherSession, by: "b").fields.count == 3)
        let transient = JournalEntry.interruptionBegan(session: "a", reason: .otherSession, by: "b", transient: true).fields
        #expect(transient.map(\.key) == ["session", "reason", "by", "transient"] && transient.last?.value == .bool(true))
        #expect(FocusRequest.allCases.map(\.rawValue) == ["gain", "transient", "transientMayDuck", "transientExclusive"])
    }
}

@Suite("pause instead of duck")
struct PauseInsteadOfDuckTests {
    @Test(
        "pausesWhenDucked / content speech: interrupted (reason ducked) instead of ducked, resumed when the duck ends",
        arguments: [
            FocusCase(
                name: "a duckOthers session pauses the audiobook and ducks the music", sessions: ["book", "amb", "nav"],
                given: [.play(source: "book.x"), .play(source: "amb.x")], when: .activate(session: "nav"),
                journal: [
                    .sessionActivated(session: "nav", category: .playback),
                    .interruptionBegan(session: "book", reason: .ducked, by: "nav"),
                    .sourcePaused(source: "book.x", reason: .interruption),
                    .duckingBegan(session: "amb", by: "nav", rule: .engine),
                ],
                gains: ["book": 0, "amb": engineDuckGain], duckedBy: ["book": "", "amb": "nav"],
                states: ["book": .interrupted]),
            FocusCase(
                name: "the duck ends: the audiobook resumes (shouldResume), the music comes back up",
                sessions: ["book", "amb", "nav"],
                given: [.play(source: "book.x"), .play(source: "amb.x"), .activate(session: "nav")],
                when: .deactivate(session: "nav"),
                journal: [
                    .sessionDeactivated(session: "nav", notifyOthers: false),
                    .interruptionEnded(session: "book", shouldResume: true),
                    .sessionActivated(session: "book", category: .playback),
                    .sourceStarted(source: "book.x", reason: .resume),
                    .duckingEnded(session: "amb"),
                ],
                gains: ["book": 1, "amb": 1], states: ["book": .audible]),
            FocusCase(
                name: "content speech implies it", sessions: ["talk", "nav"], given: [.play(source: "talk.x")],
                when: .activate(session: "nav"),
                journal: [
                    .sessionActivated(session: "nav", category: .playback),
                    .interruptionBegan(session: "talk", reason: .ducked, by: "nav"),
                    .sourcePaused(source: "talk.x", reason: .interruption),
                ],
                gains: ["talk": 0], duckedBy: ["talk": ""]),
            FocusCase(
                name: "a transientMayDuck request pauses it too", sessions: ["book", "alert"], given: [.play(source: "book.x")],
                when: .activate(session: "alert", focus: .transientMayDuck),
                journal: [
                    .sessionActivated(session: "alert", category: .playback, focus: .transientMayDuck),
                    .interruptionBegan(session: "book", reason: .ducked, by: "alert"),
                    .sourcePaused(source: "book.x", reason: .interruption),
                ],
                gains: ["book": 0, "alert": 1]),
            FocusCase(
                name: "played while a ducker is active: it starts and pauses at once, never heard ducked",
                sessions: ["book", "nav"], given: [.activate(session: "nav")], when: .play(source: "book.x"),
                journal: [
                    .sessionActivated(session: "book", category: .playback),
                    .sourceStarted(source: "book.x", reason: .play),
                    .interruptionBegan(session: "book", reason: .ducked, by: "nav"),
                    .sourcePaused(source: "book.x", reason: .interruption),
                ],
                gains: ["book": 0], duckedBy: ["book": ""], states: ["book": .interrupted]),
            FocusCase(
                name: "not pausing: the same session is ducked as before", sessions: ["radio", "nav"],
                given: [.play(source: "radio.x")], when: .activate(session: "nav"),
                journal: [
                    .sessionActivated(session: "nav", category: .playback),
                    .duckingBegan(session: "radio", by: "nav", rule: .engine),
                ],
                gains: ["radio": engineDuckGain]),
        ])
    func pauses(_ c: FocusCase) { checkFocus(c) }

    @Test("a call over a duck-paused session: it comes back only when both are over, and is never heard ducked")
    func callOverDuckPause() {
        var state = focusWorld(["book", "nav"])
        run(&state, [.play(source: "book.x"), .play(source: "nav.x")])
        #expect(state.session("book")?.phase == .interrupted)
        // The call interrupts nav; book is held by the call now (the duck is gone): no entry for it.
        let begin = run(&state, [.phoneCallBegin])
        #expect(
            begin == [
                .interruptionBegan(session: "nav", reason: .phoneCall, by: nil), .sourcePaused(source: "nav.x", reason: .interruption),
            ])
        #expect(state.session("book")?.interruption?.causes == [.phoneCall])
        // The call ends: book (registered first) resumes, then nav resumes and pauses it again.
        let end = run(&state, [.phoneCallEnd])
        #expect(
            end == [
                .interruptionEnded(session: "book", shouldResume: true),
                .sessionActivated(session: "book", category: .playback),
                .sourceStarted(source: "book.x", reason: .resume),
                .interruptionEnded(session: "nav", shouldResume: true),
                .sessionActivated(session: "nav", category: .playback),
                .sourceStarted(source: "nav.x", reason: .resume),
                .interruptionBegan(session: "book", reason: .ducked, by: "nav"),
                .sourcePaused(source: "book.x", reason: .interruption),
            ])
        #expect(state.renderView.session("book")?.policyGain == 0)
        // nav goes: book resumes.
        let done = run(&state, [.deactivate(session: "nav")])
        #expect(done.contains(.sourceStarted(source: "book.x", reason: .resume)))
    }
}

@Suite("delayed activation grants")
struct DelayedActivationTests {
    @Test(
        "acceptsDelayedActivation: during a call the activation waits instead of failing",
        arguments: [
            FocusCase(
                name: "activate during a call: delayed, nothing else changes", sessions: ["music", "player"],
                given: [.play(source: "music.x"), .phoneCallBegin], when: .activate(session: "player"),
                journal: [.activationDelayed(session: "player", reason: .phoneCall)],
                gains: ["music": 0, "player": 0], states: ["player": .inactive, "music": .interrupted]),
            FocusCase(
                name: "play during a call: delayed (once)", sessions: ["player"],
                given: [.phoneCallBegin], when: .play(source: "player.x"),
                journal: [.activationDelayed(session: "player", reason: .phoneCall)], states: ["player": .inactive]),
            FocusCase(
                name: "play again while delayed: nothing new", sessions: ["player"],
                given: [.phoneCallBegin, .activate(session: "player")], when: .play(source: "player.x"),
                journal: []),
            FocusCase(
                name: "the call ends: after its interruptions end, the grant activates and plays what was asked",
                sessions: ["amb", "player"],
                given: [.play(source: "amb.x"), .phoneCallBegin, .play(source: "player.x")], when: .phoneCallEnd,
                journal: [
                    .interruptionEnded(session: "amb", shouldResume: true),
                    .sessionActivated(session: "amb", category: .ambient),
                    .sourceStarted(source: "amb.x", reason: .resume),
                    .activationGranted(session: "player"),
                    .sessionActivated(session: "player", category: .playback),
                    .sourceStarted(source: "player.x", reason: .play),
                ],
                gains: ["amb": 1, "player": 1]),
            FocusCase(
                name: "the grant interrupts a resumed non-mixable player, as an activation would",
                sessions: ["music", "player"],
                given: [.play(source: "music.x"), .phoneCallBegin, .play(source: "player.x")], when: .phoneCallEnd,
                journal: [
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "music.x", reason: .resume),
                    .activationGranted(session: "player"),
                    .sessionActivated(session: "player", category: .playback),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "player"),
                    .sourcePaused(source: "music.x", reason: .interruption),
                    .sourceStarted(source: "player.x", reason: .play),
                ],
                gains: ["music": 0, "player": 1]),
            FocusCase(
                name: "deactivated while delayed: cancelled", sessions: ["player"],
                given: [.phoneCallBegin, .play(source: "player.x")], when: .deactivate(session: "player"),
                journal: [.activationCancelled(session: "player")]),
            FocusCase(
                name: "a cancelled grant never comes", sessions: ["player"],
                given: [.phoneCallBegin, .play(source: "player.x"), .deactivate(session: "player")], when: .phoneCallEnd,
                journal: [], gains: ["player": 0]),
            FocusCase(
                name: "a source paused while delayed does not start at the grant", sessions: ["player"],
                given: [.phoneCallBegin, .play(source: "player.x"), .pause(source: "player.x")], when: .phoneCallEnd,
                journal: [.activationGranted(session: "player"), .sessionActivated(session: "player", category: .playback)],
                gains: ["player": 1]),
            FocusCase(
                name: "the grant keeps the focus asked for", sessions: ["music", "player"],
                given: [.phoneCallBegin, .activate(session: "player", focus: .transientMayDuck)], when: .phoneCallEnd,
                journal: [
                    .activationGranted(session: "player"),
                    .sessionActivated(session: "player", category: .playback, focus: .transientMayDuck),
                ]),
            FocusCase(
                name: "without acceptsDelayedActivation: refused as before", sessions: ["music"],
                given: [.phoneCallBegin], when: .activate(session: "music"),
                journal: [.activationFailed(session: "music", error: .insufficientPriority(session: "music"))],
                error: .insufficientPriority(session: "music")),
        ])
    func delayed(_ c: FocusCase) { checkFocus(c) }

    @Test("grants come in the order asked, each once")
    func order() {
        var state = focusWorld(["game", "player"])
        run(&state, [.phoneCallBegin, .play(source: "player.x"), .play(source: "game.x")])
        #expect(state.delayedActivations == ["player", "game"])
        let end = run(&state, [.phoneCallEnd])
        #expect(
            end.filter { if case .activationGranted = $0 { true } else { false } } == [
                .activationGranted(session: "player"), .activationGranted(session: "game"),
            ])
        // The game (soloAmbient, later) interrupts the player.
        #expect(state.session("player")?.phase == .interrupted)
        #expect(state.delayedActivations.isEmpty)
        // A second call and its end grant nothing again.
        run(&state, [.phoneCallBegin])
        #expect(!run(&state, [.phoneCallEnd]).contains { if case .activationGranted = $0 { true } else { false } })
    }

    @Test("acceptsDelayedActivation on an ambient session is refused, naming the session and the field")
    func ambientRefused() {
        let config = SessionConfiguration(id: "rain", category: .ambient, acceptsDelayedActivation: true)
        #expect(throws: PolicyError.self) { _ = try PolicyState(sessions: [config]) }
        do {
            _ = try PolicyState(sessions: [config])
        } catch {
            guard case .invalidSessionSetting(let session, let field, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(session == "rain" && field == "acceptsDelayedActivation")
            #expect(error.description.contains("rain") && error.description.contains("acceptsDelayedActivation"))
        }
        // setCategory to ambient is refused the same way, changing nothing.
        var state = focusWorld(["player"])
        let before = state
        let outcome = state.apply(.setCategory(session: "player", category: .ambient))
        #expect(outcome.error?.code == "invalidSessionSetting")
        #expect(state == before)
    }
}

@Suite("accessibility sessions")
struct AccessibilityTests {
    @Test(
        "accessibility: never ducked, never silenced by switch, lock or background, interrupted only by a call; it ducks the others",
        arguments: [
            FocusCase(
                name: "it interrupts nobody and ducks every other audible session, non-mixable ones too",
                sessions: ["music", "amb", "reader"], given: [.play(source: "music.x"), .play(source: "amb.x")],
                when: .activate(session: "reader"),
                journal: [
                    .sessionActivated(session: "reader", category: .soloAmbient),
                    .duckingBegan(session: "music", by: "reader", rule: .engine),
                    .duckingBegan(session: "amb", by: "reader", rule: .engine),
                ],
                gains: ["music": engineDuckGain, "amb": engineDuckGain, "reader": 1]),
            FocusCase(
                name: "a player activating later does not interrupt it, and is ducked", sessions: ["music", "reader"],
                given: [.play(source: "reader.x")], when: .play(source: "music.x"),
                journal: [
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "music.x", reason: .play),
                    .duckingBegan(session: "music", by: "reader", rule: .engine),
                ],
                gains: ["music": engineDuckGain, "reader": 1], states: ["reader": .audible]),
            FocusCase(
                name: "a duckOthers session does not duck it", sessions: ["reader", "nav"], given: [.play(source: "reader.x")],
                when: .activate(session: "nav"), journal: [.sessionActivated(session: "nav", category: .playback)],
                gains: ["reader": 1], duckedBy: ["reader": ""]),
            FocusCase(
                name: "transientExclusive does not interrupt it (and is ducked by it)", sessions: ["reader", "alert"],
                given: [.play(source: "reader.x")], when: .activate(session: "alert", focus: .transientExclusive),
                journal: [
                    .sessionActivated(session: "alert", category: .playback, focus: .transientExclusive),
                    .duckingBegan(session: "alert", by: "reader", rule: .engine),
                ],
                gains: ["reader": 1, "alert": engineDuckGain]),
            FocusCase(
                name: "the silent switch silences a soloAmbient session, not it", sessions: ["reader"],
                given: [.play(source: "reader.x")], when: .silentSwitch(true), journal: [], gains: ["reader": 1],
                states: ["reader": .audible]),
            FocusCase(
                name: "nor the lock", sessions: ["reader"], given: [.play(source: "reader.x")], when: .lock, journal: [],
                gains: ["reader": 1]),
            FocusCase(
                name: "nor the background", sessions: ["reader"], given: [.play(source: "reader.x")],
                when: .background(session: "reader"), journal: [], gains: ["reader": 1]),
            FocusCase(
                name: "a phone call interrupts it", sessions: ["reader"], given: [.play(source: "reader.x")], when: .phoneCallBegin,
                journal: [
                    .interruptionBegan(session: "reader", reason: .phoneCall, by: nil),
                    .sourcePaused(source: "reader.x", reason: .interruption),
                ],
                gains: ["reader": 0]),
            FocusCase(
                name: "a pausesWhenDucked session pauses while it speaks", sessions: ["book", "reader"],
                given: [.play(source: "book.x")], when: .play(source: "reader.x"),
                journal: [
                    .sessionActivated(session: "reader", category: .soloAmbient),
                    .sourceStarted(source: "reader.x", reason: .play),
                    .interruptionBegan(session: "book", reason: .ducked, by: "reader"),
                    .sourcePaused(source: "book.x", reason: .interruption),
                ],
                gains: ["book": 0, "reader": 1]),
            FocusCase(
                name: "deactivated: the duck ends", sessions: ["music", "reader"],
                given: [.play(source: "music.x"), .play(source: "reader.x")], when: .deactivate(session: "reader"),
                journal: [
                    .sessionDeactivated(session: "reader", notifyOthers: false),
                    .sourcePaused(source: "reader.x", reason: .deactivation),
                    .duckingEnded(session: "music"),
                ],
                gains: ["music": 1]),
        ])
    func accessibility(_ c: FocusCase) { checkFocus(c) }
}

@Suite("forced fade on loss")
struct LossFadeTests {
    func world(lossFade: Double) throws -> PolicyState {
        let ids = ["music", "amb", "alert", "rec"]
        return try PolicyState(
            sessions: ids.map { focusSessions[$0]! }, sources: ids.map { SourceConfiguration(id: "\($0).x", session: $0) },
            lossFade: lossFade)
    }

    @Test("an interruption or a silence by another's activation carries the fade; a call's does not")
    func journalCarriesTheFade() throws {
        var state = try world(lossFade: 1.5)
        #expect(state.lossFadeSeconds == 1.5)
        run(&state, [.play(source: "music.x"), .play(source: "amb.x")])
        let journal = run(&state, [.activate(session: "alert")])
        #expect(journal.contains(.interruptionBegan(session: "music", reason: .otherSession, by: "alert", fadeSeconds: 1.5)))
        let fields = JournalEntry.interruptionBegan(session: "m", reason: .otherSession, by: "a", fadeSeconds: 1.5).fields
        #expect(fields.map(\.key) == ["session", "reason", "by", "fade"] && fields.last?.value == .number(1.5))
        // A recording silences the ambient session with the fade.
        run(&state, [.deactivate(session: "alert")])
        #expect(run(&state, [.activate(session: "rec")]).contains(.silenced(session: "amb", reason: .recording, fadeSeconds: 1.5)))
        // A call is not another session's activation: no fade.
        var other = try world(lossFade: 1.5)
        run(&other, [.play(source: "music.x")])
        #expect(run(&other, [.phoneCallBegin]).first == .interruptionBegan(session: "music", reason: .phoneCall, by: nil))
        // Without lossFade the entries are today's.
        var plain = try world(lossFade: 0)
        run(&plain, [.play(source: "music.x")])
        #expect(
            run(&plain, [.activate(session: "alert")]).contains(.interruptionBegan(session: "music", reason: .otherSession, by: "alert")))
    }

    @Test("lossFade outside 0…10 s is refused, naming it", arguments: [-0.1, 10.5, .nan, .infinity])
    func badLossFade(_ seconds: Double) {
        #expect(throws: PolicyError.self) { _ = try PolicyState(lossFade: seconds) }
        do { _ = try PolicyState(lossFade: seconds) } catch {
            #expect(error.description.contains("lossFade") && error.description.contains("0…10 s"))
        }
    }
}
