import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiScene

/// `engine.outputBuses`, sources' `outputBus`, and `tutti render … --bus-output NAME=FILE`:
/// checked by measuring the tones in each file. The old names (`engine.routes`, `route`,
/// `--route-output`) are still read for one release, with a warning.
@Suite struct OutputBusSceneTests {
    let tutti = Tool.tuttiPath

    func run(_ args: [String]) throws -> (status: Int32, output: String) { try Tool.runMerged([tutti] + args) }

    /// A DJ session (multiRoute) with a 440 Hz tone on main and a 1 kHz tone on cue, and a
    /// playback session whose 300 Hz tone asks for nothing (main).
    /// `busesKey` and `busKey` name the keys (the deprecated `routes` / `route` for the old ones).
    func scene(
        cueBus: String = "cue", musicBus: String? = nil, buses: String = #"["main", "cue"]"#,
        busesKey: String = "outputBuses", busKey: String = "outputBus"
    ) -> String {
        """
        {"engine": {"\(busesKey)": \(buses)}, "duration": 1.0,
         "sessions": [{"id": "dj", "category": "multiRoute"},
                      {"id": "music", "category": "playback", "options": ["mixWithOthers"]}],
         "sources": [
           {"id": "a", "session": "dj", "tone": {"frequency": 440, "amplitude": 0.5}, "loop": true},
           {"id": "b", "session": "dj", "tone": {"frequency": 1000, "amplitude": 0.3}, "\(busKey)": "\(cueBus)", "loop": true},
           {"id": "c", "session": "music", "tone": {"frequency": 300, "amplitude": 0.2}, "loop": true
            \(musicBus.map { #", "\#(busKey)": "\#($0)""# } ?? "")}],
         "events": [{"at": 0, "session": "dj", "action": "activate"}, {"at": 0, "session": "music", "action": "activate"},
                    {"at": 0, "source": "a", "action": "play"}, {"at": 0, "source": "b", "action": "play"},
                    {"at": 0, "source": "c", "action": "play"}]}
        """
    }

    func amplitude(_ samples: [Float], _ frequency: Double) -> Double {
        let left = Analysis.channel(samples, 0, of: 2)
        return Analysis.toneAmplitude(left[4_800...], frequency: frequency, sampleRate: 48_000)
    }

