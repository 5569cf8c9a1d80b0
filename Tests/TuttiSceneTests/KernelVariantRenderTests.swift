import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

/// The same bytes whatever kernel variant the CPU picks: every fixture scene rendered with
/// each variant this CPU supports (`TUTTI_KERNELS=…`, read when the process starts, so each
/// variant is its own `tutti render --batch`), float32, and two of them also as s16 (the
/// quantizers and the dither), compared by the batch reports' SHA-256 and, on a mismatch,
/// byte by byte. (With the fused multiply-add the AVX2 variant had before, game.json's
/// float32 output differed from the scalar one.)
@Suite struct KernelVariantRenderTests {
    @Test func everyVariantRendersTheFixtureScenesToTheSameBytes() throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let variants = KernelVariant.supported.map(\.name)
        #expect(variants.count >= 2, "at least scalar and one vector variant on x86-64: \(variants)")
        let scenesFolder = Tool.fixtures + "/scenes"
        let scenes = try FileManager.default.contentsOfDirectory(atPath: scenesFolder).filter { $0.hasSuffix(".json") }.sorted()
        #expect(scenes.count >= 7)

        let dir = makeTemporaryFolder("tutti-variants")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var hashes: [String: [String: String]] = [:] // variant → output name → sha256
        let quantized: Set<String> = ["game.json", "voip.json"]
        for variant in variants {
            try FileManager.default.createDirectory(atPath: dir + "/\(variant)", withIntermediateDirectories: true)
            var lines: [String] = []
            for scene in scenes {
                let name = String(scene.dropLast(".json".count))
                let path = scenesFolder + "/" + scene
                lines.append(#"{"scene": "\#(path)", "output": "\#(name)-f32.wav", "format": "f32"}"#)
                if quantized.contains(scene) {
                    lines.append(#"{"scene": "\#(path)", "output": "\#(name)-s16.wav", "format": "s16"}"#)
                }
            }
            let manifest = dir + "/\(variant)/batch.jsonl"
            try lines.joined(separator: "\n").write(toFile: manifest, atomically: true, encoding: .utf8)
            let run = try Tool.run(
                [tutti, "render", "--batch", manifest, "--jobs", "2", "--quiet"], environment: ["TUTTI_KERNELS": variant])
            try #require(run.status == 0, "TUTTI_KERNELS=\(variant): \(run.stderr)")
            let report =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/\(variant)/batch.report.json")))
                as? [String: Any]
            let entries = try #require(report?["entries"] as? [[String: Any]])
            #expect(entries.count == scenes.count + quantized.count)
            for entry in entries {
                let output = try #require(entry["output"] as? String)
                hashes[variant, default: [:]][(output as NSString).lastPathComponent] = entry["sha256"] as? String
            }
        }
        let reference = try #require(hashes["scalar"])
        for variant in variants where variant != "scalar" {
            for (name, hash) in reference.sorted(by: { $0.key < $1.key }) {
                guard hashes[variant]?[name] != hash else { continue }
                let a = try Tool.wavData(dir + "/scalar/\(name)")
                let b = try Tool.wavData(dir + "/\(variant)/\(name)")
                let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                Issue.record("\(name): \(variant) differs from scalar (\(a.count) vs \(b.count) data bytes, first at byte \(first ?? -1))")
            }
        }
    }
}
