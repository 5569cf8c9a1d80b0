import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// `loopStart`, `loopEnd` (seconds) and `loopCount` on file sources: the region loops
/// sample-exactly in the render, a file with a region is loaded whole even when it is long
/// enough to stream, and bad values name their JSON path.
@Suite struct LoopRegionSceneTests {
    /// A mono 48 kHz file of 4800 frames (0.1 s) whose frame k holds (k + 1) / 8192.
    static let samples: [Float] = (0..<4_800).map { Float($0 + 1) / 8_192 }

    static func scene(_ keys: String, file: String = "ramp.wav") -> String {
        """
        {"engine": {"sampleRate": 48000, "channels": 1}, "duration": 0.2,
         "sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "r", "session": "m", "file": "\(file)"\(keys)}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "r", "action": "play"}]}
        """
    }

    func render(_ json: String, in dir: String, streamingThresholdSeconds: Double = 10) throws -> [Float] {
        let scene = try Scene.decode(json: json, baseDirectory: dir)
        let renderer = try OfflineRenderer(scene: scene, streamingThresholdSeconds: streamingThresholdSeconds)
        var out: [Float] = []
        try renderer.render { out += $0 }
        return out
    }

    /// 0.02 … 0.05 s (frames 960 ..< 2400) twice more, then on to the end and silence; the
    /// same when the file streams (threshold 0.05 s), sample for sample.
    @Test(arguments: [10.0, 0.05]) func aRegionLoopsSampleExactly(streamingThreshold: Double) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/ramp.wav", Self.samples, rate: 48_000, channels: 1)
        let out = try render(
            Self.scene(#", "loop": true, "loopStart": 0.02, "loopEnd": 0.05, "loopCount": 2"#), in: dir,
            streamingThresholdSeconds: streamingThreshold)
        let frames = Array(0..<2_400) + Array(960..<2_400) + Array(960..<2_400) + Array(2_400..<4_800)
        var expected = frames.map { Self.samples[$0] }
        expected += [Float](repeating: 0, count: 9_600 - expected.count)
        #expect(out == expected)
    }

