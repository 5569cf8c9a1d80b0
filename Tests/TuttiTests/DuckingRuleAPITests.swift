import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// Ducking rules set through the host API, measured in the output.
@Suite struct DuckingRuleAPITests {
    /// music (playback, 440 Hz), amb (ambient, 330 Hz), nav (duckOthers, silent source) and
    /// nav2 (duckOthers, its own −9 dB), all mono at 48 kHz, every tone at 0.5.
    struct World {
        let engine: AudioEngine
        let music, amb, nav, nav2: SessionHandle
        let navVoice, nav2Voice: SourceHandle

        init(ambient: Bool = true) throws {
            var config = AudioEngineConfiguration()
            config.channelCount = 1
            engine = try AudioEngine(configuration: config)
            music = try engine.makeSession(named: "music", category: .playback)
            amb = try engine.makeSession(named: "amb", category: .ambient)
            nav = try engine.makeSession(SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers]))
            nav2 = try engine.makeSession(
                SessionConfiguration(
                    id: "nav2", category: .playback, options: [.duckOthers],
                    ducking: DuckingSettings(levelDB: -9, attackSeconds: 0.1, releaseSeconds: 0.4)))
            try music.setActive(true)
            try music.makeToneSource(frequency: 440, amplitude: 0.5).play()
            if ambient {
                try amb.setActive(true)
                try amb.makeToneSource(frequency: 330, amplitude: 0.5).play()
            }
            navVoice = try nav.makeSilentSource()
            nav2Voice = try nav2.makeSilentSource()
        }
    }

    func dB(_ x: [Double], _ range: Range<Int>, _ frequency: Double) -> Double {
        Analysis.dB(level(x, range, frequency) / 0.5)
    }

    @Test func theMostSpecificRuleSetsEachSessionsLevel() throws {
        let w = try World()
        try w.engine.setDuckingRules([
            DuckingRule(
                by: .session("nav"), duck: .session("music"),
                settings: DuckingSettings(levelDB: -24, attackSeconds: 0.05, releaseSeconds: 0.3)),
            DuckingRule(
                by: .category(.playback), duck: .category(.ambient),
                settings: DuckingSettings(levelDB: -6, attackSeconds: 0.05, releaseSeconds: 0.3)),
        ])
        try w.nav.setActive(true, at: .frame(4_800))
        let x = render(w.engine, frames: 24_000)
        #expect(abs(dB(x, 0..<4_800, 440)) < 0.1 && abs(dB(x, 0..<4_800, 330)) < 0.1)
        #expect(abs(dB(x, 12_000..<24_000, 440) - -24) < 0.1)
        #expect(abs(dB(x, 12_000..<24_000, 330) - -6) < 0.1)
        // New rules at run time: the pair rule is gone, a category rule for playback takes music
        // to −10; nothing names ambient any more: the engine's −15.
        try w.engine.setDuckingRules([
            DuckingRule(
                by: .category(.playback), duck: .category(.playback),
                settings: DuckingSettings(levelDB: -10, attackSeconds: 0.05, releaseSeconds: 0.3))
        ])
        let y = render(w.engine, frames: 48_000)
        #expect(abs(dB(y, 24_000..<48_000, 440) - -10) < 0.1)
        #expect(abs(dB(y, 24_000..<48_000, 330) - -15) < 0.1)
        #expect(w.engine.duckingRules.count == 1)
        // The journal's duck events name who and (in the events log) which rule.
        let ducks = w.engine.pollEvents().filter { if case .duckingBegan = $0.kind { true } else { false } }
        #expect(ducks.count == 4)
    }

    /// The gain applied to the 440 Hz music over time: the ducked render divided by the
    /// same render with no ducker, where the tone is far from a zero crossing.
    func envelope(_ ducked: [Double], _ plain: [Double]) -> [(frame: Int, gain: Double)] {
        zip(ducked, plain).enumerated().compactMap { k, p in abs(p.1) > 0.3 ? (k, p.0 / p.1) : nil }
    }

    @Test func overlappingDuckersTakeTheDeepestAndEachReleaseStartsWhereTheLevelIs() throws {
        let rules = [
            DuckingRule(
                by: .session("nav"), duck: .session("music"),
                settings: DuckingSettings(levelDB: -24, attackSeconds: 0.4, releaseSeconds: 0.4))
        ]
        func run(ducking: Bool) throws -> [Double] {
            let w = try World(ambient: false)
            try w.engine.setDuckingRules(rules)
            if ducking {
                try w.nav2.setActive(true, at: .frame(4_800)) // −9 (its own)
                try w.nav.setActive(true, at: .frame(24_000)) // −24, attack 0.4 s: deeper, so it wins
                // nav leaves half-way through its attack: music releases to nav2's −9 from
                // where it is, at nav's release rate.
                try w.nav.setActive(false, at: .frame(33_600))
                try w.nav2.setActive(false, at: .frame(62_400))
            }
            return render(w.engine, frames: 96_000)
        }
        let x = try run(ducking: true)
        let plain = try run(ducking: false)
        #expect(abs(dB(x, 14_400..<24_000, 440) - -9) < 0.1)
        let env = envelope(x, plain)
        func gainDB(at frame: Int) -> Double {
            Analysis.dB(env.min { abs($0.frame - frame) < abs($1.frame - frame) }!.gain)
        }
        // nav's attack runs at 24 dB per 0.4 s from −9: 0.2 s later it is at −21 dB, not −24
        // (where a release from the rule's level would start) nor −9.
        #expect(abs(gainDB(at: 33_599) - -21) < 0.2)
        // From there it rises to −9 (0.2 s at the same rate) and stays; then back to 0 dB
        // after nav2 leaves.
        #expect(abs(gainDB(at: 38_400) - -15) < 0.2)
        #expect(abs(dB(x, 48_000..<62_400, 440) - -9) < 0.1)
        #expect(abs(dB(x, 84_000..<96_000, 440)) < 0.1)
        // No jump anywhere: the gain moves by less than 0.05 dB between neighbouring samples
        // (the steepest legitimate slope is 24 dB / 19 200 frames ≈ 0.00125 dB per frame).
        var worst = 0.0
        for (a, b) in zip(env, env.dropFirst()) where b.frame - a.frame < 8 {
            worst = max(worst, abs(Analysis.dB(b.gain) - Analysis.dB(a.gain)))
        }
        #expect(worst < 0.05, "largest step \(worst) dB")
        // And the second-difference detector finds no click in the music.
        let clicks = Analysis.clicks(x, reference: 1_000..<4_000, factor: 2)
        #expect(clicks.isEmpty, "clicks at \(clicks.prefix(5))")
    }

    @Test func badRulesNameTheRuleAndChangeNothing() throws {
        let w = try World()
        let good = DuckingRule(by: .session("nav"), duck: .category(.ambient), settings: .default)
        try w.engine.setDuckingRules([good])
        let cases: [([DuckingRule], String)] = [
            (
                [good, DuckingRule(by: .session("nav"), duck: .session("radio"), settings: .default)],
                "rules[1].duck: unknown session \"radio\""
            ),
            (
                [
                    DuckingRule(
                        by: .session("nav"), duck: .session("music"),
                        settings: DuckingSettings(levelDB: 1, attackSeconds: 0, releaseSeconds: 0))
                ],
                "rules[0].level: must be in −96…0 dB"
            ),
            (
                [
                    DuckingRule(
                        by: .session("nav"), duck: .session("music"),
                        settings: DuckingSettings(levelDB: -6, attackSeconds: -1, releaseSeconds: 0))
                ],
                "rules[0].attack: must be in 0…3600 s"
            ),
        ]
        for (rules, message) in cases {
            #expect {
                try w.engine.setDuckingRules(rules)
            } throws: { error in
                let e = error as! TuttiError
                return e.code == .invalidArgument && e.message.contains(message)
            }
            #expect(w.engine.duckingRules == [good])
        }
    }
}

