import TuttiEngine

extension SourceHandle {
    /// Streams and inputs (an input's frames are at the engine rate): append `frameCount` whole interleaved frames from `interleaved` (`frameCount ×`
    /// the stream's channel count floats, at the stream's rate); returns the frames taken
    /// (fewer when its buffer is full: retry the rest later). For hosts that count frames
    /// rather than samples (the C ABI's `tutti_stream_write`). Throws `invalidArgument` for a
    /// source that is not a stream or a negative count, `notFound` for a stale handle.
    /// Thread: one producer per stream at a time, not the render thread.
    public func write(interleaved: UnsafePointer<Float>, frameCount: Int) throws(TuttiError) -> Int {
        guard frameCount >= 0, frameCount <= Int.max / 2 else {
            throw TuttiError(.invalidArgument, "frameCount must be ≥ 0, got \(frameCount)")
        }
        return try engine.withCore { (s) throws(TuttiError) in
            if let input = try? s.input(id) {
                return input.write(UnsafeBufferPointer(start: interleaved, count: frameCount * input.channelCount))
            }
            let stream = try s.stream(id)
            return stream.write(UnsafeBufferPointer(start: interleaved, count: frameCount * stream.channelCount))
        }
    }
}
