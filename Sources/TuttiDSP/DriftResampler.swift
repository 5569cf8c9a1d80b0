/// The variable-ratio resampler of clock-drift correction (`DriftController`'s ratio, within a
/// fraction of a percent of 1): interleaved float frames in, `ratio` times as many out, by
/// 4-point Hermite interpolation (`Hermite`) at a fractional read position that advances by
/// 1 / ratio per output frame and carries over from one block to the next, so the output is
/// continuous whatever the ratio does.
///
/// Until the first call with a ratio other than exactly 1 it passes its input through
/// untouched (bit for bit, no delay: devices on one clock are never resampled). From then on it
/// interpolates, 2 frames behind its input (the interpolator's look-ahead): the first
/// interpolated block makes 2 frames fewer, with no discontinuity. At a ratio of exactly 1 after
/// that it reproduces its input bit for bit, delayed. Hermite interpolation does no
/// band-limiting: at a fractional position the top of the spectrum is attenuated (−0.5 dB at
/// 10 kHz, −2.5 dB at 15 kHz at 48 kHz, at the worst position), which a drift sweeps through
/// slowly (one position cycle per 1 / |ratio − 1| frames).
///
/// Buffers allocated at `init` (control thread); `process` and `reset` are real-time safe and
/// belong to one thread at a time (the render thread while its output bus plays).
public final class DriftResampler: @unchecked Sendable { // render-side memory: its buffers, one owner at a time
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// The most frames one `process` call takes.
    public let maximumInputFrames: Int
    /// The largest |ratio − 1| it is sized for.
    public let maximumDeviation: Double
    /// The most frames one `process` call makes.
    public let maximumOutputFrames: Int
    /// It interpolates (a ratio other than 1 was asked once); false while it passes through.
    public private(set) var isEngaged = false

    private let output: UnsafeMutablePointer<Float>
    /// The last 3 input frames, then the current block's.
    private let work: UnsafeMutablePointer<Float>
    /// Read position in `work` frames (3: the block's first frame).
    private var position = 3.0

    /// Buffers for blocks of up to `maximumInputFrames` and ratios within 1 ± `maximumDeviation`.
    /// Allocates: control thread.
    public init(channelCount: Int, maximumInputFrames: Int, maximumDeviation: Double = 0.005) {
        self.channelCount = max(channelCount, 1)
        self.maximumInputFrames = max(maximumInputFrames, 1)
        self.maximumDeviation = maximumDeviation
        maximumOutputFrames = Int((Double(self.maximumInputFrames + 2) * (1 + maximumDeviation)).rounded(.up)) + 2
        output = allocateAudio(Float.self, capacity: maximumOutputFrames * self.channelCount)
        output.initialize(repeating: 0, count: maximumOutputFrames * self.channelCount)
        work = allocateAudio(Float.self, capacity: (self.maximumInputFrames + 3) * self.channelCount)
        work.initialize(repeating: 0, count: (self.maximumInputFrames + 3) * self.channelCount)
    }

    deinit {
        deallocateAudio(output)
        deallocateAudio(work)
    }

    /// Back to pass-through with a silent history (after the device was reopened). Real-time safe.
    @_noLocks public func reset() {
        isEngaged = false
        position = 3
        for j in 0..<(3 &* channelCount) { work[j] = 0 }
    }

    /// Resample `frameCount` (≤ `maximumInputFrames`) frames of `input` at `ratio` (output
    /// frames per input frame, clamped to 1 ± `maximumDeviation`). Returns the frames made
    /// and where they are: `input` itself while passing through, else the resampler's own
    /// buffer (valid until the next call). Real-time safe.
    @_noLocks
    public func process(_ input: UnsafePointer<Float>, frameCount: Int, ratio: Double) -> (
        frames: UnsafePointer<Float>, count: Int
    ) {
        let n = min(max(frameCount, 0), maximumInputFrames)
        let ch = channelCount
        UnsafeMutableRawPointer(work + 3 &* ch).copyMemory(from: input, byteCount: n &* ch &* MemoryLayout<Float>.stride)
        if !isEngaged && ratio != 1 { isEngaged = true }
        var made = 0
        if isEngaged {
            let r = min(max(ratio, 1 - maximumDeviation), 1 + maximumDeviation)
            let step = 1 / r
            var pos = position
            let w = work
            let out = output
            let limit = maximumOutputFrames
            // Frames i − 1 … i + 2 are needed: i ≤ n keeps i + 2 within the block.
            while made < limit {
                let i = Int(pos)
                if i > n { break }
                let t = Float(pos - Double(i))
                let base = (i &- 1) &* ch
                for c in 0..<ch {
                    out[made &* ch &+ c] = Hermite.interpolate(
                        w[base &+ c], w[base &+ ch &+ c], w[base &+ 2 &* ch &+ c], w[base &+ 3 &* ch &+ c], t: t)
                }
                made &+= 1
                pos += step
            }
            position = pos - Double(n)
        } else {
            made = n
        }
        // Keep the last 3 frames as the next block's history (forward copy: the source is ahead).
        let keep = 3 &* ch
        let from = n &* ch
        for j in 0..<keep { work[j] = work[from &+ j] }
        return isEngaged ? (UnsafePointer(output), made) : (input, made)
    }
}
