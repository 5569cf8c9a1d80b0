import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// The gain reductions of the timeline picture (`tutti render --plot`), measured on the data
/// it is drawn from: a session compressor's reduction follows its static curve while the
/// session is loud and is 0 dB while it is silent; the limiter's is −6 dB for a mix peaking
/// at +6 dBFS; a signal-driven duck shows in the music lane's applied gain during speech
/// and not in the gaps. Recording all this leaves the rendered samples unchanged.
@Suite struct TimelineReductionTests {
    static let rate = 48_000.0

    /// One mono playback session: a 0 dBFS-level 440 Hz tone (amplitude 1) from 0.5 s to
    /// 1.5 s, silence around it; `session` and `engine` add effects or a limiter.
    static func compressorScene(session: String = "", engine: String = "") -> String {
        """
        {"duration": 2.5, "engine": {"channels": 1\(engine)},
         "sessions": [{"id": "music", "category": "playback"\(session)}],
         "sources": [{"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 1}}],
         "events": [{"at": 0, "session": "music", "action": "activate"}, {"at": 0.5, "source": "song", "action": "play"},
                    {"at": 1.5, "source": "song", "action": "pause"}]}
        """
    }

    /// Threshold −20 dB, ratio 4: a 0 dB tone is 20 dB over, so the static curve reduces it
    /// by 20 × (1 − 1/4) = 15 dB.
    static let compressor = #"[{"type": "compressor", "threshold": -20, "ratio": 4, "attack": 0.01, "release": 0.1}]"#
    static let staticReductionDB = -15.0

    static func render(_ json: String) throws -> (Timeline, [UInt32]) {
        let (t, bits, _) = try renderKeeping(json)
        return (t, bits)
    }

