import Testing
import TuttiPolicy

/// A ducking rule with the usual times.
func rule(_ by: DuckingTarget, _ duck: DuckingTarget, _ level: Double) -> DuckingRule {
    DuckingRule(by: by, duck: duck, settings: DuckingSettings(levelDB: level, attackSeconds: 0.05, releaseSeconds: 0.3))
}

/// nav ducks music by −12 dB on its signal (threshold in dBFS, hold in seconds).
func signal(threshold: Double, hold: Double) -> DuckingRule {
    DuckingRule(
        by: .session("nav"), duck: .session("music"), settings: DuckingSettings(levelDB: -12, attackSeconds: 0.05, releaseSeconds: 0.1),
        trigger: .signal(thresholdDB: threshold, holdSeconds: hold))
}

@Suite("rule 3: ducking rules per pair")
struct DuckingRuleTests {
    /// The duck on `id` now: (ducker, level, rule).
    func duck(_ state: PolicyState, _ id: String) -> (String?, Double?, DuckingRuleReference?) {
        let v = state.renderView.session(id)
        return (v?.duckedBy, v?.duck?.levelDB, v?.duckRule)
    }

    @Test(
        "the most specific rule wins: session/session, category/session, session/category, category/category, the ducker's own, the engine's"
    )
    func precedence() throws {
        var state = makeState(["music", "amb", "nav"])
        run(&state, [.play(source: "song"), .play(source: "rain"), .activate(session: "nav")])
        let all = [
            rule(.category(.playback), .category(.playback), -6),
            rule(.session("nav"), .category(.playback), -8),
            rule(.category(.playback), .session("music"), -10),
            rule(.session("nav"), .session("music"), -12),
        ]
        // Take the most specific rule away, one at a time.
        let expected: [(Double, DuckingRuleReference)] = [(-12, .rule(3)), (-10, .rule(2)), (-8, .rule(1)), (-6, .rule(0))]
        for (n, (level, ref)) in expected.enumerated() {
            run(&state, [.setDuckingRules(Array(all.prefix(4 - n)))])
            let (by, l, r) = duck(state, "music")
            #expect(by == "nav" && l == level && r == ref, "with \(4 - n) rules: \(String(describing: l)) from \(String(describing: r))")
            // No rule names the ambient session or its category: the engine's.
            #expect(duck(state, "amb").1 == -15 && duck(state, "amb").2 == .engine)
        }
        run(&state, [.setDuckingRules([])])
        #expect(duck(state, "music").1 == -15 && duck(state, "music").2 == .engine)
    }

    @Test("a rule beats the ducker's own settings; its own beat the engine's")
    func ruleOverOwnSettings() throws {
        var state = makeState(["music", "amb", "navSpoken"])
        run(&state, [.play(source: "song"), .play(source: "rain"), .activate(session: "navSpoken")])
        #expect(duck(state, "music").1 == -20 && duck(state, "music").2 == .session)
        run(&state, [.setDuckingRules([rule(.category(.playback), .category(.ambient), -4)])])
        #expect(duck(state, "amb").1 == -4 && duck(state, "amb").2 == .rule(0))
        #expect(duck(state, "music").1 == -20 && duck(state, "music").2 == .session)
    }

