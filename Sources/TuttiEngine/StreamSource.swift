import TuttiDSP

/// A source fed by the host while playing: interleaved frames at the stream's own rate go
/// into a lock-free ring; the render thread converts them to the engine rate with a
/// streaming libsamplerate converter built ahead of time.
/// The class lives on the control side (it owns the ring and the converter); the producer
/// thread calls `write`; the render thread works on the `node` copy.
public final class StreamSource: @unchecked Sendable {
    public let channelCount: Int
    public let sampleRate: Double
    let storage: RingStorage<Float>
    let ring: SampleRing
    let resampler: StreamingResampler

    /// `bufferFrames`: how much input may wait in the ring.
    public init(
        sampleRate: Double, channelCount: Int, engineSampleRate: Double,
        quality: ResamplerQuality = .sincMedium, bufferFrames: Int = 16_384
    ) throws {
        precondition((1...2).contains(channelCount))
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        storage = RingStorage(capacity: bufferFrames * channelCount)
        ring = SampleRing(storage)
        resampler = try StreamingResampler(
            quality: quality, channelCount: channelCount,
            fromRate: sampleRate, toRate: engineSampleRate)
    }

    /// Producer thread: append interleaved frames; returns the number of frames taken (less when the ring is full).
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let frames = samples.count / channelCount
        let take = min(frames, ring.indices.writable().count / channelCount)
        return ring.write(from: base, count: take * channelCount) / channelCount
    }

    public var node: StreamNode {
        StreamNode(input: ring, resampler: resampler.kernel)
    }
}

/// Render-side state of a stream source. Trivial value. The converter reads the ring in
/// place (no staging copy); only the render thread releases what it used.
public struct StreamNode: @unchecked Sendable {
    @usableFromInline let input: SampleRing
    @usableFromInline let resampler: ResamplerKernel
    /// Output frames that had to be filled with silence because no input was there.
    @usableFromInline var _underrunFrames = 0
    public var underrunFrames: Int { _underrunFrames }

    init(input: SampleRing, resampler: ResamplerKernel) {
        self.input = input
        self.resampler = resampler
    }

    /// Produce `frameCount` frames at the engine rate into `output` (stream channel layout).
    @inlinable @_noLocks
    public mutating func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
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
            _underrunFrames &+= frameCount &- produced
        }
    }

    @inlinable @_noLocks
    public mutating func reset() {
        resampler.reset()
    }
}
