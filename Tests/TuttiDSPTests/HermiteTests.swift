import Testing
import TuttiDSP

/// The playback-rate interpolator (`Hermite`): through the samples exactly, straight lines
/// and parabolas reproduced, the midpoint weights (−1, 9, 9, −1)/16.
@Suite struct HermiteTests {
    @Test func passesThroughItsSamplesAndReproducesParabolas() {
        let points: [Float] = [0.3, -0.7, 0.25, 0.9]
        #expect(Hermite.interpolate(points[0], points[1], points[2], points[3], t: 0) == points[1])
        for t: Float in [0.1, 0.25, 0.5, 0.75, 0.9] {
            // A line and a parabola through x = -1, 0, 1, 2 come back at x = t.
            let line = Hermite.interpolate(-1.5, 0.5, 2.5, 4.5, t: t)
            #expect(abs(line - (0.5 + 2 * t)) < 1e-6)
            func p(_ x: Float) -> Float { 0.5 * x * x - x + 0.25 }
            let parabola = Hermite.interpolate(p(-1), p(0), p(1), p(2), t: t)
            #expect(abs(parabola - p(t)) < 1e-6, "t \(t): \(parabola) vs \(p(t))")
        }
        let mid = Hermite.interpolate(1, 2, 3, 5, t: 0.5)
        #expect(abs(mid - (-1 + 18 + 27 - 5) / 16) < 1e-6)
    }
}
