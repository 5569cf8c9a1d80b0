import Foundation
import Testing
import TuttiDSP

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
