import Foundation
import Testing
import TuttiDSP

@Suite struct DitherTests {
    @Test func ditherLinearizesBelowOneLSB() {
        // 0.3 LSB of DC: plain rounding gives 0 everywhere; TPDF dither averages to 0.3 LSB.
        let n = 200_000
        let input = [Float](repeating: 0.3 / 32768, count: n)
        var out = [Int32](repeating: 0, count: n)
        var plain = TPDFQuantizer(format: .s16, dither: false)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { plain.quantizeReference(i.baseAddress!, count: n, into: $0.baseAddress!) }
        }
        #expect(out.allSatisfy { $0 == 0 })
        var dithered = TPDFQuantizer(format: .s16)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { dithered.quantizeReference(i.baseAddress!, count: n, into: $0.baseAddress!) }
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
            out.withUnsafeMutableBufferPointer { q.quantizeReference(i.baseAddress!, count: 5, into: $0.baseAddress!) }
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
            a.withUnsafeMutableBufferPointer { qa.quantizeReference(i.baseAddress!, count: 1000, into: $0.baseAddress!) }
            b.withUnsafeMutableBufferPointer { qb.quantizeReference(i.baseAddress!, count: 1000, into: $0.baseAddress!) }
        }
        #expect(a == b)
        #expect(a.contains { $0 != 0 })
    }
}
