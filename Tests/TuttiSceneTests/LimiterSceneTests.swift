import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// `engine.limiter` in a scene, and what `tutti render` reports about the output's level:
/// the peak in dBFS and the samples that clipped, suggesting the limiter when any did.
@Suite struct LimiterSceneTests {
    /// Two full-scale 440 Hz tones in phase: the mix peaks at +6 dBFS.
    static func scene(engine: String = "") -> String {
        """
        {"duration": 1, \(engine)"sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "a", "session": "m", "tone": {"frequency": 440, "amplitude": 1}},
                     {"id": "b", "session": "m", "tone": {"frequency": 440, "amplitude": 1}}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"},
                    {"at": 0, "source": "b", "action": "play"}]}
        """
    }

    func render(_ json: String, in dir: String) throws -> (RenderReport, [Float]) {
        let scenePath = dir + "/scene.json"
        try json.write(toFile: scenePath, atomically: true, encoding: .utf8)
        let report = try OfflineRenderer.renderFile(scenePath: scenePath, outputPath: dir + "/out.wav", eventsPath: nil, format: nil)
        return (report, readWAV(dir + "/out.wav").samples)
    }

    @Test func withoutALimiterTheReportCountsClippedSamplesAndSuggestsIt() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (report, samples) = try render(Self.scene(), in: dir)
        let levels = try #require(report.levels)
        #expect(levels.clippedSampleCount == samples.filter { abs($0) > 1 }.count)
        #expect(levels.clippedSampleCount > 10_000)
        #expect(abs(levels.peakDBFS - 20 * log10(Double(samples.map(abs).max()!))) < 1e-9)
        #expect(abs(levels.peakDBFS - 6.02) < 0.05)
        #expect(
            report.summary.hasSuffix(
                "· peak +6.02 dBFS, \(levels.clippedSampleCount) samples clipped (add engine.limiter to keep the output within full scale)")
        )
    }

    @Test func theLimiterKeepsTheOutputUnderItsCeiling() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = Self.scene(engine: #""engine": {"limiter": {"ceiling": -1, "release": 0.05}}, "#)
        let scene = try Scene.decode(json: json, baseDirectory: dir)
        #expect(scene.engine.limiter == LimiterSettings(ceilingDB: -1, releaseSeconds: 0.05, lookaheadSeconds: 0))
        let (report, samples) = try render(json, in: dir)
        let levels = try #require(report.levels)
        #expect(levels.clippedSampleCount == 0)
        #expect(samples.allSatisfy { abs($0) <= LimiterSettings(ceilingDB: -1).ceiling })
        #expect(levels.peakDBFS <= -1 + 1e-5)
        #expect(levels.peakDBFS > -1.1)
        #expect(report.summary.hasSuffix("· peak −1.00 dBFS"))
    }

    /// `tutti render` prints the level on its summary line (stderr).
    @Test func tuttiRenderReportsThePeakAndTheClippedSamples() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.scene().write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let loud = try Tool.runMerged([Tool.tuttiPath, "render", dir + "/scene.json", "-o", dir + "/loud.wav"])
        #expect(loud.status == 0, "\(loud.output)")
        #expect(loud.output.contains("· peak +6.02 dBFS, "), "\(loud.output)")
        #expect(loud.output.contains(" samples clipped (add engine.limiter to keep the output within full scale)"), "\(loud.output)")
        try Self.scene(engine: #""engine": {"limiter": {"ceiling": -1}}, "#).write(
            toFile: dir + "/limited.json", atomically: true, encoding: .utf8)
        let limited = try Tool.runMerged([Tool.tuttiPath, "render", dir + "/limited.json", "-o", dir + "/limited.wav"])
        #expect(limited.status == 0, "\(limited.output)")
        #expect(limited.output.contains("· peak −1.00 dBFS\n"), "\(limited.output)")
        #expect(!limited.output.contains("clipped"))
    }

    @Test func aSceneWithoutALimiterHasNone() throws {
        let scene = try Scene.decode(json: Self.scene(), baseDirectory: "")
        #expect(scene.engine.limiter == nil)
        #expect(OfflineRenderer.engineConfiguration(for: scene).limiter == nil)
    }

    static let bad: [(String, String)] = [
        (#""engine": {"limiter": {"ceiling": 3}}, "#, "engine.limiter.ceiling: 3 dB is out of range -60…0 dB"),
        (#""engine": {"limiter": {"release": -0.1}}, "#, "engine.limiter.release: -0.1 s is out of range 0…10 s"),
        (#""engine": {"limiter": {"lookahead": 0.5}}, "#, "engine.limiter.lookahead: 0.5 s is out of range 0…0.1 s"),
        (#""engine": {"limiter": {"threshold": -1}}, "#, "engine.limiter.threshold: unknown field"),
        (#""engine": {"limiter": true}, "#, "engine.limiter"),
    ]

    @Test(arguments: bad)
    func badLimiterSettingsNameTheirPlace(engine: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            _ = try render(Self.scene(engine: engine), in: dir)
            Issue.record("rendered a bad scene")
        } catch let e as SceneError {
            #expect(e.description.hasPrefix(message), "\(e.description)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}
