import CSampleRate

/// libsamplerate converter types.
public enum ResamplerQuality: String, Sendable, CaseIterable {
    case sincBest, sincMedium, sincFastest, linear, zeroOrderHold

    public var converterType: Int32 {
        switch self {
        case .sincBest: Int32(SRC_SINC_BEST_QUALITY)
        case .sincMedium: Int32(SRC_SINC_MEDIUM_QUALITY)
        case .sincFastest: Int32(SRC_SINC_FASTEST)
        case .linear: Int32(SRC_LINEAR)
        case .zeroOrderHold: Int32(SRC_ZERO_ORDER_HOLD)
        }
    }
}

public struct ResamplerError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public var description: String { String(cString: src_strerror(code)) }
}

/// Whole-buffer conversion, for file sources at load time (allocates: never on the render path).
/// The result has round(frames · ratio) frames: libsamplerate compensates its own delay.
public func resampleBuffer(
    _ interleaved: [Float], channelCount: Int, fromRate: Double, toRate: Double,
    quality: ResamplerQuality
) throws -> [Float] {
    if fromRate == toRate { return interleaved }
    let inFrames = interleaved.count / channelCount
    let ratio = toRate / fromRate
    let expected = Int((Double(inFrames) * ratio).rounded())
    var out = [Float](repeating: 0, count: (expected + 64) * channelCount)
    var error: Int32 = 0
    guard let state = src_new(quality.converterType, Int32(channelCount), &error) else { throw ResamplerError(code: error) }
    defer { src_delete(state) }
    var consumed = 0
    var produced = 0
    try interleaved.withUnsafeBufferPointer { inp in
        try out.withUnsafeMutableBufferPointer { outp in
            while true {
                var data = SRC_DATA()
                data.data_in = inp.baseAddress.map { $0 + consumed * channelCount }
                data.input_frames = inFrames - consumed
                data.data_out = outp.baseAddress! + produced * channelCount
                data.output_frames = outp.count / channelCount - produced
                data.end_of_input = 1
                data.src_ratio = ratio
                let rc = src_process(state, &data)
                if rc != 0 { throw ResamplerError(code: rc) }
                consumed += data.input_frames_used
                produced += data.output_frames_gen
                if data.output_frames_gen == 0 || produced >= outp.count / channelCount { break }
            }
        }
    }
    out.removeLast(out.count - min(produced, expected) * channelCount)
    return out
}

/// A streaming converter for sources whose data arrives while playing.
/// Built on the control side (`src_new` allocates) and freed there (`deinit`); the render
/// thread uses only its `kernel`, a trivial value that never touches reference counts.
public final class StreamingResampler: @unchecked Sendable {
    public let kernel: ResamplerKernel
    public let quality: ResamplerQuality

    public init(quality: ResamplerQuality, channelCount: Int, fromRate: Double, toRate: Double) throws {
        var error: Int32 = 0
        guard let s = src_new(quality.converterType, Int32(channelCount), &error) else { throw ResamplerError(code: error) }
        kernel = ResamplerKernel(state: s, channelCount: channelCount, ratio: toRate / fromRate)
        self.quality = quality
    }

    deinit { src_delete(kernel.state) }
}

/// The render-side view of a `StreamingResampler`: valid while its owner lives.
public struct ResamplerKernel: @unchecked Sendable {
    @usableFromInline let state: OpaquePointer
    public let channelCount: Int
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