    /// An endless region to the file's end (no `loopEnd`): 0 ..< 4800, then 2400 ..< 4800 on and on.
    @Test func anEndlessRegionToTheEnd() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/ramp.wav", Self.samples, rate: 48_000, channels: 1)
        let out = try render(Self.scene(#", "loop": true, "loopStart": 0.05"#), in: dir)
        let frames = (0..<9_600).map { $0 < 4_800 ? $0 : 2_400 + ($0 - 4_800) % 2_400 }
        #expect(out == frames.map { Self.samples[$0] })
    }

    static let decodeErrors: [(keys: String, message: String)] = [
        (#", "loop": true, "loopStart": -0.5"#, "sources[0].loopStart: expected a finite number of seconds ≥ 0"),
        // JSON has no infinity: a number too large for a Double is the parser's error.
        (#", "loop": true, "loopStart": 1e999"#, "number out of range"),
        (#", "loop": true, "loopStart": 0.05, "loopEnd": 0.05"#, "sources[0].loopEnd: 0.05 s must be after loopStart"),
        (#", "loop": true, "loopStart": 0.05, "loopEnd": 0.01"#, "sources[0].loopEnd: 0.01 s must be after loopStart"),
        (#", "loop": true, "loopCount": 0"#, "sources[0].loopCount: 0 is out of range"),
        (#", "loop": true, "loopCount": 1.5"#, "sources[0].loopCount: expected a whole number"),
        (#", "loopStart": 0.01"#, #"sources[0].loopStart: needs "loop": true"#),
        (#", "loop": false, "loopCount": 2"#, #"sources[0].loopCount: needs "loop": true"#),
        (#", "loop": true, "loopEnd": "x""#, "sources[0].loopEnd: expected a number"),
    ]

    @Test(arguments: decodeErrors) func badKeysNameTheirPath(keys: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: SceneError.self) { try Scene.decode(json: Self.scene(keys), baseDirectory: dir) }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "no error")")
    }

    /// A scene built in code (no decoder) with a non-finite or reversed region: the renderer
    /// names the key.
    @Test func aSceneBuiltInCodeIsCheckedToo() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/ramp.wav", Self.samples, rate: 48_000, channels: 1)
        var scene = try Scene.decode(json: Self.scene(#", "loop": true"#), baseDirectory: dir)
        scene.sources[0].loopStart = .nan
        var error = #expect(throws: SceneError.self) { try OfflineRenderer(scene: scene) }
        #expect(error?.description.hasPrefix("sources[0].loopStart: expected a finite number of seconds ≥ 0") == true)
        scene.sources[0].loopStart = 0.05
        scene.sources[0].loopEnd = 0.01
        error = #expect(throws: SceneError.self) { try OfflineRenderer(scene: scene) }
        #expect(error?.description.hasPrefix("sources[0].loopEnd: the region is empty") == true, "\(error?.description ?? "")")
        scene.sources[0].loopEnd = 0.06
        scene.sources[0].loopCount = 0
        error = #expect(throws: SceneError.self) { try OfflineRenderer(scene: scene) }
        #expect(error?.description.hasPrefix("sources[0].loopCount: must be ≥ 1") == true, "\(error?.description ?? "")")
    }

    @Test func aToneHasNoRegion() throws {
        let json = """
            {"duration": 1, "sessions": [{"id": "m", "category": "playback"}],
             "sources": [{"id": "t", "session": "m", "tone": {"frequency": 440}, "loop": true, "loopEnd": 0.5}]}
            """
        let error = #expect(throws: SceneError.self) { try Scene.decode(json: json, baseDirectory: "/") }
        #expect(error?.description == "sources[0].loopEnd: only a file source has a loop region")
    }

    /// Past the file's end: found when the file is loaded, named by path; nothing is written.
    @Test(arguments: [
        (#", "loop": true, "loopEnd": 0.2"#, "sources[0].loopEnd: 0.2 s is past the end of the file (0.1 s)"),
        (#", "loop": true, "loopStart": 0.1"#, "sources[0].loopStart: 0.1 s is at or past the end of the file (0.1 s)"),
        (#", "loop": true, "loopStart": 0.01, "loopEnd": 0.01001"#, "sources[0].loopEnd: the region is empty at 48000 Hz"),
    ])
    func regionsOutsideTheFileNameTheirPath(keys: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/ramp.wav", Self.samples, rate: 48_000, channels: 1)
        try Self.scene(keys).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let error = #expect(throws: SceneError.self) {
            try OfflineRenderer.renderFile(scenePath: dir + "/scene.json", outputPath: dir + "/out.wav", eventsPath: nil, format: nil)
        }
        #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "no error")")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }

    /// A WAV's `smpl` loop (frames 960 … 2399, end inclusive) is the region of a looping
    /// source without `loopStart` / `loopEnd`, with `loopCount` applied; the keys win over it.
    @Test func aWAVsSampleLoopIsTheRegion() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAVWithSampleLoop(dir + "/smpl.wav", Self.samples, rate: 48_000, loopStart: 960, loopEnd: 2_399)
        let counted = try render(Self.scene(#", "loop": true, "loopCount": 2"#, file: "smpl.wav"), in: dir)
        var frames = Array(0..<2_400) + Array(960..<2_400) + Array(960..<2_400) + Array(2_400..<4_800)
        var expected = frames.map { Self.samples[$0] }
        #expect(counted == expected + [Float](repeating: 0, count: 9_600 - expected.count))
        let keys = try render(Self.scene(#", "loop": true, "loopStart": 0.05"#, file: "smpl.wav"), in: dir)
        frames = (0..<9_600).map { $0 < 4_800 ? $0 : 2_400 + ($0 - 4_800) % 2_400 }
        expected = frames.map { Self.samples[$0] }
        #expect(keys == expected)
    }
}
