import Foundation
import Testing
import TuttiBenchSupport
import TuttiDSP

/// `tutti bench`'s C-loop reference (issue 24): the plain C loop compiled at bench time is the
/// Benchmarks/ package's loop, builds with the system compiler, and computes the mix the
/// engine computes.
@Suite struct CLoopReferenceTests {
    /// The repository's root (this file is Tests/TuttiTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("a variant below the CPU's best meets a C loop of its machine kind, and the capped loop still builds and runs")
    func cappedLoopForAForcedVariant() throws {
        #expect(CLoopReference.capFlags(variant: "avx512", best: "avx512") == [])
        #expect(CLoopReference.capFlags(variant: "avx2", best: "avx2") == [])
        #expect(CLoopReference.capFlags(variant: "avx2", best: "avx512") == ["-mno-avx512f"])
        #expect(CLoopReference.capFlags(variant: "sse2", best: "avx512") == ["-mno-avx", "-mno-avx512f"])
        #expect(CLoopReference.capFlags(variant: "scalar", best: "avx2").contains("-fno-tree-vectorize"))
        let compiled = try #require(try? CLoopReference.compile(extraFlags: ["-mno-avx512f"]), "no C compiler on this machine")
        #expect(compiled.commandLine.contains("-march=native") && compiled.commandLine.contains("-mno-avx512f"))
        var out = [Float](repeating: 9, count: 8)
        let a = [Float](repeating: 1, count: 8)
        let b = [Float](repeating: 2, count: 8)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                let sources: [UnsafePointer<Float>?] = [pa.baseAddress!, pb.baseAddress!]
                let gains: [Float] = [0.5, 0.25]
                out.withUnsafeMutableBufferPointer { compiled.kernel($0.baseAddress!, sources, gains, 2, 8) }
            }
        }
        #expect(out == [Float](repeating: 1, count: 8), "0.5·1 + 0.25·2 in every sample: \(out)")
    }

    @Test("the embedded C source is the Benchmarks/ package's reference loop, byte for byte")
    func sourceIsTheBenchmarksLoop() throws {
        let file = Self.root.appendingPathComponent("Benchmarks/Sources/CReferenceKernel/reference_kernel.c")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(CLoopReference.source == text)
    }

    @Test("the C loop compiles and its block is the engine's mix (the engine's kernel; the engine's output over duck and master)")
    func compiledLoopMatchesTheEngine() throws {
        let compiled = try #require(try? CLoopReference.compile(), "no C compiler on this machine")
        let fixture = try EngineFixture(bufferSources: 12, blockFrames: 256)
        // Both references stand where the engine stands (phase 0): the same slice of every loop.
        let loop = ReferenceFixture(sharing: fixture, kernelName: CLoopReference.name, phase: 0, kernel: compiled.kernel)
        let kernel = ReferenceFixture(
            sharing: fixture, kernelName: "C kernel", phase: 0, kernel: ReferenceFixture.cKernel(KernelVariant.active))
        let samples = fixture.blockFrames * BenchSetup.channelCount
        for _ in 0..<3 {
            fixture.render()
            loop.render()
            kernel.render()
            var loopEnergy: Float = 0
            var maxKernelDiff: Float = 0
            for i in 0..<samples {
                loopEnergy += loop.output[i] * loop.output[i]
                maxKernelDiff = max(maxKernelDiff, abs(loop.output[i] - kernel.output[i]))
            }
            #expect(loopEnergy > 1, "the C loop mixed silence")
            #expect(maxKernelDiff < 1e-5, "C loop vs the engine's kernel: \(maxKernelDiff)")
            // The engine's output is the same mix through the bus duck (−6 dB) and the master
            // volume (0.8): a null test against the C loop at that gain.
            let scale = 0.8 * Float(pow(10.0, -6.0 / 20))
            var residual: Float = 0
            for i in 0..<samples { residual = max(residual, abs(fixture.output[i] - scale * loop.output[i])) }
            #expect(residual < 1e-4, "engine vs C loop × \(scale): \(residual)")
        }
    }

    @Test("no C compiler: a clear reason, not a crash")
    func missingCompilerIsReported() {
        #expect(throws: CLoopReference.Unavailable.self) {
            try CLoopReference.compile(environment: ["CC": "tutti-no-such-compiler", "PATH": "/nonexistent"])
        }
        do {
            _ = try CLoopReference.compile(environment: ["CC": "/nonexistent/cc"])
            Issue.record("compiled with a missing compiler")
        } catch {
            #expect("\(error)".contains("no C compiler found"), "\(error)")
            #expect("\(error)".contains("/nonexistent/cc"), "\(error)")
        }
    }
}
