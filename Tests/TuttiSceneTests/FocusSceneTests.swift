import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// Issue 22 in scenes: the `focus` of an activation, `pausesWhenDucked` / `content`, and
/// `acceptsDelayedActivation`, measured in the rendered audio and the events log.
@Suite struct FocusSceneTests {
    /// Music (a 440 Hz tone, playback) plays from 0 s; at 1 s `alert` (1 000 Hz, playback)
    /// activates with `focus` and plays; it deactivates at 2 s. A speech session (660 Hz,
    /// mixable) plays throughout. 3 s.
    static func scene(focus: String) -> String {
        """
        {"duration": 3,
         "sessions": [{"id": "music", "category": "playback", "playbackControls": true},
                      {"id": "talk", "category": "playback", "options": ["mixWithOthers"], "content": "speech"},
                      {"id": "alert", "category": "playback"}],
         "sources": [{"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.25}},
                     {"id": "words", "session": "talk", "tone": {"frequency": 660, "amplitude": 0.25}},
                     {"id": "beep", "session": "alert", "tone": {"frequency": 1000, "amplitude": 0.25}}],
         "events": [{"at": 0, "source": "song", "action": "play"},
                    {"at": 0, "source": "words", "action": "play"},
                    {"at": 1, "session": "alert", "action": "activate", "focus": "\(focus)"},
                    {"at": 1, "source": "beep", "action": "play"},
                    {"at": 2, "session": "alert", "action": "deactivate"}]}
        """
    }

    /// Amplitude of `frequency` in the left channel between `from` and `to` seconds.
    func level(_ wav: (samples: [Float], rate: Int, channels: Int, format: Int32), _ frequency: Double, _ from: Double, _ to: Double)
        -> Double
    {
        let a = Int(from * Double(wav.rate)) * wav.channels
        let b = Int(to * Double(wav.rate)) * wav.channels
        let left = stride(from: a, to: b, by: wav.channels).map { Double(wav.samples[$0]) }
        return Analysis.fitSine(left[...], frequency: frequency, sampleRate: Double(wav.rate)).amplitude
    }

