#if canImport(Glibc)
    import Glibc
#endif

/// The clock-drift control loop of an output on its own device clock (an ALSA route past main):
/// fed once per period with how many frames wait for that device (its ring plus the device's
/// own delay), it answers the resampling ratio (output frames per input frame) that keeps that
/// fill steady, so the device neither runs dry (a faster clock) nor overflows (a slower one).
///
/// How it works, in order:
/// 1. **Warm-up** (`warmUpSeconds`): the first measurements are ignored (the device is filling).
/// 2. **Reference** (`referenceSeconds`): the mean fill over the next stretch becomes the
///    reference — the latency the route had without correction, kept as it is.
/// 3. **Dead band**: while the fill (low-passed over `measurementSmoothingSeconds`) stays within
///    `deadBandFrames` of the reference, the ratio stays exactly 1: devices on one clock are
///    never resampled. The first time it leaves the band the loop engages, with its target at
///    the band's edge it crossed (no jump back to the middle), and stays engaged.
/// 4. **Loop**: a proportional-integral loop on the fill error, its proportional path low-passed
///    twice (a delay-locked loop with damping 0.75), at a bandwidth of 0.128 Hz that halves
///    every `narrowingSeconds` down to 0.016 Hz: it locks in a few seconds, then filters the
///    measurement jitter so the ratio settles (within a few ppm of the true clock ratio).
///    The ratio is clamped to 1 ± `maximumDeviation` (and the integrator with it).
/// 5. **Steps are not drift**: a measurement more than `stepFrames` from the low-passed fill (a
///    jump no drift makes in one period: at most `maximumDeviation` × a period, 1.3 frames at
///    256) or a `discontinuity()` the caller reports (an xrun, frames dropped, a device
///    restarted) freezes the loop: the ratio stays what it was (the clocks have not changed),
///    nothing is integrated, and once the fill has held still (no further step) for
///    `settleSeconds`, the target (or the reference, in the dead band) moves by the step — the
///    mean fill over that stretch's second half minus the error held before the step — and the
///    loop goes on where it was. A step during the reference starts the reference again. A step smaller than
///    `stepFrames` is a fill error like any other, corrected by the loop.
///
/// A pure value: no allocation, no lock; `update` is real-time safe. Owned by one thread at a
/// time (the render thread while its route plays).
public struct DriftController: Sendable {
    /// Frames per update (one period).
    public let periodFrames: Int
    /// Frames per second of the input (the engine's rate).
    public let sampleRate: Double
    /// The largest correction, as a fraction (0.005: the ratio stays within 0.995…1.005).
    public let maximumDeviation: Double
    /// Half-width of the band around the reference within which nothing is corrected, in frames.
    public let deadBandFrames: Double
    /// Seconds of measurements ignored at the start.
    public let warmUpSeconds: Double
    /// Seconds of measurements averaged into the reference fill, after the warm-up.
    public let referenceSeconds: Double
    /// Time constant of the low-pass on the measured fill, in seconds.
    public let measurementSmoothingSeconds: Double
    /// Seconds of correction after which the loop's bandwidth halves (until the narrowest).
    public let narrowingSeconds: Double
    /// A measurement further than this from the low-passed fill is a step (not drift), in frames.
    public let stepFrames: Double
    /// Seconds the fill must hold still after a step before the loop re-anchors to it (to the
    /// mean over their second half).
    public let settleSeconds: Double
    /// Loop bandwidth (Hz) when it engages.
    public static let widestBandwidth = 0.128
    /// Loop bandwidth (Hz) it narrows to.
    public static let narrowestBandwidth = 0.016

    /// The ratio to resample the next period with: output frames per input frame (above 1:
    /// the device consumes faster than the engine renders). Exactly 1 until the loop engages.
    public private(set) var ratio = 1.0
    /// The fill the loop holds, in frames (nil during warm-up and reference).
    public private(set) var targetFrames: Double?
    /// The loop has left the dead band and corrects (from then on until `reset`).
    public private(set) var isCorrecting = false
    /// The low-passed fill, in frames (0 until the reference is taken).
    public private(set) var smoothedFillFrames = 0.0
    /// The loop's current bandwidth in Hz (0 until it engages).
    public private(set) var bandwidth = 0.0
    /// Frozen after a step or a `discontinuity()`, waiting for the fill to hold still.
    public private(set) var isSettling = false
    /// Steps and discontinuities seen since the start (or `reset`).
    public private(set) var stepCount = 0

