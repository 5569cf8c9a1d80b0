import Tutti
import TuttiDSP

/// A reference mix on the same buffers and gains as a mix-only `EngineFixture`:
/// out = Σ gain[k] · source[k], one pass per source into a zeroed block, walking through the
/// looped buffers the way the engine does, with a kernel the caller picks (a plain C loop in
/// Benchmarks/; in `tutti bench` the same C loop compiled at start-up, `CLoopReference`, or
/// without a C compiler the bare C kernel).
///
/// Where in the loop: when the reference and the engine take turns, the reference stays half
/// a loop away from the engine, so the slice each of them reads was last touched equally long
/// ago (by the other): neither gets the data warm from the other's pass. Right behind the
/// engine, the reference would read from L1/L2 what the engine just brought in from L3, and
/// look faster than it is. Owned by the benchmarking thread.
public final class ReferenceFixture {
    /// One block of a reference mix: (out, per-source pointers, gains, source count, samples
    /// per source); it must zero `out` first.
    public typealias MixBlock =
        @Sendable (
            _ out: UnsafeMutablePointer<Float>, _ sources: UnsafePointer<UnsafePointer<Float>?>, _ gains: UnsafePointer<Float>,
            _ sourceCount: Int, _ samples: Int
        ) -> Void

    /// Frames per block.
    public let blockFrames: Int
    /// What the reference computes, for reports.
    public let kernelName: String
    let kernel: MixBlock
    let bases: [UnsafePointer<Float>]
    let pointers: UnsafeMutablePointer<UnsafePointer<Float>?>
    let gains: UnsafeMutablePointer<Float>
    /// The last block the reference made.
    public let output: UnsafeMutablePointer<Float>
    let count: Int
    let loopFrames: Int
    var position = 0

    /// Call it right after building `fixture` (both then stand at the start of the loop).
    /// `phase`: how far into the loop the reference stands from the engine (a half by default;
    /// a second reference on the same fixture takes another phase).
    public convenience init(sharing fixture: EngineFixture, kernelName: String, phase: Double = 0.5, kernel: @escaping MixBlock) {
        precondition(fixture.streamSourceCount == 0)
        self.init(
            buffers: fixture.buffers, gains: fixture.gains, blockFrames: fixture.blockFrames, kernelName: kernelName, kernel: kernel)
        // The engine's warm-up was a whole number of loops: it stands at 0.
        precondition(fixture.framesRendered % Int64(loopFrames) == 0)
        position = (Int(Double(loopFrames) * phase) / blockFrames) * blockFrames % loopFrames
    }

    /// A reference mix of `gains.count` sources, source k reading `buffers[k % buffers.count]`
    /// (looped buffers of `BenchSetup.loopFrames(forBlock:)` frames).
    public init(buffers: [AudioBuffer], gains: [Float], blockFrames: Int, kernelName: String, kernel: @escaping MixBlock) {
        self.blockFrames = blockFrames
        self.kernelName = kernelName
        self.kernel = kernel
        count = gains.count
        let loop = BenchSetup.loopFrames(forBlock: blockFrames)
        loopFrames = loop
        precondition(buffers.allSatisfy { $0.frameCount == loop })
        bases = (0..<count).map { buffers[$0 % buffers.count].samples.baseAddress! }
        pointers = .allocate(capacity: count)
        pointers.initialize(repeating: nil, count: count)
        self.gains = .allocate(capacity: count)
        self.gains.initialize(from: gains, count: count)
        output = allocateAudio(Float.self, capacity: blockFrames * BenchSetup.channelCount)
        output.initialize(repeating: 0, count: blockFrames * BenchSetup.channelCount)
        for _ in 0..<loopFrames / blockFrames { render() }
    }

    deinit {
        pointers.deallocate()
        gains.deallocate()
        deallocateAudio(output)
    }

    /// The measured call: one block of the reference mix.
    @inline(__always)
    public func render() {
        let ch = BenchSetup.channelCount
        for k in 0..<count { pointers[k] = bases[k] + position &* ch }
        kernel(output, pointers, gains, count, blockFrames * ch)
        position &+= blockFrames
        if position >= loopFrames { position = 0 }
    }

    /// TuttiDSP's plain Swift loop (`Kernels.mixAddReference`, vectorized by the compiler for
    /// the baseline target), one pass per source.
    public static let swiftLoop: MixBlock = { out, sources, gains, count, samples in
        out.update(repeating: 0, count: samples)
        for k in 0..<count { Kernels.mixAddReference(out, sources[k]!, count: samples, gain: gains[k]) }
    }

    /// The bare C kernel of `variant` (CTuttiKernels' mix_add), one call per source: the
    /// engine's own kernel with no engine around it.
    public static func cKernel(_ variant: KernelVariant) -> MixBlock {
        { out, sources, gains, count, samples in
            out.update(repeating: 0, count: samples)
            for k in 0..<count { variant.mixAdd(out, sources[k]!, count: samples, gain: gains[k]) }
        }
    }
}
