import Testing
import TuttiPolicy

// The interaction table (issue 22): per pair of an active session and one that activates
// after it, what happens to the active one, over the built-in rules.

func row(_ active: DuckingTarget, _ incoming: DuckingTarget, _ outcome: InteractionOutcome) -> InteractionRule {
    InteractionRule(active: active, incoming: incoming, outcome: outcome)
}

@Suite("the interaction table")
struct InteractionTableTests {
    @Test(
        "each outcome overrides the built-in rules for its pair",
        arguments: [
            FocusCase(
                name: "mix: a player activating does not interrupt the playing one", sessions: ["music", "alert"],
                given: [.setInteractions([row(.session("music"), .session("alert"), .mix)]), .play(source: "music.x")],
                when: .activate(session: "alert"), journal: [.sessionActivated(session: "alert", category: .playback)],
                gains: ["music": 1, "alert": 1]),
            FocusCase(
                name: "interrupt: even a mixable ambient session is interrupted", sessions: ["amb", "alert"],
                given: [.setInteractions([row(.category(.ambient), .category(.playback), .interrupt)]), .play(source: "amb.x")],
                when: .activate(session: "alert"),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .interruptionBegan(session: "amb", reason: .otherSession, by: "alert"),
                    .sourcePaused(source: "amb.x", reason: .interruption),
                ],
                gains: ["amb": 0], states: ["amb": .interrupted]),
            FocusCase(
                name: "duck: the player is ducked instead of interrupted", sessions: ["music", "alert"],
                given: [.setInteractions([row(.category(.playback), .session("alert"), .duck)]), .play(source: "music.x")],
                when: .activate(session: "alert"),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .duckingBegan(session: "music", by: "alert", rule: .engine),
                ],
                gains: ["music": engineDuckGain, "alert": 1], duckedBy: ["music": "alert"]),
            FocusCase(
                name: "silence: the player is silenced (its sources run on)", sessions: ["music", "alert"],
                given: [.setInteractions([row(.session("music"), .session("alert"), .silence)]), .play(source: "music.x")],
                when: .activate(session: "alert"),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .silenced(session: "music", reason: .interaction),
                ],
                gains: ["music": 0, "alert": 1], states: ["music": .silenced(.interaction)]),
            FocusCase(
                name: "reject: the activation fails and nothing changes", sessions: ["music", "alert"],
                given: [.setInteractions([row(.session("music"), .category(.playback), .reject)]), .play(source: "music.x")],
                when: .activate(session: "alert"),
                journal: [
                    .activationFailed(session: "alert", error: .rejectedByTable(session: "alert", active: "music", rule: 0))
                ],
                error: .rejectedByTable(session: "alert", active: "music", rule: 0), gains: ["music": 1, "alert": 0]),
            FocusCase(
                name: "mix: a duckOthers session does not duck the pair's active session", sessions: ["music", "nav"],
                given: [.setInteractions([row(.session("music"), .session("nav"), .mix)]), .play(source: "music.x")],
                when: .activate(session: "nav"), journal: [.sessionActivated(session: "nav", category: .playback)],
                gains: ["music": 1]),
            FocusCase(
                name: "session over category: the row naming the session wins", sessions: ["music", "alert"],
                given: [
                    .setInteractions([
                        row(.category(.playback), .category(.playback), .mix), row(.session("music"), .session("alert"), .interrupt),
                    ]),
                    .play(source: "music.x"),
                ],
                when: .activate(session: "alert"),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "alert"),
                    .sourcePaused(source: "music.x", reason: .interruption),
                ]),
            FocusCase(
                name: "the active session named beats the incoming one named", sessions: ["music", "alert"],
                given: [
                    .setInteractions([
                        row(.category(.playback), .session("alert"), .duck), row(.session("music"), .category(.playback), .silence),
                    ]),
                    .play(source: "music.x"),
                ],
                when: .activate(session: "alert"),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .silenced(session: "music", reason: .interaction),
                ]),
            FocusCase(
                name: "no row for the pair: the built-in rules", sessions: ["music", "alert", "amb"],
                given: [.setInteractions([row(.session("amb"), .session("alert"), .silence)]), .play(source: "music.x")],
                when: .activate(session: "alert"),
                journal: [
                    .sessionActivated(session: "alert", category: .playback),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "alert"),
                    .sourcePaused(source: "music.x", reason: .interruption),
                ]),
        ])
    func outcomes(_ c: FocusCase) { checkFocus(c) }

    @Test("a row holds while both are active, for the one that came first: the silence and the duck end with the incoming session")
    func rowsLastWhileBothAreActive() {
        var state = focusWorld(["music", "alert"])
        run(&state, [.setInteractions([row(.session("music"), .session("alert"), .silence)]), .play(source: "music.x")])
        run(&state, [.activate(session: "alert")])
        #expect(state.tableSilence(of: "music")?.by == "alert" && state.tableSilence(of: "music")?.rule == 0)
        #expect(
            run(&state, [.deactivate(session: "alert")]) == [
                .sessionDeactivated(session: "alert", notifyOthers: false), .unsilenced(session: "music"),
            ])
        // The other way round (alert first, music incoming) the row does not apply: rule 2.1.
        var other = focusWorld(["music", "alert"])
        run(&other, [.setInteractions([row(.session("music"), .session("alert"), .silence)]), .play(source: "alert.x")])
        #expect(run(&other, [.play(source: "music.x")]).contains(.interruptionBegan(session: "alert", reason: .otherSession, by: "music")))
        #expect(other.interactionRule(active: "music", incoming: "alert") == 0)
        #expect(other.interactionRule(active: "alert", incoming: "music") == nil)
    }

    @Test("a new table changes ducks and silences at once")
    func atRunTime() {
        var state = focusWorld(["music", "alert"])
        run(
            &state,
            [.setInteractions([row(.session("music"), .session("alert"), .mix)]), .play(source: "music.x"), .activate(session: "alert")])
        let journal = run(&state, [.setInteractions([row(.session("music"), .session("alert"), .duck)])])
        #expect(journal == [.duckingBegan(session: "music", by: "alert", rule: .engine)])
        #expect(run(&state, [.setInteractions([])]).isEmpty == false) // back to the built-in rules: the duck ends
        #expect(state.renderView.session("music")?.duckedBy == nil)
    }

    @Test("a background session whose row interrupts a playing session is refused (cannotInterruptOthers), a mix row lets it start")
    func background() {
        var state = focusWorld(["music", "bgPlayer"])
        run(&state, [.setInteractions([row(.session("music"), .session("bgPlayer"), .mix)]), .play(source: "music.x")])
        #expect(state.apply(.activate(session: "bgPlayer")).error == nil)
        var refused = focusWorld(["amb", "bgPlayer"])
        run(&refused, [.setInteractions([row(.session("amb"), .session("bgPlayer"), .interrupt)]), .play(source: "amb.x")])
        #expect(refused.apply(.activate(session: "bgPlayer")).error == .cannotInterruptOthers(session: "bgPlayer", playing: "amb"))
    }

    struct BadTable: Sendable, CustomTestStringConvertible {
        var name: String
        var rows: [InteractionRule]
        var error: PolicyError
        var testDescription: String { name }
    }

    @Test(
        "bad tables are refused, naming the row and the field, and change nothing",
        arguments: [
            BadTable(
                name: "unknown session", rows: [row(.session("radio"), .category(.playback), .mix)],
                error: .invalidInteraction(index: 0, field: "active", message: "unknown session \"radio\"")),
            BadTable(
                name: "unknown incoming session",
                rows: [row(.category(.ambient), .category(.playback), .mix), row(.category(.playback), .session("x"), .duck)],
                error: .invalidInteraction(index: 1, field: "incoming", message: "unknown session \"x\"")),
            BadTable(
                name: "the same session on both sides", rows: [row(.session("music"), .session("music"), .mix)],
                error: .invalidInteraction(index: 0, field: "incoming", message: "a session does not meet itself (\"music\" on both sides)")
            ),
            BadTable(
                name: "two rows for one pair",
                rows: [row(.session("music"), .category(.playback), .mix), row(.session("music"), .category(.playback), .duck)],
                error: .invalidInteraction(
                    index: 1, field: "", message: "interactions[0] already covers active \"music\", incoming \"playback\"")),
        ])
    func badTables(_ c: BadTable) {
        var state = focusWorld(["music", "alert"])
        run(&state, [.setInteractions([row(.session("music"), .session("alert"), .duck)]), .play(source: "music.x")])
        let before = state
        let outcome = state.apply(.setInteractions(c.rows))
        #expect(outcome.error == c.error)
        #expect(outcome.journal.isEmpty)
        #expect(state == before)
        #expect(c.error.description.hasPrefix("interactions["))
    }
}