    private var updates = 0
    /// Updates of warm-up, of reference, and of correction between two narrowings.
    private let warmUpUpdates: Int
    private let referenceUpdates: Int
    private let narrowingUpdates: Int
    private let settleUpdates: Int
    /// The low-pass coefficient per update.
    private let smoothing: Double
    private var referenceSum = 0.0
    private var correctingUpdates = 0
    /// While settling: measurements since the last step, their sum, and the error held before it.
    private var quietUpdates = 0
    private var quietSum = 0.0
    private var heldError = 0.0
    /// The low-passed fill before the last two measurements (a step may have begun with them:
    /// a device that stopped consuming part-way through a period fills up by part of a period,
    /// then by a whole one).
    private var earlierSmoothed = (0.0, 0.0)
    private var z1 = 0.0
    private var z2 = 0.0
    private var z3 = 0.0
    private var w0 = 0.0
    private var w1 = 0.0
    private var w2 = 0.0

    /// A controller for updates every `periodFrames` at `sampleRate`. `deadBandFrames`
    /// defaults to half a period, `stepFrames` to a period (twice the measurement jitter the
    /// dead band allows for). Any thread.
    public init(
        periodFrames: Int, sampleRate: Double, maximumDeviation: Double = 0.005, deadBandFrames: Double? = nil,
        warmUpSeconds: Double = 1, referenceSeconds: Double = 0.25, measurementSmoothingSeconds: Double = 0.1,
        narrowingSeconds: Double = 5, stepFrames: Double? = nil, settleSeconds: Double = 1
    ) {
        self.periodFrames = max(periodFrames, 1)
        self.sampleRate = sampleRate
        self.maximumDeviation = maximumDeviation
        self.deadBandFrames = deadBandFrames ?? Double(max(periodFrames, 1)) / 2
        self.warmUpSeconds = warmUpSeconds
        self.referenceSeconds = referenceSeconds
        self.measurementSmoothingSeconds = measurementSmoothingSeconds
        self.narrowingSeconds = narrowingSeconds
        self.stepFrames = stepFrames ?? Double(max(periodFrames, 1))
        self.settleSeconds = settleSeconds
        let period = Double(self.periodFrames) / sampleRate
        warmUpUpdates = Int((warmUpSeconds / period).rounded(.up))
        referenceUpdates = max(Int((referenceSeconds / period).rounded(.up)), 1)
        narrowingUpdates = max(Int((narrowingSeconds / period).rounded()), 1)
        settleUpdates = max(Int((settleSeconds / period).rounded(.up)), 1)
        smoothing = min(period / max(measurementSmoothingSeconds, period), 1)
    }

    /// Seconds per update.
    public var periodSeconds: Double { Double(periodFrames) / sampleRate }

    /// Back to the start (warm-up, ratio 1): after the device was reopened. Real-time safe.
    @_noLocks public mutating func reset() {
        ratio = 1
        targetFrames = nil
        isCorrecting = false
        smoothedFillFrames = 0
        bandwidth = 0
        updates = 0
        referenceSum = 0
        correctingUpdates = 0
        isSettling = false
        stepCount = 0
        quietUpdates = 0
        quietSum = 0
        heldError = 0
        earlierSmoothed = (0, 0)
        z1 = 0
        z2 = 0
        z3 = 0
    }

    /// The fill just jumped for another reason than the clocks (an xrun restarted the device,
    /// frames were dropped or lost): the loop freezes at its ratio and re-anchors once the fill
    /// holds still (a step during the reference starts the reference again; during warm-up,
    /// nothing). Real-time safe.
    @_noLocks public mutating func discontinuity() {
        guard updates > warmUpUpdates else { return }
        if targetFrames == nil {
            stepCount &+= 1
            updates = warmUpUpdates
            referenceSum = 0
            return
        }
        if !isSettling { stepCount &+= 1 }
        // The fill may have begun to jump with the last measurements: the error held is the one before them.
        settle(from: earlierSmoothed.0)
    }

