import Testing
import TuttiPolicy

// One suite per rule of docs/policy.md (rules 1–10); each row names what it checks.

@Suite("rule 1: categories and options")
struct Rule1Tests {
    struct MixCase: Sendable, CustomTestStringConvertible {
        var category: Category
        var options: Set<CategoryOption>
        var mixable: Bool
        var testDescription: String { "\(category.rawValue) \(options.map(\.rawValue).sorted()) → mixable \(mixable)" }
    }

    @Test(
        "rule 1: a session is mixable iff it is ambient or has an option implying mixWithOthers",
        arguments: [
            MixCase(category: .soloAmbient, options: [], mixable: false),
            MixCase(category: .ambient, options: [], mixable: true),
            MixCase(category: .ambient, options: [.mixWithOthers], mixable: true),
            MixCase(category: .playback, options: [], mixable: false),
            MixCase(category: .playback, options: [.mixWithOthers], mixable: true),
            MixCase(category: .playback, options: [.duckOthers], mixable: true),
            MixCase(category: .playback, options: [.interruptSpokenAudioAndMixWithOthers], mixable: true),
            MixCase(category: .playAndRecord, options: [], mixable: false),
            MixCase(category: .playAndRecord, options: [.allowBluetooth, .defaultToSpeaker], mixable: false),
            MixCase(category: .playAndRecord, options: [.duckOthers], mixable: true),
            MixCase(category: .record, options: [], mixable: false),
            MixCase(category: .record, options: [.allowBluetooth], mixable: false),
            MixCase(category: .audioProcessing, options: [], mixable: false),
            MixCase(category: .multiRoute, options: [], mixable: false),
            MixCase(category: .multiRoute, options: [.duckOthers], mixable: true),
        ])
    func mixability(_ c: MixCase) throws {
        let state = try PolicyState(sessions: [SessionConfiguration(id: "s", category: c.category, options: c.options)])
        #expect(state.session("s")?.isMixable == c.mixable)
    }

    struct OptionCase: Sendable, CustomTestStringConvertible {
        var category: Category
        var options: Set<CategoryOption>
        var alternative: Category? = nil
        /// nil: allowed.
        var rejected: (Category, CategoryOption)?
        var testDescription: String {
            "\(category.rawValue) \(options.map(\.rawValue).sorted())" + (alternative.map { " / \($0.rawValue)" } ?? "")
                + (rejected.map { " → rejects \($0.1.rawValue) with \($0.0.rawValue)" } ?? " → allowed")
        }
    }

    static let optionCases: [OptionCase] = [
        OptionCase(category: .soloAmbient, options: [.duckOthers], rejected: (.soloAmbient, .duckOthers)),
        OptionCase(category: .soloAmbient, options: [.mixWithOthers], rejected: (.soloAmbient, .mixWithOthers)),
        OptionCase(
            category: .ambient, options: [.interruptSpokenAudioAndMixWithOthers],
            rejected: (.ambient, .interruptSpokenAudioAndMixWithOthers)),
        OptionCase(category: .ambient, options: [.duckOthers], rejected: (.ambient, .duckOthers)),
        OptionCase(category: .record, options: [.duckOthers], rejected: (.record, .duckOthers)),
        OptionCase(category: .audioProcessing, options: [.mixWithOthers], rejected: (.audioProcessing, .mixWithOthers)),
        OptionCase(category: .playback, options: [.allowBluetooth], rejected: (.playback, .allowBluetooth)),
        OptionCase(category: .playback, options: [.defaultToSpeaker], rejected: (.playback, .defaultToSpeaker)),
        // The first offending option in declaration order is named.
        OptionCase(category: .soloAmbient, options: [.allowBluetooth, .duckOthers], rejected: (.soloAmbient, .duckOthers)),
        // The alternative category must accept the options too.
        OptionCase(category: .playback, options: [.duckOthers], alternative: .ambient, rejected: (.ambient, .duckOthers)),
        OptionCase(category: .playback, options: [.duckOthers], rejected: nil),
        OptionCase(category: .playback, options: [.mixWithOthers, .interruptSpokenAudioAndMixWithOthers], rejected: nil),
        OptionCase(category: .playAndRecord, options: [.duckOthers, .allowBluetooth, .defaultToSpeaker], rejected: nil),
        OptionCase(category: .multiRoute, options: [.duckOthers], rejected: nil),
        OptionCase(category: .ambient, options: [.mixWithOthers], rejected: nil),
        OptionCase(category: .record, options: [.allowBluetooth], rejected: nil),
    ]

    @Test(
        "rule 1: an option not allowed with the category is refused at registration, naming session, category and option",
        arguments: optionCases)
    func registration(_ c: OptionCase) {
        let config = SessionConfiguration(
            id: "app", category: c.category, options: c.options,
            categoryWhenOtherAudioPlaying: c.alternative)
        do {
            _ = try PolicyState(sessions: [config])
            #expect(c.rejected == nil, "should have been refused")
        } catch {
            guard let (category, option) = c.rejected else {
                Issue.record("refused unexpectedly: \(error)")
                return
            }
            #expect(error == .optionNotAllowed(session: "app", category: category, option: option))
            let text = error.description
            #expect(text.contains("app") && text.contains(category.rawValue) && text.contains(option.rawValue), "\(text)")
        }
    }

    @Test(
        "rule 1: setCategory with an option the category does not allow fails and changes nothing",
        arguments: optionCases.filter { $0.alternative == nil })
    func setCategory(_ c: OptionCase) throws {
        var state = makeState(["music", "amb"])
        run(&state, [.play(source: "song"), .play(source: "rain")])
        let before = state
        let outcome = state.apply(.setCategory(session: "music", category: c.category, options: c.options))
        if let (category, option) = c.rejected {
            #expect(outcome.error == .optionNotAllowed(session: "music", category: category, option: option))
            #expect(outcome.journal.isEmpty)
            #expect(state == before)
        } else {
            #expect(outcome.error == nil)
            #expect(state.session("music")?.configuration.category == c.category)
        }
    }

    @Test("rule 1: the silent switch silences exactly soloAmbient and ambient", arguments: Category.allCases)
    func silencedBySwitch(_ category: Category) throws {
        var state = try PolicyState(
            sessions: [SessionConfiguration(id: "s", category: category)],
            sources: [SourceConfiguration(id: "x", session: "s")])
        run(&state, [.play(source: "x"), .silentSwitch(true)])
        let view = try #require(state.renderView.session("s"))
        switch category {
        case .soloAmbient, .ambient:
            #expect(view.state == .silenced(.silentSwitch))
        case .record, .audioProcessing:
            // No output: never silenced (nothing to silence), the gate stays closed.
            #expect(view.state == .audible)
            #expect(!view.hasOutput && view.policyGain == 0)
        default:
            #expect(view.state == .audible)
            #expect(view.policyGain == 1)
        }
        // Silenced or not, time goes on.
        #expect(state.renderView.source("x")?.isRunning == true)
    }

    @Test("rule 1: playing a source of an inactive session activates the session (project choice)")
    func implicitActivation() {
        _ = check(
            RuleCase(
                name: "play activates", sessions: ["music"], when: .play(source: "song"),
                journal: [
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .play),
                ],
                states: ["music": .audible], running: ["song": true, "song2": false]))
    }
}

