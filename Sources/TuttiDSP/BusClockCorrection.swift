import Synchronization

/// Clock correction of one output bus played on another clock than main's (ALSA's bus PCMs,
/// PipeWire's bus streams): the `DriftController` fed the frames waiting for the bus's device,
/// the `DriftResampler` it drives between the bus's render and its ring, and the counters both
/// backends report (frames dropped, frames the correction added or removed, the ratio now).
///
/// Threads: the counters are atomics (any thread reads them). The controller and the resampler
/// belong to the one thread that renders the bus (`resample`, `update`, `restart`) while it
/// plays, and to the control thread or the supervisor (`init`, `reset`) while nothing renders.
public final class BusClockCorrection: @unchecked Sendable { // render-side memory: controller and resampler, one owner at a time
    /// Frames rendered (after the correction) the bus's ring had no room for, or that were
    /// lost with its device. Any thread (an atomic); the backend counts them.
    public let framesDropped = Atomic<Int64>(0)
    /// Frames the correction added (negative: removed) so far. Any thread (an atomic).
    public let framesCorrected = Atomic<Int64>(0)
    /// The ratio now (`Double.bitPattern`). Any thread (an atomic).
    public let clockRatioBits = Atomic<UInt64>(1.0.bitPattern)

    /// Frames between two controller updates. Any thread.
    public let periodFrames: Int
    private var controller: DriftController
    private let resampler: DriftResampler
    /// `resampler` without reference counting (the render path).
    private let resamplerRef: Unmanaged<DriftResampler>

    /// A correction for blocks of up to `maximumInputFrames` frames of `channelCount` channels,
    /// its controller updated every `periodFrames` frames at `sampleRate`. Allocates: control
    /// thread.
    public init(channelCount: Int, maximumInputFrames: Int, periodFrames: Int, sampleRate: Double) {
        self.periodFrames = periodFrames
        controller = DriftController(periodFrames: periodFrames, sampleRate: sampleRate)
        resampler = DriftResampler(channelCount: channelCount, maximumInputFrames: maximumInputFrames)
        resamplerRef = .passUnretained(resampler)
    }

    /// The most frames one `resample` call makes. Any thread.
    public var maximumOutputFrames: Int { resampler.maximumOutputFrames }
    /// The ratio now. Any thread.
    public var clockRatio: Double { Double(bitPattern: clockRatioBits.load(ordering: .relaxed)) }

    /// Resample `frameCount` rendered frames at the controller's ratio (at 1, passed through,
    /// when `corrects` is false), counting the frames added or removed. Returns the frames and
    /// where they are (`DriftResampler.process`). The rendering thread; real-time safe.
    @_noLocks
    public func resample(_ input: UnsafePointer<Float>, frameCount: Int, corrects: Bool = true) -> (
        frames: UnsafePointer<Float>, count: Int
    ) {
        let ratio = corrects ? controller.ratio : 1
        let made = resamplerRef._withUnsafeGuaranteedRef { $0.process(input, frameCount: frameCount, ratio: ratio) }
        if made.count != frameCount { framesCorrected.add(Int64(made.count &- frameCount), ordering: .relaxed) }
        return made
    }

    /// Feed the controller the frames waiting for the device, `periods` times (one per
    /// controller period elapsed), and publish its ratio. The rendering thread; real-time safe.
    @_noLocks
    public func update(fillFrames: Double, periods: Int = 1) {
        var c = controller
        var ratio = c.ratio
        for _ in 0..<periods { ratio = c.update(fillFrames: fillFrames) }
        controller = c
        clockRatioBits.store(ratio.bitPattern, ordering: .relaxed)
    }

    /// The fill jumped for another reason than the clocks (an underrun restarted the device,
    /// the ring overflowed and dropped frames): the controller keeps its ratio (the clocks have
    /// not changed) and re-anchors the fill it holds once the fill holds still
    /// (`DriftController.discontinuity`); during its reference, the reference starts again.
    /// The resampler keeps its phase. The rendering thread; real-time safe.
    @_noLocks
    public func restart() {
        var c = controller
        c.discontinuity()
        controller = c
    }

    /// Everything back to its start (warm-up, ratio 1, the resampler passing through). Only
    /// while nothing renders the bus: control thread or supervisor.
    public func reset() {
        controller.reset()
        resampler.reset()
        clockRatioBits.store(1.0.bitPattern, ordering: .relaxed)
    }
}
