import CSndFile
import Foundation

/// A fresh temporary folder (removed by the caller when it cares).
public func makeTemporaryFolder(_ prefix: String = "tutti-test") -> String {
    let path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Write interleaved float samples as a float32 WAV at `path`.
public func writeFloatWAV(_ path: String, _ samples: [Float], rate: Int, channels: Int) {
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = Int32(channels)
    info.format = Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_FLOAT)
    let f = sf_open(path, Int32(SFM_WRITE), &info)!
    _ = samples.withUnsafeBufferPointer { sf_writef_float(f, $0.baseAddress, sf_count_t(samples.count / channels)) }
    sf_close(f)
}

/// Seeded band-limited-ish test material: a few sines plus low noise, `seconds` long.
public func musicLikeSamples(seconds: Double, rate: Int, channels: Int, seed: UInt32 = 7) -> [Float] {
    var rng = XorShiftTestRNG(seed: seed)
    let n = Int(Double(rate) * seconds)
    var out = [Float](repeating: 0, count: n * channels)
    for i in 0..<n {
        let t = Double(i) / Double(rate)
        for c in 0..<channels {
            let v = 0.3 * sin(2 * .pi * (220 + 110 * Double(c)) * t) + 0.2 * sin(2 * .pi * 3_111 * t) + 0.05 * (rng.next() - 0.5)
            out[i * channels + c] = Float(v)
        }
    }
    return out
}

/// A tiny deterministic generator for test material.
public struct XorShiftTestRNG {
    var state: UInt32
    public init(seed: UInt32) { state = seed == 0 ? 1 : seed }
    /// Uniform in [0, 1).
    public mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return Double(state) / 4_294_967_296
    }
}
