import Testing
import TuttiPolicy

/// Other apps' audio (`PolicyAction.otherAudio`): rule 10 counts it beside the scene's sessions.
@Suite("rule 10: other apps' audio")
struct OtherAudioTests {
    static let mixable = OtherAudio(playing: true, silenceSecondary: false, clients: ["pw-play"])
    static let music = OtherAudio(playing: true, silenceSecondary: true, clients: ["spotify", "pw-play"])
    static let none = OtherAudio()

    @Test(
        "otherAudioChanged is journalled only when the fact changes",
        arguments: [
            RuleCase(
                name: "a mixable app starts", sessions: ["game"], when: .otherAudio(mixable),
                journal: [.otherAudioChanged(playing: true, silenceSecondary: false, clients: ["pw-play"])]),
            RuleCase(
                name: "a music app starts", sessions: ["game"], when: .otherAudio(music),
                journal: [.otherAudioChanged(playing: true, silenceSecondary: true, clients: ["spotify", "pw-play"])]),
            RuleCase(
                name: "the same again: nothing", sessions: ["game"], given: [.otherAudio(music)], when: .otherAudio(music),
                journal: []),
            RuleCase(
                name: "none at start: nothing", sessions: ["game"], when: .otherAudio(none), journal: []),
            RuleCase(
                name: "it stops", sessions: ["game"], given: [.otherAudio(music)], when: .otherAudio(none),
                journal: [.otherAudioChanged(playing: false, silenceSecondary: false, clients: [])]),
            RuleCase(
                name: "only the clients change", sessions: ["game"], given: [.otherAudio(mixable)],
                when: .otherAudio(OtherAudio(playing: true, clients: ["mpv"])),
                journal: [.otherAudioChanged(playing: true, silenceSecondary: false, clients: ["mpv"])]),
        ])
    func journal(_ c: RuleCase) { _ = check(c) }

    @Test(
        "the queries count other apps: (fact, isOtherAudioPlaying, hint)",
        arguments: [
            (none, false, false),
            (mixable, true, false),
            (music, true, true),
            (OtherAudio(playing: false, silenceSecondary: true, clients: []), false, false),
        ])
    func queries(_ other: OtherAudio, _ playing: Bool, _ hint: Bool) {
        var state = makeState(["music", "game"])
        run(&state, [.otherAudio(other)])
        #expect(state.isOtherAudioPlaying(asker: "game") == playing)
        #expect(state.secondaryAudioShouldBeSilencedHint(asker: "game") == hint)
        #expect(state.secondaryAudioShouldBeSilencedHint(asker: "music") == hint, "the asker's own audio is not another app's")
        #expect(state.hintPass().hints == [hint, hint])
        #expect(state.device.otherAudio == other)
    }

    @Test(
        "categoryWhenOtherAudioPlaying is chosen from other apps' audio at activation",
        arguments: [
            RuleCase(
                name: "an app plays: the alternative category (ambient)", sessions: ["game"], given: [.otherAudio(mixable)],
                when: .play(source: "fx"),
                journal: [.sessionActivated(session: "game", category: .ambient), .sourceStarted(source: "fx", reason: .play)]),
            RuleCase(
                name: "it stopped before: its own category (soloAmbient)", sessions: ["game"],
                given: [.otherAudio(music), .otherAudio(none)], when: .play(source: "fx"),
                journal: [.sessionActivated(session: "game", category: .soloAmbient), .sourceStarted(source: "fx", reason: .play)]),
        ])
    func alternativeCategory(_ c: RuleCase) { _ = check(c) }

    @Test("the hint changes an action reports patch into the full pass, incrementally or not")
    func incremental() {
        let actions: [PolicyAction] = [
            .play(source: "song"), .otherAudio(Self.music), .play(source: "fx"), .pause(source: "song"),
            .otherAudio(Self.mixable), .play(source: "rain"), .otherAudio(Self.none), .play(source: "song"),
            .otherAudio(Self.music), .silentSwitch(true), .stop(source: "song"), .otherAudio(Self.none),
        ]
        var state = makeState(["music", "amb", "game"])
        var hints = state.hintPass().hints
        for action in actions {
            var reference = state
            reference.alwaysDerivesInFull = true
            let (outcome, change) = state.applyTracked(action)
            let (referenceOutcome, _) = reference.applyTracked(action)
            #expect(outcome == referenceOutcome, "\(action): the journal differs from the full pass's")
            #expect(state == reference, "\(action)")
            if let changed = change.hints { for (i, hint) in changed { hints[i] = hint } } else { hints = state.hintPass().hints }
            #expect(hints == state.hintPass().hints, "\(action): the patched hints differ from the full pass")
            #expect(state.derivedCacheIsConsistent, "\(action)")
        }
    }
}
