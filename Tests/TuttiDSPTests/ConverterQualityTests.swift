import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

/// Every quality of both converter families on the 44.1 → 48 kHz checks: frequency, SNR of
/// a 1 kHz tone, everything-but-the-tone for 20 kHz, time alignment and length. The measured
/// figures are printed (docs/performance.md quotes them).
@Suite struct ConverterQualityTests {
    /// (1 kHz SNR, 20 kHz non-tone level) in dB for `quality`, from 1 s mono converted whole.
    static func measure(_ quality: ResamplerQuality) throws -> (snr1k: Double, snr20k: Double) {
        var result: [Double] = []
        for f in [1_000.0, 20_000.0] {
            let out = try resampleBuffer(
                sine(f, rate: 44_100, frames: 0..<44_100), channelCount: 1, fromRate: 44_100, toRate: 48_000, quality: quality)
            let mid = out[12_000..<36_000].map(Double.init)
            let fit = Analysis.fitSine(mid[...], frequency: f, sampleRate: 48_000)
            result.append(Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS))
        }
        return (result[0], result[1])
    }

    /// The bars (1 kHz, 20 kHz) each quality clears here: 120 dB for the three that keep it on
    /// both checks, a few dB under the measured figures for the others (−∞: no bar).
    static func bar(_ q: ResamplerQuality) -> (Double, Double) {
        switch q {
        case .sincBest, .soxrHQ, .soxrVHQ: (120, 120)
        case .sincMedium: (130, 110)
        case .sincFastest: (110, 75)
        case .linear: (55, -.infinity)
        case .zeroOrderHold: (20, -.infinity)
        }
    }

    @Test(arguments: ResamplerQuality.allCases)
    func snrOnTheFortyFourToFortyEightChecks(quality: ResamplerQuality) throws {
        let m = try Self.measure(quality)
        print(String(format: "SNR %@: 1 kHz %.1f dB, 20 kHz %.1f dB", quality.rawValue, m.snr1k, m.snr20k))
        #expect(m.snr1k >= Self.bar(quality).0, "1 kHz SNR \(m.snr1k) dB")
        #expect(m.snr20k >= Self.bar(quality).1, "20 kHz SNR \(m.snr20k) dB")
    }

    @Test func theFileDefaultKeeps120dBOnBothChecks() throws {
        let m = try Self.measure(ResamplerQuality.fileDefault)
        #expect(m.snr1k >= 120 && m.snr20k >= 120, "\(m)")
    }

    /// Output sample n is the input at time n / 48 kHz: against the ideal tone itself (no
    /// phase fitted), the error is under −100 dB for the sinc and soxr qualities. A one-frame delay would leave
    /// the error at about −17 dB.
    @Test(arguments: [ResamplerQuality.sincBest, .sincMedium, .sincFastest, .soxrHQ, .soxrVHQ])
    func outputIsTimeAligned(quality: ResamplerQuality) throws {
        let out = try resampleBuffer(
            sine(1_000, rate: 44_100, frames: 0..<44_100), channelCount: 1, fromRate: 44_100, toRate: 48_000, quality: quality)
        let ideal = sine(1_000, rate: 48_000, frames: 0..<48_000)
        var err = 0.0
        var ref = 0.0
        for i in 12_000..<36_000 {
            err += Double(out[i] - ideal[i]) * Double(out[i] - ideal[i])
            ref += Double(ideal[i]) * Double(ideal[i])
        }
        let level = 10 * log10(err / ref)
        print(String(format: "alignment %@: error against the ideal 1 kHz tone %.1f dB", quality.rawValue, level))
        #expect(level <= -100, "error against the ideal tone: \(level) dB")
    }

    @Test(arguments: ResamplerQuality.allCases)
    func lengthIsRoundedRatioTimesFrames(quality: ResamplerQuality) throws {
        for (from, to) in [(44_100.0, 48_000.0), (48_000.0, 44_100.0), (22_050.0, 48_000.0), (96_000.0, 48_000.0)] {
            for frames in [0, 1, 2, 100, 4_095, 4_096, 4_097, 10_001] {
                let input = sine(440, rate: from, frames: 0..<frames * 2).map { $0 * 0.5 }
                let out = try resampleBuffer(input, channelCount: 2, fromRate: from, toRate: to, quality: quality)
                #expect(out.count == 2 * Int((Double(frames) * to / from).rounded()), "\(from)→\(to), \(frames) frames")
            }
        }
    }
}