@Suite("rule 2: activation and interruptions")
struct Rule2Tests {
    @Test(
        "rule 2.1: activating a non-mixable session interrupts other non-mixable sessions",
        arguments: [
            RuleCase(
                name: "a player interrupts a playing player", sessions: ["music", "podcast"],
                given: [.play(source: "song")], when: .activate(session: "podcast"),
                journal: [
                    .sessionActivated(session: "podcast", category: .playback),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "podcast"),
                    .sourcePaused(source: "song", reason: .interruption),
                ],
                states: ["music": .interrupted, "podcast": .audible], running: ["song": false]),
            RuleCase(
                name: "a player interrupts a soloAmbient game", sessions: ["game", "music"],
                given: [.play(source: "fx")], when: .play(source: "song"),
                journal: [
                    .sessionActivated(session: "music", category: .playback),
                    .interruptionBegan(session: "game", reason: .otherSession, by: "music"),
                    .sourcePaused(source: "fx", reason: .interruption),
                    .sourceStarted(source: "song", reason: .play),
                ],
                states: ["game": .interrupted, "music": .audible], running: ["fx": false, "song": true]),
            RuleCase(
                name: "an active but idle session is interrupted too", sessions: ["music", "podcast"],
                given: [.activate(session: "music")], when: .activate(session: "podcast"),
                journal: [
                    .sessionActivated(session: "podcast", category: .playback),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "podcast"),
                ],
                states: ["music": .interrupted]),
            RuleCase(
                name: "a record session interrupts a player", sessions: ["music", "rec"],
                given: [.play(source: "song")], when: .activate(session: "rec"),
                journal: [
                    .sessionActivated(session: "rec", category: .record),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "rec"),
                    .sourcePaused(source: "song", reason: .interruption),
                ],
                states: ["music": .interrupted, "rec": .audible]),
            RuleCase(
                name: "mixable sessions are not interrupted", sessions: ["amb", "music"],
                given: [.play(source: "rain")], when: .play(source: "song"),
                journal: [
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .play),
                ],
                states: ["amb": .audible, "music": .audible], running: ["rain": true, "song": true]),
            RuleCase(
                name: "activating an active session again changes nothing", sessions: ["music", "podcast"],
                given: [.activate(session: "podcast"), .activate(session: "music")],
                when: .activate(session: "music"), journal: [], states: ["podcast": .interrupted]),
            RuleCase(
                name: "taking back an interrupted session ends its interruption and interrupts the interrupter",
                sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "episode")], when: .activate(session: "music"),
                journal: [
                    .interruptionEnded(session: "music", shouldResume: false),
                    .sessionActivated(session: "music", category: .playback),
                    .interruptionBegan(session: "podcast", reason: .otherSession, by: "music"),
                    .sourcePaused(source: "episode", reason: .interruption),
                ],
                states: ["music": .audible, "podcast": .interrupted], running: ["song": false]),
        ])
    func rule2_1(_ c: RuleCase) { _ = check(c) }

    @Test(
        "rule 2.2: activating a mixable session interrupts nobody",
        arguments: [
            RuleCase(
                name: "a mixWithOthers player", sessions: ["music", "alarm"],
                given: [.play(source: "song")], when: .play(source: "beep"),
                journal: [
                    .sessionActivated(session: "alarm", category: .playback),
                    .sourceStarted(source: "beep", reason: .play),
                ],
                states: ["music": .audible, "alarm": .audible], running: ["song": true, "beep": true]),
            RuleCase(
                name: "an ambient session", sessions: ["music", "amb"],
                given: [.play(source: "song")], when: .activate(session: "amb"),
                journal: [.sessionActivated(session: "amb", category: .ambient)],
                states: ["music": .audible], running: ["song": true]),
            RuleCase(
                name: "a ducker ducks instead", sessions: ["music", "nav"],
                given: [.play(source: "song")], when: .activate(session: "nav"),
                journal: [
                    .sessionActivated(session: "nav", category: .playback),
                    .duckingBegan(session: "music", by: "nav", rule: .engine),
                ],
                states: ["music": .audible], running: ["song": true]),
        ])
    func rule2_2(_ c: RuleCase) { _ = check(c) }

    @Test(
        "rule 2.3: activation during a phone call fails with insufficientPriority; deactivation pauses",
        arguments: [
            RuleCase(
                name: "activate during a call", sessions: ["music"], given: [.phoneCallBegin],
                when: .activate(session: "music"),
                journal: [.activationFailed(session: "music", error: .insufficientPriority(session: "music"))],
                error: .insufficientPriority(session: "music"), states: ["music": .inactive]),
            RuleCase(
                name: "play (implicit activation) during a call", sessions: ["music"], given: [.phoneCallBegin],
                when: .play(source: "song"),
                journal: [.activationFailed(session: "music", error: .insufficientPriority(session: "music"))],
                error: .insufficientPriority(session: "music"), running: ["song": false]),
            RuleCase(
                name: "an interrupted session cannot be taken back during a call", sessions: ["music"],
                given: [.play(source: "song"), .phoneCallBegin], when: .play(source: "song2"),
                journal: [.activationFailed(session: "music", error: .insufficientPriority(session: "music"))],
                error: .insufficientPriority(session: "music"), states: ["music": .interrupted]),
            RuleCase(
                name: "host resume during a call", sessions: ["quietPlayer"],
                given: [.play(source: "track"), .phoneCallBegin], when: .resume(session: "quietPlayer"),
                journal: [.activationFailed(session: "quietPlayer", error: .insufficientPriority(session: "quietPlayer"))],
                error: .insufficientPriority(session: "quietPlayer")),
            RuleCase(
                name: "deactivating pauses what still plays", sessions: ["music"],
                given: [.play(source: "song"), .play(source: "song2")], when: .deactivate(session: "music"),
                journal: [
                    .sessionDeactivated(session: "music", notifyOthers: false),
                    .sourcePaused(source: "song", reason: .deactivation),
                    .sourcePaused(source: "song2", reason: .deactivation),
                ],
                states: ["music": .inactive], running: ["song": false, "song2": false]),
            RuleCase(
                name: "after re-activation the sources stay paused until played", sessions: ["music"],
                given: [.play(source: "song"), .deactivate(session: "music")], when: .activate(session: "music"),
                journal: [.sessionActivated(session: "music", category: .playback)],
                states: ["music": .audible], running: ["song": false]),
            RuleCase(
                name: "deactivating an inactive session does nothing", sessions: ["music"],
                when: .deactivate(session: "music", notifyOthers: true), journal: []),
        ])
    func rule2_3(_ c: RuleCase) { _ = check(c) }

    @Test(
        "rule 2.4: deactivating the interrupter ends the interruption, shouldResume iff notifyOthers",
        arguments: [
            RuleCase(
                name: "with notifyOthers", sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "episode")],
                when: .deactivate(session: "podcast", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "podcast", notifyOthers: true),
                    .sourcePaused(source: "episode", reason: .deactivation),
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .resume),
                ],
                states: ["music": .audible, "podcast": .inactive], running: ["song": true]),
            RuleCase(
                name: "without notifyOthers", sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "episode")],
                when: .deactivate(session: "podcast"),
                journal: [
                    .sessionDeactivated(session: "podcast", notifyOthers: false),
                    .sourcePaused(source: "episode", reason: .deactivation),
                    .interruptionEnded(session: "music", shouldResume: false),
                ],
                states: ["music": .inactive], running: ["song": false]),
            RuleCase(
                name: "the interruption lasts while another interrupter still holds it",
                sessions: ["music", "podcast", "voip"],
                given: [.play(source: "song"), .play(source: "episode"), .play(source: "voice")],
                when: .deactivate(session: "podcast", notifyOthers: true),
                journal: [.sessionDeactivated(session: "podcast", notifyOthers: true)],
                states: ["music": .interrupted, "voip": .audible]),
            RuleCase(
                name: "…and ends when the last one lets go", sessions: ["music", "podcast", "voip"],
                given: [
                    .play(source: "song"), .play(source: "episode"), .play(source: "voice"),
                    .deactivate(session: "podcast", notifyOthers: true),
                ],
                when: .deactivate(session: "voip", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "voip", notifyOthers: true),
                    .sourcePaused(source: "voice", reason: .deactivation),
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .resume),
                ],
                running: ["song": true, "episode": false]),
            RuleCase(
                name: "one interrupter without notifyOthers makes the whole interruption non-resumable",
                sessions: ["music", "podcast", "voip"],
                given: [
                    .play(source: "song"), .play(source: "episode"), .play(source: "voice"),
                    .deactivate(session: "podcast"),
                ],
                when: .deactivate(session: "voip", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "voip", notifyOthers: true),
                    .sourcePaused(source: "voice", reason: .deactivation),
                    .interruptionEnded(session: "music", shouldResume: false),
                ],
                running: ["song": false]),
        ])
    func rule2_4(_ c: RuleCase) { _ = check(c) }

    @Test(
        "rule 2.5: the resume rule",
        arguments: [
            RuleCase(
                name: "a player resumes only what was playing; paused sources stay paused",
                sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "song2"), .pause(source: "song2"), .play(source: "episode")],
                when: .deactivate(session: "podcast", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "podcast", notifyOthers: true),
                    .sourcePaused(source: "episode", reason: .deactivation),
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .resume),
                ],
                running: ["song": true, "song2": false]),
            RuleCase(
                name: "a source paused during the interruption stays paused", sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "episode"), .pause(source: "song")],
                when: .deactivate(session: "podcast", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "podcast", notifyOthers: true),
                    .sourcePaused(source: "episode", reason: .deactivation),
                    .interruptionEnded(session: "music", shouldResume: true),
                ],
                states: ["music": .inactive], running: ["song": false]),
            RuleCase(
                name: "a game without playback controls resumes even without shouldResume",
                sessions: ["game", "music"],
                given: [.play(source: "fx"), .play(source: "song")], when: .deactivate(session: "music"),
                journal: [
                    .sessionDeactivated(session: "music", notifyOthers: false),
                    .sourcePaused(source: "song", reason: .deactivation),
                    .interruptionEnded(session: "game", shouldResume: false),
                    .sessionActivated(session: "game", category: .soloAmbient),
                    .sourceStarted(source: "fx", reason: .resume),
                ],
                states: ["game": .audible], running: ["fx": true]),
            RuleCase(
                name: "autoResume false: the engine waits for the host", sessions: ["quietPlayer", "podcast"],
                given: [.play(source: "track"), .play(source: "episode")],
                when: .deactivate(session: "podcast", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "podcast", notifyOthers: true),
                    .sourcePaused(source: "episode", reason: .deactivation),
                    .interruptionEnded(session: "quietPlayer", shouldResume: true),
                ],
                states: ["quietPlayer": .inactive], running: ["track": false]),
            RuleCase(
                name: "the host's resume re-activates and plays what was playing", sessions: ["quietPlayer", "podcast"],
                given: [
                    .play(source: "track"), .play(source: "episode"),
                    .deactivate(session: "podcast", notifyOthers: true),
                ],
                when: .resume(session: "quietPlayer"),
                journal: [
                    .sessionActivated(session: "quietPlayer", category: .playback),
                    .sourceStarted(source: "track", reason: .resume),
                ],
                running: ["track": true]),
            RuleCase(
                name: "resuming re-activates, so rule 2.1 applies again", sessions: ["amb", "music"],
                given: [
                    .play(source: "rain"), .play(source: "song"), .phoneCallBegin,
                    .setCategory(session: "amb", category: .soloAmbient),
                ],
                when: .phoneCallEnd,
                journal: [
                    .interruptionEnded(session: "amb", shouldResume: true),
                    .sessionActivated(session: "amb", category: .soloAmbient),
                    .sourceStarted(source: "rain", reason: .resume),
                ],
                states: ["amb": .audible, "music": .interrupted], running: ["rain": true, "song": false]),
        ])
    func rule2_5(_ c: RuleCase) { _ = check(c) }

    @Test(
        "rule 2.6: interruptSpokenAudioAndMixWithOthers interrupts spoken audio instead of ducking it",
        arguments: [
            RuleCase(
                name: "a spoken-audio session is interrupted", sessions: ["podcast", "navSpoken"],
                given: [.play(source: "episode")], when: .activate(session: "navSpoken"),
                journal: [
                    .sessionActivated(session: "navSpoken", category: .playback),
                    .interruptionBegan(session: "podcast", reason: .spokenAudio, by: "navSpoken"),
                    .sourcePaused(source: "episode", reason: .interruption),
                ],
                states: ["podcast": .interrupted]),
            RuleCase(
                name: "other sessions are ducked, not interrupted", sessions: ["music", "navSpoken"],
                given: [.play(source: "song")], when: .activate(session: "navSpoken"),
                journal: [
                    .sessionActivated(session: "navSpoken", category: .playback),
                    .duckingBegan(session: "music", by: "navSpoken", rule: .session),
                ],
                states: ["music": .audible], running: ["song": true]),
            RuleCase(
                name: "deactivation with notifyOthers resumes the spoken audio", sessions: ["podcast", "navSpoken"],
                given: [.play(source: "episode"), .activate(session: "navSpoken")],
                when: .deactivate(session: "navSpoken", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "navSpoken", notifyOthers: true),
                    .interruptionEnded(session: "podcast", shouldResume: true),
                    .sessionActivated(session: "podcast", category: .playback),
                    .sourceStarted(source: "episode", reason: .resume),
                ],
                running: ["episode": true]),
            RuleCase(
                name: "deactivation without notifyOthers does not", sessions: ["podcast", "navSpoken"],
                given: [.play(source: "episode"), .activate(session: "navSpoken")],
                when: .deactivate(session: "navSpoken"),
                journal: [
                    .sessionDeactivated(session: "navSpoken", notifyOthers: false),
                    .interruptionEnded(session: "podcast", shouldResume: false),
                ],
                running: ["episode": false]),
        ])
    func rule2_6(_ c: RuleCase) { _ = check(c) }

    @Test(
        "rule 2.7: a phone call interrupts every session and its end resumes them",
        arguments: [
            RuleCase(
                name: "call begins: mixable or not, everyone is interrupted", sessions: ["music", "amb", "alarm"],
                given: [.play(source: "song"), .play(source: "rain"), .play(source: "beep")], when: .phoneCallBegin,
                journal: [
                    .interruptionBegan(session: "music", reason: .phoneCall, by: nil),
                    .sourcePaused(source: "song", reason: .interruption),
                    .interruptionBegan(session: "amb", reason: .phoneCall, by: nil),
                    .sourcePaused(source: "rain", reason: .interruption),
                    .interruptionBegan(session: "alarm", reason: .phoneCall, by: nil),
                    .sourcePaused(source: "beep", reason: .interruption),
                ],
                states: ["music": .interrupted, "amb": .interrupted, "alarm": .interrupted],
                running: ["song": false, "rain": false, "beep": false]),
            RuleCase(
                name: "call ends with shouldResume true", sessions: ["music", "amb", "alarm"],
                given: [.play(source: "song"), .play(source: "rain"), .play(source: "beep"), .phoneCallBegin],
                when: .phoneCallEnd,
                journal: [
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .resume),
                    .interruptionEnded(session: "amb", shouldResume: true),
                    .sessionActivated(session: "amb", category: .ambient),
                    .sourceStarted(source: "rain", reason: .resume),
                    .interruptionEnded(session: "alarm", shouldResume: true),
                    .sessionActivated(session: "alarm", category: .playback),
                    .sourceStarted(source: "beep", reason: .resume),
                ],
                running: ["song": true, "rain": true, "beep": true]),
            RuleCase(
                name: "a session interrupted before the call waits for the call too", sessions: ["music", "podcast"],
                given: [
                    .play(source: "song"), .play(source: "episode"), .phoneCallBegin,
                    .deactivate(session: "podcast", notifyOthers: true),
                ],
                when: .phoneCallEnd,
                journal: [
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .resume),
                ]),
            RuleCase(
                name: "a second call begin changes nothing", sessions: ["music"],
                given: [.play(source: "song"), .phoneCallBegin], when: .phoneCallBegin, journal: []),
        ])
    func rule2_7(_ c: RuleCase) { _ = check(c) }

    @Test("rule 2.7: call audio is never ducked or silenced")
    func callAudio() {
        var state = makeState(["music", "nav", "amb"], device: DeviceState(silentSwitch: true, volume: 0.5))
        run(&state, [.play(source: "song"), .activate(session: "nav"), .play(source: "rain"), .phoneCallBegin])
        let view = state.renderView
        #expect(view.callActive)
        #expect(view.callGain == view.systemGain && view.systemGain > 0)
        #expect(view.sessions.allSatisfy { $0.state == .interrupted && $0.policyGain == 0 })
    }

    @Test(
        "rule 2.8: a muted microphone interrupts input sessions; nothing restarts on unmute",
        arguments: [
            RuleCase(
                name: "mute interrupts playAndRecord, not ambient", sessions: ["voip", "amb"],
                given: [.play(source: "voice"), .play(source: "rain")], when: .micMuted(true),
                journal: [
                    .interruptionBegan(session: "voip", reason: .builtInMicMuted, by: nil),
                    .sourcePaused(source: "voice", reason: .interruption),
                ],
                states: ["voip": .interrupted, "amb": .audible], running: ["rain": true]),
            RuleCase(
                name: "mute interrupts record", sessions: ["rec"],
                given: [.activate(session: "rec")], when: .micMuted(true),
                journal: [.interruptionBegan(session: "rec", reason: .builtInMicMuted, by: nil)]),
            RuleCase(
                name: "unmute: shouldResume false, and a session that would always resume does not",
                sessions: ["voip", "amb"],
                given: [.play(source: "voice"), .play(source: "rain"), .micMuted(true)], when: .micMuted(false),
                journal: [.interruptionEnded(session: "voip", shouldResume: false)],
                states: ["voip": .inactive], running: ["voice": false]),
            RuleCase(
                name: "muted during a call: the call's end does not restart it", sessions: ["voip"],
                given: [.play(source: "voice"), .phoneCallBegin, .micMuted(true), .micMuted(false)],
                when: .phoneCallEnd,
                journal: [.interruptionEnded(session: "voip", shouldResume: false)],
                states: ["voip": .inactive], running: ["voice": false]),
            RuleCase(
                name: "muting when no input session is active does nothing", sessions: ["voip"],
                when: .micMuted(true), journal: []),
            RuleCase(
                name: "the user may restart it explicitly", sessions: ["voip"],
                given: [.play(source: "voice"), .micMuted(true), .micMuted(false)], when: .resume(session: "voip"),
                journal: [
                    .sessionActivated(session: "voip", category: .playAndRecord),
                    .sourceStarted(source: "voice", reason: .resume),
                ]),
        ])
    func rule2_8(_ c: RuleCase) { _ = check(c) }
}

