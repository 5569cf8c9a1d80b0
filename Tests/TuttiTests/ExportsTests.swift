import Foundation
import Testing
import TuttiTestSupport

/// `import Tutti` is the host API: the value types it takes come with it, the layers below do
/// not (Sources/Tutti/Exports.swift). Checked by type-checking a host file against the modules
/// this test was built with.
@Suite struct ExportsTests {
    /// The folder of the built modules and the module maps of the C targets they import.
    static func compilerArguments() -> [String]? {
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let modules = build.appendingPathComponent("Modules").path
        guard FileManager.default.fileExists(atPath: modules + "/Tutti.swiftmodule") else { return nil }
        var maps: [String] = []
        let sources = Tool.repositoryRoot + "/Sources"
        for target in (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? [] where target.hasPrefix("C") {
            for candidate in [
                "\(sources)/\(target)/module.modulemap", "\(sources)/\(target)/include/module.modulemap",
                build.appendingPathComponent("\(target).build/module.modulemap").path,
            ] where FileManager.default.fileExists(atPath: candidate) {
                maps += ["-Xcc", "-fmodule-map-file=\(candidate)"]
            }
        }
        return ["-typecheck", "-I", modules] + maps
    }

    static var swiftc: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func aHostFileWithOnlyImportTuttiNamesTheHostAPIButNotTheLayersBelow() throws {
        let arguments = try #require(Self.compilerArguments(), "the built modules next to the test bundle")
        let swiftc = try #require(Self.swiftc, "swiftc on PATH")
        let folder = makeTemporaryFolder("tutti-exports")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Lines 2-14 name what a host uses; lines 15-18 name the layers, each must fail.
        let host = """
            import Tutti
            let engine: AudioEngine? = nil
            let time: EngineTime = .now
            let error: TuttiError? = nil
            let category: Category = .playback
            let route: Route = .speaker
            let quality: ResamplerQuality = .sincMedium
            let effect: EffectSettings = .delay(timeSeconds: 0.1, feedback: 0.2, mix: 0.3)
            let reconnect = ReconnectPolicy()
            let rule: DuckingRule? = nil
            let state: PlaybackState = .playing
            let limiter: LimiterSettings? = nil
            let buffer: AudioBuffer? = nil
            let source: SourceHandle? = nil
            let renderer: Renderer? = nil
            let policy: PolicyState? = nil
            let core: Engine? = nil
            let kernels: KernelVariant? = nil

            """
        try host.write(toFile: folder + "/host.swift", atomically: true, encoding: .utf8)
        let result = try Tool.run([swiftc] + arguments + [folder + "/host.swift"])
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        let lines = Set(errors.compactMap { $0.split(separator: ":").dropFirst().first.flatMap { Int($0) } })
        #expect(lines == [15, 16, 17, 18], "errors: \(errors.joined(separator: "\n"))")
        for name in ["Renderer", "PolicyState", "Engine", "KernelVariant"] {
            #expect(errors.contains { $0.contains("cannot find type '\(name)' in scope") }, "\(name) is not in scope")
        }
    }
}
