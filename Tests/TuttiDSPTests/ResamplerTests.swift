import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@Suite struct ResamplerTests {
    @Test func oneKilohertzAt44100To48000IsCleanAtDefaultQuality() throws {
        let out = try resampleBuffer(
            sine(1000, rate: 44_100, seconds: 1), channelCount: 1, fromRate: 44_100, toRate: 48_000, quality: ResamplerQuality.fileDefault)
        #expect(out.count == 48_000)
        let mid = out[12_000..<36_000].map(Double.init)
        let f = Analysis.dominantFrequency(mid[...], sampleRate: 48_000, low: 900, high: 1100)
        #expect(abs(f - 1000) < 0.05)
        let fit = Analysis.fitSine(mid[...], frequency: 1000, sampleRate: 48_000)
        let snr = Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS)
        #expect(snr >= 100, "SNR \(snr) dB")
    }

    @Test func twentyKilohertzLeavesNoAlias() throws {
        let out = try resampleBuffer(
            sine(20_000, rate: 44_100, seconds: 1), channelCount: 1, fromRate: 44_100, toRate: 48_000, quality: ResamplerQuality.fileDefault
        )
        let mid = out[12_000..<36_000].map(Double.init)
        let fit = Analysis.fitSine(mid[...], frequency: 20_000, sampleRate: 48_000)
        // Everything that is not the 20 kHz tone (aliases, images, noise), relative to the tone.
        let rest = Analysis.dB(fit.residualRMS / (fit.amplitude / 2.squareRoot()))
        #expect(rest <= -100, "non-tone content at \(rest) dB")
        // The image of 20 kHz mirrored around 22.05 kHz would sit at 24.1 kHz → folded to 23.9 kHz.
        let image = Analysis.toneAmplitude(mid[...], frequency: 23_900, sampleRate: 48_000)
        #expect(Analysis.dB(image / fit.amplitude) <= -100)
    }

    @Test func zeroOrderHoldIsWorseThanSinc() throws {
        // Guards the measurement itself: a poor converter must fail the 100 dB bar.
        let out = try resampleBuffer(
            sine(1000, rate: 44_100, seconds: 0.5), channelCount: 1, fromRate: 44_100, toRate: 48_000, quality: .zeroOrderHold)
        let mid = out[4_000..<20_000].map(Double.init)
        let fit = Analysis.fitSine(mid[...], frequency: 1000, sampleRate: 48_000)
        #expect(Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS) < 60)
    }

    @Test func streamingMatchesWholeBufferConversion() throws {
        let input = sine(1000, rate: 44_100, seconds: 0.5)
        let r = try StreamingResampler(quality: .sincMedium, channelCount: 1, fromRate: 44_100, toRate: 48_000)
        var out = [Float](repeating: 0, count: 30_000)
        var used = 0
        var made = 0
        input.withUnsafeBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                while used < inp.count {
                    let chunk = min(441, inp.count - used)
                    let res = r.kernel.process(
                        input: inp.baseAddress! + used, inputFrameCount: chunk,
                        output: o.baseAddress! + made, outputFrameCount: 256)
                    used += res.used
                    made += res.generated
                }
            }
        }
        #expect(made > 23_000)
        let mid = out[4_000..<20_000].map(Double.init)
        let fit = Analysis.fitSine(mid[...], frequency: 1000, sampleRate: 48_000)
        #expect(Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS) >= 90)
        #expect(abs(fit.amplitude - 0.5) < 0.001)
    }
}