@Suite("rule 3: ducking")
struct Rule3Tests {
    @Test(
        "rule 3: while a duckOthers session is active, other audible sessions are ducked",
        arguments: [
            RuleCase(
                name: "ducks every other audible session", sessions: ["music", "amb", "nav"],
                given: [.play(source: "song"), .play(source: "rain")], when: .activate(session: "nav"),
                journal: [
                    .sessionActivated(session: "nav", category: .playback),
                    .duckingBegan(session: "music", by: "nav", rule: .engine),
                    .duckingBegan(session: "amb", by: "nav", rule: .engine),
                ]),
            RuleCase(
                name: "ducking follows activation: the ducker need not play", sessions: ["music", "nav"],
                given: [.activate(session: "nav")], when: .play(source: "song"),
                journal: [
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .play),
                    .duckingBegan(session: "music", by: "nav", rule: .engine),
                ]),
            RuleCase(
                name: "deactivating the ducker ends the duck", sessions: ["music", "nav"],
                given: [.play(source: "song"), .play(source: "prompt")], when: .deactivate(session: "nav"),
                journal: [
                    .sessionDeactivated(session: "nav", notifyOthers: false),
                    .sourcePaused(source: "prompt", reason: .deactivation),
                    .duckingEnded(session: "music"),
                ]),
            RuleCase(
                name: "duckers do not duck each other", sessions: ["nav", "navSpoken"],
                given: [.activate(session: "nav")], when: .activate(session: "navSpoken"),
                journal: [.sessionActivated(session: "navSpoken", category: .playback)]),
            RuleCase(
                name: "a silenced session is not ducked", sessions: ["amb", "nav"],
                device: DeviceState(silentSwitch: true),
                given: [.play(source: "rain")], when: .activate(session: "nav"),
                journal: [.sessionActivated(session: "nav", category: .playback)]),
            RuleCase(
                name: "…and is ducked as soon as it is heard again", sessions: ["amb", "nav"],
                device: DeviceState(silentSwitch: true),
                given: [.play(source: "rain"), .activate(session: "nav")], when: .silentSwitch(false),
                journal: [.unsilenced(session: "amb"), .duckingBegan(session: "amb", by: "nav", rule: .engine)]),
            RuleCase(
                name: "an interrupted ducker no longer ducks", sessions: ["music", "voipDuck"],
                given: [.play(source: "song"), .activate(session: "voipDuck")], when: .micMuted(true),
                journal: [
                    .interruptionBegan(session: "voipDuck", reason: .builtInMicMuted, by: nil),
                    .duckingEnded(session: "music"),
                ]),
            RuleCase(
                name: "a deeper ducker takes over", sessions: ["music", "nav", "navSpoken"],
                given: [.play(source: "song"), .activate(session: "nav")], when: .activate(session: "navSpoken"),
                journal: [
                    .sessionActivated(session: "navSpoken", category: .playback),
                    .duckingEnded(session: "music"),
                    .duckingBegan(session: "music", by: "navSpoken", rule: .session),
                ]),
            RuleCase(
                name: "when it leaves, the remaining ducker takes the duck back", sessions: ["music", "nav", "navSpoken"],
                given: [.play(source: "song"), .activate(session: "nav"), .activate(session: "navSpoken")],
                when: .deactivate(session: "navSpoken"),
                journal: [
                    .sessionDeactivated(session: "navSpoken", notifyOthers: false),
                    .duckingEnded(session: "music"),
                    .duckingBegan(session: "music", by: "nav", rule: .engine),
                ]),
        ])
    func ducking(_ c: RuleCase) { _ = check(c) }

    @Test("rule 3: the duck uses the ducker's settings, else the engine's; deepest wins, ties to the earliest activation")
    func duckSettings() throws {
        var state = makeState(["music", "voipDuck", "nav", "navSpoken"])
        run(&state, [.play(source: "song"), .activate(session: "nav"), .activate(session: "voipDuck")])
        var music = try #require(state.renderView.session("music"))
        // nav and voipDuck both use the engine default; nav activated first.
        #expect(music.duckedBy == "nav")
        #expect(music.duck == .default)
        #expect(abs(music.policyGain - 0.177827941) < 1e-6) // -15 dB
        run(&state, [.activate(session: "navSpoken")])
        music = try #require(state.renderView.session("music"))
        #expect(music.duckedBy == "navSpoken")
        #expect(music.duck == DuckingSettings(levelDB: -20, attackSeconds: 0.05, releaseSeconds: 0.3))
        #expect(abs(music.policyGain - 0.1) < 1e-9)
        // The duckers themselves are not ducked.
        #expect(state.renderView.session("nav")?.duck == nil)
    }

    @Test("rule 3: the engine's ducking setting is the default duck")
    func engineDucking() throws {
        let engine = DuckingSettings(levelDB: -6, attackSeconds: 0.2, releaseSeconds: 1)
        let (configs, sources) = (
            ["music", "nav"].map { fixtureSessions[$0]!.0 },
            [SourceConfiguration(id: "song", session: "music")]
        )
        var state = try PolicyState(sessions: configs, sources: sources, ducking: engine)
        run(&state, [.play(source: "song"), .activate(session: "nav")])
        #expect(state.renderView.session("music")?.duck == engine)
    }
}

