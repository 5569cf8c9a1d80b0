/// Channel mapping between mono and stereo (interleaved). Mono → stereo copies the
/// channel to both sides (no pan law: a mono file sounds as loud as a centred stereo one);
/// stereo → mono averages the two channels. Stateless: any thread.
public enum ChannelMap {
    /// A mapped copy of `samples` (allocates: control side, at load time).
    public static func map(_ samples: [Float], from sourceChannels: Int, to targetChannels: Int) -> [Float] {
        precondition((1...2).contains(sourceChannels) && (1...2).contains(targetChannels))
        if sourceChannels == targetChannels { return samples }
        let frames = samples.count / sourceChannels
        var out = [Float](repeating: 0, count: frames * targetChannels)
        if sourceChannels == 1 {
            for f in 0..<frames {
                out[2 * f] = samples[f]
                out[2 * f + 1] = samples[f]
            }
        } else {
            for f in 0..<frames { out[f] = 0.5 * (samples[2 * f] + samples[2 * f + 1]) }
        }
        return out
    }

    /// Map `frameCount` frames in place; `buffer` must hold `frameCount · max(channels)`
    /// samples. Real-time safe (the render thread maps stream sources with it).
    @inlinable @_noLocks
    public static func mapInPlace(_ buffer: UnsafeMutablePointer<Float>, frameCount: Int, from sourceChannels: Int, to targetChannels: Int)
    {
        if sourceChannels == targetChannels { return }
        if sourceChannels == 1 {
            // Backwards, so no frame is overwritten before it is read.
            var f = frameCount &- 1
            while f >= 0 {
                let v = buffer[f]
                buffer[2 &* f] = v
                buffer[2 &* f &+ 1] = v
                f &-= 1
            }
        } else {
            for f in 0..<frameCount { buffer[f] = 0.5 * (buffer[2 &* f] + buffer[2 &* f &+ 1]) }
        }
    }
}