    @Test("several duckers: each ducked session takes the deepest of its own settings; ties to the earliest activation")
    func overlappingDuckers() throws {
        var state = makeState(["music", "amb", "nav", "navSpoken"])
        run(
            &state,
            [
                .setDuckingRules([rule(.session("nav"), .session("music"), -30)]),
                .play(source: "song"), .play(source: "rain"), .activate(session: "nav"), .activate(session: "navSpoken"),
            ])
        // nav ducks music to −30 by rule; navSpoken only to −20 (its own).
        #expect(duck(state, "music").0 == "nav" && duck(state, "music").1 == -30)
        // For the ambient session nav gives the engine's −15, navSpoken its own −20.
        #expect(duck(state, "amb").0 == "navSpoken" && duck(state, "amb").1 == -20)
        // When nav leaves, music falls back to navSpoken; the journal names the change.
        let journal = run(&state, [.deactivate(session: "nav")])
        #expect(
            journal == [
                .sessionDeactivated(session: "nav", notifyOthers: false),
                .duckingEnded(session: "music"),
                .duckingBegan(session: "music", by: "navSpoken", rule: .session),
            ])
        // Equal levels: the earlier activation wins.
        var tie = makeState(["music", "nav", "voipDuck"])
        run(&tie, [.play(source: "song"), .activate(session: "voipDuck"), .activate(session: "nav")])
        #expect(duck(tie, "music").0 == "voipDuck")
    }

    @Test("new rules move ducked sessions at once, journaled as ended then began with the new rule")
    func rulesAtRunTime() throws {
        var state = makeState(["music", "nav"])
        run(&state, [.play(source: "song"), .activate(session: "nav")])
        let journal = run(&state, [.setDuckingRules([rule(.category(.playback), .session("music"), -24)])])
        #expect(journal == [.duckingEnded(session: "music"), .duckingBegan(session: "music", by: "nav", rule: .rule(0))])
        #expect(state.duckingRuleList.count == 1)
        // The same rules again: nothing to say.
        #expect(run(&state, [.setDuckingRules([rule(.category(.playback), .session("music"), -24)])]).isEmpty)
    }

    struct BadRules: Sendable, CustomTestStringConvertible {
        var name: String
        var rules: [DuckingRule]
        var error: PolicyError
        var testDescription: String { name }
    }

    @Test("a signal rule: the view carries its trigger; the policy journals no duck (the host does, at the level's crossings)")
    func signalRuleInTheView() throws {
        var state = makeState(["music", "nav"])
        run(&state, [.setDuckingRules([signal(threshold: -40, hold: 0.2)]), .play(source: "song")])
        let journal = run(&state, [.activate(session: "nav")])
        let view = state.renderView.session("music")
        #expect(view?.duckTrigger == .signal(thresholdDB: -40, holdSeconds: 0.2))
        #expect(view?.duckedBy == "nav" && view?.duck?.levelDB == -12 && view?.duckRule == .rule(0))
        #expect(!journal.contains { $0.type.hasPrefix("ducking") }, "\(journal)")
        #expect(abs(DuckingTrigger.signal(thresholdDB: -40, holdSeconds: 0).thresholdMeanSquare - 1e-4) < 1e-12)
        // Back to an activation rule: the policy journals the duck again.
        let back = run(&state, [.setDuckingRules([rule(.session("nav"), .session("music"), -12)])])
        #expect(back.map(\.type) == ["duckingBegan"])
        #expect(state.renderView.session("music")?.duckTrigger == .activation)
        #expect(JournalEntry.signalDuckingEnded(session: "music").fields.map(\.key) == ["session", "trigger"])
    }

    @Test(
        "bad rules are refused, naming the rule and the field, and change nothing",
        arguments: [
            BadRules(
                name: "unknown session", rules: [rule(.session("nav"), .session("radio"), -6)],
                error: .invalidDuckingRule(index: 0, field: "duck", message: "unknown session \"radio\"")),
            BadRules(
                name: "unknown ducker",
                rules: [rule(.category(.ambient), .category(.playback), -6), rule(.session("x"), .category(.playback), -6)],
                error: .invalidDuckingRule(index: 1, field: "by", message: "unknown session \"x\"")),
            BadRules(
                name: "above 0 dB", rules: [rule(.session("nav"), .session("music"), 3)],
                error: .invalidDuckingRule(index: 0, field: "level", message: "must be in −96…0 dB, got 3.0")),
            BadRules(
                name: "below −96 dB", rules: [rule(.session("nav"), .session("music"), -97)],
                error: .invalidDuckingRule(index: 0, field: "level", message: "must be in −96…0 dB, got -97.0")),
            BadRules(
                name: "negative attack",
                rules: [
                    DuckingRule(
                        by: .session("nav"), duck: .session("music"),
                        settings: DuckingSettings(levelDB: -6, attackSeconds: -0.1, releaseSeconds: 0.2))
                ],
                error: .invalidDuckingRule(index: 0, field: "attack", message: "must be in 0…3600 s, got -0.1")),
            BadRules(
                name: "release not a number",
                rules: [
                    DuckingRule(
                        by: .session("nav"), duck: .session("music"),
                        settings: DuckingSettings(levelDB: -6, attackSeconds: 0.1, releaseSeconds: .nan))
                ],
                error: .invalidDuckingRule(index: 0, field: "release", message: "must be in 0…3600 s, got nan")),
            BadRules(
                name: "two rules for one pair",
                rules: [rule(.session("nav"), .category(.playback), -6), rule(.session("nav"), .category(.playback), -9)],
                error: .invalidDuckingRule(index: 1, field: "", message: "rules[0] already covers by \"nav\", duck \"playback\"")),
            BadRules(
                name: "signal threshold above 0 dBFS", rules: [signal(threshold: 1, hold: 0.2)],
                error: .invalidDuckingRule(index: 0, field: "threshold", message: "must be in −120…0 dBFS, got 1.0")),
            BadRules(
                name: "signal threshold below −120 dBFS", rules: [signal(threshold: -121, hold: 0.2)],
                error: .invalidDuckingRule(index: 0, field: "threshold", message: "must be in −120…0 dBFS, got -121.0")),
            BadRules(
                name: "signal threshold not a number", rules: [signal(threshold: .nan, hold: 0.2)],
                error: .invalidDuckingRule(index: 0, field: "threshold", message: "must be in −120…0 dBFS, got nan")),
            BadRules(
                name: "negative hold", rules: [signal(threshold: -40, hold: -0.1)],
                error: .invalidDuckingRule(index: 0, field: "hold", message: "must be in 0…3600 s, got -0.1")),
            BadRules(
                name: "hold not finite", rules: [signal(threshold: -40, hold: .infinity)],
                error: .invalidDuckingRule(index: 0, field: "hold", message: "must be in 0…3600 s, got inf")),
            BadRules(
                name: "a session ducking itself", rules: [rule(.session("nav"), .session("nav"), -6)],
                error: .invalidDuckingRule(index: 0, field: "duck", message: "a session cannot duck itself (\"nav\" on both sides)")),
        ])
    func badRules(_ c: BadRules) throws {
        var state = makeState(["music", "nav"])
        run(&state, [.setDuckingRules([rule(.session("nav"), .session("music"), -9)]), .play(source: "song"), .activate(session: "nav")])
        let before = state
        let outcome = state.apply(.setDuckingRules(c.rules))
        #expect(outcome.error == c.error)
        #expect(outcome.journal.isEmpty)
        #expect(state == before)
    }
}

