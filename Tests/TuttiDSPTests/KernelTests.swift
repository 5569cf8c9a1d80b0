import Foundation
import Testing
import TuttiDSP

/// Each fast kernel against its scalar reference on the same vectors.
@Suite struct KernelTests {
    func vector(_ n: Int, seed: UInt32) -> [Float] {
        var rng = XorShift32(seed: seed)
        return (0..<n).map { _ in rng.nextUnit() * 2 - 1 }
    }

    @Test(arguments: [0, 1, 7, 8, 9, 63, 512, 1023])
    func mixAddMatchesReference(count: Int) {
        let src = vector(count, seed: 1)
        var fast = vector(count, seed: 2)
        var ref = fast
        src.withUnsafeBufferPointer { s in
            fast.withUnsafeMutableBufferPointer { Kernels.mixAdd($0.baseAddress!, s.baseAddress!, count: count, gain: 0.37) }
            ref.withUnsafeMutableBufferPointer { Kernels.mixAddReference($0.baseAddress!, s.baseAddress!, count: count, gain: 0.37) }
        }
        #expect(fast == ref)
    }

    @Test(arguments: [1, 2])
    func mixAddGainsMatchesReference(channels: Int) {
        let frames = 301
        let src = vector(frames * channels, seed: 3)
        var fast = vector(frames * channels, seed: 4)
        var ref = fast
        var ramp = LinearRamp(value: 0.2)
        ramp.ramp(to: 0.9, frameCount: 123)
        let gains = (0..<frames).map { _ in ramp.next() }
        src.withUnsafeBufferPointer { s in
            gains.withUnsafeBufferPointer { g in
                fast.withUnsafeMutableBufferPointer {
                    Kernels.mixAddGains($0.baseAddress!, s.baseAddress!, gains: g.baseAddress!, frameCount: frames, channelCount: channels)
                }
                ref.withUnsafeMutableBufferPointer {
                    Kernels.mixAddGainsReference(
                        $0.baseAddress!, s.baseAddress!, gains: g.baseAddress!, frameCount: frames, channelCount: channels)
                }
            }
        }
        #expect(fast == ref)
        #expect(fast != vector(frames * channels, seed: 4))
    }

    @Test func addMatchesUnityMixAdd() {
        let src = vector(517, seed: 6)
        var a = vector(517, seed: 7)
        var b = a
        src.withUnsafeBufferPointer { s in
            a.withUnsafeMutableBufferPointer { Kernels.add($0.baseAddress!, s.baseAddress!, count: 517) }
            b.withUnsafeMutableBufferPointer { Kernels.mixAddReference($0.baseAddress!, s.baseAddress!, count: 517, gain: 1) }
        }
        #expect(a == b)
    }
}

@Suite struct RampTests {
    @Test func linearRampEndsExactlyOnTarget() {
        var r = LinearRamp(value: 1)
        r.ramp(to: 0.25, frameCount: 480)
        var values: [Float] = []
        for _ in 0..<480 { values.append(r.next()) }
        #expect(values.last == 0.25)
        #expect(!r.isRamping)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 > $1 })
        // Even steps: the first step equals the average step.
        #expect(abs((1 - values[0]) - 0.75 / 480) < 1e-6)
    }

    @Test func skipLandsWhereStepsWould() {
        var a = LinearRamp(value: 0)
        var b = LinearRamp(value: 0)
        a.ramp(to: 1, frameCount: 100)
        b.ramp(to: 1, frameCount: 100)
        for _ in 0..<40 { _ = a.next() }
        b.skip(40)
        #expect(abs(a.value - b.value) < 1e-6)
        b.skip(1000)
        #expect(b.value == 1 && !b.isRamping)
    }

    @Test func duckEnvelopeIsLinearInDecibels() {
        var d = DuckEnvelope()
        let frames = 4800
        d.move(to: -15, dBPerFrame: DuckEnvelope.rate(rangeDB: -15, frameCount: frames))
        var gains: [Float] = []
        for _ in 0..<frames { gains.append(d.next()) }
        let half = 20 * log10(Double(gains[frames / 2 - 1]))
        #expect(abs(half - -7.5) < 0.01)
        #expect(abs(20 * log10(Double(gains.last!)) - -15) < 1e-4)
        #expect(!d.isMoving)
        // Release back to unity is exact.
        d.move(to: 0, dBPerFrame: DuckEnvelope.rate(rangeDB: -15, frameCount: 100))
        for _ in 0..<100 { _ = d.next() }
        #expect(d.gain == 1)
    }

}

@Suite struct DitherTests {
    @Test func ditherLinearizesBelowOneLSB() {
        // 0.3 LSB of DC: plain rounding gives 0 everywhere; TPDF dither averages to 0.3 LSB.
        let n = 200_000
        let input = [Float](repeating: 0.3 / 32768, count: n)
        var out = [Int32](repeating: 0, count: n)
        var plain = TPDFQuantizer(format: .s16, dither: false)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { plain.quantize(i.baseAddress!, count: n, into: $0.baseAddress!) }
        }
        #expect(out.allSatisfy { $0 == 0 })
        var dithered = TPDFQuantizer(format: .s16)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { dithered.quantize(i.baseAddress!, count: n, into: $0.baseAddress!) }
        }
        let mean = Double(out.reduce(0) { $0 + Int($1) }) / Double(n)
        #expect(abs(mean - 0.3) < 0.01)
        #expect(out.allSatisfy { (-1...2).contains($0) })
    }

    @Test func clipsAndScales() {
        let input: [Float] = [1, -1, 2, -2, 0.5]
        var out = [Int32](repeating: 0, count: 5)
        var q = TPDFQuantizer(format: .s24, dither: false)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { q.quantize(i.baseAddress!, count: 5, into: $0.baseAddress!) }
        }
        #expect(out == [8_388_607, -8_388_608, 8_388_607, -8_388_608, 4_194_304])
    }

    @Test func sameSeedSameDither() {
        let input = [Float](repeating: 0, count: 1000)
        var a = [Int32](repeating: 0, count: 1000)
        var b = a
        var qa = TPDFQuantizer(format: .s16)
        var qb = TPDFQuantizer(format: .s16)
        input.withUnsafeBufferPointer { i in
            a.withUnsafeMutableBufferPointer { qa.quantize(i.baseAddress!, count: 1000, into: $0.baseAddress!) }
            b.withUnsafeMutableBufferPointer { qb.quantize(i.baseAddress!, count: 1000, into: $0.baseAddress!) }
        }
        #expect(a == b)
        #expect(a.contains { $0 != 0 })
    }
}
