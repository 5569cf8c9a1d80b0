/// Sees a sound server's stream run dry when its ALSA plugin does not say so: the frames the
/// PCM has consumed, against the monotonic clock. A server that runs out of data plays silence
/// and stops taking frames for as long; the consumed count then falls behind the clock by that
/// silence, for good. The `pulse` plugin drops the server's underflow notice when more was
/// written by the time it is dispatched (docs/backends.md, *Silence the sink itself holds*):
/// no EPIPE, but the step is there.
///
/// The lag of consumed frames behind the clock (`deficit`) jitters with the server's blocks and
/// the plugin's updates; its minimum over a window does not. A step: the smaller minimum of the
/// last two windows exceeds the smaller of two earlier ones by more than `thresholdFrames`, with
/// one window between them (a silence of up to a window that straddles two is seen whole). The
/// first two windows after a start are not compared (the stream starting), and the history is
/// refilled after a step. Slow drift between the server's clock and the monotonic one moves the
/// minima by a fraction of a frame per window and is followed.
///
/// Thread: a plain value inside `RenderCore`, used by the render thread only; no allocation.
struct ConsumptionWatch {
    let sampleRate: Int64
    let windowNanoseconds: Int64
    let thresholdFrames: Int64
    private var startNanoseconds: Int64 = -1
    private var windowStart: Int64 = 0
    private var windowMinimum = Int64.max
    private var minima: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
    private var windows = 0
    /// A step seen at the last window, reported at this one (it may have grown: a silence
    /// straddling two windows shows whole one window later).
    private var pendingStep: Int64 = 0

    /// For a PCM of `periodFrames` in a buffer of `bufferFrames` at `sampleRate`: windows of
    /// 50 ms or the buffer's duration, whichever is longer; a step is more than three quarters
    /// of a period (at least 128 frames).
    init(sampleRate: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = Int64(sampleRate)
        let bufferNanoseconds = Int64(bufferFrames) * 1_000_000_000 / Int64(max(sampleRate, 1))
        windowNanoseconds = max(50_000_000, bufferNanoseconds)
        thresholdFrames = Int64(max(128, periodFrames * 3 / 4))
    }

    /// Forget everything (the PCM was prepared again: its count starts over).
    @_noLocks
    mutating func reset() {
        startNanoseconds = -1
        windowMinimum = .max
        windows = 0
        pendingStep = 0
    }

    /// One observation: `consumed` frames taken by the running PCM since it started, at `now`
    /// (monotonic ns). Returns the frames the stream fell behind by, one window after a step
    /// was seen (an underrun the plugin did not report), else 0.
    @_noLocks
    mutating func observe(now: Int64, consumed: Int64) -> Int64 {
        if startNanoseconds < 0 {
            startNanoseconds = now
            windowStart = now
        }
        let span = now &- startNanoseconds
        let elapsed = span / 1_000_000_000 &* sampleRate &+ span % 1_000_000_000 &* sampleRate / 1_000_000_000
        windowMinimum = min(windowMinimum, elapsed &- consumed)
        guard now &- windowStart >= windowNanoseconds else { return 0 }
        minima = (minima.1, minima.2, minima.3, minima.4, windowMinimum)
        windows += 1
        windowMinimum = .max
        windowStart = now
        guard windows >= 7 else { return 0 }
        let step = min(minima.3, minima.4) &- min(minima.0, minima.1)
        if pendingStep > 0 {
            let whole = max(pendingStep, step)
            pendingStep = 0
            windows = 2
            return whole
        }
        if step > thresholdFrames { pendingStep = step }
        return 0
    }
}