/// Voice limits through the host API: the policy learns what the renderer decided.
@Suite struct VoiceLimitAPITests {
    @Test func aSessionLimitStealsAndThePolicyKnows() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let game = try engine.makeSession(SessionConfiguration(id: "game", category: .ambient, maxVoices: 1))
        let a = try game.makeToneSource(frequency: 300, amplitude: 0.5, name: "a")
        let b = try game.makeToneSource(frequency: 500, amplitude: 0.5, name: "b")
        try a.play()
        try b.play(at: .frame(4_800))
        let x = render(engine, frames: 9_600)
        let events = engine.pollEvents()
        #expect(events.contains { $0 == AudioEvent(frame: 4_800, kind: .voiceStolen(source: a.id, by: b.id, session: game.id)) })
        #expect(try a.state == .stopped && b.state == .playing)
        #expect(level(x, 6_000..<9_600, 300) < 1e-4 && level(x, 6_000..<9_600, 500) > 0.45)
        // The policy saw a stop: a later play of a starts it again (taking b's voice).
        try a.setPriority(200)
        try a.play()
        _ = render(engine, frames: 4_800)
        #expect(try a.state == .playing && b.state == .stopped)
        // b (priority 128) is below a (200) now: refused.
        try b.play()
        _ = render(engine, frames: 4_800)
        #expect(engine.pollEvents().contains { $0.kind == .voiceRefused(source: b.id, session: game.id) })
        #expect(try b.state == .stopped && a.state == .playing)
        // No limit any more: b plays too.
        try game.setMaxVoices(nil)
        try b.play()
        _ = render(engine, frames: 4_800)
        #expect(try a.state == .playing && b.state == .playing)
    }

    @Test func theEngineLimitSpansSessionsButNotSystemAudio() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.maxVoices = 1
        let engine = try AudioEngine(configuration: config)
        let one = try engine.makeSession(named: "one", category: .ambient)
        let two = try engine.makeSession(named: "two", category: .ambient)
        let a = try one.makeToneSource(frequency: 300, amplitude: 0.5)
        let b = try two.makeToneSource(frequency: 500, amplitude: 0.5)
        try a.play()
        try b.play()
        try engine.beginPhoneCall() // call audio is not a voice (none here, but its bus exists)
        try engine.endPhoneCall()
        _ = render(engine, frames: 4_800)
        #expect(engine.pollEvents().contains { $0.kind == .voiceStolen(source: a.id, by: b.id, session: one.id) })
        try engine.setMaxVoices(2)
        try a.play()
        _ = render(engine, frames: 4_800)
        #expect(try a.state == .playing && b.state == .playing)
    }

    @Test func badLimitsAndPrioritiesAreRefused() throws {
        var config = AudioEngineConfiguration()
        config.maxVoices = 0
        #expect(throws: TuttiError.self) { try AudioEngine(configuration: config) }
        let engine = try AudioEngine()
        #expect(throws: TuttiError.self) { try engine.makeSession(SessionConfiguration(id: "s", maxVoices: 0)) }
        #expect(engine.session(named: "s") == nil)
        let s = try engine.makeSession(named: "s")
        let t = try s.makeSilentSource()
        #expect(throws: TuttiError.self) { try t.setPriority(256) }
        #expect(throws: TuttiError.self) { try t.setPriority(-1) }
        #expect(throws: TuttiError.self) { try s.setMaxVoices(-3) }
        #expect(throws: TuttiError.self) { try engine.setMaxVoices(0) }
    }
}