@Suite("rule 4: silent switch, lock and background")
struct Rule4Tests {
    @Test(
        "rule 4: ambient and soloAmbient are silenced by the switch, by lock and in background",
        arguments: [
            RuleCase(
                name: "silent switch on", sessions: ["amb", "music"],
                given: [.play(source: "rain"), .play(source: "song")], when: .silentSwitch(true),
                journal: [.silenced(session: "amb", reason: .silentSwitch)],
                states: ["amb": .silenced(.silentSwitch), "music": .audible], running: ["rain": true, "song": true]),
            RuleCase(
                name: "a soloAmbient game", sessions: ["game"], given: [.play(source: "fx")], when: .silentSwitch(true),
                journal: [.silenced(session: "game", reason: .silentSwitch)], states: ["game": .silenced(.silentSwitch)]),
            RuleCase(
                name: "silent switch off", sessions: ["amb"],
                given: [.play(source: "rain"), .silentSwitch(true)], when: .silentSwitch(false),
                journal: [.unsilenced(session: "amb")], states: ["amb": .audible]),
            RuleCase(
                name: "lock", sessions: ["amb", "music"],
                given: [.play(source: "rain"), .play(source: "song")], when: .lock,
                journal: [.silenced(session: "amb", reason: .locked)],
                states: ["amb": .silenced(.locked), "music": .audible]),
            RuleCase(
                name: "unlock", sessions: ["amb"], given: [.play(source: "rain"), .lock], when: .unlock,
                journal: [.unsilenced(session: "amb")]),
            RuleCase(
                name: "background", sessions: ["amb", "music"],
                given: [.play(source: "rain"), .play(source: "song")], when: .background(session: "amb"),
                journal: [.silenced(session: "amb", reason: .background)], states: ["amb": .silenced(.background)]),
            RuleCase(
                name: "a player in background goes on", sessions: ["music"],
                given: [.play(source: "song")], when: .background(session: "music"),
                journal: [], states: ["music": .audible]),
            RuleCase(
                name: "back to foreground", sessions: ["amb"],
                given: [.play(source: "rain"), .background(session: "amb")], when: .foreground(session: "amb"),
                journal: [.unsilenced(session: "amb")]),
            RuleCase(
                name: "a second reason is not a new event; the switch is named first", sessions: ["amb"],
                given: [.play(source: "rain"), .lock], when: .silentSwitch(true),
                journal: [], states: ["amb": .silenced(.silentSwitch)]),
            RuleCase(
                name: "activating under the switch starts silenced", sessions: ["amb"],
                device: DeviceState(silentSwitch: true), when: .play(source: "rain"),
                journal: [
                    .sessionActivated(session: "amb", category: .ambient),
                    .sourceStarted(source: "rain", reason: .play),
                    .silenced(session: "amb", reason: .silentSwitch),
                ],
                running: ["rain": true]),
            RuleCase(
                name: "voice chat goes on under the switch", sessions: ["voip"],
                given: [.play(source: "voice")], when: .silentSwitch(true), journal: [], states: ["voip": .audible]),
            RuleCase(
                name: "the system sound vibrates instead", sessions: [], device: DeviceState(silentSwitch: true),
                when: .systemSound(name: "click"), journal: [.vibrate(sound: "click")]),
        ])
    func silencing(_ c: RuleCase) { _ = check(c) }
}

