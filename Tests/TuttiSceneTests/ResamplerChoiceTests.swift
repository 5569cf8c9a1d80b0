import Foundation
import Testing
import TuttiDSP
import TuttiScene
import TuttiTestSupport

/// Choosing the converter for files at another rate: the scene's `engine.resampler` (soxr
/// qualities included), the default, and `tutti render --resampler Q`.
@Suite struct ResamplerChoiceTests {
    let tutti = Tool.tuttiPath

    func run(_ args: [String]) throws -> (status: Int32, output: String) { try Tool.runMerged([tutti] + args) }

    /// A scene playing a 1 kHz tone recorded at 44.1 kHz, `engineExtra` added to its engine object.
    func writeToneScene(_ dir: String, engineExtra: String) throws -> String {
        writeWAV(dir + "/tone.wav", sine(1_000, rate: 44_100, seconds: 1.2), rate: 44_100, channels: 1)
        let path = dir + "/scene.json"
        try """
        {"duration": 1, "engine": {"channels": 1\(engineExtra)},
         "sessions": [{"id": "s", "category": "playback"}],
         "sources": [{"id": "t", "session": "s", "file": "tone.wav"}],
         "events": [{"at": 0, "session": "s", "action": "activate"}, {"at": 0, "source": "t", "action": "play"}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func snr(_ wav: String) -> Double {
        let y = readWAV(wav).samples.map(Double.init)
        let fit = Analysis.fitSine(y[8_000..<40_000], frequency: 1_000, sampleRate: 48_000)
        return Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS)
    }

    @Test func sceneDecoderAcceptsTheSoxrQualitiesAndDefaultsToTheFileDefault() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for q in ["soxrHQ", "soxrVHQ"] {
            let scene = try OfflineRenderer.loadScene(path: try writeToneScene(dir, engineExtra: #", "resampler": "\#(q)""#))
            #expect(scene.engine.resampler.rawValue == q)
        }
        let plain = try OfflineRenderer.loadScene(path: try writeToneScene(dir, engineExtra: ""))
        #expect(plain.engine.resampler == ResamplerQuality.fileDefault)
        // By default, a 44.1 kHz file renders at 48 kHz with ≥ 120 dB SNR.
        let out = dir + "/default.wav"
        _ = try OfflineRenderer.renderFile(
            scenePath: try writeToneScene(dir, engineExtra: ""), outputPath: out, eventsPath: nil, format: nil)
        #expect(snr(out) >= 120, "SNR \(snr(out)) dB")
    }

    @Test func renderResamplerFlagOverridesTheScene() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = try writeToneScene(dir, engineExtra: #", "resampler": "sincBest""#)
        let best = try run(["render", scene, "-o", dir + "/best.wav", "--quiet"])
        #expect(best.status == 0, "\(best.output)")
        let poor = try run(["render", scene, "-o", dir + "/zoh.wav", "--quiet", "--resampler", "zeroOrderHold"])
        #expect(poor.status == 0, "\(poor.output)")
        let vhq = try run(["render", scene, "-o", dir + "/vhq.wav", "--quiet", "--resampler", "soxrVHQ"])
        #expect(vhq.status == 0, "\(vhq.output)")
        #expect(snr(dir + "/best.wav") >= 120)
        #expect(snr(dir + "/zoh.wav") < 60)
        #expect(snr(dir + "/vhq.wav") >= 120)
    }

    @Test func unknownResamplerIsAUsageErrorListingTheNames() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = try writeToneScene(dir, engineExtra: "")
        let r = try run(["render", scene, "-o", dir + "/out.wav", "--resampler", "soxrUltra"])
        #expect(r.status == 64)
        #expect(r.output.contains("soxrUltra"), "\(r.output)")
        for name in ResamplerQuality.allCases.map(\.rawValue) { #expect(r.output.contains(name), "\(name) not listed: \(r.output)") }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}