    static func renderKeeping(_ json: String) throws -> (Timeline, [UInt32], OfflineRenderer) {
        let r = try OfflineRenderer(scene: try Scene.decode(json: json, baseDirectory: "/"))
        try r.recordTimeline()
        var out: [Float] = []
        try r.render { out += $0 }
        return (try #require(r.timeline(title: "test")), out.map(\.bitPattern), r)
    }

    static func plainRender(_ json: String) throws -> [UInt32] {
        let r = try OfflineRenderer(scene: try Scene.decode(json: json, baseDirectory: "/"))
        var out: [Float] = []
        try r.render { out += $0 }
        return out.map(\.bitPattern)
    }

    /// The records whose frames lie in `seconds`.
    static func records(_ t: Timeline, _ seconds: ClosedRange<Double>) -> Range<Int> {
        let from = Int((seconds.lowerBound * rate).rounded(.up)) / t.intervalFrames + 1
        let to = Int(seconds.upperBound * rate) / t.intervalFrames
        return from..<to
    }

    static func dB(_ g: Float) -> Double { 20 * log10(Double(g)) }

    @Test func aSessionCompressorFollowsItsStaticCurveAndIsZeroWhenSilent() throws {
        let json = Self.compressorScene(session: #", "effects": "# + Self.compressor)
        let (t, bits) = try Self.render(json)
        let lane = try #require(t.lanes.first)
        let reductions = try #require(lane.compressorGains)
        #expect(reductions.count == t.peaks.count)
        // Loud, after the 10 ms attack: within 0.5 dB of the static curve.
        let loud = Self.records(t, 0.6...1.5)
        #expect(loud.count > 50)
        for r in loud {
            let dB = Self.dB(reductions[r])
            #expect(abs(dB - Self.staticReductionDB) <= 0.5, "record \(r): \(dB) dB")
        }
        // Silent before the tone, and after the release (0.1 s) has run out: 0 dB.
        for r in Array(Self.records(t, 0...0.5)) + Array(Self.records(t, 2.3...2.5)) {
            #expect(abs(Self.dB(reductions[r])) < 0.01, "record \(r): \(Self.dB(reductions[r])) dB")
        }
        // Releasing right after the tone: between the two.
        let releasing = Self.dB(reductions[Self.records(t, 1.55...1.6).lowerBound])
        #expect(releasing < -1 && releasing > -14, "\(releasing) dB releasing")
        // The reduction is not folded into the bus gain (unity throughout), and the picture
        // draws it as a line in the session's lane, with its key; no master lane.
        #expect(lane.gains.allSatisfy { $0 == 1 })
        #expect(t.limiterGains == nil && t.masterCompressorGains == nil)
        let svg = TimelineSVG(t).svg()
        let music = try #require(TimelineTests.elements(svg, "<g class=\"lane session\" data-session=\"music\"").first)
        #expect(music.components(separatedBy: "<path class=\"comp\"").count == 2)
        #expect(svg.contains(">compressor</text>"))
        #expect(!svg.contains("<g class=\"lane master\""))
        #expect(!svg.contains(">limiter</text>"))
        // Recording changes nothing in the output.
        #expect(try Self.plainRender(json) == bits)
    }

    @Test func theMasterCompressorIsOnTheMasterLane() throws {
        let (t, _) = try Self.render(Self.compressorScene(engine: #", "effects": "# + Self.compressor))
        #expect(t.lanes[0].compressorGains == nil)
        #expect(t.limiterGains == nil)
        let reductions = try #require(t.masterCompressorGains)
        for r in Self.records(t, 0.6...1.5) {
            #expect(abs(Self.dB(reductions[r]) - Self.staticReductionDB) <= 0.5, "record \(r): \(Self.dB(reductions[r])) dB")
        }
        for r in Self.records(t, 0...0.5) { #expect(reductions[r] == 1) }
        let svg = TimelineSVG(t).svg()
        let master = try #require(TimelineTests.elements(svg, "<g class=\"lane master\"").first)
        #expect(master.components(separatedBy: "<path class=\"comp\"").count == 2)
        #expect(!master.contains("<path class=\"lim\""))
        // The master lane sits between the sessions and the output and makes the picture taller.
        let (plain, _) = try Self.render(Self.compressorScene())
        #expect(TimelineSVG(t).height == TimelineSVG(plain).height + 46)
    }

    /// Two full-scale tones in phase peak at +6.02 dBFS; a limiter at 0 dBFS takes them down
    /// by 6.02 dB at every peak.
    @Test func theLimiterShowsItsReductionAtThePeak() throws {
        let json = LimiterSceneTests.scene(engine: #""engine": {"limiter": {"ceiling": 0, "release": 0.05}}, "#)
        let (t, bits) = try Self.render(json)
        let limiter = try #require(t.limiterGains)
        #expect(limiter.count == t.peaks.count)
        let expected = -20 * log10(2.0)
        for r in 1..<limiter.count {
            #expect(abs(Self.dB(limiter[r]) - expected) < 0.05, "record \(r): \(Self.dB(limiter[r])) dB")
        }
        // The output peak it leaves: the ceiling.
        #expect(t.peaks.allSatisfy { $0 <= 1 })
        #expect(t.masterCompressorGains == nil && t.lanes[0].compressorGains == nil)
        let svg = TimelineSVG(t).svg()
        let master = try #require(TimelineTests.elements(svg, "<g class=\"lane master\"").first)
        #expect(master.components(separatedBy: "<path class=\"lim\"").count == 2)
        #expect(svg.contains(">limiter</text>") && !svg.contains(">compressor</text>"))
        #expect(TimelineSVG(t).html().contains("the limiter's gain reduction"))
        #expect(try Self.plainRender(json) == bits)
        // Without a limiter: no limiter trace, no master lane.
        let (none, _) = try Self.render(LimiterSceneTests.scene())
        #expect(none.limiterGains == nil)
        #expect(!TimelineSVG(none).svg().contains("<g class=\"lane master\""))
    }

    /// The signal-driven duck is applied on the render side: the music lane's gain (what the
    /// bus multiplied with) is the rule's −12 dB while the voice sounds and unity in the gaps.
    @Test func aSignalDuckShowsInTheAppliedGain() throws {
        let (t, bits, renderer) = try Self.renderKeeping(SignalDuckingTests.scene())
        let music = try #require(t.lanes.first { $0.id == "music" })
        func range(_ seconds: ClosedRange<Double>) -> [Double] { Self.records(t, seconds).map { Self.dB(music.gains[$0]) } }
        // During the bursts, after the 50 ms attack: the rule's level.
        for burst in [0.6...1.0, 2.1...2.5] {
            for dB in range(burst) { #expect(abs(dB - -12) <= 0.01, "\(dB) dB in \(burst)") }
        }
        // Before the voice, and in the gaps after hold (0.2 s) + release (0.1 s): unity.
        for gap in [0.3...0.5, 1.35...2.0, 2.85...3.2] {
            for dB in range(gap) { #expect(abs(dB) <= 0.01, "\(dB) dB in \(gap)") }
        }
        // The shading follows the render too, not the rule (which applies from 0.25 s on):
        // ducked from each crossing to its release, audible before and in between.
        func state(at seconds: Double) -> Timeline.LaneState? {
            let f = Int64(seconds * Self.rate)
            return music.states.first { $0.span.from <= f && f < $0.span.to }?.state
        }
        for s in [0.3, 0.45, 1.5, 1.9, 2.9, 3.1] { #expect(state(at: s) == .audible, "\(s) s: \(String(describing: state(at: s)))") }
        for s in [0.55, 0.9, 1.1, 2.05, 2.4] { #expect(state(at: s) == .ducked, "\(s) s: \(String(describing: state(at: s)))") }
        // Its spans start and end at the journal's signal crossings.
        let ducked = music.states.filter { $0.state == .ducked }.map(\.span)
        #expect(ducked.count == 2, "\(ducked)")
        #expect(ducked.map(\.from) == SignalDuckingTests.frames(renderer.journal, "duckingBegan"))
        #expect(ducked.map(\.to) == SignalDuckingTests.frames(renderer.journal, "duckingEnded"))
        // No compressor, no limiter: no reduction traces.
        #expect(t.lanes.allSatisfy { $0.compressorGains == nil })
        #expect(t.limiterGains == nil)
        #expect(try Self.plainRender(SignalDuckingTests.scene()) == bits)
    }
}
