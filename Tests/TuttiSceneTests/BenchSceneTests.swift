import Foundation
import Testing
import TuttiTestSupport

/// `tutti bench scene`: a user's scene timed block by block (every block counted once, in
/// the stretch of the event before it), the JSON report read back as a baseline, a
/// regression beyond the limit failing the run, and a baseline of another scene refused.
/// No test here judges a time: only counts, structure and the comparison's arithmetic.
@Suite struct BenchSceneTests {
    /// 1 s at 48 kHz, 256-frame blocks: 188 blocks (the last one short); events at 0, 0.25 and
    /// 0.5 s (two at 0.5 s: one stretch), so three stretches.
    static let scene = """
        {"duration": 1, "engine": {"blockFrames": 256},
         "sessions": [{"id": "m", "category": "playback"}, {"id": "n", "category": "playback", "options": ["duckOthers"]}],
         "sources": [{"id": "t", "session": "m", "tone": {"frequency": 440, "amplitude": 0.3}},
                     {"id": "v", "session": "n", "tone": {"frequency": 880, "amplitude": 0.3}}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "t", "action": "play"},
                    {"at": 0.25, "session": "n", "action": "activate"}, {"at": 0.5, "source": "v", "action": "play"},
                    {"at": 0.5, "source": "t", "action": "setGain", "value": 0.5}]}
        """

    static func folder() throws -> String {
        let dir = makeTemporaryFolder("tutti-bench-scene")
        try scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        return dir
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theReportCountsEveryBlockOnceInItsStretch() throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try Tool.run([tutti, "bench", "scene", dir + "/scene.json", "--rounds", "1", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.json(run.stdout)
        #expect(report["blocks"] as? Int == 188)
        #expect(report["blockFrames"] as? Int == 256)
        #expect(report["referenceSources"] as? Int == 2)
        #expect(abs((report["deadlineNs"] as? Double ?? 0) - 256.0 / 48_000 * 1e9) < 1)
        let stretches = try #require(report["stretches"] as? [[String: Any]])
        #expect(stretches.map { $0["event"] as? String } == ["start", "events[2]", "events[3]"])
        #expect(stretches.map { $0["fromSeconds"] as? Double } == [0, 0.25, 0.5])
        // 0.25 s = 12 000 frames: blocks starting before it (47) are in the first stretch.
        #expect(stretches.map { $0["blocks"] as? Int } == [47, 47, 94])
        let engine = try #require(report["engineNs"] as? [String: Double])
        let reference = try #require(report["referenceNs"] as? [String: Double])
        let ratio = try #require(report["ratioToReference"] as? [String: Double])
        #expect(
            engine["p50"]! > 0 && engine["p50"]! <= engine["p99"]! && engine["p99"]! <= engine["p99.9"]!
                && engine["p99.9"]! <= engine["max"]!)
        // One round: the ratio is the quotient of the round's own figures.
        #expect(abs(ratio["p50"]! - engine["p50"]! / reference["p50"]!) < 1e-9)
        let machine = try #require(report["machine"] as? [String: Any])
        #expect((machine["kernels"] as? String)?.isEmpty == false)
        #expect(((report["sceneSHA256"] as? String) ?? "").count == 64)

        let text = try Tool.run([tutti, "bench", "scene", dir + "/scene.json", "--rounds", "1"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("188 blocks × 1 round"), "\(text.stdout)")
        #expect(text.stdout.contains("events[3]"))
    }

    /// A baseline whose ratios were 10× smaller is a regression at any noise; the same
    /// figures with a generous limit are not; another scene's baseline is refused unless
    /// --force.
    @Test func aBaselineIsComparedByRatios() throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try Tool.run([tutti, "bench", "scene", dir + "/scene.json", "--rounds", "1", "--json"])
        try #require(first.status == 0, "\(first.stderr)")
        try first.stdout.write(toFile: dir + "/base.json", atomically: true, encoding: .utf8)

        let same = try Tool.run(
            [tutti, "bench", "scene", dir + "/scene.json", "--rounds", "1", "--baseline", dir + "/base.json", "--max-regression", "100000"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stderr.contains("p50 engine/reference") && same.stderr.contains("ok"), "\(same.stderr)")

        var doctored = try Self.json(first.stdout)
        var ratio = try #require(doctored["ratioToReference"] as? [String: Double])
        for key in ratio.keys { ratio[key]! /= 10 }
        doctored["ratioToReference"] = ratio
        try JSONSerialization.data(withJSONObject: doctored).write(to: URL(fileURLWithPath: dir + "/fast.json"))
        let slower = try Tool.run([tutti, "bench", "scene", dir + "/scene.json", "--rounds", "1", "--baseline", dir + "/fast.json"])
        #expect(slower.status == 1, "\(slower.stderr)")
        #expect(slower.stderr.contains("REGRESSION (limit +10 %)"), "\(slower.stderr)")

        try (Self.scene.replacingOccurrences(of: "880", with: "990")).write(toFile: dir + "/other.json", atomically: true, encoding: .utf8)
        let other = try Tool.run([tutti, "bench", "scene", dir + "/other.json", "--rounds", "1", "--baseline", dir + "/base.json"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("it is of another scene"), "\(other.stderr)")
        let forced = try Tool.run(
            [
                tutti, "bench", "scene", dir + "/other.json", "--rounds", "1", "--baseline", dir + "/base.json", "--force",
                "--max-regression", "100000",
            ])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.contains("compared because of --force"), "\(forced.stderr)")
    }

    @Test(arguments: [
        (["--rounds", "0"], 64, "--rounds"),
        (["--max-regression", "5"], 64, "--max-regression goes with --baseline"),
        (["--baseline", "BASE", "--max-regression", "0"], 64, "more than 0 percent"),
        (["--baseline", "BASE"], 1, "not a `tutti bench scene --json` report"),
    ])
    func badInputIsRefusedBeforeMeasuring(extra: [String], status: Int32, message: String) throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "{}".write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let args = extra.map { $0 == "BASE" ? dir + "/bad.json" : $0 }
        let run = try Tool.run([tutti, "bench", "scene", dir + "/scene.json"] + args)
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "nothing measured")
    }

    @Test func aSceneThatDoesNotLoadIsTheSameErrorAsRender() throws {
        let tutti = try #require(Tool.tutti, "the tutti executable is built with the tests")
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"duration": 1, "sessions": [{"id": "m", "category": "plaback"}]}"#.write(
            toFile: dir + "/broken.json", atomically: true, encoding: .utf8)
        let bench = try Tool.run([tutti, "bench", "scene", dir + "/broken.json"])
        let render = try Tool.run([tutti, "render", dir + "/broken.json", "-o", dir + "/x.wav"])
        #expect(bench.status == 1)
        #expect(render.status == 1)
        #expect(bench.stderr == render.stderr, "bench: \(bench.stderr) render: \(render.stderr)")
    }
}