@Suite("rule 5: record")
struct Rule5Tests {
    @Test(
        "rule 5: an active record session silences the others and suppresses system sounds",
        arguments: [
            RuleCase(
                name: "record interrupts the non-mixable and silences the mixable", sessions: ["music", "amb", "rec"],
                given: [.play(source: "song"), .play(source: "rain")], when: .activate(session: "rec"),
                journal: [
                    .sessionActivated(session: "rec", category: .record),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "rec"),
                    .sourcePaused(source: "song", reason: .interruption),
                    .silenced(session: "amb", reason: .recording),
                ],
                states: ["amb": .silenced(.recording), "music": .interrupted], running: ["rain": true]),
            RuleCase(
                name: "a mixable player is silenced, not interrupted", sessions: ["alarm", "rec"],
                given: [.play(source: "beep")], when: .activate(session: "rec"),
                journal: [
                    .sessionActivated(session: "rec", category: .record),
                    .silenced(session: "alarm", reason: .recording),
                ],
                states: ["alarm": .silenced(.recording)]),
            RuleCase(
                name: "system sounds are suppressed", sessions: ["rec"],
                given: [.activate(session: "rec")], when: .systemSound(name: "click"),
                journal: [.systemSoundSuppressed(sound: "click", reason: .recording)]),
            RuleCase(
                name: "even with the silent switch on (no vibration either)", sessions: ["rec"],
                device: DeviceState(silentSwitch: true),
                given: [.activate(session: "rec")], when: .systemSound(name: "click"),
                journal: [.systemSoundSuppressed(sound: "click", reason: .recording)]),
            RuleCase(
                name: "recording ends: the others come back", sessions: ["music", "amb", "rec"],
                given: [.play(source: "song"), .play(source: "rain"), .activate(session: "rec")],
                when: .deactivate(session: "rec", notifyOthers: true),
                journal: [
                    .sessionDeactivated(session: "rec", notifyOthers: true),
                    .interruptionEnded(session: "music", shouldResume: true),
                    .sessionActivated(session: "music", category: .playback),
                    .sourceStarted(source: "song", reason: .resume),
                    .unsilenced(session: "amb"),
                ],
                states: ["amb": .audible, "music": .audible]),
        ])
    func record(_ c: RuleCase) { _ = check(c) }

    @Test("rule 5: the record session itself has no output and system sounds are not allowed")
    func recordView() throws {
        var state = makeState(["rec"])
        run(&state, [.play(source: "monitor")])
        let view = state.renderView
        let rec = try #require(view.session("rec"))
        #expect(!rec.hasOutput && rec.policyGain == 0)
        #expect(!view.systemSoundsAllowed)
        run(&state, [.deactivate(session: "rec")])
        #expect(state.renderView.systemSoundsAllowed)
    }
}

