import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

/// TUTTI_KERNELS picks the kernel variant when a process starts, never one above the CPU's:
/// checked on `tutti bench`, which reports the variant it ran with.
@Suite struct KernelSelectionTests {
    let tutti = Tool.tuttiPath

    /// `tutti bench` (one source, a moment) with TUTTI_KERNELS=`forced`: the variant it
    /// reports, and its stderr.
    func variant(forced: String) throws -> (name: String, stderr: String) {
        let r = try Tool.run([tutti, "bench", "--sources", "1", "--seconds", "0.02", "--json"], environment: ["TUTTI_KERNELS": forced])
        let data = Data(r.stdout.utf8)
        let errors = r.stderr
        #expect(r.status == 0, "\(errors)")
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (json?["kernels"] as? String ?? "", errors)
    }

    @Test func environmentForcesAVariantNeverAboveTheCPU() throws {
        let best = KernelVariant.best.name
        #expect(try variant(forced: "scalar").name == "scalar")
        #expect(try variant(forced: "sse2").name == "sse2")
        // Asking for more than the CPU has gives the best it has.
        #expect(try variant(forced: "avx512").name == (KernelVariant(named: "avx512") != nil ? "avx512" : best))
        let unknown = try variant(forced: "neon")
        #expect(unknown.name == best)
        #expect(unknown.stderr.contains("TUTTI_KERNELS=neon"), "\(unknown.stderr)")
    }
}