@Suite("voice limits as the policy sees them")
struct VoiceReportTests {
    @Test("a stolen voice stops and rewinds; the journal names both sources")
    func stolen() throws {
        var state = makeState(["music"])
        run(&state, [.play(source: "song"), .play(source: "song2")])
        let before = state.renderView.source("song")!.rewinds
        let journal = run(&state, [.voiceStolen(source: "song", by: "song2")])
        #expect(journal == [.voiceStolen(source: "song", by: "song2")])
        #expect(state.source("song")?.isPlaying == false)
        #expect(state.renderView.source("song")!.rewinds == before + 1)
        #expect(state.source("song2")?.isPlaying == true)
    }

    @Test("a refused voice is not playing and keeps its place")
    func refused() throws {
        var state = makeState(["music"])
        run(&state, [.play(source: "song")])
        let before = state.renderView.source("song")!.rewinds
        let journal = run(&state, [.voiceRefused(source: "song")])
        #expect(journal == [.voiceRefused(source: "song")])
        #expect(state.source("song")?.isPlaying == false)
        #expect(state.renderView.source("song")!.rewinds == before)
        // A later play starts it again.
        #expect(run(&state, [.play(source: "song")]) == [.sourceStarted(source: "song", reason: .play)])
    }

    @Test("a report about an unknown source is refused")
    func unknown() {
        var state = makeState(["music"])
        #expect(state.apply(.voiceStolen(source: "nope", by: "song")).error == .unknownSource("nope"))
    }
}
