import Foundation

/// Measurements on rendered audio for tests: levels, tone fits, click detection.
public enum Analysis {
    /// Channel `channel` of interleaved samples.
    public static func channel(_ x: [Float], _ channel: Int, of count: Int) -> [Double] {
        stride(from: channel, to: x.count, by: count).map { Double(x[$0]) }
    }

    public static func rms(_ x: ArraySlice<Double>) -> Double {
        x.isEmpty ? 0 : (x.reduce(0) { $0 + $1 * $1 } / Double(x.count)).squareRoot()
    }

    public static func rms(_ x: [Double]) -> Double { rms(x[...]) }

    /// RMS of float samples (a recorded take), 0 for none.
    public static func rms(_ x: ArraySlice<Float>) -> Double {
        x.isEmpty ? 0 : (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    public static func dB(_ ratio: Double) -> Double { 20 * log10(max(ratio, 1e-30)) }

    /// Least-squares fit of a·sin + b·cos (+ c) at `frequency`; returns amplitude and the residual RMS.
    public static func fitSine(_ x: ArraySlice<Double>, frequency: Double, sampleRate: Double) -> (amplitude: Double, residualRMS: Double) {
        let w = 2 * Double.pi * frequency / sampleRate
        var ss = 0.0
        var cc = 0.0
        var sc = 0.0
        var xs = 0.0
        var xc = 0.0
        var s1 = 0.0
        var c1 = 0.0
        var x1 = 0.0
        let n = Double(x.count)
        for (k, v) in x.enumerated() {
            let s = sin(w * Double(k))
            let c = cos(w * Double(k))
            ss += s * s
            cc += c * c
            sc += s * c
            xs += v * s
            xc += v * c
            s1 += s
            c1 += c
            x1 += v
        }
        // Solve the 3×3 normal equations [ss sc s1; sc cc c1; s1 c1 n]·[a b d] = [xs xc x1].
        let m = [[ss, sc, s1, xs], [sc, cc, c1, xc], [s1, c1, n, x1]]
        var a = m
        for i in 0..<3 {
            let p = a[i][i]
            for j in i..<4 { a[i][j] /= p }
            for r in 0..<3 where r != i {
                let f = a[r][i]
                for j in i..<4 { a[r][j] -= f * a[i][j] }
            }
        }
        let (sa, cb, d) = (a[0][3], a[1][3], a[2][3])
        var res = 0.0
        for (k, v) in x.enumerated() {
            let e = v - (sa * sin(w * Double(k)) + cb * cos(w * Double(k)) + d)
            res += e * e
        }
        return ((sa * sa + cb * cb).squareRoot(), (res / n).squareRoot())
    }

    /// Power of `frequency` in `x` (Goertzel), normalized so a full-scale sine gives amplitude 1.
    public static func toneAmplitude(_ x: ArraySlice<Double>, frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        var re = 0.0
        var im = 0.0
        // Hann window to keep neighbouring tones out; amplitude-corrected.
        let n = Double(x.count)
        for (k, v) in x.enumerated() {
            let h = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / n)
            re += h * v * cos(w * Double(k))
            im -= h * v * sin(w * Double(k))
        }
        return 2 * (re * re + im * im).squareRoot() / (n * 0.5)
    }

    /// Frequency of the strongest component between `low` and `high` (1 Hz grid, then 0.01 Hz refine).
    public static func dominantFrequency(_ x: ArraySlice<Double>, sampleRate: Double, low: Double, high: Double) -> Double {
        var best = low
        var bestA = -1.0
        var f = low
        while f <= high {
            let a = toneAmplitude(x, frequency: f, sampleRate: sampleRate)
            if a > bestA {
                bestA = a
                best = f
            }
            f += 1
        }
        var g = best - 1
        while g <= best + 1 {
            let a = toneAmplitude(x, frequency: g, sampleRate: sampleRate)
            if a > bestA {
                bestA = a
                best = g
            }
            g += 0.01
        }
        return best
    }

    /// Second-difference click detector: frames where |x[n] − 2x[n−1] + x[n−2]| exceeds
    /// `factor` × the largest second difference of the steady reference stretch.
    public static func clicks(_ x: [Double], reference: Range<Int>, factor: Double = 2) -> [Int] {
        func d2(_ n: Int) -> Double { abs(x[n] - 2 * x[n - 1] + x[n - 2]) }
        var steady = 0.0
        for n in max(2, reference.lowerBound)..<reference.upperBound { steady = max(steady, d2(n)) }
        let threshold = steady * factor
        return (2..<x.count).filter { d2($0) > threshold }
    }
}
