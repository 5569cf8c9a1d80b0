import TuttiEngine

extension SourceHandle {
    /// Streams and inputs (an input's frames are at the engine rate): append `frameCount` whole interleaved frames from `interleaved` (`frameCount ×`
    /// the stream's channel count floats, at the stream's rate); returns the frames taken
    /// (fewer when its buffer is full: retry the rest later). For hosts that count frames
    /// rather than samples (the C ABI's `tutti_stream_write`). Throws `invalidArgument` for a
    /// source that is not a stream or a negative count, `notFound` for a stale handle.
    /// Thread: one producer per stream at a time, any thread, the real-time one included: it
    /// takes no lock and allocates nothing (unless it throws).
    public func write(interleaved: UnsafePointer<Float>, frameCount: Int) throws(TuttiError) -> Int {
        guard frameCount >= 0, frameCount <= Int.max / 4 else {
            throw TuttiError(.invalidArgument, "frameCount must be ≥ 0, got \(frameCount)")
        }
        // The channel count is the source's own: ask for whole frames of it (1 or 2 channels).
        return try engine.write(id, interleaved, count: frameCount, countIsFrames: true)
    }
}

extension AudioEngine {
    /// Write `count` interleaved samples (or, with `countIsFrames`, whole frames of the
    /// source's channel count) to stream or input `id` through the directory. Never takes the
    /// engine's lock, not even to fail (a failure only builds its message).
    func write(_ id: SourceID, _ samples: UnsafePointer<Float>, count: Int, countIsFrames: Bool = false) throws(TuttiError) -> Int {
        switch directory.write(id, samples, count: count, countIsFrames: countIsFrames) {
        case .written(let frames): return frames
        case .partialFrame(let channels):
            throw TuttiError(.invalidArgument, "\(count) samples are not whole frames of \(channels) channels")
        case .ended: throw TuttiError(.state, "source \(id) was ended (endStream): it takes no more frames")
        case .notFound: throw TuttiError(.notFound, "no source \(id) (removed, or never created)")
        case .notWritable: throw TuttiError(.invalidArgument, "source \(id) is not a stream source")
        }
    }
}