@Suite("rule 6: volume")
struct Rule6Tests {
    @Test(
        "rule 6: volume events and buttons",
        arguments: [
            RuleCase(
                name: "set the system volume", sessions: [], when: .volume(0.5),
                journal: [.volumeChanged(target: .system, value: 0.5)]),
            RuleCase(
                name: "set the ringer volume", sessions: [], when: .ringerVolume(0.25),
                journal: [.volumeChanged(target: .ringer, value: 0.25)]),
            RuleCase(
                name: "values are clamped to 0…1", sessions: [], device: DeviceState(volume: 0.5), when: .volume(1.7),
                journal: [.volumeChanged(target: .system, value: 1)]),
            RuleCase(name: "no change, no event", sessions: [], when: .volume(1), journal: []),
            RuleCase(
                name: "not a number is refused", sessions: [], when: .volume(.nan), journal: [],
                error: .invalidValue(name: "volume", value: .nan)),
            RuleCase(
                name: "up while something is heard: system volume", sessions: ["music"],
                device: DeviceState(volume: 0.5), given: [.play(source: "song")], when: .volumeUp,
                journal: [.volumeChanged(target: .system, value: 0.5625)]),
            RuleCase(
                name: "down while nothing is heard: ringer volume", sessions: ["music"],
                device: DeviceState(volume: 0.5), when: .volumeDown,
                journal: [.volumeChanged(target: .ringer, value: 0.9375)]),
            RuleCase(
                name: "an active but paused player is not heard", sessions: ["music"],
                given: [.activate(session: "music")], when: .volumeDown,
                journal: [.volumeChanged(target: .ringer, value: 0.9375)]),
            RuleCase(
                name: "a silenced session is not heard", sessions: ["amb"], device: DeviceState(silentSwitch: true),
                given: [.play(source: "rain")], when: .volumeDown,
                journal: [.volumeChanged(target: .ringer, value: 0.9375)]),
            RuleCase(
                name: "during a call: system volume", sessions: [], given: [.phoneCallBegin], when: .volumeDown,
                journal: [.volumeChanged(target: .system, value: 0.9375)]),
            RuleCase(
                name: "up at the top does nothing", sessions: ["music"], given: [.play(source: "song")],
                when: .volumeUp, journal: []),
            RuleCase(
                name: "down at the bottom does nothing", sessions: [], device: DeviceState(ringerVolume: 0),
                when: .volumeDown, journal: []),
            RuleCase(
                name: "off the grid, up goes to the next step", sessions: [], device: DeviceState(ringerVolume: 0.3),
                when: .volumeUp, journal: [.volumeChanged(target: .ringer, value: 0.3125)]),
            RuleCase(
                name: "off the grid, down goes to the previous step", sessions: [], device: DeviceState(ringerVolume: 0.3),
                when: .volumeDown, journal: [.volumeChanged(target: .ringer, value: 0.25)]),
        ])
    func volume(_ c: RuleCase) {
        if c.error != nil {
            // NaN != NaN: compare the code and the state by hand.
            var state = makeState(c.sessions, device: c.device)
            let before = state
            let outcome = state.apply(c.when)
            #expect(outcome.error?.code == "invalidValue")
            #expect(outcome.journal.isEmpty && state == before)
        } else {
            _ = check(c)
        }
    }

    @Test("rule 6: the perceptual curve: 0 is silence, 1 is unity, 3 dB per step, increasing")
    func curve() {
        #expect(VolumeCurve.gain(forVolume: 0) == 0)
        #expect(VolumeCurve.gain(forVolume: 1) == 1)
        #expect(VolumeCurve.gain(forVolume: -1) == 0 && VolumeCurve.gain(forVolume: 2) == 1)
        #expect(abs(VolumeCurve.gain(forVolume: 0.5) - 0.0630957) < 1e-6) // -24 dB
        #expect(abs(VolumeCurve.gain(forVolume: 15.0 / 16) - 0.7079458) < 1e-6) // -3 dB
        var previous = -1.0
        for step in 0...16 {
            let g = VolumeCurve.gain(forVolume: Double(step) / 16)
            #expect(g > previous)
            previous = g
        }
    }

    @Test("rule 6: the system volume is the last word: no app gain gets above it")
    func lastStage() throws {
        var state = makeState(["music", "nav"], device: DeviceState(volume: 0.5, ringerVolume: 0.25))
        run(&state, [.play(source: "song")])
        var view = state.renderView
        for gains in [(1.0, 1.0), (2.0, 5.0), (-1.0, 1.0), (0.5, 0.5), (.infinity, .infinity), (.nan, 1.0)] {
            let out = view.outputGain(session: "music", sessionGain: gains.0, sourceGain: gains.1)
            #expect(out <= view.systemGain && out >= 0, "gains \(gains)")
        }
        #expect(view.outputGain(session: "music", sessionGain: 1, sourceGain: 1) == view.systemGain)
        #expect(abs(view.ringerGain - VolumeCurve.gain(forVolume: 0.25)) < 1e-12)
        run(&state, [.activate(session: "nav")])
        view = state.renderView
        let ducked = view.outputGain(session: "music", sessionGain: 1, sourceGain: 1)
        #expect(abs(ducked - view.systemGain * 0.177827941) < 1e-6)
        run(&state, [.volume(0)])
        view = state.renderView
        #expect(view.outputGain(session: "music", sessionGain: 1, sourceGain: 1) == 0)
        #expect(view.outputGain(session: "nav", sessionGain: 1, sourceGain: 1) == 0)
    }
}

@Suite("rule 7: routes")
struct Rule7Tests {
    @Test(
        "rule 7: route changes",
        arguments: [
            RuleCase(
                name: "headphones connected: audio moves on", sessions: ["music"],
                given: [.play(source: "song")], when: .route(.headphones),
                journal: [.routeChange(reason: .newDeviceAvailable, previous: .speaker, current: .headphones)],
                running: ["song": true]),
            RuleCase(
                name: "headphones unplugged: playback pauses", sessions: ["music"],
                device: DeviceState(route: .headphones), given: [.play(source: "song")], when: .route(.speaker),
                journal: [
                    .routeChange(reason: .oldDeviceUnavailable, previous: .headphones, current: .speaker),
                    .sourcePaused(source: "song", reason: .routeChange),
                ],
                states: ["music": .audible], running: ["song": false]),
            RuleCase(
                name: "bluetooth out of range: playAndRecord pauses, ambient goes on", sessions: ["amb", "voip"],
                device: DeviceState(route: .bluetooth), given: [.play(source: "rain"), .play(source: "voice")],
                when: .route(.speaker),
                journal: [
                    .routeChange(reason: .oldDeviceUnavailable, previous: .bluetooth, current: .speaker),
                    .sourcePaused(source: "voice", reason: .routeChange),
                ],
                running: ["rain": true, "voice": false]),
            RuleCase(
                name: "a user override does not pause", sessions: ["music"],
                device: DeviceState(route: .headphones), given: [.play(source: "song")],
                when: .route(.speaker, reason: .override),
                journal: [.routeChange(reason: .override, previous: .headphones, current: .speaker)],
                running: ["song": true]),
            RuleCase(
                name: "headphones to bluetooth is a new device", sessions: [],
                device: DeviceState(route: .headphones), when: .route(.bluetooth),
                journal: [.routeChange(reason: .newDeviceAvailable, previous: .headphones, current: .bluetooth)]),
            RuleCase(name: "the same route without a reason is no change", sessions: [], when: .route(.speaker), journal: []),
            RuleCase(
                name: "stays paused until played again", sessions: ["music"],
                device: DeviceState(route: .headphones), given: [.play(source: "song"), .route(.speaker)],
                when: .play(source: "song"), journal: [.sourceStarted(source: "song", reason: .play)]),
            RuleCase(
                name: "unplugged during a call: the call's end does not restart it on the speaker", sessions: ["music"],
                device: DeviceState(route: .headphones),
                given: [.play(source: "song"), .phoneCallBegin, .route(.speaker)], when: .phoneCallEnd,
                journal: [.interruptionEnded(session: "music", shouldResume: true)],
                states: ["music": .inactive], running: ["song": false]),
        ])
    func routes(_ c: RuleCase) {
        let (_, after) = check(c)
        if case .route(let route, _) = c.when, c.journal?.isEmpty == false {
            #expect(after.renderView.route == route)
        }
    }
}

