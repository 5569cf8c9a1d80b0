/// Channel mapping between mono and stereo (interleaved). Mono → stereo copies the
/// channel to both sides (no pan law: a mono file sounds as loud as a centred stereo one);
/// stereo → mono averages the two channels.
public enum ChannelMap {
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
}