    func render(_ json: String) throws -> (wav: (samples: [Float], rate: Int, channels: Int, format: Int32), events: String) {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try renderScene(json, in: dir, events: "events.jsonl")
        return (readWAV(out), try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8))
    }

    @Test func transientMayDuckDucksTheMusicAndPausesTheSpeech() throws {
        let (wav, events) = try render(Self.scene(focus: "transientMayDuck"))
        // Before: music and speech at 0.25. During (after the 100 ms attack): music at −15 dB,
        // speech paused, the alert at full level. After (past the 400 ms release): all back.
        #expect(abs(level(wav, 440, 0.2, 0.9) - 0.25) < 0.002)
        #expect(abs(level(wav, 440, 1.2, 1.9) - 0.25 * DuckingSettings.default.linearGain) < 0.002)
        #expect(level(wav, 660, 1.1, 1.9) < 1e-4)
        #expect(abs(level(wav, 1000, 1.2, 1.9) - 0.25) < 0.002)
        #expect(abs(level(wav, 440, 2.5, 2.9) - 0.25) < 0.002)
        #expect(abs(level(wav, 660, 2.1, 2.9) - 0.25) < 0.002)
        #expect(events.contains(#""type":"sessionActivated","session":"alert","category":"playback","focus":"transientMayDuck""#))
        #expect(events.contains(#""type":"interruptionBegan","session":"talk","reason":"ducked","by":"alert""#))
        #expect(events.contains(#""type":"duckingBegan","session":"music","by":"alert""#))
    }

    @Test func transientInterruptsAndTheMusicResumesWithoutNotifyOthers() throws {
        let (wav, events) = try render(Self.scene(focus: "transient"))
        #expect(level(wav, 440, 1.1, 1.9) < 1e-4)
        #expect(abs(level(wav, 660, 1.1, 1.9) - 0.25) < 0.002) // mixable speech is not interrupted
        // The player (playbackControls) resumes because the loss was transient.
        #expect(abs(level(wav, 440, 2.1, 2.9) - 0.25) < 0.002)
        #expect(events.contains(#""reason":"otherSession","by":"alert","transient":true"#))
        #expect(events.contains(#""type":"interruptionEnded","session":"music","shouldResume":true"#))
    }

    @Test func gainKeepsTodaysBehaviour() throws {
        let (wav, events) = try render(Self.scene(focus: "gain"))
        #expect(level(wav, 440, 1.1, 1.9) < 1e-4)
        // Without notifyOthers a media player does not come back.
        #expect(level(wav, 440, 2.1, 2.9) < 1e-4)
        #expect(!events.contains("focus"))
        #expect(!events.contains("transient"))
    }

    @Test func delayedActivationStartsAtTheCallsEnd() throws {
        let json = """
            {"duration": 2,
             "sessions": [{"id": "player", "category": "playback", "acceptsDelayedActivation": true}],
             "sources": [{"id": "song", "session": "player", "tone": {"frequency": 440, "amplitude": 0.25}}],
             "events": [{"at": 0.2, "system": "phoneCall", "action": "begin"},
                        {"at": 0.5, "source": "song", "action": "play"},
                        {"at": 1, "system": "phoneCall", "action": "end"}]}
            """
        let (wav, events) = try render(json)
        #expect(level(wav, 440, 0.5, 0.99) < 1e-4)
        #expect(abs(level(wav, 440, 1.05, 1.95) - 0.25) < 0.002)
        #expect(events.contains(#""frame":24000,"time":0.5,"type":"activationDelayed","session":"player","reason":"phoneCall""#))
        #expect(events.contains(#""frame":48000,"time":1,"type":"activationGranted","session":"player""#))
        #expect(events.contains(#""frame":48000,"time":1,"type":"sourceStarted","source":"song""#))
        #expect(!events.contains("activationFailed"))
    }

    @Test func explainNamesTheFocusAndThePause() throws {
        let scene = try Scene.decode(json: Self.scene(focus: "transientMayDuck"), baseDirectory: "")
        let e = try Explanation.explain(scene: scene, at: 1.5)
        func report(_ id: String) -> Explanation.SessionReport { e.sessions.first { $0.id == id }! }
        #expect(report("music").state == "ducked")
        #expect(report("music").reason == "ducked by alert (focus transientMayDuck) to -15 dB: the engine default")
        #expect(report("talk").state == "interrupted")
        #expect(
            report("talk").reason
                == "interrupted: ducked by alert (it pauses instead of being ducked; it resumes when the duck ends)")
        #expect(report("talk").chain.contains { $0.type == "interruptionBegan" })
        #expect(report("alert").reason == "holds focus transientMayDuck: it interrupts nobody and ducks every other session")
        let transient = try Explanation.explain(scene: try Scene.decode(json: Self.scene(focus: "transient"), baseDirectory: ""), at: 1.5)
        #expect(
            transient.sessions.first { $0.id == "music" }?.reason
                == "interrupted: otherSession by alert (transient: it may resume when that session deactivates)")
    }

    @Test func explainNamesADelayedActivation() throws {
        let json = """
            {"duration": 2,
             "sessions": [{"id": "player", "category": "playback", "acceptsDelayedActivation": true}],
             "sources": [{"id": "song", "session": "player", "tone": {"frequency": 440, "amplitude": 0.25}}],
             "events": [{"at": 0.2, "system": "phoneCall", "action": "begin"},
                        {"at": 0.5, "session": "player", "action": "activate"},
                        {"at": 1, "system": "phoneCall", "action": "end"}]}
            """
        let scene = try Scene.decode(json: json, baseDirectory: "")
        let during = try Explanation.explain(scene: scene, at: 0.7).sessions[0]
        #expect(during.state == "inactive")
        #expect(during.reason == "activation delayed until the phone call ends (acceptsDelayedActivation)")
        #expect(during.chain.map(\.type) == ["activationDelayed"])
        let after = try Explanation.explain(scene: scene, at: 1.5).sessions[0]
        #expect(after.state == "audible")
        #expect(after.chain.map(\.type) == ["sessionActivated"])
    }

    @Test func anAccessibilitySessionIsHeardUnderTheSwitchAndDucksTheMusic() throws {
        let json = """
            {"duration": 2, "device": {"silentSwitch": true, "locked": true},
             "sessions": [{"id": "music", "category": "playback"}, {"id": "reader", "accessibility": true}],
             "sources": [{"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.25}},
                         {"id": "speech", "session": "reader", "tone": {"frequency": 880, "amplitude": 0.25}}],
             "events": [{"at": 0, "source": "song", "action": "play"},
                        {"at": 0.5, "source": "speech", "action": "play"},
                        {"at": 1.5, "session": "reader", "action": "deactivate"}]}
            """
        let (wav, events) = try render(json)
        #expect(abs(level(wav, 440, 0.1, 0.45) - 0.25) < 0.002)
        // A soloAmbient reader under the switch and the lock: heard at full level, the music at −15 dB.
        #expect(abs(level(wav, 880, 0.6, 1.45) - 0.25) < 0.002)
        #expect(abs(level(wav, 440, 0.65, 1.45) - 0.25 * DuckingSettings.default.linearGain) < 0.002)
        #expect(abs(level(wav, 440, 1.95 - 0.05, 2) - 0.25) < 0.002)
        #expect(!events.contains("silenced"))
        #expect(!events.contains(#""type":"interruptionBegan""#))
        #expect(events.contains(#""type":"duckingBegan","session":"music","by":"reader""#))
    }

    /// The demo scene of docs/policy.md (fixtures/scenes/focus.json): every new decision, at its frame.
    @Test func theFocusDemoMakesEveryNewDecision() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try OfflineRenderer.renderFile(
            scenePath: Tool.fixtures + "/scenes/focus.json", outputPath: dir + "/focus.wav", eventsPath: dir + "/focus.jsonl", format: nil)
        let log = try String(contentsOfFile: dir + "/focus.jsonl", encoding: .utf8)
        let expected = [
            #""frame":72000,"time":1.5,"type":"sessionActivated","session":"nav","category":"playback","focus":"transientMayDuck""#,
            #""frame":72000,"time":1.5,"type":"interruptionBegan","session":"podcast","reason":"ducked","by":"nav""#,
            #""frame":72000,"time":1.5,"type":"duckingBegan","session":"music","by":"nav","rule":"engine""#,
            #""frame":192000,"time":4,"type":"interruptionEnded","session":"podcast","shouldResume":true"#,
            #""frame":240000,"time":5,"type":"interruptionBegan","session":"music","reason":"otherSession","by":"alarm","transient":true,"fade":0.5"#,
            #""frame":312000,"time":6.5,"type":"interruptionEnded","session":"music","shouldResume":true"#,
            #""frame":360000,"time":7.5,"type":"interruptionBegan","session":"podcast","reason":"otherSession","by":"dictation","transient":true"#,
            #""frame":384000,"time":8,"type":"systemSoundSuppressed","sound":"ui-tick-48000.wav","reason":"transientExclusive""#,
            #""frame":504000,"time":10.5,"type":"activationDelayed","session":"player","reason":"phoneCall""#,
            #""frame":576000,"time":12,"type":"activationGranted","session":"player""#,
            #""frame":576000,"time":12,"type":"sourceStarted","source":"tune","reason":"play""#,
            #""frame":648000,"time":13.5,"type":"duckingBegan","session":"player","by":"reader","rule":"engine""#,
            #""frame":696000,"time":14.5,"type":"activationFailed","session":"alarm","error":"rejectedByTable""#,
            #""frame":744000,"time":15.5,"type":"duckingEnded","session":"player""#,
        ]
        var rest = Substring(log)
        for line in expected {
            guard let r = rest.range(of: line) else {
                Issue.record("missing or out of order: \(line)")
                continue
            }
            rest = rest[r.upperBound...]
        }
        // The reader is heard under the lock and the silent switch: nothing is silenced.
        #expect(!log.contains("silenced"))
    }

    static let good = SceneErrorTests.good

    @Test(arguments: [
        (
            "unknown focus", good.replacingOccurrences(of: #""action": "activate""#, with: #""action": "activate", "focus": "transent""#),
            #"events[0].focus: unknown focus "transent" (did you mean "transient"?)"#
        ),
        (
            "focus on a deactivation",
            good.replacingOccurrences(of: #""action": "activate""#, with: #""action": "deactivate", "focus": "transient""#),
            "events[0].focus: unknown field"
        ),
        (
            "unknown content",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "playback", "content": "talk"}"#),
            #"sessions[0].content: unknown content type "talk""#
        ),
        (
            "pausesWhenDucked not a bool",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "playback", "pausesWhenDucked": 1}"#),
            "sessions[0].pausesWhenDucked: expected"
        ),
        (
            "delayed activation on an ambient session",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "ambient", "acceptsDelayedActivation": true}"#),
            "sessions[0].acceptsDelayedActivation: session \"m\" is ambient"
        ),
    ])
    func badKeysNameTheirPlace(name: String, json: String, expected: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            try renderScene(json, in: dir)
            Issue.record("\(name): rendered without error")
        } catch {
            #expect("\(error)".contains(expected), "\(name): \(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"), "\(name): wrote output")
    }
}

