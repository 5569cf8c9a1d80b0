import Foundation
import Testing
import TuttiDSP

/// A route's device on its own clock, simulated per period: the engine renders `period` frames,
/// resampled at the controller's ratio into a ring of `ringFrames`; the device (a buffer of
/// `bufferFrames`) consumes at `1 + drift` times the engine's rate and takes from the ring
/// whenever it has room. Counts what overflows the ring and the times the device ran dry.
private struct SimulatedRoute {
    var period = 256
    var rate = 48_000.0
    var bufferFrames = 1_024.0
    var ringFrames = 768.0
    var drift: Double
    /// Measurement noise (frames, ± half of it), from a fixed-seed generator.
    var jitter = 0.0

    struct Result {
        var dropped = 0.0
        var underruns = 0
        /// (seconds, ratio, fill − target) once the target is known.
        var trace: [(seconds: Double, ratio: Double, error: Double)] = []
    }

    func run(seconds: Double, controller c: inout DriftController) -> Result {
        var result = Result()
        var written = bufferFrames // the device starts full (as after the first periods)
        var ring = 0.0
        var carry = 0.0
        var noise: UInt64 = 0x9E37_79B9_7F4A_7C15
        let periodSeconds = Double(period) / rate
        for k in 0..<Int(seconds / periodSeconds) {
            let consumed = Double(k) * periodSeconds * rate * (1 + drift)
            if written < consumed {
                result.underruns += 1
                written = consumed
            }
            let take = min(bufferFrames - (written - consumed), ring)
            ring -= take
            written += take
            let made = Double(period) * c.ratio + carry
            carry = made - made.rounded(.down)
            ring += made.rounded(.down)
            if ring > ringFrames {
                result.dropped += ring - ringFrames
                ring = ringFrames
            }
            noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let n = (Double(noise >> 11) / Double(1 << 53) - 0.5) * jitter
            let fill = (ring + written - consumed + n).rounded(.down)
            c.update(fillFrames: fill)
            if let target = c.targetFrames {
                result.trace.append((Double(k) * periodSeconds, c.ratio, c.smoothedFillFrames - target))
            }
        }
        return result
    }
}

/// The drift controller (`DriftController`): a device 0.1 % fast or slow is locked within
/// 20 ppm with nothing dropped and no underrun; devices on one clock are never resampled.
@Suite struct DriftControllerTests {
    @Test(arguments: [0.001, -0.001])
    func locksOntoADeviceOnAnotherClock(drift: Double) {
        var c = DriftController(periodFrames: 256, sampleRate: 48_000)
        let r = SimulatedRoute(drift: drift, jitter: 64).run(seconds: 60, controller: &c)
        let truth = 1 + drift
        #expect(r.dropped == 0)
        #expect(r.underruns == 0)
        #expect(c.isCorrecting)
        let locked = r.trace.filter { $0.seconds >= 20 }
        let worstPPM = locked.map { abs($0.ratio - truth) * 1e6 }.max() ?? .infinity
        let worstError = locked.map { abs($0.error) }.max() ?? .infinity
        let lockIn = r.trace.indices.first { i in r.trace[i...].allSatisfy { abs($0.ratio - truth) < 20e-6 } }.map { r.trace[$0].seconds }
        print(
            String(
                format:
                    "drift %+.1f %%: ratio %.6f (true %.6f), worst %.2f ppm after 20 s, lock-in (20 ppm) at %.1f s, fill error ≤ %.1f frames",
                drift * 100, c.ratio, truth, worstPPM, lockIn ?? -1, worstError))
        #expect(worstPPM < 20, "ratio off by \(worstPPM) ppm after 20 s")
        #expect(worstError < 64, "fill wandered \(worstError) frames from its target")
        #expect(abs(c.ratio - truth) < 5e-6)
    }

    @Test func aDeviceOnTheSameClockIsNeverResampled() {
        var c = DriftController(periodFrames: 256, sampleRate: 48_000)
        // Measurement jitter of a whole period (± 128 frames) stays within the dead band once smoothed.
        let r = SimulatedRoute(drift: 0, jitter: 256).run(seconds: 60, controller: &c)
        #expect(r.dropped == 0 && r.underruns == 0)
        #expect(!c.isCorrecting)
        #expect(r.trace.allSatisfy { $0.ratio == 1 })
    }

    @Test func theCorrectionIsClampedAndADeviceBeyondItIsNotChased() {
        var c = DriftController(periodFrames: 256, sampleRate: 48_000, maximumDeviation: 0.005)
        let r = SimulatedRoute(bufferFrames: 1e9, ringFrames: 1e9, drift: 0.01).run(seconds: 20, controller: &c)
        #expect(r.trace.allSatisfy { $0.ratio <= 1.005 && $0.ratio >= 0.995 })
        #expect(c.ratio == 1.005)
        c.reset()
        #expect(c.ratio == 1 && !c.isCorrecting && c.targetFrames == nil)
    }
}

/// The drift resampler (`DriftResampler`): bit-for-bit pass-through until a ratio other than 1,
/// then a continuous sine at the new pitch, `ratio` times as many frames.
@Suite struct DriftResamplerTests {
    @Test func passesThroughUntilARatioOtherThanOneThenStaysContinuous() {
        let ch = 2
        let block = 256
        let omega = 2 * Double.pi * 1_000 / 48_000
        let r = DriftResampler(channelCount: ch, maximumInputFrames: block)
        var input = [Float](repeating: 0, count: block * ch)
        var out: [Float] = []
        var fed = 0
        var made = 0
        let ratio = 1.001
        for b in 0..<400 {
            for i in 0..<block {
                let v = Float(0.25 * sin(omega * Double(fed + i)))
                input[i * ch] = v
                input[i * ch + 1] = -v
            }
            let asked = b < 10 ? 1.0 : ratio
            let (frames, count) = input.withUnsafeBufferPointer { p in
                let (f, n) = r.process(p.baseAddress!, frameCount: block, ratio: asked)
                if b < 10 { #expect(f == p.baseAddress!) }
                return (Array(UnsafeBufferPointer(start: f, count: n * ch)), n)
            }
            if b < 10 { #expect(frames == input && count == block) }
            out += frames
            fed += block
            made += count
        }
        #expect(r.isEngaged)
        // 2 frames held back when it engaged; then ratio × as many (± 1 for the fractional position).
        let expected = 10.0 * Double(block) + Double(390 * block) * ratio - 2
        #expect(abs(Double(made) - expected) <= 1, "made \(made), expected about \(expected)")
        // A continuous sine throughout (before, across and after engaging): y[n+1] + y[n−1] = 2 cos ω y[n],
        // with ω the input's before and ω / ratio after. A lost or repeated frame leaves about 0.03.
        var worst = 0.0
        for n in 1..<(made - 1) {
            let w = n < 10 * block ? omega : omega / ratio
            let y = { (k: Int) in Double(out[k * ch]) }
            worst = max(worst, abs(y(n + 1) + y(n - 1) - 2 * cos(w) * y(n)))
            #expect(out[n * ch + 1] == -out[n * ch])
        }
        print(String(format: "drift resampler: worst sine-recurrence residual %.2e", worst))
        #expect(worst < 1e-4)
    }
}
