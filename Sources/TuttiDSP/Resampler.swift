import CSampleRate

/// A streaming libsamplerate converter for sources whose data arrives while playing.
/// Built on the control side (`src_new` allocates) and freed there (`deinit`); the render
/// thread uses only its `kernel`, a trivial value that never touches reference counts.
public final class StreamingResampler: @unchecked Sendable { // render-side memory: the converter's state
    /// The render-side view (valid while this object lives).
    public let kernel: ResamplerKernel
    /// The libsamplerate quality.
    public let quality: ResamplerQuality

    /// Control side. Throws for the soxr qualities: they convert whole files and file streams
    /// (`ChunkedResampler`), not live streams on the render thread.
    public init(quality: ResamplerQuality, channelCount: Int, fromRate: Double, toRate: Double) throws {
        guard let type = quality.libsamplerateConverter else {
            throw ResamplerError(
                "\(quality.rawValue) converts files only; live streams use libsamplerate (sincBest, sincMedium, sincFastest, linear, zeroOrderHold)"
            )
        }
        var error: Int32 = 0
        guard let s = src_new(type, Int32(channelCount), &error) else { throw ResamplerError(libsamplerateCode: error) }
        kernel = ResamplerKernel(state: s, channelCount: channelCount, ratio: toRate / fromRate)
        self.quality = quality
    }

    deinit { src_delete(kernel.state) }
}

/// The render-side view of a `StreamingResampler`: valid while its owner lives.
public struct ResamplerKernel: @unchecked Sendable { // render-side memory: a pointer to the converter
    @usableFromInline let state: OpaquePointer
    /// Channels per interleaved frame.
    public let channelCount: Int
    /// Output rate / input rate.
    public let ratio: Double

    @usableFromInline init(state: OpaquePointer, channelCount: Int, ratio: Double) {
        self.state = state
        self.channelCount = channelCount
        self.ratio = ratio
    }

    /// Convert from `input` into `output`; returns (input frames used, output frames made),
    /// (0, 0) on a libsamplerate error. Real-time safe: `src_process` neither allocates nor locks.
    @inlinable @_noLocks
    public func process(
        input: UnsafePointer<Float>, inputFrameCount: Int,
        output: UnsafeMutablePointer<Float>, outputFrameCount: Int,
        endOfInput: Bool = false
    ) -> (used: Int, generated: Int) {
        var data = SRC_DATA()
        data.data_in = input
        data.input_frames = inputFrameCount
        data.data_out = output
        data.output_frames = outputFrameCount
        data.end_of_input = endOfInput ? 1 : 0
        data.src_ratio = ratio
        let s = state
        let rc = withUnsafeMutablePointer(to: &data) { p in _unsafePerformance { src_process(s, p) } }
        if rc != 0 { return (0, 0) }
        return (data.input_frames_used, data.output_frames_gen)
    }

    /// Clear the filter history (does not allocate).
    @inlinable @_noLocks public func reset() {
        let s = state
        _ = _unsafePerformance { src_reset(s) }
    }
}