/// `engine.policy.lossFade`, measured.
@Suite struct LossFadeSceneTests {
    static func scene(lossFade: Double) -> String {
        """
        {"duration": 3, "engine": {"policy": {"lossFade": \(lossFade)}},
         "sessions": [{"id": "music", "category": "playback"}, {"id": "alert", "category": "playback"}],
         "sources": [{"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.25}},
                     {"id": "beep", "session": "alert", "tone": {"frequency": 1000, "amplitude": 0.25}}],
         "events": [{"at": 0, "source": "song", "action": "play"},
                    {"at": 1, "source": "beep", "action": "play"}]}
        """
    }

    func amplitude(_ samples: [Float], _ frequency: Double, _ from: Double, _ to: Double) -> Double {
        let left = stride(from: Int(from * 48_000) * 2, to: Int(to * 48_000) * 2, by: 2).map { Double(samples[$0]) }
        return Analysis.fitSine(left[...], frequency: frequency, sampleRate: 48_000).amplitude
    }

    @Test func theLoserFadesOutOverTheLossFade() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let faded = readWAV(try renderScene(Self.scene(lossFade: 1), in: dir, events: "events.jsonl")).samples
        let events = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
        let plain = readWAV(try renderScene(Self.scene(lossFade: 0), in: dir, output: "plain.wav")).samples
        // Today: gone 20 ms after the interruption. With a 1 s loss fade: still heard half-way
        // (gate and source fade both linear: (1 − 0.5)² ≈ 0.25 of the level), gone after it.
        #expect(amplitude(plain, 440, 1.05, 1.5) < 1e-4)
        let half = amplitude(faded, 440, 1.45, 1.55)
        #expect(half > 0.25 * 0.15 && half < 0.25 * 0.4, "half-way level \(half)")
        #expect(amplitude(faded, 440, 1.1, 1.2) > amplitude(faded, 440, 1.8, 1.9))
        #expect(amplitude(faded, 440, 2.05, 3) < 1e-4)
        #expect(abs(amplitude(faded, 1000, 1.1, 3) - 0.25) < 0.002)
        #expect(events.contains(#""type":"interruptionBegan","session":"music","reason":"otherSession","by":"alert","fade":1"#))
    }

    @Test func lossFadeOutOfRangeNamesItsPath() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect { try renderScene(Self.scene(lossFade: 12), in: dir) } throws: {
            "\($0)".contains("engine.policy.lossFade: 12 s is out of range 0…10 s")
        }
    }
}

