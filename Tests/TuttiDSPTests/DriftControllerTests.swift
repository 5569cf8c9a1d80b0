import Foundation
import Testing
import TuttiDSP

/// A route's device on its own clock, simulated per period: the engine renders `period` frames,
/// resampled at the controller's ratio into a ring of `ringFrames`; the device (a buffer of
/// `bufferFrames`) consumes at `1 + drift` times the engine's rate and takes from the ring
/// whenever it has room; run dry, it stops until its buffer is full again (as an ALSA PCM
/// restarts after an xrun). A period the ring has no room for replaces what it held (dropped, as
/// ALSA's output buses do). Counts the frames dropped and the times the device ran dry; each is
/// a fault the caller reports to the controller (`onFault`).
struct SimulatedRoute: Sendable {
    var period = 256
    var rate = 48_000.0
    var bufferFrames = 1_024.0
    var ringFrames = 768.0
    var drift: Double
    /// Measurement noise (frames, ± half of it), from a fixed-seed generator.
    var jitter = 0.0
    /// A one-off disturbance of the fill (none by default).
    var disturbance = Disturbance.none

    /// What happens once, `at` seconds in.
    enum Disturbance: Sendable, CustomStringConvertible {
        case none
        /// The device consumes nothing for `seconds` (a sound server or a driver stalled): the ring
        /// overflows (frames dropped), then the device resumes.
        case deviceStall(at: Double, seconds: Double)
        /// The engine renders nothing for `seconds` (the process was not scheduled) while the device
        /// plays on (it runs dry), then renders the periods it missed back to back (main's device
        /// has room for them): the bus's device restarts and its ring overflows.
        case processStall(at: Double, seconds: Double)
        /// `frames` frames waiting for the device are lost at once (nothing reports it).
        case drop(at: Double, frames: Double)
        /// `frames` more frames wait for the device at once (it restarted further back; nothing reports it).
        case refill(at: Double, frames: Double)

        var at: Double {
            switch self {
            case .none: .infinity
            case .deviceStall(let at, _), .processStall(let at, _), .drop(let at, _), .refill(let at, _): at
            }
        }
        /// Seconds of the disturbance itself.
        var seconds: Double {
            switch self {
            case .deviceStall(_, let s), .processStall(_, let s): s
            default: 0
            }
        }
        var description: String {
            switch self {
            case .none: "none"
            case .deviceStall(let at, let s): "device stall of \(Int(s * 1000)) ms at \(at) s"
            case .processStall(let at, let s): "process stall of \(Int(s * 1000)) ms at \(at) s"
            case .drop(let at, let n): "\(Int(n)) frames lost at \(at) s"
            case .refill(let at, let n): "\(Int(n)) frames refilled at \(at) s"
            }
        }
    }

    /// A fault the caller sees: the device ran dry (an xrun), or the ring overflowed (frames dropped).
    enum Fault { case underrun, overflow }

    struct Result {
        var dropped = 0.0
        var underruns = 0
        /// Seconds at which frames were dropped, and at which the device ran dry.
        var dropTimes: [Double] = []
        var underrunTimes: [Double] = []
        /// (seconds, ratio, fill − target) once the target is known.
        var trace: [(seconds: Double, ratio: Double, error: Double)] = []
        /// (seconds, ratio) after every update, from the start.
        var ratios: [(seconds: Double, ratio: Double)] = []
    }

