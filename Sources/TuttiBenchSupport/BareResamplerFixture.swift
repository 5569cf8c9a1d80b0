import Tutti
import TuttiDSP

/// Bare libsamplerate: one converter per source at `quality`, `src_process` (through
/// TuttiDSP's thin `ResamplerKernel.process`) straight from the same input material a stream
/// `EngineFixture` is fed, block by block, with the same input chunking (up to 512 frames
/// offered per call, the rest on the next call, as the engine's stream node does) and no
/// ring. With `mixes`, each source's block is then mixed into the output with the bare C
/// kernel (what any mixer must add). Owned by the benchmarking thread.
public final class BareResamplerFixture {
    /// Output frames per block.
    public let blockFrames: Int
    /// Input frames offered per converter call.
    public static let stagingFrames = 512
    let converters: [StreamingResampler]
    let input: UnsafeMutablePointer<Float>
    let inputFrames: Int
    // Unchecked: as class `var`s touched once per source per block, these would cost two
    // dynamic exclusivity checks (swift_beginAccess, ≈ 600 instructions) per source per
    // block, work the engine's render path does not do, making the reference look slower.
    @exclusivity(unchecked) var positions: [Int]
    @exclusivity(unchecked) var staged: [Int]
    let mixes: Bool
    let gains: [Float]
    let scratch: UnsafeMutablePointer<Float>
    /// The last block (one source's conversion, or with `mixes` the mix of all).
    public let output: UnsafeMutablePointer<Float>

    /// `sources` converters at `quality` (a libsamplerate one), each at its own offset.
    public init(sources: Int, quality: ResamplerQuality, blockFrames: Int, mixes: Bool = false) throws {
        self.blockFrames = blockFrames
        self.mixes = mixes
        converters = try (0..<sources).map { _ in
            try StreamingResampler(
                quality: quality, channelCount: BenchSetup.channelCount,
                fromRate: BenchSetup.streamInputRate, toRate: Double(BenchSetup.sampleRate))
        }
        inputFrames = Int(BenchSetup.streamInputRate) * 2
        let material = BenchSetup.material(frames: inputFrames, seed: 99, rate: BenchSetup.streamInputRate)
        input = allocateAudio(Float.self, capacity: material.count)
        input.initialize(from: material, count: material.count)
        positions = (0..<sources).map { ($0 &* 7_919) % (Int(BenchSetup.streamInputRate) * 2 - 1_024) }
        staged = Array(repeating: 0, count: sources)
        gains = (0..<sources).map { BenchSetup.gain($0, of: sources) }
        let samples = blockFrames * BenchSetup.channelCount
        output = allocateAudio(Float.self, capacity: samples)
        output.initialize(repeating: 0, count: samples)
        scratch = allocateAudio(Float.self, capacity: samples)
        scratch.initialize(repeating: 0, count: samples)
        for _ in 0..<64 { render() }
    }

    deinit {
        deallocateAudio(input)
        deallocateAudio(output)
        deallocateAudio(scratch)
    }

    /// The measured call: every source converts one block's worth of output (and, with
    /// `mixes`, adds it to the zeroed output at its gain).
    public func render() {
        let ch = BenchSetup.channelCount
        let samples = blockFrames * ch
        if mixes { output.update(repeating: 0, count: samples) }
        let target = mixes ? scratch : output
        let kernelVariant = KernelVariant.active
        for k in 0..<converters.count {
            let kernel = converters[k].kernel
            var produced = 0
            var stalls = 0
            while produced < blockFrames {
                if staged[k] == 0 {
                    if inputFrames - positions[k] < BareResamplerFixture.stagingFrames { positions[k] = 0 }
                    staged[k] = BareResamplerFixture.stagingFrames
                }
                let r = kernel.process(
                    input: input + positions[k] * ch, inputFrameCount: staged[k],
                    output: target + produced * ch, outputFrameCount: blockFrames - produced)
                positions[k] += r.used
                staged[k] -= r.used
                produced += r.generated
                if r.used == 0 && r.generated == 0 {
                    stalls += 1
                    if stalls > 2 { break }
                }
            }
            if mixes { kernelVariant.mixAdd(output, scratch, count: samples, gain: gains[k]) }
        }
    }
}