/// `engine.policy.interactions`, measured and explained.
@Suite struct InteractionSceneTests {
    static func scene(_ rows: String) -> String {
        """
        {"duration": 2, "engine": {"policy": {"interactions": [\(rows)]}},
         "sessions": [{"id": "music", "category": "playback"}, {"id": "alert", "category": "playback"}],
         "sources": [{"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.25}},
                     {"id": "beep", "session": "alert", "tone": {"frequency": 1000, "amplitude": 0.25}}],
         "events": [{"at": 0, "source": "song", "action": "play"},
                    {"at": 0.5, "source": "beep", "action": "play"}]}
        """
    }

    func amplitude(_ samples: [Float], _ frequency: Double, _ from: Double, _ to: Double) -> Double {
        let left = stride(from: Int(from * 48_000) * 2, to: Int(to * 48_000) * 2, by: 2).map { Double(samples[$0]) }
        return Analysis.fitSine(left[...], frequency: frequency, sampleRate: 48_000).amplitude
    }

    @Test func aDuckRowDucksInsteadOfInterrupting() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = Self.scene(#"{"active": "playback", "incoming": "alert", "outcome": "duck"}"#)
        let x = readWAV(try renderScene(json, in: dir)).samples
        #expect(abs(amplitude(x, 440, 0.7, 2) - 0.25 * DuckingSettings.default.linearGain) < 0.002)
        #expect(abs(amplitude(x, 1000, 0.6, 2) - 0.25) < 0.002)
        let e = try Explanation.explain(scene: try Scene.decode(json: json, baseDirectory: ""), at: 1)
        #expect(e.sessions[0].reason == "ducked by alert (interactions[0]: duck) to -15 dB: the engine default")
    }

