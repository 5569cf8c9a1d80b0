import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// Signal-driven ducking (`"trigger": "signal"`), measured in the render: music (440 Hz) under
/// a nav "voice" (1 kHz in two 0.5 s bursts with a 1 s gap) is ducked by the rule's level
/// during the bursts and back at unity in the gap after hold + release; the journal has
/// began/ended pairs with the trigger at the level's crossings; the same rule on activation
/// keeps the music ducked through the gap; bad rules name their JSON path.
@Suite struct SignalDuckingTests {
    static let rate = 48_000.0

    static func scene(rule: String = #", "trigger": "signal", "threshold": -40, "hold": 0.2"#) -> String {
        """
        {"duration": 3.2, "engine": {"channels": 1,
           "ducking": {"rules": [{"by": "nav", "duck": "music", "level": -12, "attack": 0.05, "release": 0.1\(rule)}]}},
         "sessions": [{"id": "music", "category": "playback", "options": ["mixWithOthers"]},
                      {"id": "nav", "category": "playback", "options": ["duckOthers"]}],
         "sources": [{"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.5}},
                     {"id": "voice", "session": "nav", "tone": {"frequency": 1000, "amplitude": 0.5}}],
         "events": [{"at": 0, "session": "music", "action": "activate"}, {"at": 0, "source": "song", "action": "play"},
                    {"at": 0.25, "session": "nav", "action": "activate"},
                    {"at": 0.5, "source": "voice", "action": "play"}, {"at": 1.0, "source": "voice", "action": "pause"},
                    {"at": 2.0, "source": "voice", "action": "play"}, {"at": 2.5, "source": "voice", "action": "pause"}]}
        """
    }

    /// The music's level in dB re its unity amplitude over `seconds`.
    static func musicDB(_ x: [Double], _ seconds: ClosedRange<Double>) -> Double {
        let range = Int(seconds.lowerBound * rate)..<Int(seconds.upperBound * rate)
        return Analysis.dB(Analysis.toneAmplitude(x[range], frequency: 440, sampleRate: rate) / 0.5)
    }

    static func render(_ json: String) throws -> (x: [Double], renderer: OfflineRenderer, bits: [UInt32]) {
        let renderer = try OfflineRenderer(scene: try Scene.decode(json: json, baseDirectory: "/"))
        var out: [Float] = []
        try renderer.render { out += $0 }
        return (out.map(Double.init), renderer, out.map(\.bitPattern))
    }

    static func frames(_ journal: [LogEntry], _ type: String) -> [Int64] {
        journal.filter { e in e.type == type && e.fields.contains { $0.key == "session" && $0.value == .string("music") } }.map(\.frame)
    }

    @Test func theMusicDucksWhileTheVoiceSoundsAndComesBackInTheGaps() throws {
        let (x, renderer, bits) = try Self.render(Self.scene())
        // Before the voice (nav active, silent): unity.
        #expect(abs(Self.musicDB(x, 0.3...0.5)) <= 0.1, "\(Self.musicDB(x, 0.3...0.5)) dB before the voice")
        // During the bursts (after the 50 ms attack): the rule's level.
        for burst in [0.6...1.0, 2.1...2.5] {
            let dB = Self.musicDB(x, burst)
            #expect(abs(dB - -12) <= 0.5, "\(dB) dB during \(burst)")
        }
        // In the gap after hold (0.2 s) + release (0.1 s), and after the last burst: unity.
        for gap in [1.35...2.0, 2.85...3.2] {
            let dB = Self.musicDB(x, gap)
            #expect(abs(dB) <= 0.1, "\(dB) dB in \(gap)")
        }
        // The journal: began when the voice starts, ended a hold after it stops (± 10 ms),
        // both with the trigger.
        let journal = renderer.journal
        let began = Self.frames(journal, "duckingBegan")
        let ended = Self.frames(journal, "duckingEnded")
        #expect(began.count == 2 && ended.count == 2, "began \(began), ended \(ended)")
        for (got, want) in zip(began, [24_000, 96_000] as [Int64]) { #expect(abs(got - want) <= 480, "began at \(got)") }
        for (got, want) in zip(ended, [48_000 + 9_600, 120_000 + 9_600] as [Int64]) {
            #expect(abs(got - want) <= 480, "ended at \(got)")
        }
        for e in journal where e.type.hasPrefix("ducking") {
            #expect(e.fields.contains { $0.key == "trigger" && $0.value == .string("signal") }, "\(e)")
        }
        // Deterministic: a second render is the same, bit for bit, journal too.
        let (_, again, second) = try Self.render(Self.scene())
        #expect(second == bits)
        #expect(again.journal == journal)
    }

    @Test func onActivationTheMusicStaysDuckedThroughTheGap() throws {
        let (x, renderer, _) = try Self.render(Self.scene(rule: ""))
        for span in [0.6...1.0, 1.35...2.0, 2.85...3.2] {
            let dB = Self.musicDB(x, span)
            #expect(abs(dB - -12) <= 0.5, "\(dB) dB in \(span)")
        }
        let began = renderer.journal.filter { $0.type == "duckingBegan" }
        #expect(began.map(\.frame) == [12_000])
        #expect(!(began.first?.fields.contains { $0.key == "trigger" } ?? true))
    }

    @Test func explainSaysTheLevelDecides() throws {
        let e = try Explanation.explain(scene: try Scene.decode(json: Self.scene(), baseDirectory: "/"), at: 0.7)
        let music = try #require(e.sessions.first { $0.id == "music" })
        #expect(music.reason?.hasPrefix("ducked while nav's signal is above −40 dBFS") == true, "\(music.reason ?? "nil")")
    }

    @Test(arguments: [
        (#", "trigger": "signals", "threshold": -40"#, "engine.ducking.rules[0].trigger", "unknown trigger"),
        (#", "trigger": "signal", "threshold": 3"#, "engine.ducking.rules[0].threshold", "out of range"),
        (#", "trigger": "signal", "threshold": -121"#, "engine.ducking.rules[0].threshold", "out of range"),
        (#", "trigger": "signal""#, "engine.ducking.rules[0].threshold", "missing"),
        (#", "trigger": "signal", "threshold": "loud""#, "engine.ducking.rules[0].threshold", "expected a number"),
        (#", "trigger": "signal", "threshold": -40, "hold": -0.1"#, "engine.ducking.rules[0].hold", "out of range"),
        (#", "threshold": -40"#, "engine.ducking.rules[0].threshold", "only a rule with"),
        (#", "trigger": 1"#, "engine.ducking.rules[0].trigger", "expected a string"),
    ])
    func badSignalRulesNameTheirPlace(rule: String, place: String, message: String) throws {
        do {
            _ = try Scene.decode(json: Self.scene(rule: rule), baseDirectory: "/")
            Issue.record("decoded a bad rule")
        } catch let e as SceneError {
            #expect(e.description.contains(place) && e.description.contains(message), "\(e.description)")
        }
    }
}
