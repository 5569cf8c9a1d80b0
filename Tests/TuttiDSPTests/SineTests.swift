import Foundation
import Testing
import TuttiDSP

/// The oscillator's own sine (`sineOfPhase`, multiplies and adds only) against libm's.
@Suite struct SineTests {
    @Test("sineOfPhase is within 1e-11 of sin over [0, 2π], zero at 0 and π")
    func closeToLibm() {
        var worst = 0.0
        let n = 1_000_003
        for i in 0...n {
            let p = 2 * Double.pi * Double(i) / Double(n)
            worst = max(worst, abs(sineOfPhase(p) - sin(p)))
        }
        #expect(worst < 1e-11, "worst error \(worst)")
        #expect(sineOfPhase(0) == 0 && sineOfPhase(Double.pi) == 0)
        #expect(abs(sineOfPhase(Double.pi / 2) - 1) < 1e-11 && abs(sineOfPhase(3 * Double.pi / 2) + 1) < 1e-11)
    }

    @Test("the output does not depend on how the frames are split into blocks")
    func blockSplitDoesNotMatter() {
        var whole = SineOscillator(frequency: 441, amplitude: 0.7, sampleRate: 44_100)
        var split = whole
        let frames = 10_007
        let a = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        let b = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer {
            a.deallocate()
            b.deallocate()
        }
        whole.render(into: a, frameCount: frames, channelCount: 1)
        var done = 0
        var size = 1
        while done < frames {
            let n = min(size, frames - done)
            split.render(into: b + done, frameCount: n, channelCount: 1)
            done += n
            size = size % 7 + 1 // 1, 2, …, 7: every remainder of 4
        }
        #expect((0..<frames).allSatisfy { a[$0] == b[$0] })
    }

    @Test("a 1 kHz tone at 48 kHz: the float samples are libm's to within one step of the float grid")
    func toneMatchesLibm() {
        var osc = SineOscillator(frequency: 1000, amplitude: 0.5, sampleRate: 48_000)
        let frames = 48_000
        let out = UnsafeMutablePointer<Float>.allocate(capacity: frames * 2)
        defer { out.deallocate() }
        osc.render(into: out, frameCount: frames, channelCount: 2)
        var phase = 0.0
        var worst: Float = 0
        let increment = 2 * Double.pi * 1000 / 48_000
        for f in 0..<frames {
            let expected = 0.5 * Float(sin(phase))
            worst = max(worst, abs(out[2 * f] - expected))
            #expect(out[2 * f] == out[2 * f + 1])
            phase += increment
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        }
        #expect(worst <= 0.5 * Float.ulpOfOne, "worst \(worst)")
    }
}