    @Test func rejectSilenceAndInterruptAreExplained() throws {
        let reject = try Scene.decode(
            json: Self.scene(#"{"active": "music", "incoming": "alert", "outcome": "reject"}"#), baseDirectory: "")
        let r = try Explanation.explain(scene: reject, at: 1)
        #expect(r.sessions[0].state == "audible")
        #expect(
            r.sessions[1].chain.contains { $0.type == "activationFailed" && $0.fields.contains { $0.value == .string("rejectedByTable") } })
        let silence = try Scene.decode(
            json: Self.scene(#"{"active": "music", "incoming": "playback", "outcome": "silence"}"#), baseDirectory: "")
        #expect(
            try Explanation.explain(scene: silence, at: 1).sessions[0].reason == "silenced: interaction by alert (interactions[0]: silence)"
        )
        let interrupt = try Scene.decode(
            json: Self.scene(#"{"active": "playback", "incoming": "playback", "outcome": "interrupt"}"#), baseDirectory: "")
        #expect(
            try Explanation.explain(scene: interrupt, at: 1).sessions[0].reason
                == "interrupted: otherSession by alert (interactions[0]: interrupt)")
    }

    @Test(arguments: [
        (
            #"{"active": "music", "incoming": "alert", "outcome": "fade"}"#,
            #"engine.policy.interactions[0].outcome: unknown outcome "fade""#
        ),
        (
            #"{"active": "musik", "incoming": "alert", "outcome": "mix"}"#,
            #"engine.policy.interactions[0].active: unknown session or category "musik" (did you mean "music"?)"#
        ),
        (
            #"{"active": "music", "incoming": "palyback", "outcome": "mix"}"#,
            #"engine.policy.interactions[0].incoming: unknown session or category "palyback""#
        ),
        (
            #"{"active": "music", "incoming": "alert", "outcome": "mix"}, {"active": "music", "incoming": "alert", "outcome": "duck"}"#,
            #"engine.policy.interactions[1]: interactions[0] already covers active "music", incoming "alert""#
        ),
        (
            #"{"active": "music", "incoming": "music", "outcome": "mix"}"#,
            "engine.policy.interactions[0].incoming: a session does not meet itself"
        ),
        (#"{"active": "music", "incoming": "alert"}"#, "engine.policy.interactions[0].outcome: required"),
    ])
    func badRowsNameTheirPlace(rows: String, expected: String) throws {
        #expect { try Scene.decode(json: Self.scene(rows), baseDirectory: "") } throws: { "\($0)".contains(expected) }
    }
}
