import Foundation
import Testing
import TuttiDSP

/// The gain-reduction meters the timeline picture reads (`EffectUnit.smallestReductionGain`,
/// `PeakLimiter.smallestGain`, `EffectChain.compressorGain`): the smallest gain of the last
/// `process` call, measured against what the audio went through; reading them changes
/// nothing (the same input gives the same output bits with and without reading).
@Suite struct ReductionMeterTests {
    static let rate = 48_000
    static let n = 480

    /// `n` frames of a mono sine of `amplitude` at 440 Hz, from frame `start`.
    static func sine(_ p: UnsafeMutablePointer<Float>, amplitude: Float, start: Int) {
        for f in 0..<n { p[f] = amplitude * Float(sin(2 * Double.pi * 440 * Double(start + f) / Double(rate))) }
    }

    @Test func theCompressorMeterFollowsItsStaticCurveAndResetsWhenSilent() {
        // Threshold −20 dB, ratio 4, 2 dB makeup: a 0 dB sine is reduced by 15 dB (makeup not counted).
        let settings = EffectSettings.compressor(thresholdDB: -20, ratio: 4, attackSeconds: 0.01, releaseSeconds: 0.05, makeupDB: 2)
        var unit = EffectUnit(settings, sampleRate: Self.rate, channelCount: 1)
        defer { unit.deallocate() }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: Self.n)
        defer { buffer.deallocate() }
        #expect(unit.isCompressor)
        #expect(unit.smallestReductionGain == 1)
        for block in 0..<40 {
            Self.sine(buffer, amplitude: 1, start: block * Self.n)
            unit.process(buffer, frameCount: Self.n)
            // Settled after 0.1 s: the meter is the static curve, and the output's level is
            // the input's times the meter and the makeup.
            if block >= 10 {
                let dB = 20 * log10(Double(unit.smallestReductionGain))
                #expect(abs(dB - -15) < 0.3, "block \(block): \(dB) dB")
                let peak = (0..<Self.n).map { abs(buffer[$0]) }.max()!
                #expect(abs(20 * log10(Double(peak)) - (-15 + 2)) < 0.3)
            }
        }
        // Silence: the reduction releases (0.05 s) all the way to unity.
        for _ in 0..<100 {
            buffer.update(repeating: 0, count: Self.n)
            unit.process(buffer, frameCount: Self.n)
        }
        #expect(unit.smallestReductionGain == 1, "\(unit.smallestReductionGain)")
        // A chain: the compressors' product; nil without one; other effects read 1.
        let chain = EffectChain.make(
            [.biquad(.lowpass, frequencyHz: 5_000, q: 0.7, gainDB: 0), settings, settings], sampleRate: Self.rate, channelCount: 1,
            maxFrames: Self.n)
        defer { EffectChain.destroy(chain) }
        for block in 0..<20 {
            Self.sine(chain.pointee.buffer, amplitude: 1, start: block * Self.n)
            chain.pointee.process(frameCount: Self.n)
        }
        let g = chain.pointee.compressorGain!
        #expect(chain.pointee.units[0].smallestReductionGain == 1 && !chain.pointee.units[0].isCompressor)
        #expect(g == chain.pointee.units[1].smallestReductionGain * chain.pointee.units[2].smallestReductionGain)
        #expect(g < chain.pointee.units[1].smallestReductionGain)
        let filters = EffectChain.make(
            [.delay(timeSeconds: 0.01, feedback: 0, mix: 0.5)], sampleRate: Self.rate, channelCount: 1, maxFrames: 8)
        defer { EffectChain.destroy(filters) }
        #expect(filters.pointee.compressorGain == nil)
    }

    /// After compressing, the release ends at exactly unity: audio below the threshold then
    /// passes bit for bit (no makeup), instead of staying a few ulps quieter for ever.
    @Test func afterAReleaseAudioBelowTheThresholdPassesBitForBit() {
        let settings = EffectSettings.compressor(thresholdDB: -20, ratio: 4, attackSeconds: 0.01, releaseSeconds: 0.1, makeupDB: 0)
        var unit = EffectUnit(settings, sampleRate: Self.rate, channelCount: 1)
        defer { unit.deallocate() }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: Self.n)
        defer { buffer.deallocate() }
        for block in 0..<20 { // 0.2 s at 0 dBFS: 15 dB of reduction
            Self.sine(buffer, amplitude: 1, start: block * Self.n)
            unit.process(buffer, frameCount: Self.n)
        }
        #expect(unit.smallestReductionGain < 0.2)
        var changed = 0
        for block in 20..<320 { // 3 s at −40 dBFS, below the threshold
            Self.sine(buffer, amplitude: 0.01, start: block * Self.n)
            let input = Array(UnsafeBufferPointer(start: buffer, count: Self.n))
            unit.process(buffer, frameCount: Self.n)
            if block >= 220 { changed += (0..<Self.n).filter { buffer[$0] != input[$0] }.count }
        }
        #expect(changed == 0, "\(changed) samples of the last second differ from the input")
        #expect(unit.smallestReductionGain == 1)
    }

    @Test(arguments: [0.0, 0.002])
    func theLimiterMeterIsTheGainAtThePeak(lookaheadSeconds: Double) {
        var limiter = PeakLimiter(
            settings: LimiterSettings(ceilingDB: 0, releaseSeconds: 0.05, lookaheadSeconds: lookaheadSeconds), sampleRate: Self.rate,
            channelCount: 1)
        defer { limiter.deallocate() }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: Self.n)
        defer { buffer.deallocate() }
        // Under the ceiling: untouched, meter 1.
        Self.sine(buffer, amplitude: 0.5, start: 0)
        limiter.process(buffer, frameCount: Self.n)
        #expect(limiter.smallestGain == 1)
        // A sine peaking at +6 dBFS (amplitude 2): every block's meter is ceiling / peak = −6 dB,
        // and what comes out peaks at the ceiling.
        for block in 1..<20 {
            Self.sine(buffer, amplitude: 2, start: block * Self.n)
            limiter.process(buffer, frameCount: Self.n)
            if block >= 3 {
                let dB = 20 * log10(Double(limiter.smallestGain))
                #expect(abs(dB - -20 * log10(2)) < 0.05, "block \(block): \(dB) dB")
                let peak = (0..<Self.n).map { abs(buffer[$0]) }.max()!
                #expect(peak <= 1 && peak > 0.99)
            }
        }
        // Quiet again: once the release is over the meter is back to 1.
        for _ in 0..<100 {
            Self.sine(buffer, amplitude: 0.1, start: 0)
            limiter.process(buffer, frameCount: Self.n)
        }
        #expect(limiter.smallestGain == 1)
    }
}
