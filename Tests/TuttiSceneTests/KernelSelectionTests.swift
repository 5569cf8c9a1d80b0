import Foundation
import Testing
import TuttiDSP

/// TUTTI_KERNELS picks the kernel variant when a process starts, never one above the CPU's:
/// checked on `tutti bench`, which reports the variant it ran with.
@Suite struct KernelSelectionTests {
    let tutti = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tutti").path

    /// `tutti bench` (one source, a moment) with TUTTI_KERNELS=`forced`: the variant it
    /// reports, and its stderr.
    func variant(forced: String) throws -> (name: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tutti)
        p.arguments = ["bench", "--sources", "1", "--seconds", "0.02", "--json"]
        var env = ProcessInfo.processInfo.environment
        env["TUTTI_KERNELS"] = forced
        p.environment = env
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(errors)")
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
