import Foundation
import Testing
import TuttiTestSupport

/// `Continuity` (the capture tests' measure) on synthetic takes: a clean sine passes, and each
/// kind of fault a capture can make — inserted silence, replaced frames, a dropped block — is
/// seen.
@Suite struct ContinuityMeasureTests {
    static let rate = 48_000.0

    /// 0.1 s of silence, then `frames` frames of a 1 kHz sine of amplitude 0.5 (phase 0.3),
    /// with optional white noise of RMS `noise`.
    static func take(frames: Int = 48_000, noise: Double = 0) -> [Float] {
        var generator = SystemRandomNumberGenerator()
        let w = 2 * Double.pi * 1_000 / rate
        let lead = [Float](repeating: 0, count: 4_800)
        let tone = (0..<frames).map { n in
            let dither = noise == 0 ? 0 : noise * 3.0.squareRoot() * Double.random(in: -1...1, using: &generator)
            return Float(0.5 * sin(w * Double(n) + 0.3) + dither)
        }
        return lead + tone
    }

    @Test func aCleanSinePasses() {
        for noise in [0.0, 3e-5] {
            let c = Continuity.measure(Self.take(noise: noise), frequency: 1_000, sampleRate: Self.rate)
            #expect(c.isContinuous(), "\(c)")
            #expect(c.signalStart == 4_800)
            #expect(abs(c.amplitude - 0.5) < 0.001)
            #expect(c.maxPhaseJumpRadians < 0.001)
            #expect(c.maxSecondDifference < c.spikeThreshold)
        }
    }

    @Test func aStereoCleanSinePasses() {
        let mono = Self.take()
        let stereo = mono.flatMap { [$0, -$0] }
        let c = Continuity.measure(stereo, channelCount: 2, frequency: 1_000, sampleRate: Self.rate)
        #expect(c.isContinuous(), "\(c)")
    }

    @Test func fourInsertedZerosAreARunASpikeAndAPhaseJump() {
        var x = Self.take()
        // At a sample where the sine is far from zero.
        let at = 4_800 + 20_012
        x.insert(contentsOf: [Float](repeating: 0, count: 4), at: at)
        let c = Continuity.measure(x, frequency: 1_000, sampleRate: Self.rate)
        #expect(!c.isContinuous())
        #expect(c.zeroRuns == [Continuity.ZeroRun(start: at, length: 4)], "\(c)")
        #expect(c.spikes.contains { abs($0 - at) <= 5 }, "\(c)")
        // 4 frames of a 48-frame cycle: π/6.
        #expect(abs(c.maxPhaseDriftRadians - Double.pi / 6) < 0.02, "\(c)")
    }

    @Test func fourFramesReplacedByZerosAreARunEvenAtAZeroCrossing() {
        var x = Self.take()
        // Where the sine crosses zero (phase 0.3 + w·n = 2π k): the click is small, the run is not.
        let w = 2 * Double.pi * 1_000 / Self.rate
        let crossing = 4_800 + Int(((2 * Double.pi * 400 - 0.3) / w).rounded())
        for i in crossing..<(crossing + 4) { x[i] = 0 }
        let c = Continuity.measure(x, frequency: 1_000, sampleRate: Self.rate)
        #expect(!c.isContinuous())
        #expect(c.zeroRuns.count == 1 && c.zeroRuns[0].length >= 4, "\(c)")
        #expect(c.maxPhaseDriftRadians < 0.05, "replaced frames keep the phase: \(c)")
    }

    @Test func aDroppedBlockIsASpikeAndAPhaseJump() {
        var x = Self.take()
        // 37 frames lost (not a whole number of cycles): the phase moves by 37/48 of a cycle.
        x.removeSubrange((4_800 + 24_000)..<(4_800 + 24_037))
        let c = Continuity.measure(x, frequency: 1_000, sampleRate: Self.rate)
        #expect(!c.isContinuous())
        #expect(c.zeroRuns.isEmpty)
        #expect(c.spikes.contains { abs($0 - (4_800 + 24_000)) <= 2 }, "\(c)")
        #expect(c.maxPhaseJumpRadians > 1, "\(c)")
    }

    @Test func aDroppedWholeCycleIsInvisibleInAPureSine() {
        // 48 frames = one cycle: the phase does not move, so only the splice can show it;
        // a cycle is continuous at the splice, so nothing is seen — the measure's honest limit.
        var x = Self.take()
        x.removeSubrange((4_800 + 24_000)..<(4_800 + 24_048))
        let c = Continuity.measure(x, frequency: 1_000, sampleRate: Self.rate)
        #expect(c.isContinuous(), "a dropped whole cycle is invisible in a pure sine: \(c)")
    }

    @Test func silenceIsNoSignal() {
        let c = Continuity.measure([Float](repeating: 0, count: 4_800), frequency: 1_000, sampleRate: Self.rate)
        #expect(c.signalStart == nil)
        #expect(!c.isContinuous())
    }
}
