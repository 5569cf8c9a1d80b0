import Foundation
import Testing
import TuttiDSP

/// `FadeRamp`: exactly a `LinearRamp` in its linear shape; its equal-power segment follows
/// sin / cos of πt/2 from k, ends exactly on the target, and skips where it steps.
@Suite struct FadeRampTests {
    @Test func linearShapeIsTheLinearRampBitForBit() {
        var fade = FadeRamp(value: 1)
        var line = LinearRamp(value: 1)
        for (target, frames) in [(Float(0), 480), (0.7, 33), (0.7, 10), (1, 0), (0.1, 1_000)] {
            fade.ramp(to: target, frameCount: frames)
            line.ramp(to: target, frameCount: frames)
            for _ in 0..<(frames / 2) { #expect(fade.next().bitPattern == line.next().bitPattern) }
            fade.skip(frames / 4)
            line.skip(frames / 4)
            #expect(fade.value.bitPattern == line.value.bitPattern)
        }
    }

    @Test func equalPowerSegmentsFollowSineAndCosine() {
        let n = 1_000
        var rise = FadeRamp(value: 0)
        var fall = FadeRamp(value: 1)
        rise.rampEqualPower(to: 1, frameCount: n)
        fall.rampEqualPower(to: 0, frameCount: n)
        #expect(rise.value == 0 && fall.value == 1 && fall.isEqualPowerFadeOut && !rise.isEqualPowerFadeOut)
        var worstPower = 0.0
        for k in 1...n {
            let (a, b) = (Double(rise.next()), Double(fall.next()))
            let t = Double(k) / Double(n)
            #expect(abs(a - sin(Double.pi / 2 * t)) < 1e-6 && abs(b - cos(Double.pi / 2 * t)) < 1e-6, "frame \(k)")
            worstPower = max(worstPower, abs(a * a + b * b - 1))
        }
        #expect(worstPower < 1e-6)
        #expect(rise.value == 1 && fall.value == 0)
        #expect(!rise.isRamping && !fall.isRamping && !fall.isEqualPowerFadeOut)
        // Half-way each is at −3.01 dB.
        var half = FadeRamp(value: 1)
        half.rampEqualPower(to: 0, frameCount: 2 * n)
        half.skip(n)
        #expect(abs(20 * log10(Double(half.value)) - -3.0103) < 0.001)
    }

    @Test func equalPowerFromAPartialValueAndSkips() {
        var a = FadeRamp(value: 0.5)
        var b = FadeRamp(value: 0.5)
        a.rampEqualPower(to: 1, frameCount: 300)
        b.rampEqualPower(to: 1, frameCount: 300)
        for _ in 0..<120 { _ = a.next() }
        b.skip(120)
        #expect(a.value.bitPattern == b.value.bitPattern)
        #expect(abs(Double(a.value) - (0.5 + 0.5 * sin(Double.pi / 2 * 0.4))) < 1e-6)
        // A linear ramp started midway goes on from the curve's value.
        let at = a.value
        a.ramp(to: 0, frameCount: 10)
        #expect(a.value == at && !a.isEqualPowerFadeOut)
        for _ in 0..<10 { _ = a.next() }
        #expect(a.value == 0)
        // Already at the target: nothing to do.
        var settled = FadeRamp(value: 1)
        settled.rampEqualPower(to: 1, frameCount: 100)
        #expect(!settled.isRamping && settled.value == 1)
    }
}
