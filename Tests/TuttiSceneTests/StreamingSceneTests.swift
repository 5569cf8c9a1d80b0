import Foundation
import Testing
import Tutti
import TuttiDSP
import TuttiScene
import TuttiTestSupport

/// Long files stream while a scene renders (and the output is what loading them gives);
/// `fadeIn` / `fadeOut` in scenes.
@Suite struct StreamingSceneTests {
    func renderSamples(_ scene: Scene, streamingThresholdSeconds: Double = 10) throws -> [Float] {
        let renderer = try OfflineRenderer(scene: scene, streamingThresholdSeconds: streamingThresholdSeconds)
        var out: [Float] = []
        try renderer.render { out += $0 }
        return out
    }

    /// Two files above the 10 s threshold (a 44.1 kHz stereo loop and a 22.05 kHz mono file),
    /// paused and resumed: the streamed render equals the fully loaded one bit for bit, and
    /// two streamed renders equal each other.
    @Test func streamedSceneEqualsLoadedScene() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/a.wav", musicLikeSamples(seconds: 10.5, rate: 44_100, channels: 2, seed: 3), rate: 44_100, channels: 2)
        writeWAV(dir + "/b.wav", musicLikeSamples(seconds: 11, rate: 22_050, channels: 1, seed: 5), rate: 22_050, channels: 1)
        let json = """
            {"engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 512}, "duration": 24,
             "sessions": [{"id": "m", "category": "playback", "options": ["mixWithOthers"]},
                          {"id": "n", "category": "playback", "options": ["mixWithOthers"]}],
             "sources": [{"id": "a", "session": "m", "file": "a.wav", "loop": true, "gain": 0.5},
                         {"id": "b", "session": "n", "file": "b.wav", "gain": 0.7, "fadeIn": 0.2, "fadeOut": 0.3}],
             "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"},
                        {"at": 1, "session": "n", "action": "activate"}, {"at": 1, "source": "b", "action": "play"},
                        {"at": 4, "source": "b", "action": "pause"}, {"at": 5.5, "source": "b", "action": "play"},
                        {"at": 7, "source": "a", "action": "stop"}, {"at": 7.25, "source": "a", "action": "play"}]}
            """
        let scene = try Scene.decode(json: json, baseDirectory: dir)
        let streamed = try renderSamples(scene)
        let again = try renderSamples(scene)
        let loaded = try renderSamples(scene, streamingThresholdSeconds: .infinity)
        #expect(streamed.count == 24 * 48_000 * 2)
        #expect(streamed.count == loaded.count)
        let firstDifference = zip(streamed, loaded).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }?.offset
        #expect(firstDifference == nil, "first differing sample: \(firstDifference ?? -1)")
        #expect(streamed == again)
        // Both files did stream.
        try json.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let report = try OfflineRenderer.renderFile(
            scenePath: dir + "/scene.json", outputPath: dir + "/out.wav", eventsPath: nil, format: nil)
        #expect(report.files.streamedFileCount == 2)
        // Something was played: the loop still sounds at the end.
        #expect(Analysis.rms(Analysis.channel(Array(streamed.suffix(48_000 * 2)), 0, of: 2)) > 0.05)
    }

    /// The demo's phone call (9 s) fades in: no click at its start, where the same scene
    /// without the fade shows one (the detector's reference is the steady call at 9.5–10.5 s).
    @Test func demoCallStartsWithoutClick() throws {
        let demo = try OfflineRenderer.loadScene(path: Tool.fixtures + "/scenes/demo.json")
        guard let call = demo.events.firstIndex(where: { if case .phoneCallBegin = $0.action { true } else { false } }) else {
            Issue.record("the demo has a phone call")
            return
        }
        #expect(demo.events[call].fades.fadeIn ?? 0 >= 0.02)
        var abrupt = demo
        abrupt.events[call].fades = Scene.Fades()

        func clicksAtCall(_ scene: Scene) throws -> [Int] {
            let renderer = try OfflineRenderer(scene: scene)
            var out: [Float] = []
            try renderer.render(through: Int64(10.6 * 48_000)) { out += $0 }
            let left = Analysis.channel(out, 0, of: 2)
            let start = 9 * 48_000
            let x = Array(left[(start - 480)..<(start + 75 * 48)]) + Array(left[(start + 24_000)..<(start + 72_000)])
            let onset = 480 + 75 * 48
            return Analysis.clicks(x, reference: (onset + 2)..<x.count).filter { $0 < onset }
        }
        #expect(try clicksAtCall(demo).isEmpty)
        #expect(try !clicksAtCall(abrupt).isEmpty)
    }

    /// A 0.5 s fade-in: 0.1 s after play the level is about a fifth of the full one.
    @Test func fadeInShapesTheStart() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/s.wav", sine(1_000, rate: 48_000, seconds: 2, amplitude: 0.5), rate: 48_000, channels: 1)
        let json = """
            {"duration": 1.5, "sessions": [{"id": "m", "category": "playback"}],
             "sources": [{"id": "s", "session": "m", "file": "s.wav", "fadeIn": 0.5}],
             "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "s", "action": "play"}]}
            """
        let out = try renderSamples(try Scene.decode(json: json, baseDirectory: dir))
        let left = Analysis.channel(out, 0, of: 2)
        let early = Analysis.toneAmplitude(left[4_560..<5_040], frequency: 1_000, sampleRate: 48_000)
        let full = Analysis.toneAmplitude(left[48_000..<48_480], frequency: 1_000, sampleRate: 48_000)
        #expect(abs(early / full - 0.2) < 0.02)
        #expect(abs(full - 0.5) < 0.01)
    }

    /// Bad fades are refused with the JSON path.
    @Test(arguments: [
        (#""fadeIn": -0.1"#, "sources[0].fadeIn", "negative"),
        // Not finite: the JSON reader already refuses it, at its line and column.
        (#""fadeOut": 1e999"#, "scene", "number out of range"),
        (#""fadeIn": "slow""#, "sources[0].fadeIn", "expected a number"),
        (#""fadeOut": 61"#, "sources[0].fadeOut", "out of range"),
    ])
    func badFades(field: String, path: String, words: String) throws {
        let json = """
            {"duration": 1, "sessions": [{"id": "m", "category": "playback"}],
             "sources": [{"id": "s", "session": "m", "tone": {"frequency": 440, "amplitude": 0.5}, \(field)}]}
            """
        do {
            _ = try Scene.decode(json: json, baseDirectory: "")
            Issue.record("accepted \(field)")
        } catch let e as SceneError {
            #expect(e.place == path)
            #expect(e.message.contains(words), "\(e.message)")
        }
    }
}
