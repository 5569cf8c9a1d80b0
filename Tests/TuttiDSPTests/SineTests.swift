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
        var worst: Float = 0
        for f in 0..<frames {
            // 1/48 of a cycle a frame: frame f's phase is 2π · (f mod 48) / 48.
            let expected = 0.5 * Float(sin(2 * Double.pi * Double(f % 48) / 48))
            worst = max(worst, abs(out[2 * f] - expected))
            #expect(out[2 * f] == out[2 * f + 1])
        }
        #expect(worst <= 0.5 * Float.ulpOfOne, "worst \(worst)")
    }

    @Test("a day into a 20 kHz tone the phase is still the exact one to within 2e-6 rad")
    func noDriftAfterADay() {
        let day = Int64(48_000 * 86_400)
        var osc = SineOscillator(frequency: 20_000, amplitude: 1, sampleRate: 48_000)
        osc.seek(toFrame: Int(day))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { out.deallocate() }
        osc.render(into: out, frameCount: 64, channelCount: 1)
        var worst = 0.0
        for f in 0..<64 {
            // 5/12 of a cycle a frame: frame n's phase is 2π · (5n mod 12) / 12, exactly.
            let exact = sin(2 * Double.pi * Double((5 * (day + Int64(f))) % 12) / 12)
            worst = max(worst, abs(Double(out[f]) - exact))
        }
        #expect(worst < 2e-6 + 1e-7, "worst \(worst)") // phase error, plus the float's rounding
    }

    /// Every variant of the C tone kernel against the Swift reference, bit for bit: block
    /// lengths around the vector widths, unaligned outputs, 1–3 channels, frame indices from 0
    /// to 2^40, tones from near 0 Hz to near Nyquist.
    @Test(arguments: KernelVariant.supported.map(\.name))
    func everyVariantWritesTheReferenceBytes(variant: String) throws {
        let v = try #require(KernelVariant(named: variant))
        let counts = [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 128, 257]
        let cycles = [1e-5, 441.0 / 44_100, 1000.0 / 48_000, 0.123_456_789, 0.499_99]
        let firsts: [Int64] = [0, 5, 12_345, 48_000 * 86_400 + 7, 1 << 40]
        var mismatches = 0
        for channels in 1...3 {
            for n in counts {
                for c in cycles {
                    for first in firsts {
                        let count = n * channels
                        let got = UnsafeMutablePointer<Float>.allocate(capacity: count + 3 + 16)
                        let want = UnsafeMutablePointer<Float>.allocate(capacity: count + 1)
                        defer {
                            got.deallocate()
                            want.deallocate()
                        }
                        got.initialize(repeating: 77, count: count + 3 + 16)
                        let offset = (n + channels) % 4 // 0–3 floats: unaligned stores
                        v.sine(got + offset, frameCount: n, channelCount: channels, firstFrame: first, cyclesPerFrame: c, amplitude: 0.7)
                        for f in 0..<n {
                            let value: Float = 0.7 * Float(sineOfPhase(phaseOfFrame(Double(first + Int64(f)), cyclesPerFrame: c)))
                            for ch in 0..<channels { want[f * channels + ch] = value }
                        }
                        for i in 0..<count where got[offset + i].bitPattern != want[i].bitPattern { mismatches += 1 }
                        for i in 0..<offset { #expect(got[i] == 77, "wrote before the range") }
                        for i in 0..<16 { #expect(got[offset + count + i] == 77, "wrote past the range") }
                    }
                }
            }
        }
        #expect(mismatches == 0, "\(variant): \(mismatches) samples differ from the reference")
    }

    @Test("render (the active kernel) writes renderReference's bytes, and both move on by the frames written")
    func renderIsTheReference() {
        var fast = SineOscillator(frequency: 997, amplitude: 0.25, sampleRate: 44_100)
        fast.seek(toFrame: 1_000_003)
        var slow = fast
        let a = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 300)
        let b = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 300)
        defer {
            a.deallocate()
            b.deallocate()
        }
        for _ in 0..<3 {
            fast.render(into: a, frameCount: 300, channelCount: 2)
            slow.renderReference(into: b, frameCount: 300, channelCount: 2)
            #expect((0..<600).allSatisfy { a[$0].bitPattern == b[$0].bitPattern })
        }
    }
}
