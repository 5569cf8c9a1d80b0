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
    let staging: UnsafeMutablePointer<Float>
    let stagingFrames: Int

    /// `bufferFrames`: how much input may wait in the ring.
    public init(sampleRate: Double, channelCount: Int, engineSampleRate: Double,
                quality: ResamplerQuality = .sincMedium, bufferFrames: Int = 16_384) throws {
        precondition((1...2).contains(channelCount))
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        storage = RingStorage(capacity: bufferFrames * channelCount)
        ring = SampleRing(storage)
        resampler = try StreamingResampler(quality: quality, channelCount: channelCount,
                                           fromRate: sampleRate, toRate: engineSampleRate)
        stagingFrames = 512
        staging = .allocate(capacity: stagingFrames * channelCount)
        staging.initialize(repeating: 0, count: stagingFrames * channelCount)
    }

    deinit { staging.deallocate() }

    /// Producer thread: append interleaved frames; returns the number of frames taken (less when the ring is full).
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let frames = samples.count / channelCount
        let take = min(frames, ring.indices.writable().count / channelCount)
        return ring.write(from: base, count: take * channelCount) / channelCount
    }

    public var node: StreamNode {
        StreamNode(input: ring, resampler: resampler.kernel, staging: staging, stagingFrames: stagingFrames)
    }
}

/// Render-side state of a stream source. Trivial value.
public struct StreamNode: @unchecked Sendable {
    @usableFromInline let input: SampleRing
    @usableFromInline let resampler: ResamplerKernel
    @usableFromInline let staging: UnsafeMutablePointer<Float>
    @usableFromInline let stagingFrames: Int
    /// Frames waiting in `staging` from `stagedOffset` on.
    @usableFromInline var staged = 0
    @usableFromInline var stagedOffset = 0
    /// Output frames that had to be filled with silence because no input was there.
    @usableFromInline var _underrunFrames = 0
    public var underrunFrames: Int { _underrunFrames }

    init(input: SampleRing, resampler: ResamplerKernel, staging: UnsafeMutablePointer<Float>, stagingFrames: Int) {
        self.input = input
        self.resampler = resampler
        self.staging = staging
        self.stagingFrames = stagingFrames
    }

    /// Produce `frameCount` frames at the engine rate into `output` (stream channel layout).
    @inlinable @_noLocks
    public mutating func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        let ch = resampler.channelCount
        var produced = 0
        var idle = 0
        while produced < frameCount {
            if staged == 0 {
                let got = input.read(into: staging, count: stagingFrames &* ch) / ch
                staged = got
                stagedOffset = 0
            }
            let r = resampler.process(input: staging + stagedOffset &* ch, inputFrameCount: staged,
                                      output: output + produced &* ch, outputFrameCount: frameCount &- produced)
            staged &-= r.used
            stagedOffset &+= r.used
            produced &+= r.generated
            if r.used == 0 && r.generated == 0 {
                idle &+= 1
                if staged == 0 || idle > 2 { break }
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
        staged = 0
        stagedOffset = 0
    }
}
