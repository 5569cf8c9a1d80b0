import TuttiDSP

/// The control side of a stream source: the host pushes interleaved frames at the stream's
/// own rate and channel count into a lock-free ring; the render thread converts them to the
/// engine rate (a streaming libsamplerate converter built here, ahead of time) and maps the
/// channels to the engine's. Built by `Engine.addSource(.stream…)`, which knows the engine
/// rate, so every stream plays at its true pitch.
///
/// Thread: one producer thread at a time calls `write`; the engine keeps the object alive
/// while the render side uses its `node`.
public final class StreamSource: @unchecked Sendable {
    /// Channels of the frames written (1 or 2).
    public let channelCount: Int
    /// Rate of the frames written, Hz.
    public let sampleRate: Double
    /// Frames the ring holds.
    public let capacityFrames: Int
    let storage: RingStorage<Float>
    let ring: SampleRing
    let resampler: StreamingResampler

    init(sampleRate: Double, channelCount: Int, engineSampleRate: Double, quality: ResamplerQuality, capacityFrames: Int) throws(TuttiError)
    {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        storage = RingStorage(capacity: capacityFrames * channelCount)
        ring = SampleRing(storage)
        self.capacityFrames = ring.indices.capacity / channelCount
        do {
            resampler = try StreamingResampler(
                quality: quality, channelCount: channelCount, fromRate: sampleRate, toRate: engineSampleRate)
        } catch {
            throw TuttiError(.invalidArgument, "stream converter \(sampleRate) Hz → \(engineSampleRate) Hz: \(error)")
        }
    }

    /// Producer thread: append whole interleaved frames; returns the number of frames taken
    /// (fewer when the ring is full; the rest is the caller's to retry).
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let frames = samples.count / channelCount
        let take = min(frames, ring.indices.writable().count / channelCount)
        return ring.write(from: base, count: take * channelCount) / channelCount
    }

    /// Frames written and not yet consumed by the render side.
    public var bufferedFrames: Int { ring.indices.count / channelCount }

    var node: StreamNode { StreamNode(input: ring, resampler: resampler.kernel) }
}

/// Render-side state of a stream source. Trivial value. The converter reads the ring in
/// place (no staging copy); only the render thread releases what it used.
@usableFromInline struct StreamNode {
    @usableFromInline let input: SampleRing
    @usableFromInline let resampler: ResamplerKernel
    /// Output frames that had to be filled with silence because no input was there.
    @usableFromInline var underrunFrames = 0

    @usableFromInline init(input: SampleRing, resampler: ResamplerKernel) {
        self.input = input
        self.resampler = resampler
    }

    /// The stream's channel count (the engine maps it to its own).
    @inlinable var channelCount: Int { @_noLocks get { resampler.channelCount } }

    /// Produce `frameCount` frames at the engine rate into `output` (stream channel layout).
    @inlinable @_noLocks
    mutating func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        let ch = resampler.channelCount
        var produced = 0
        var idle = 0
        while produced < frameCount {
            // Writes are whole frames and the capacity a power of two: a span holds whole frames.
            let span = input.readableSpan()
            let frames = span.count / ch
            let r = resampler.process(
                input: span.pointer, inputFrameCount: frames,
                output: output + produced &* ch, outputFrameCount: frameCount &- produced)
            input.release(r.used &* ch)
            produced &+= r.generated
            if r.used == 0, r.generated == 0 {
                idle &+= 1
                if frames == 0 || idle > 2 { break }
            }
        }
        if produced < frameCount {
            (output + produced &* ch).update(repeating: 0, count: (frameCount &- produced) &* ch)
            underrunFrames &+= frameCount &- produced
        }
    }

    /// Clear the converter's history (a stop rewinds the stream's conversion, not its data).
    @inlinable @_noLocks
    func reset() { resampler.reset() }
}
