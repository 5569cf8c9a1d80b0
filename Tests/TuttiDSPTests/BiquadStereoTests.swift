import Foundation
import Testing
import TuttiDSP

/// The stereo biquad loop (both channels' recursions interleaved, for speed) computes what
/// the general per-channel loop computes: a stereo unit against two mono units, bit for bit,
/// through a signal, a step of coefficients, a glide, and silence until it goes idle.
@Suite struct BiquadStereoTests {
    @Test(arguments: EffectSettings.BiquadKind.allCases)
    func stereoEqualsTwoMonoUnitsBitForBit(kind: EffectSettings.BiquadKind) {
        let settings = EffectSettings.biquad(kind, frequencyHz: 1_200, q: 0.9, gainDB: 6)
        var stereo = EffectUnit(settings, sampleRate: 48_000, channelCount: 2)
        var left = EffectUnit(settings, sampleRate: 48_000, channelCount: 1)
        var right = EffectUnit(settings, sampleRate: 48_000, channelCount: 1)
        let n = 256
        let both = UnsafeMutablePointer<Float>.allocate(capacity: 2 * n)
        let l = UnsafeMutablePointer<Float>.allocate(capacity: n)
        let r = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer {
            both.deallocate()
            l.deallocate()
            r.deallocate()
        }
        var seed: UInt32 = 12_345
        var differences = 0
        var compared = 0
        for block in 0..<120 {
            for f in 0..<n {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = Float(Int32(bitPattern: seed)) / Float(Int32.max)
                // Loud for 60 blocks, then silence (the filters ring out and go idle).
                let (a, b): (Float, Float) = block < 60 ? (noise * 0.5, Float(sin(Double(block * n + f) * 0.07)) * 0.4) : (0, 0)
                both[2 * f] = a
                both[2 * f + 1] = b
                l[f] = a
                r[f] = b
            }
            if block == 20 {
                let target = BiquadCoefficients(kind, frequencyHz: 3_000, q: 2, gainDB: -4, sampleRate: 48_000)
                stereo.glide(to: target, frames: 0)
                left.glide(to: target, frames: 0)
                right.glide(to: target, frames: 0)
            }
            if block == 40 {
                let target = BiquadCoefficients(kind, frequencyHz: 500, q: 0.5, gainDB: 3, sampleRate: 48_000)
                stereo.glide(to: target, frames: 700)
                left.glide(to: target, frames: 700)
                right.glide(to: target, frames: 700)
            }
            stereo.process(both, frameCount: n)
            left.process(l, frameCount: n)
            right.process(r, frameCount: n)
            for f in 0..<n {
                compared += 2
                if both[2 * f].bitPattern != l[f].bitPattern { differences += 1 }
                if both[2 * f + 1].bitPattern != r[f].bitPattern { differences += 1 }
            }
        }
        #expect(compared == 2 * 120 * 256)
        #expect(differences == 0, "\(differences) of \(compared) samples differ")
        #expect(stereo.isIdle && left.isIdle && right.isIdle, "after 60 blocks of silence every filter is idle")
    }
}