@Suite("rule 8: remote commands")
struct Rule8Tests {
    @Test(
        "rule 8: commands go to the now-playing session, never elsewhere",
        arguments: [
            RuleCase(
                name: "togglePlayPause pauses the now-playing session only", sessions: ["music", "amb"],
                given: [.play(source: "song"), .play(source: "rain")], when: .remote(.togglePlayPause),
                journal: [
                    .remoteCommand(command: .togglePlayPause, session: "music"),
                    .sourcePaused(source: "song", reason: .remoteCommand),
                ],
                running: ["song": false, "rain": true]),
            RuleCase(
                name: "play resumes what pause paused", sessions: ["music"],
                given: [.play(source: "song"), .play(source: "song2"), .pause(source: "song2"), .remote(.pause)],
                when: .remote(.play),
                journal: [
                    .remoteCommand(command: .play, session: "music"),
                    .sourceStarted(source: "song", reason: .remoteCommand),
                ],
                running: ["song": true, "song2": false]),
            RuleCase(
                name: "toggle after a pause plays again", sessions: ["music"],
                given: [.play(source: "song"), .remote(.togglePlayPause)], when: .remote(.togglePlayPause),
                journal: [
                    .remoteCommand(command: .togglePlayPause, session: "music"),
                    .sourceStarted(source: "song", reason: .remoteCommand),
                ]),
            RuleCase(
                name: "nobody listed it: dropped, the game plays on", sessions: ["game"],
                given: [.play(source: "fx")], when: .remote(.pause),
                journal: [.remoteCommandUnhandled(command: .pause)], running: ["fx": true]),
            RuleCase(
                name: "mixable playback does not take now-playing", sessions: ["music", "alarm"],
                given: [.play(source: "song"), .play(source: "beep")], when: .remote(.pause),
                journal: [
                    .remoteCommand(command: .pause, session: "music"),
                    .sourcePaused(source: "song", reason: .remoteCommand),
                ],
                running: ["beep": true]),
            RuleCase(
                name: "an inactive session gets nothing", sessions: ["music"],
                given: [.play(source: "song"), .deactivate(session: "music")], when: .remote(.play),
                journal: [.remoteCommandUnhandled(command: .play)], running: ["song": false]),
            RuleCase(
                name: "the latest non-mixable player that lists the command gets it", sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "episode")], when: .remote(.togglePlayPause),
                journal: [
                    .remoteCommand(command: .togglePlayPause, session: "podcast"),
                    .sourcePaused(source: "episode", reason: .remoteCommand),
                ]),
            RuleCase(
                name: "a command it did not list goes past it", sessions: ["music", "podcast"],
                given: [.play(source: "song"), .play(source: "episode")], when: .remote(.nextTrack),
                journal: [.remoteCommand(command: .nextTrack, session: "music")], running: ["episode": true]),
            RuleCase(
                name: "play takes back an interrupted player (rule 2.1 applies)", sessions: ["music", "voip"],
                given: [.play(source: "song"), .play(source: "voice")], when: .remote(.play),
                journal: [
                    .remoteCommand(command: .play, session: "music"),
                    .interruptionEnded(session: "music", shouldResume: false),
                    .sessionActivated(session: "music", category: .playback),
                    .interruptionBegan(session: "voip", reason: .otherSession, by: "music"),
                    .sourcePaused(source: "voice", reason: .interruption),
                    .sourceStarted(source: "song", reason: .remoteCommand),
                ]),
            RuleCase(
                name: "play while playing starts nothing more", sessions: ["music"],
                given: [.play(source: "song")], when: .remote(.play),
                journal: [.remoteCommand(command: .play, session: "music")], running: ["song": true, "song2": false]),
            RuleCase(
                name: "play during a call fails like any activation", sessions: ["music"],
                given: [.play(source: "song"), .phoneCallBegin], when: .remote(.play),
                journal: [
                    .remoteCommand(command: .play, session: "music"),
                    .activationFailed(session: "music", error: .insufficientPriority(session: "music")),
                ],
                error: .insufficientPriority(session: "music")),
            RuleCase(
                name: "pause during a call: no resume when it ends", sessions: ["music"],
                given: [.play(source: "song"), .phoneCallBegin, .remote(.pause)], when: .phoneCallEnd,
                journal: [.interruptionEnded(session: "music", shouldResume: true)],
                states: ["music": .inactive], running: ["song": false]),
            RuleCase(
                name: "next and previous are only journaled", sessions: ["music"],
                given: [.play(source: "song")], when: .remote(.previousTrack),
                journal: [.remoteCommand(command: .previousTrack, session: "music")], running: ["song": true]),
        ])
    func remote(_ c: RuleCase) { _ = check(c) }

    @Test("rule 8: stop pauses and rewinds every source of the session")
    func stop() throws {
        var state = makeState(["music"])
        run(&state, [.play(source: "song")])
        let journal = run(&state, [.remote(.stop)])
        #expect(
            journal == [
                .remoteCommand(command: .stop, session: "music"),
                .sourcePaused(source: "song", reason: .remoteCommand),
            ])
        #expect(state.renderView.source("song")?.rewinds == 1)
        #expect(state.renderView.source("song2")?.rewinds == 1)
        // Nothing remembered: play starts every source.
        let again = run(&state, [.remote(.play)])
        #expect(
            again == [
                .remoteCommand(command: .play, session: "music"),
                .sourceStarted(source: "song", reason: .remoteCommand),
                .sourceStarted(source: "song2", reason: .remoteCommand),
            ])
    }

    @Test("rule 8: the now-playing session")
    func nowPlaying() {
        var state = makeState(["music", "podcast", "alarm", "game"])
        #expect(state.nowPlayingSession == nil)
        run(&state, [.play(source: "song")])
        #expect(state.nowPlayingSession == "music")
        run(&state, [.play(source: "beep"), .play(source: "fx")]) // mixable; no commands
        #expect(state.nowPlayingSession == "music") // music is interrupted by the game, still a target
        run(&state, [.play(source: "episode")])
        #expect(state.nowPlayingSession == "podcast")
        #expect(state.remoteCommandTarget(for: .stop) == "music")
        run(&state, [.deactivate(session: "music"), .deactivate(session: "podcast")])
        #expect(state.nowPlayingSession == nil)
        #expect(state.remoteCommandTarget(for: .play) == nil)
    }
}

