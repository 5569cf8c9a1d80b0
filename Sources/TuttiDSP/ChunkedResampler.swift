import CSampleRate
import CSoxr

/// Converts one signal's sample rate chunk by chunk, off the render thread: a file loader
/// converting a whole buffer (`resampleBuffer`), or a streaming file source's worker that
/// decodes a chunk, pushes it here and pulls the converted frames into its ring.
///
/// Whatever sizes the input is pushed in, the output is bit-identical: the converter library
/// is always handed the same fixed blocks of `blockFrames` input frames (the caller's chunks
/// are re-blocked here) and writes into an output buffer of a fixed size, so it sees the
/// same calls; `resampleBuffer` is this class fed in one piece. The converted signal has
/// round(input frames · ratio) frames, time-aligned with the input (the library's own filter
/// delay is taken off), the same length and alignment as libsamplerate's whole-buffer call.
///
/// Allocates (it is built and run off the render thread). Owned by one thread at a time.
public final class ChunkedResampler {
    /// Input frames per library call.
    public static let blockFrames = 4_096

    /// The conversion quality (either library).
    public let quality: ResamplerQuality
    /// Channels per interleaved frame.
    public let channelCount: Int
    /// Output rate / input rate.
    public let ratio: Double

    private enum Converter {
        case libsamplerate(OpaquePointer)
        case soxr(soxr_t)
    }

    private let converter: Converter
    private let fromRate: Double
    private let toRate: Double
    /// Input waiting for a whole block (frames), interleaved.
    private var staged: [Float]
    private var stagedFrames = 0
    /// The library's output for one call.
    private var scratch: [Float]
    private let scratchFrames: Int
    /// Converted frames not pulled yet, from `pendingStart` (samples).
    private var pending: [Float] = []
    private var pendingStart = 0
    /// Output frames the library made after the leading delay was dropped.
    private var generatedFrameCount = 0
    /// Leading output frames still to drop (the library's filter delay).
    private var dropFrames: Int
    private let initialDropFrames: Int
    /// Output frames pulled so far.
    public private(set) var pulledFrameCount = 0
    /// Input frames pushed so far.
    public private(set) var inputFrameCount = 0
    /// True once `finish()` has run: no more input; the output is complete.
    public private(set) var isFinished = false

    /// A converter from `fromRate` to `toRate` (Hz) for interleaved `channelCount`-channel
    /// frames at `quality` (either library; soxr single-threaded, for determinism).
    public init(quality: ResamplerQuality, channelCount: Int, fromRate: Double, toRate: Double) throws {
        precondition(channelCount > 0 && fromRate > 0 && toRate > 0)
        self.quality = quality
        self.channelCount = channelCount
        self.fromRate = fromRate
        self.toRate = toRate
        ratio = toRate / fromRate
        scratchFrames = Int((Double(ChunkedResampler.blockFrames) * ratio).rounded(.up)) + 256
        scratch = [Float](repeating: 0, count: scratchFrames * channelCount)
        staged = [Float](repeating: 0, count: ChunkedResampler.blockFrames * channelCount)
        (converter, initialDropFrames) = try ChunkedResampler.makeConverter(
            quality: quality, channelCount: channelCount, fromRate: fromRate, toRate: toRate)
        dropFrames = initialDropFrames
    }

    deinit { ChunkedResampler.delete(converter) }

