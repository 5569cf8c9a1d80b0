import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// `tutti render --batch`: a manifest checked whole before anything is rendered, rendered
/// whole or as shards with the same bytes, a failing entry named without stopping the others,
/// and a report whose hashes are the files' (checked with `sha256sum`).
@Suite struct BatchTests {
    /// A 0.4 s scene: one tone at `frequency`, so each entry's output differs.
    static func scene(frequency: Int) -> String {
        """
        {"duration": 0.4, "sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "t", "session": "m", "tone": {"frequency": \(frequency), "amplitude": 0.3}}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "t", "action": "play"}]}
        """
    }

    /// A folder with `count` scenes (`scenes/s0.json` …) and a manifest rendering them to
    /// `out/s0.wav` …; `extra` lines are appended.
    static func batchFolder(count: Int, extra: [String] = []) throws -> String {
        let dir = makeTemporaryFolder("tutti-batch")
        try FileManager.default.createDirectory(atPath: dir + "/scenes", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        var lines: [String] = []
        for k in 0..<count {
            try scene(frequency: 220 + 110 * k).write(toFile: dir + "/scenes/s\(k).json", atomically: true, encoding: .utf8)
            lines.append(#"{"scene": "scenes/s\#(k).json", "output": "out/s\#(k).wav", "format": "s16"}"#)
        }
        try (lines + extra).joined(separator: "\n").write(toFile: dir + "/batch.jsonl", atomically: true, encoding: .utf8)
        return dir
    }

    static func report(_ path: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func entries(_ report: [String: Any]) throws -> [[String: Any]] {
        try #require(report["entries"] as? [[String: Any]])
    }

    // MARK: The manifest

    @Test func aManifestIsReadWholeWithPathsRelativeToItsFolder() throws {
        let dir = try Self.batchFolder(count: 3)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let manifest = try BatchManifest(path: dir + "/batch.jsonl")
        #expect(manifest.entries.map(\.line) == [1, 2, 3])
        #expect(manifest.entries[1].scene == dir + "/scenes/s1.json")
        #expect(manifest.entries[1].output == dir + "/out/s1.wav")
        #expect(manifest.entries[1].format == .s16)
        let shard = try BatchManifest.Shard("1/2")
        #expect(manifest.entries(in: shard).map(\.index) == [1])
        #expect(manifest.entries(in: try BatchManifest.Shard("0/2")).map(\.index) == [0, 2])
    }

    @Test(arguments: [
        ("not json", "batch.jsonl:4", "not a JSON object"),
        (#"{"scene": "a.json", "output": "out/x.wav", "speed": 2}"#, "batch.jsonl:4.speed", "unknown key"),
        (#"{"scene": "a.json"}"#, "batch.jsonl:4", "\"output\" is missing"),
        (#"{"scene": "a.json", "output": 3}"#, "batch.jsonl:4.output", "expected a non-empty string"),
        (#"{"scene": "a.json", "output": "out/s1.wav"}"#, "batch.jsonl:4.output", "also written by line 2"),
        (#"{"scene": "a.json", "output": "../outside.wav"}"#, "batch.jsonl:4.output", "is outside the manifest's folder"),
        (#"{"scene": "a.json", "output": "out/y.wav", "format": "u8"}"#, "batch.jsonl:4.format", "unknown format"),
        (#"{"scene": "a.json", "output": "out/y.wav", "resampler": "best"}"#, "batch.jsonl:4.resampler", "unknown resampler"),
    ])
    func aBadLineIsAnErrorNamingItsLine(line: String, place: String, message: String) throws {
        let dir = try Self.batchFolder(count: 3, extra: [line])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: SceneError.self) { try BatchManifest(path: dir + "/batch.jsonl") }
        #expect(error?.place == dir + "/" + place, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func anOutputOutsideIsAllowedOnlyWhenAsked() throws {
        let dir = try Self.batchFolder(count: 1, extra: [#"{"scene": "a.json", "output": "../outside.wav"}"#])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: SceneError.self) { try BatchManifest(path: dir + "/batch.jsonl") }
        #expect(try BatchManifest(path: dir + "/batch.jsonl", allowWritesAnywhere: true).entries.count == 2)
    }

    @Test(arguments: ["3/3", "-1/2", "1/0", "1", "a/b", "1/2/3", ""])
    func aBadShardIsRefused(_ text: String) {
        #expect(throws: SceneError.self) { try BatchManifest.Shard(text) }
    }

    // MARK: The CLI

    /// The whole batch and its three shards write the same bytes; the reports' hashes are
    /// `sha256sum`'s; a failing entry is named, fails its shard alone, and the others are rendered.
    @Test func threeShardsRenderWhatTheWholeBatchRenders() throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let missing = #"{"scene": "scenes/missing.json", "output": "out/missing.wav"}"#
        let whole = try Self.batchFolder(count: 5, extra: [missing])
        let sharded = try Self.batchFolder(count: 5, extra: [missing])
        defer {
            try? FileManager.default.removeItem(atPath: whole)
            try? FileManager.default.removeItem(atPath: sharded)
        }
        let all = try Tool.run([tutti, "render", "--batch", whole + "/batch.jsonl", "--jobs", "2"])
        #expect(all.status == 1, "a failed entry makes the batch fail: \(all.stderr)")
        #expect(all.stderr.contains("batch.jsonl:6 (\(whole)/scenes/missing.json) failed"), "\(all.stderr)")
        #expect(all.stderr.contains("5 rendered, 1 failed of 6"), "\(all.stderr)")
        let wholeReport = try Self.report(whole + "/batch.report.json")
        #expect(wholeReport["rendered"] as? Int == 5)
        #expect(wholeReport["failed"] as? Int == 1)

        var shardStatus: [Int32] = []
        var shardEntries: [[String: Any]] = []
        for i in 0..<3 {
            let run = try Tool.run([tutti, "render", "--batch", sharded + "/batch.jsonl", "--shard", "\(i)/3", "--jobs", "1"])
            shardStatus.append(run.status)
            let report = try Self.report(sharded + "/batch.shard-\(i)-of-3.report.json")
            #expect(report["shard"] as? String == "\(i)/3")
            shardEntries += try Self.entries(report)
        }
        // Entry 5 (the missing scene) is in shard 2.
        #expect(shardStatus == [0, 0, 1])
        #expect(Set(shardEntries.compactMap { $0["index"] as? Int }) == Set(0..<6), "every entry exactly once")
        #expect(shardEntries.count == 6)

        for k in 0..<5 {
            let a = try Data(contentsOf: URL(fileURLWithPath: whole + "/out/s\(k).wav"))
            let b = try Data(contentsOf: URL(fileURLWithPath: sharded + "/out/s\(k).wav"))
            #expect(a.count == 44 + 2 * 2 * 19_200, "0.4 s of s16 stereo at 48 kHz")
            #expect(a == b, "entry \(k): the shard wrote the same bytes")
            let sum = try Tool.run(["/usr/bin/sha256sum", whole + "/out/s\(k).wav"])
            let expected = String(sum.stdout.prefix(64))
            let fromWhole = try Self.entries(wholeReport).first { $0["index"] as? Int == k }
            let fromShard = shardEntries.first { $0["index"] as? Int == k }
            #expect(fromWhole?["sha256"] as? String == expected)
            #expect(fromShard?["sha256"] as? String == expected)
            #expect(fromWhole?["outputBytes"] as? Int == a.count)
            #expect(fromWhole?["status"] as? String == "ok")
        }
        let failed = try Self.entries(wholeReport).first { $0["index"] as? Int == 5 }
        #expect(failed?["status"] as? String == "failed")
        #expect((failed?["error"] as? String)?.contains("missing.json") == true, "\(String(describing: failed))")
        #expect(!FileManager.default.fileExists(atPath: whole + "/out/missing.wav"))
    }

    @Test(arguments: [
        (["--jobs", "0"], "--jobs 0"),
        (["--shard", "3/3"], "I must be in 0…2"),
        (["--shard", "x"], "expected I/N"),
        (["-o", "x.wav"], "--output is per render"),
    ])
    func badBatchOptionsAreUsageErrors(extra: [String], message: String) throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let dir = try Self.batchFolder(count: 2)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try Tool.run([tutti, "render", "--batch", dir + "/batch.jsonl"] + extra)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/s0.wav"), "nothing rendered")
    }

    @Test func aBadManifestRendersNothing() throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let dir = try Self.batchFolder(count: 2, extra: [#"{"scene": "scenes/s0.json", "output": "out/s0.wav"}"#])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try Tool.run([tutti, "render", "--batch", dir + "/batch.jsonl"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("batch.jsonl:3.output"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/s0.wav"), "nothing rendered")
        #expect(!FileManager.default.fileExists(atPath: dir + "/batch.report.json"))
    }
}