@Suite("rule 9: system sounds")
struct Rule9Tests {
    @Test(
        "rule 9: system sounds play over everything except a recording; vibrate under the switch",
        arguments: [
            RuleCase(
                name: "plays", sessions: [], when: .systemSound(name: "click"),
                journal: [.systemSoundPlayed(sound: "click")]),
            RuleCase(
                name: "plays during a call (never interrupted)", sessions: ["music"],
                given: [.play(source: "song"), .phoneCallBegin], when: .systemSound(name: "click"),
                journal: [.systemSoundPlayed(sound: "click")]),
            RuleCase(
                name: "plays while a ducker is active (never ducked)", sessions: ["nav"],
                given: [.play(source: "prompt")], when: .systemSound(name: "click"),
                journal: [.systemSoundPlayed(sound: "click")]),
            RuleCase(
                name: "vibrates with the silent switch on", sessions: [], device: DeviceState(silentSwitch: true),
                when: .systemSound(name: "alert.wav"), journal: [.vibrate(sound: "alert.wav")]),
            RuleCase(
                name: "is suppressed while recording", sessions: ["rec"], given: [.activate(session: "rec")],
                when: .systemSound(name: "click"),
                journal: [.systemSoundSuppressed(sound: "click", reason: .recording)]),
            RuleCase(
                name: "plays again once the record session is interrupted", sessions: ["rec"],
                given: [.activate(session: "rec"), .micMuted(true)], when: .systemSound(name: "click"),
                journal: [.systemSoundPlayed(sound: "click")]),
        ])
    func systemSounds(_ c: RuleCase) {
        let (_, after) = check(c)
        let allowed = c.journal == [.systemSoundPlayed(sound: "click")]
        #expect(after.renderView.systemSoundsAllowed == allowed)
    }
}

@Suite("rule 10: other audio hint")
struct Rule10Tests {
    @Test("rule 10: isOtherAudioPlaying and secondaryAudioShouldBeSilencedHint")
    func hints() {
        var state = makeState(["music", "amb", "game"])
        #expect(!state.isOtherAudioPlaying(asker: "game"))
        run(&state, [.play(source: "rain")])
        #expect(state.isOtherAudioPlaying(asker: "game"))
        #expect(!state.isOtherAudioPlaying(asker: "amb"), "the asker's own audio does not count")
        #expect(!state.secondaryAudioShouldBeSilencedHint(asker: "game"), "ambient is mixable")
        run(&state, [.silentSwitch(true)])
        #expect(!state.isOtherAudioPlaying(asker: "game"), "silenced audio is not heard")
        run(&state, [.play(source: "song")])
        #expect(state.isOtherAudioPlaying(asker: "game"))
        #expect(state.secondaryAudioShouldBeSilencedHint(asker: "game"))
        #expect(!state.secondaryAudioShouldBeSilencedHint(asker: "music"))
        run(&state, [.pause(source: "song")])
        #expect(!state.secondaryAudioShouldBeSilencedHint(asker: "game"), "an active but paused player is not heard")
        run(&state, [.phoneCallBegin])
        #expect(state.isOtherAudioPlaying(asker: "game") && state.secondaryAudioShouldBeSilencedHint(asker: "game"))
    }

    @Test(
        "rule 10: categoryWhenOtherAudioPlaying is chosen at activation from the hint",
        arguments: [
            RuleCase(
                name: "other audio plays: the alternative category (ambient), nobody interrupted",
                sessions: ["music", "game"], given: [.play(source: "song")], when: .play(source: "fx"),
                journal: [
                    .sessionActivated(session: "game", category: .ambient),
                    .sourceStarted(source: "fx", reason: .play),
                ],
                states: ["music": .audible, "game": .audible], running: ["song": true, "fx": true]),
            RuleCase(
                name: "nothing heard: its own category (soloAmbient), which interrupts the idle player",
                sessions: ["music", "game"], given: [.activate(session: "music")], when: .activate(session: "game"),
                journal: [
                    .sessionActivated(session: "game", category: .soloAmbient),
                    .interruptionBegan(session: "music", reason: .otherSession, by: "game"),
                ]),
        ])
    func alternativeCategory(_ c: RuleCase) { _ = check(c) }
}

@Suite("sources and errors")
struct SourceAndErrorTests {
    @Test(
        "unknown ids are refused and change nothing",
        arguments: [
            (PolicyAction.activate(session: "nope"), PolicyError.unknownSession("nope")),
            (.deactivate(session: "nope", notifyOthers: true), .unknownSession("nope")),
            (.setCategory(session: "nope", category: .playback), .unknownSession("nope")),
            (.background(session: "nope"), .unknownSession("nope")),
            (.resume(session: "nope"), .unknownSession("nope")),
            (.play(source: "nope"), .unknownSource("nope")),
            (.pause(source: "nope"), .unknownSource("nope")),
            (.stop(source: "nope"), .unknownSource("nope")),
            (.sourceEnded(source: "nope"), .unknownSource("nope")),
        ])
    func unknownIds(_ action: PolicyAction, _ error: PolicyError) {
        var state = makeState(["music"])
        run(&state, [.play(source: "song")])
        let before = state
        let outcome = state.apply(action)
        #expect(outcome.error == error)
        #expect(outcome.journal.isEmpty)
        #expect(state == before)
        #expect(error.description.contains("nope"))
    }

    @Test("registration errors")
    func registration() {
        #expect(throws: PolicyError.duplicateSession("a")) {
            try PolicyState(sessions: [SessionConfiguration(id: "a"), SessionConfiguration(id: "a")])
        }
        #expect(throws: PolicyError.unknownSession("b")) {
            try PolicyState(sessions: [SessionConfiguration(id: "a")], sources: [SourceConfiguration(id: "x", session: "b")])
        }
        #expect(throws: PolicyError.duplicateSource("x")) {
            try PolicyState(
                sessions: [SessionConfiguration(id: "a")],
                sources: [SourceConfiguration(id: "x", session: "a"), SourceConfiguration(id: "x", session: "a")])
        }
    }

    @Test("scene defaults of a session")
    func defaults() {
        let c = SessionConfiguration(id: "x")
        #expect(c.category == .soloAmbient && c.options.isEmpty && c.mode == .default)
        #expect(!c.playbackControls && c.remoteCommands.isEmpty && c.foreground && c.autoResume)
        #expect(c.categoryWhenOtherAudioPlaying == nil && c.ducking == nil)
        #expect(DuckingSettings.default == DuckingSettings(levelDB: -15, attackSeconds: 0.1, releaseSeconds: 0.4))
        let d = DeviceState()
        #expect(!d.silentSwitch && !d.locked && d.volume == 1 && d.ringerVolume == 1 && d.route == .speaker && !d.micMuted)
    }

    @Test("a source reaching its end stops and rewinds; stop rewinds even a paused source")
    func endAndStop() {
        var state = makeState(["music"])
        run(&state, [.play(source: "song")])
        #expect(run(&state, [.sourceEnded(source: "song")]) == [.sourceEnded(source: "song")])
        #expect(state.renderView.source("song") == SourceView(id: "song", session: "music", isRunning: false, rewinds: 1))
        #expect(run(&state, [.sourceEnded(source: "song")]) == [], "a late report for a stopped source is ignored")
        #expect(run(&state, [.stop(source: "song")]) == [])
        #expect(state.renderView.source("song")?.rewinds == 2)
        run(&state, [.play(source: "song")])
        #expect(run(&state, [.stop(source: "song")]) == [.sourcePaused(source: "song", reason: .stop)])
        #expect(state.renderView.source("song")?.rewinds == 3)
        #expect(run(&state, [.play(source: "song")]) == [.sourceStarted(source: "song", reason: .play)])
        #expect(run(&state, [.play(source: "song")]) == [], "playing a playing source changes nothing")
    }
}