    private static func makeConverter(
        quality: ResamplerQuality, channelCount: Int, fromRate: Double, toRate: Double
    ) throws -> (Converter, Int) {
        if let type = quality.libsamplerateConverter {
            var error: Int32 = 0
            guard let state = src_new(type, Int32(channelCount), &error) else { throw ResamplerError(libsamplerateCode: error) }
            // libsamplerate aligns its output with its input itself.
            return (.libsamplerate(state), 0)
        }
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var q = soxr_quality_spec(UInt(quality.soxrRecipe!), 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        guard let s = soxr_create(fromRate, toRate, UInt32(channelCount), &error, &io, &q, &runtime), error == nil else {
            throw ResamplerError("soxr: \(error.map { String(cString: $0) } ?? "cannot create a resampler")")
        }
        // What soxr reports before any input is its filter delay, in output frames.
        return (.soxr(s), Int(soxr_delay(s).rounded()))
    }

    private static func delete(_ converter: Converter) {
        switch converter {
        case .libsamplerate(let state): src_delete(state)
        case .soxr(let s): soxr_delete(s)
        }
    }

    /// Output frames the whole input pushed so far will have, at most: round(frames · ratio).
    private func outputLength(forInput frames: Int) -> Int { Int((Double(frames) * ratio).rounded()) }

    /// Frames that may be pulled now. Before `finish()`, frames past round(pushed · ratio) are
    /// held back (they could fall past the end of the signal).
    public var availableFrameCount: Int {
        let limit = outputLength(forInput: inputFrameCount)
        return max(0, min(generatedFrameCount, limit) - pulledFrameCount)
    }

    /// Append interleaved input frames (a whole number of frames).
    public func push(_ input: UnsafeBufferPointer<Float>) throws {
        precondition(!isFinished, "push after finish")
        precondition(input.count % channelCount == 0, "not a whole number of frames")
        guard var base = input.baseAddress else { return }
        let ch = channelCount
        let block = ChunkedResampler.blockFrames
        var frames = input.count / ch
        inputFrameCount += frames
        while frames > 0 {
            if stagedFrames == 0 && frames >= block {
                // A whole block straight from the caller's memory: the same call as staged.
                try convert(base, frameCount: block, endOfInput: false)
                base += block * ch
                frames -= block
                continue
            }
            let take = min(frames, block - stagedFrames)
            staged.withUnsafeMutableBufferPointer { s in
                (s.baseAddress! + stagedFrames * ch).update(from: base, count: take * ch)
            }
            stagedFrames += take
            base += take * ch
            frames -= take
            if stagedFrames == block {
                try convertStaged(endOfInput: false)
            }
        }
    }

    /// No more input: convert what is staged, flush the library and complete the output to
    /// exactly round(input frames · ratio) frames.
    public func finish() throws {
        guard !isFinished else { return }
        try convertStaged(endOfInput: true)
        isFinished = true
        let expected = outputLength(forInput: inputFrameCount)
        let pendingFrames = (pending.count - pendingStart) / channelCount
        if generatedFrameCount < expected {
            pending += [Float](repeating: 0, count: (expected - generatedFrameCount) * channelCount)
        } else if generatedFrameCount > expected {
            let extra = min(generatedFrameCount - expected, pendingFrames)
            pending.removeLast(extra * channelCount)
        }
        generatedFrameCount = expected
    }

    /// Move up to `output.count / channelCount` available frames into `output`; returns the
    /// number of frames written.
    @discardableResult
    public func pull(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        let frames = min(availableFrameCount, output.count / channelCount)
        guard frames > 0, let out = output.baseAddress else { return 0 }
        pending.withUnsafeBufferPointer { p in
            out.update(from: p.baseAddress! + pendingStart, count: frames * channelCount)
        }
        consume(frames)
        return frames
    }

    /// Every available frame, interleaved (after `finish()`: the rest of the signal).
    public func pullAll() -> [Float] {
        let frames = availableFrameCount
        if pendingStart == 0 && frames * channelCount == pending.count {
            // All of it: hand the storage over instead of copying it.
            let out = pending
            pending = []
            pulledFrameCount += frames
            return out
        }
        let out = Array(pending[pendingStart..<(pendingStart + frames * channelCount)])
        consume(frames)
        return out
    }

    /// Make room for `frameCount` output frames up front (a caller that knows the length
    /// saves the reallocations of a growing output).
    public func reserveOutput(frameCount: Int) {
        pending.reserveCapacity((pending.count - pendingStart) + frameCount * channelCount)
    }

    private func consume(_ frames: Int) {
        pendingStart += frames * channelCount
        pulledFrameCount += frames
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart >= 65_536 && pendingStart * 2 >= pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }

    /// Start over with a fresh signal (a seek): clears the filter history, staged input and
    /// pending output; the same calls follow as for a new converter.
    public func reset() throws {
        switch converter {
        case .libsamplerate(let state):
            let rc = src_reset(state)
            if rc != 0 { throw ResamplerError(libsamplerateCode: rc) }
        case .soxr(let s):
            if let e = soxr_clear(s) { throw ResamplerError("soxr: \(String(cString: e))") }
        }
        stagedFrames = 0
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        generatedFrameCount = 0
        dropFrames = initialDropFrames
        pulledFrameCount = 0
        inputFrameCount = 0
        isFinished = false
    }

    private func convertStaged(endOfInput: Bool) throws {
        let frames = stagedFrames
        stagedFrames = 0
        try staged.withUnsafeBufferPointer { s in try convert(s.baseAddress!, frameCount: frames, endOfInput: endOfInput) }
    }

    /// One block through the library: every frame consumed, every frame made appended.
    private func convert(_ input: UnsafePointer<Float>, frameCount: Int, endOfInput: Bool) throws {
        let ch = channelCount
        try scratch.withUnsafeMutableBufferPointer { scratchBuffer in
            let out = scratchBuffer.baseAddress!
            switch converter {
            case .libsamplerate(let state):
                var used = 0
                while true {
                    var data = SRC_DATA()
                    data.data_in = input + used * ch
                    data.input_frames = frameCount - used
                    data.data_out = out
                    data.output_frames = scratchFrames
                    data.end_of_input = endOfInput ? 1 : 0
                    data.src_ratio = ratio
                    let rc = src_process(state, &data)
                    if rc != 0 { throw ResamplerError(libsamplerateCode: rc) }
                    used += data.input_frames_used
                    append(out, frameCount: data.output_frames_gen)
                    let progressed = data.input_frames_used > 0 || data.output_frames_gen > 0
                    if !progressed || (used == frameCount && !endOfInput) { break }
                }
            case .soxr(let s):
                var used = 0
                while used < frameCount {
                    var inputDone = 0
                    var outputDone = 0
                    if let e = soxr_process(s, input + used * ch, frameCount - used, &inputDone, out, scratchFrames, &outputDone) {
                        throw ResamplerError("soxr: \(String(cString: e))")
                    }
                    used += inputDone
                    append(out, frameCount: outputDone)
                    if inputDone == 0 && outputDone == 0 { break }
                }
                if endOfInput {
                    while true {
                        var outputDone = 0
                        if let e = soxr_process(s, nil, 0, nil, out, scratchFrames, &outputDone) {
                            throw ResamplerError("soxr: \(String(cString: e))")
                        }
                        append(out, frameCount: outputDone)
                        if outputDone == 0 { break }
                    }
                }
            }
        }
    }

    private func append(_ frames: UnsafePointer<Float>, frameCount: Int) {
        var start = frames
        var count = frameCount
        if dropFrames > 0 {
            let d = min(dropFrames, count)
            dropFrames -= d
            start += d * channelCount
            count -= d
        }
        guard count > 0 else { return }
        pending.append(contentsOf: UnsafeBufferPointer(start: start, count: count * channelCount))
        generatedFrameCount += count
    }
}

/// Whole-buffer conversion, for file sources at load time: a `ChunkedResampler` fed the
/// whole buffer at once, so a file converted while it streams gives the same samples.
/// The result has round(frames · ratio) frames, time-aligned with the input. Allocates:
/// never on the render path.
public func resampleBuffer(
    _ interleaved: [Float], channelCount: Int, fromRate: Double, toRate: Double,
    quality: ResamplerQuality
) throws -> [Float] {
    if fromRate == toRate { return interleaved }
    let converter = try ChunkedResampler(quality: quality, channelCount: channelCount, fromRate: fromRate, toRate: toRate)
    converter.reserveOutput(frameCount: Int((Double(interleaved.count / channelCount) * toRate / fromRate).rounded(.up)) + 256)
    try interleaved.withUnsafeBufferPointer { try converter.push($0) }
    try converter.finish()
    return converter.pullAll()
}