    /// Freeze the loop (or start the settling again) from the next measurement; `smoothed`:
    /// the low-passed fill before the step.
    private mutating func settle(from smoothed: Double) {
        if !isSettling, let target = targetFrames { heldError = smoothed - target }
        isSettling = true
        quietUpdates = 0
        quietSum = 0
    }

    /// One measurement: `fillFrames` frames wait for the device now (measured at the same point
    /// of every period). Returns the ratio for the next period (also `ratio`). Real-time safe.
    @discardableResult @_noLocks
    public mutating func update(fillFrames: Double) -> Double {
        updates &+= 1
        let warmUp = warmUpUpdates
        let reference = referenceUpdates
        if updates <= warmUp { return ratio }
        if updates <= warmUp &+ reference {
            if updates == warmUp &+ 1 {
                smoothedFillFrames = fillFrames
            } else if abs(fillFrames - smoothedFillFrames) > stepFrames {
                // A step during the reference: it starts again from this measurement.
                stepCount &+= 1
                updates = warmUp &+ 1
                referenceSum = 0
                smoothedFillFrames = fillFrames
            } else {
                smoothedFillFrames += smoothing * (fillFrames - smoothedFillFrames)
            }
            referenceSum += fillFrames
            if updates == warmUp &+ reference {
                let mean = referenceSum / Double(reference)
                targetFrames = mean
                smoothedFillFrames = mean
                earlierSmoothed = (mean, mean)
            }
            return ratio
        }
        guard var target = targetFrames else { return ratio }
        if abs(fillFrames - smoothedFillFrames) > stepFrames {
            // A jump no drift makes: hold the ratio until the fill holds still, then re-anchor.
            // The step may have begun with the last measurements: the error held is the one
            // before them.
            if !isSettling { stepCount &+= 1 }
            settle(from: earlierSmoothed.0)
            smoothedFillFrames = fillFrames
            return ratio
        }
        earlierSmoothed = (earlierSmoothed.1, smoothedFillFrames)
        smoothedFillFrames += smoothing * (fillFrames - smoothedFillFrames)
        if isSettling {
            quietUpdates &+= 1
            // The mean over the stretch's second half (the first lets what follows a stall die down).
            let firstHalf = settleUpdates / 2
            if quietUpdates > firstHalf { quietSum += fillFrames }
            guard quietUpdates >= settleUpdates else { return ratio }
            // The fill holds still: the target moves by the step, the error stays what it was.
            let mean = quietSum / Double(quietUpdates &- firstHalf)
            target = mean - heldError
            targetFrames = target
            smoothedFillFrames = mean
            earlierSmoothed = (mean, mean)
            isSettling = false
            return ratio
        }
        var error = smoothedFillFrames - target
        if !isCorrecting {
            guard abs(error) > deadBandFrames else { return ratio }
            // Engage, holding the edge of the band it crossed.
            target += error > 0 ? deadBandFrames : -deadBandFrames
            targetFrames = target
            error = smoothedFillFrames - target
            isCorrecting = true
            setBandwidth(DriftController.widestBandwidth)
        }
        correctingUpdates &+= 1
        if correctingUpdates % narrowingUpdates == 0, bandwidth > DriftController.narrowestBandwidth {
            setBandwidth(max(bandwidth / 2, DriftController.narrowestBandwidth))
        }
        // Fill above the target: the device consumes slower than the engine renders → make fewer frames.
        z1 += w0 * (w1 * error - z1)
        z2 += w0 * (z1 - z2)
        z3 = min(max(z3 + w2 * z2, -maximumDeviation), maximumDeviation)
        ratio = min(max(1 - (z2 + z3), 1 - maximumDeviation), 1 + maximumDeviation)
        return ratio
    }

    private mutating func setBandwidth(_ hz: Double) {
        bandwidth = hz
        let w = 2 * Double.pi * hz * periodSeconds
        // libm's exp: neither allocates nor locks.
        w0 = 1 - _unsafePerformance { exp(-20 * w) }
        // Proportional gain per frame of error: 1.5 · 2π · bandwidth per second of error.
        w1 = 1.5 * 2 * Double.pi * hz / sampleRate
        w2 = w / 1.5
    }
}