    @Test func eachBusGoesToItsOwnFile() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try scene().write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let r = try run(["render", dir + "/s.json", "-o", dir + "/main.wav", "--bus-output", "cue=\(dir)/cue.wav", "--quiet"])
        #expect(r.status == 0, "\(r.output)")
        #expect(!r.output.contains("warning"), "\(r.output)")
        try checkTones(dir)
    }

    /// The deprecated names (`engine.routes`, `sources[].route`, `--route-output`) render the
    /// same files, each with its one-line warning on stderr.
    @Test func oldNamesStillWorkWithAWarning() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try scene(musicBus: "main", busesKey: "routes", busKey: "route").write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let r = try run(["render", dir + "/s.json", "-o", dir + "/main.wav", "--route-output", "cue=\(dir)/cue.wav", "--quiet"])
        #expect(r.status == 0, "\(r.output)")
        let warnings = r.output.split(separator: "\n").filter { $0.hasPrefix("tutti: warning: ") }
        #expect(warnings.count == 4, "\(r.output)")
        #expect(r.output.contains("tutti: warning: tutti render --route-output is deprecated, use --bus-output"), "\(r.output)")
        #expect(r.output.contains("tutti: warning: engine.routes is deprecated, use outputBuses"), "\(r.output)")
        #expect(r.output.contains("tutti: warning: sources[1].route is deprecated, use outputBus"), "\(r.output)")
        #expect(r.output.contains("tutti: warning: sources[2].route is deprecated, use outputBus"), "\(r.output)")
        try checkTones(dir)
        // The decoder reports them as `Scene.warnings`, in file order.
        let s = try Scene.decode(json: scene(busesKey: "routes", busKey: "route"), baseDirectory: "")
        #expect(s.warnings.count == 2)
        #expect(s.warnings.first?.hasPrefix("engine.routes is deprecated, use outputBuses (") == true)
        #expect(s.warnings.last?.hasPrefix("sources[1].route is deprecated, use outputBus (") == true)
        #expect(s.engine.outputBuses == ["main", "cue"])
        #expect(s.sources.map(\.outputBus) == ["main", "cue", "main"])
        #expect(try Scene.decode(json: scene(), baseDirectory: "").warnings.isEmpty)
    }

    /// Old and new name in one object: an error naming the old key's JSON path.
    @Test func oldAndNewNameTogetherIsAnError() throws {
        let both: [(String, String)] = [
            (
                scene().replacingOccurrences(
                    of: #""outputBuses": ["main", "cue"]"#, with: #""outputBuses": ["main", "cue"], "routes": ["main"]"#),
                "engine.routes"
            ),
            (scene().replacingOccurrences(of: #""outputBus": "cue""#, with: #""outputBus": "cue", "route": "cue""#), "sources[1].route"),
        ]
        for (json, place) in both {
            #expect {
                _ = try Scene.decode(json: json, baseDirectory: "")
            } throws: { error in
                "\(error)".hasPrefix(place + ": give ") && "\(error)".contains("not both")
            }
        }
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try scene().write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let r = try run([
            "render", dir + "/s.json", "-o", dir + "/main.wav", "--bus-output", "cue=\(dir)/cue.wav", "--route-output",
            "cue=\(dir)/cue2.wav", "--quiet",
        ])
        #expect(r.status == 64, "\(r.output)")
        #expect(r.output.contains("--bus-output and --route-output: give one"), "\(r.output)")
    }

    func checkTones(_ dir: String) throws {
        let main = readWAV(dir + "/main.wav").samples
        let cue = readWAV(dir + "/cue.wav").samples
        #expect(main.count == 96_000)
        #expect(cue.count == main.count)
        #expect(abs(amplitude(main, 440) - 0.5) < 0.01)
        #expect(abs(amplitude(main, 300) - 0.2) < 0.01) // not multiRoute: main
        #expect(amplitude(main, 1_000) < 1e-4)
        #expect(abs(amplitude(cue, 1_000) - 0.3) < 0.01)
        #expect(amplitude(cue, 440) < 1e-4)
        #expect(amplitude(cue, 300) < 1e-4)
        // Sample-aligned: both tones start at frame 0 (a sine from phase 0: sample 1 is its first non-zero).
        #expect(main[0] == 0 && cue[0] == 0 && main[2] != 0 && cue[2] != 0)
    }

    @Test func busOutputErrorsAreUsageErrorsAndWriteNothing() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try scene().write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            ([], "cue"), // a bus without an output
            (["--bus-output", "cue=\(dir)/cue.wav", "--bus-output", "booth=\(dir)/b.wav"], "no output bus \"booth\""),
            (["--bus-output", "cue"], "--bus-output cue: expected NAME=FILE"),
            (["--bus-output", "main=\(dir)/m.wav"], "main"),
            (["--bus-output", "cue=\(dir)/main.wav"], "same file"),
        ]
        for (extra, named) in cases {
            let r = try run(["render", dir + "/s.json", "-o", dir + "/main.wav", "--quiet"] + extra)
            #expect(r.status == 64, "\(extra): \(r.output)")
            #expect(r.output.contains(named), "\(extra): \(r.output)")
            let written = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".wav") }
            #expect(written.isEmpty, "\(extra) wrote \(written)")
        }
    }

    @Test func badBusesNameTheirJSONPath() throws {
        let cases: [(String, String)] = [
            (scene(cueBus: "booth"), "sources[1].outputBus"),
            (scene(musicBus: "cue"), "sources[2].outputBus"),
            (scene(buses: #"["main", "cue", "cue"]"#), "engine.outputBuses[2]"),
            (scene(buses: #"["main", "c=d"]"#), "engine.outputBuses[1]"),
            (scene(buses: #"["a","b","c","d","e","f","g","h"]"#), "engine.outputBuses"),
            // The old keys' errors name them as written.
            (scene(cueBus: "booth", busesKey: "routes", busKey: "route"), "sources[1].route"),
            (scene(buses: #"["main", "cue", "cue"]"#, busesKey: "routes", busKey: "route"), "engine.routes[2]"),
        ]
        for (json, place) in cases {
            #expect {
                _ = try Scene.decode(json: json, baseDirectory: "")
            } throws: { error in
                "\(error)".hasPrefix(place + ":")
            }
        }
        // "main" is implied and first.
        let s = try Scene.decode(json: scene(buses: #"["cue"]"#), baseDirectory: "")
        #expect(s.engine.outputBuses == ["main", "cue"])
        #expect(s.sources.map(\.outputBus) == ["main", "cue", "main"])
    }

    /// A session that leaves multiRoute plays its routed sources to main until it returns.
    @Test func leavingMultiRouteSendsSourcesToMain() throws {
        let json = """
            {"engine": {"outputBuses": ["main", "cue"]}, "duration": 1.5,
             "sessions": [{"id": "dj", "category": "multiRoute"}],
             "sources": [{"id": "b", "session": "dj", "tone": {"frequency": 1000, "amplitude": 0.3}, "outputBus": "cue", "loop": true}],
             "events": [{"at": 0, "session": "dj", "action": "activate"}, {"at": 0, "source": "b", "action": "play"},
                        {"at": 0.5, "session": "dj", "action": "setCategory", "value": "playback"},
                        {"at": 1.0, "session": "dj", "action": "setCategory", "value": "multiRoute"}]}
            """
        let scene = try Scene.decode(json: json, baseDirectory: "")
        let renderer = try OfflineRenderer(scene: scene)
        var main: [Float] = []
        var cue: [Float] = []
        try renderer.render(busSink: { _, b in cue += b }, sink: { main += $0 })
        #expect(main.count == cue.count)
        func level(_ x: [Float], _ seconds: ClosedRange<Double>) -> Double {
            let left = Analysis.channel(x, 0, of: 2)
            return Analysis.toneAmplitude(
                left[Int(seconds.lowerBound * 48_000)..<Int(seconds.upperBound * 48_000)], frequency: 1_000, sampleRate: 48_000)
        }
        #expect(level(cue, 0.1...0.45) > 0.25)
        #expect(level(main, 0.1...0.45) < 1e-4)
        #expect(level(main, 0.6...0.95) > 0.25)
        #expect(level(cue, 0.6...0.95) < 1e-4)
        #expect(level(cue, 1.1...1.45) > 0.25)
        #expect(level(main, 1.1...1.45) < 1e-4)
    }
}
