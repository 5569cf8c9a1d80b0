import CSndFile
import Foundation
import TuttiDSP

/// A fresh temporary folder, named `prefix`-UUID (removed by the caller when it cares).
/// Any test thread.
public func makeTemporaryFolder(_ prefix: String = "tutti-test") -> String {
    let path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Write interleaved float samples (`channels` per frame, at `rate` Hz) as a WAV at `path`,
/// float32 unless `format` (a libsndfile `SF_FORMAT_*` subtype) says otherwise.
public func writeWAV(_ path: String, _ samples: [Float], rate: Int, channels: Int, format: Int32 = Int32(SF_FORMAT_FLOAT)) {
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = Int32(channels)
    info.format = Int32(SF_FORMAT_WAV) | format
    let f = sf_open(path, Int32(SFM_WRITE), &info)!
    _ = samples.withUnsafeBufferPointer { sf_writef_float(f, $0.baseAddress, sf_count_t(samples.count / channels)) }
    sf_close(f)
}

/// Frames `frames` of a sine of `frequency` Hz at `rate` Hz (frame i is
/// `amplitude · sin(2π · frequency · i / rate + phase)`), the same value on each of `channels`,
/// interleaved.
public func sine(_ frequency: Double, rate: Double, frames: Range<Int>, channels: Int = 1, amplitude: Double = 0.5, phase: Double = 0)
    -> [Float]
{
    var out = [Float](repeating: 0, count: frames.count * channels)
    for (k, i) in frames.enumerated() {
        let v = Float(amplitude * sin(2 * .pi * frequency * Double(i) / rate + phase))
        for c in 0..<channels { out[k * channels + c] = v }
    }
    return out
}

/// The first `seconds` of a sine (`sine(_:rate:frames:…)` over `Int(rate × seconds)` frames).
public func sine(_ frequency: Double, rate: Int, seconds: Double, amplitude: Double = 0.5, channels: Int = 1, phase: Double = 0)
    -> [Float]
{
    sine(frequency, rate: Double(rate), frames: 0..<Int(Double(rate) * seconds), channels: channels, amplitude: amplitude, phase: phase)
}

/// Seeded band-limited-ish test material: a few sines plus low noise, `seconds` long.
public func musicLikeSamples(seconds: Double, rate: Int, channels: Int, seed: UInt32 = 7) -> [Float] {
    var rng = XorShift32(seed: seed)
    let n = Int(Double(rate) * seconds)
    var out = [Float](repeating: 0, count: n * channels)
    for i in 0..<n {
        let t = Double(i) / Double(rate)
        for c in 0..<channels {
            let v = 0.3 * sin(2 * .pi * (220 + 110 * Double(c)) * t) + 0.2 * sin(2 * .pi * 3_111 * t) + 0.05 * (rng.nextDouble() - 0.5)
            out[i * channels + c] = Float(v)
        }
    }
    return out
}

extension XorShift32 {
    /// Uniform in [0, 1) with all 32 bits of `next()` (the test material's draw; `nextUnit()`
    /// keeps 24).
    public mutating func nextDouble() -> Double { Double(next()) / 4_294_967_296 }
}
