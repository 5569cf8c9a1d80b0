import Foundation
import Tutti
import TuttiDSP
import TuttiEngine

#if canImport(Glibc)
    import Glibc
#endif

/// What every benchmark set-up shares (`tutti bench` and the Benchmarks/ package): the
/// format, the gains, the material. Stateless; any thread.
///
/// The chain every source goes through (as in a real session): source (gain 0.25…0.75, not
/// unity, so the multiply is real) → its session bus (gate open, duck envelope settled at
/// −6 dB) → master (system volume 0.8) → interleaved stereo output. Sources are spread
/// round-robin over `min(N, 8)` buses.
public enum BenchSetup {
    /// The engine rate (Hz).
    public static let sampleRate = 48_000
    /// Interleaved stereo.
    public static let channelCount = 2
    /// Length of each buffer source's loop for blocks that divide it: 32 KiB per stereo source.
    public static let loopFrames = 4_096
    /// The rate stream sources and converted files are recorded at (Hz).
    public static let streamInputRate = 44_100.0
    /// Session buses the sources are spread over, at most.
    public static let maxBuses = 8

    /// Buses for `n` sources.
    public static func busCount(forSources n: Int) -> Int { max(1, min(n, maxBuses)) }

    /// The loop length for `blockFrames`-frame blocks: the smallest multiple of the block at
    /// least `loopFrames` long, so loop points fall on block edges and never split a block.
    public static func loopFrames(forBlock blockFrames: Int) -> Int {
        blockFrames * max(1, (loopFrames + blockFrames - 1) / blockFrames)
    }

    /// `count` distinct looped buffers at the engine rate for `blockFrames`-frame blocks:
    /// buffer k holds `material(seed: k)`.
    public static func loopBuffers(count: Int, blockFrames: Int) -> [AudioBuffer] {
        let loop = loopFrames(forBlock: blockFrames)
        return (0..<count).map {
            AudioBuffer(
                interleaved: material(frames: loop, seed: $0, rate: Double(sampleRate)), channelCount: channelCount,
                sampleRate: Double(sampleRate))
        }
    }

    /// The CPU's model name (the first `model name` of /proc/cpuinfo), or "unknown CPU".
    public static let cpuModel: String = {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }()

    /// The kernel release (`uname -r`). Any thread.
    public static var kernelRelease: String {
        var uts = utsname()
        uname(&uts)
        return withUnsafeBytes(of: uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Source k's constant gain, of `n` sources.
    public static func gain(_ k: Int, of n: Int) -> Float { 0.25 + 0.5 * Float(k) / Float(max(n, 1)) }

    /// Deterministic stereo material: a sine plus a little noise, different per seed.
    public static func material(frames: Int, seed: Int, rate: Double) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channelCount)
        var rng = UInt64(0x9E37_79B9_7F4A_7C15) &* UInt64(seed &+ 1)
        let f = 110.0 * Double(1 + seed % 17)
        for i in 0..<frames {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Int32(truncatingIfNeeded: rng >> 32)) / Float(Int32.max) * 0.01
            let s = Float(0.2 * sin(2 * Double.pi * f * Double(i) / rate))
            out[2 * i] = s + noise
            out[2 * i + 1] = s - noise
        }
        return out
    }
}

/// The engine's monotonic clock (`TuttiEngine.monotonicNanoseconds`), for the benchmarks
/// package: nanoseconds, no system call, no allocation. Any thread.
@inline(__always) public func monotonicNanoseconds() -> UInt64 { TuttiEngine.monotonicNanoseconds() }

/// Nanoseconds `body` takes (monotonic clock).
@inline(__always) public func timed(_ body: () -> Void) -> UInt64 {
    let t0 = monotonicNanoseconds()
    body()
    return monotonicNanoseconds() &- t0
}