    func run(
        seconds: Double, controller c: inout DriftController,
        onFault: (inout DriftController, Fault) -> Void
    ) -> Result {
        var result = Result()
        var written = bufferFrames // the device starts full (as after the first periods)
        var ring = 0.0
        var carry = 0.0
        var noise: UInt64 = 0x9E37_79B9_7F4A_7C15
        var shift = 0.0 // frames the device's position moved back (a stall, a refill)
        let periodSeconds = Double(period) / rate
        var missed = 0
        var stopped = false // after running dry, until its buffer is full again (as an ALSA PCM)
        for k in 0..<Int(seconds / periodSeconds) {
            let t = Double(k) * periodSeconds
            if stopped { shift += Double(period) * (1 + drift) }
            switch disturbance {
            case .deviceStall(let at, let s) where t > at && t <= at + s: shift += Double(period) * (1 + drift)
            case .processStall(let at, let s) where t >= at && t < at + s:
                missed += 1
                continue
            case .drop(let at, let n) where t >= at && t < at + periodSeconds:
                let inDevice = max(written - (t * rate * (1 + drift) - shift), 0)
                let fromDevice = min(n, inDevice)
                written -= fromDevice
                ring = max(ring - (n - fromDevice), 0)
            case .refill(let at, let n) where t >= at && t < at + periodSeconds: shift += n
            default: break
            }
            // The periods missed in a process stall, then this one.
            for _ in 0...missed {
                let consumed = t * rate * (1 + drift) - shift
                if written < consumed {
                    result.underruns += 1
                    result.underrunTimes.append(t)
                    written = consumed
                    stopped = true
                    onFault(&c, .underrun)
                }
                let take = min(bufferFrames - (written - consumed), ring)
                ring -= take
                written += take
                if stopped && written - consumed >= bufferFrames { stopped = false }
                let made = Double(period) * c.ratio + carry
                carry = made - made.rounded(.down)
                if ring + made.rounded(.down) > ringFrames {
                    // As ALSA's output buses: what the ring held is dropped, the new period kept.
                    result.dropped += ring
                    result.dropTimes.append(t)
                    ring = 0
                    onFault(&c, .overflow)
                }
                ring += made.rounded(.down)
                noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let n = (Double(noise >> 11) / Double(1 << 53) - 0.5) * jitter
                let fill = (ring + written - consumed + n).rounded(.down)
                c.update(fillFrames: fill)
                result.ratios.append((t, c.ratio))
                if let target = c.targetFrames {
                    result.trace.append((t, c.ratio, c.smoothedFillFrames - target))
                }
            }
            missed = 0
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
        let r = SimulatedRoute(drift: drift, jitter: 64).run(seconds: 60, controller: &c) { _, _ in }
        let truth = 1 + drift
        #expect(r.dropped == 0)
        #expect(r.underruns == 0)
        #expect(c.isCorrecting)
        #expect(c.stepCount == 0, "measurement jitter of ± 32 frames taken for a step")
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
        let r = SimulatedRoute(drift: 0, jitter: 256).run(seconds: 60, controller: &c) { _, _ in }
        #expect(r.dropped == 0 && r.underruns == 0)
        #expect(!c.isCorrecting)
        #expect(r.trace.allSatisfy { $0.ratio == 1 })
        #expect(c.stepCount == 0, "measurement jitter of ± 128 frames taken for a step")
    }

    /// The disturbances of `aStallIsNotDrift`: each on a device 0.1 % fast, 0.1 % slow and on main's clock.
    static let stalls: [(drift: Double, disturbance: SimulatedRoute.Disturbance)] = [0.001, -0.001, 0].flatMap { drift in
        [
            SimulatedRoute.Disturbance.deviceStall(at: 30, seconds: 0.1), .processStall(at: 30, seconds: 0.05),
            .processStall(at: 30, seconds: 0.15), .drop(at: 30, frames: 352), .refill(at: 30, frames: 480),
            // During the reference (1 s to 1.25 s): the reference starts again after it.
            .deviceStall(at: 1.1, seconds: 0.1), .processStall(at: 1.15, seconds: 0.1),
        ].map { (drift, $0) }
    }

    /// A stall is not drift: a device that stops consuming for a while, an engine that renders
    /// nothing for a while (the device runs dry, then the missed periods come at once and the
    /// ring overflows), frames lost or added at once — each a step in the fill, the faults
    /// reported as ALSA's output buses do (`discontinuity`). The ratio stays where it was: within
    /// 20 ppm of the clocks' ratio, as locked without a stall (before: 1 000 to 5 900 ppm off,
    /// beyond 100 ppm for 7 s up to the rest of the run, and a device on main's clock resampled
    /// at 2 000 ppm after a stall during the reference); nothing runs dry afterwards and at most
    /// one more overflow (a slower device's ring left full: it drops what it holds, once). On
    /// main's clock nothing is ever resampled.
    @Test(arguments: DriftControllerTests.stalls)
    func aStallIsNotDrift(drift: Double, disturbance: SimulatedRoute.Disturbance) {
        var c = DriftController(periodFrames: 256, sampleRate: 48_000)
        let route = SimulatedRoute(drift: drift, jitter: 64, disturbance: disturbance)
        let r = route.run(seconds: 60, controller: &c) { c, _ in c.discontinuity() }
        let truth = 1 + drift
        let at = disturbance.at
        let over = at + disturbance.seconds + 1
        // From the step on, once locked (from 20 s: a stall during the reference delays nothing more).
        let judged = r.ratios.filter { $0.seconds >= max(at, 20) }
        let worstPPM = judged.map { abs($0.ratio - truth) * 1e6 }.max() ?? .infinity
        let laterDrops = r.dropTimes.filter { $0 > over }
        let laterUnderruns = r.underrunTimes.filter { $0 > over }
        print(
            String(
                format:
                    "drift %+.1f %%, %@: %d steps; ratio within %.1f ppm after it (from 20 s); %.0f frames dropped (%d overflows later), %d underruns (%d later)",
                drift * 100, disturbance.description, c.stepCount, worstPPM, r.dropped, laterDrops.count, r.underruns,
                laterUnderruns.count))
        #expect(c.stepCount >= 1, "the step went unnoticed")
        #expect(!c.isSettling)
        #expect(laterUnderruns.isEmpty, "ran dry at \(laterUnderruns.prefix(5)) s")
        #expect(laterDrops.count <= 1, "overflowed at \(laterDrops.prefix(5)) s")
        if drift == 0 {
            #expect(!c.isCorrecting)
            #expect(r.ratios.allSatisfy { $0.ratio == 1 })
        } else {
            #expect(worstPPM < 20, "ratio off by \(worstPPM) ppm after the step")
            #expect(abs(c.ratio - truth) < 5e-6)
        }
    }

    @Test func theCorrectionIsClampedAndADeviceBeyondItIsNotChased() {
        var c = DriftController(periodFrames: 256, sampleRate: 48_000, maximumDeviation: 0.005)
        let r = SimulatedRoute(bufferFrames: 1e9, ringFrames: 1e9, drift: 0.01).run(seconds: 20, controller: &c) { _, _ in }
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
