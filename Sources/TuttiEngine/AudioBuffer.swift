import TuttiDSP

/// Decoded, immutable interleaved audio. Built and freed on the control side; the render
/// thread reads it through a raw pointer while the engine keeps the buffer alive.
public final class AudioBuffer: @unchecked Sendable { // render-side memory: immutable samples the render thread reads
    /// Frames per second of the samples (Hz).
    public let sampleRate: Double
    /// Samples per frame (interleaved).
    public let channelCount: Int
    /// Length in frames.
    public let frameCount: Int
    /// Channels of the material itself: 1 when it is mono material spread on both channels
    /// (a mono file or buffer converted to stereo), else `channelCount`. Pan places mono
    /// material with the constant-power law and balances stereo material (`PanLaw`).
    public let contentChannelCount: Int
    /// The samples, from `allocateAudio` (64-byte aligned).
    let storage: UnsafeMutableBufferPointer<Float>

    /// Copies `samples` (interleaved, `channelCount` per frame; a whole number of frames or it
    /// traps) into storage of its own. `contentChannelCount` (nil: `channelCount`; at most
    /// `channelCount`): see the property. Allocates: control side, off the render path.
    public init(interleaved samples: [Float], channelCount: Int, sampleRate: Double, contentChannelCount: Int? = nil) {
        precondition(channelCount > 0 && samples.count % channelCount == 0, "sample count is not a whole number of frames")
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.contentChannelCount = min(max(contentChannelCount ?? channelCount, 1), channelCount)
        frameCount = samples.count / channelCount
        storage = UnsafeMutableBufferPointer(start: allocateAudio(Float.self, capacity: samples.count), count: max(samples.count, 1))
        _ = storage.initialize(from: samples)
    }

    deinit { deallocateAudio(storage.baseAddress!) }

    /// The interleaved samples (`frameCount × channelCount`); valid while the buffer lives.
    public var samples: UnsafeBufferPointer<Float> { UnsafeBufferPointer(rebasing: storage[0..<frameCount * channelCount]) }

    /// This buffer converted to `sampleRate` and `channelCount` (`resampleBuffer` at `quality`,
    /// then mono ↔ stereo mapping). Allocates: call it off the render path, at load time.
    public func converted(toSampleRate rate: Double, channelCount target: Int, quality: ResamplerQuality) throws -> AudioBuffer {
        if rate == sampleRate && target == channelCount { return self }
        var data = Array(samples)
        if rate != sampleRate {
            data = try resampleBuffer(data, channelCount: channelCount, fromRate: sampleRate, toRate: rate, quality: quality)
        }
        data = ChannelMap.map(data, from: channelCount, to: target)
        return AudioBuffer(interleaved: data, channelCount: target, sampleRate: rate, contentChannelCount: min(contentChannelCount, target))
    }
}
