import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// The five guideline scenarios and the demo: audible / ducked / silent windows measured by
/// tone detection on the rendered mix (fixtures/expected.json, derived by hand from the
/// policy rules), the key journal events, and a golden journal per scene.
@Suite struct ScenarioTests {
    struct Window {
        var from, to: Double
        var state: String
        var tolerance: Double
        /// The expected level relative to audible, when the window gives one.
        var db: Double?
    }
    struct Role {
        var name: String
        var frequency: Double
        var windows: [Window]
    }
    struct Expected {
        var key, scene: String
        var roles: [Role]
        var present: [[String: Any]]
        var absent: [[String: Any]]
    }

    /// Read once, never written after (JSON values are not Sendable; the tests only read them).
    nonisolated(unsafe) static let expected: [Expected] = {
        let data = FileManager.default.contents(atPath: Tool.fixtures + "/expected.json")!
        let root = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        let scenes = root["scenes"] as! [String: Any]
        return scenes.keys.sorted().map { key in
            let s = scenes[key] as! [String: Any]
            let roles = (s["roles"] as! [String: Any]).keys.sorted().map { name -> Role in
                let r = (s["roles"] as! [String: Any])[name] as! [String: Any]
                let windows = (r["windows"] as! [[String: Any]]).map {
                    Window(
                        from: ($0["from"] as! NSNumber).doubleValue, to: ($0["to"] as! NSNumber).doubleValue,
                        state: $0["state"] as! String, tolerance: ($0["tolerance"] as? NSNumber)?.doubleValue ?? 0,
                        db: ($0["db"] as? NSNumber)?.doubleValue)
                }
                return Role(name: name, frequency: (r["frequency"] as! NSNumber).doubleValue, windows: windows)
            }
            let events = s["keyEvents"] as! [String: Any]
            return Expected(
                key: key, scene: s["scene"] as! String, roles: roles,
                present: events["present"] as? [[String: Any]] ?? [], absent: events["absent"] as? [[String: Any]] ?? [])
        }
    }()

    static var keys: [String] { expected.map(\.key) }

    func render(_ e: Expected) throws -> (mono: [Double], rate: Double, journal: [LogEntry]) {
        let path = Tool.fixtures + "/" + e.scene
        let scene = try Scene.decode(
            json: String(contentsOfFile: path, encoding: .utf8),
            baseDirectory: (path as NSString).deletingLastPathComponent)
        let r = try OfflineRenderer(scene: scene)
        var out: [Float] = []
        try r.render { out.append(contentsOf: $0) }
        let ch = scene.engine.channelCount
        let mono = stride(from: 0, to: out.count, by: ch).map { i in (0..<ch).reduce(0.0) { $0 + Double(out[i + $1]) } / Double(ch) }
        return (mono, Double(scene.engine.sampleRate), r.journal)
    }

    @Test(arguments: keys)
    func windowsMatchThePolicy(key: String) throws {
        let e = Self.expected.first { $0.key == key }!
        let (x, rate, _) = try render(e)
        let margin = 0.03
        for role in e.roles {
            func level(_ w: Window) -> Double? {
                let a = Int(((w.from + margin + w.tolerance) * rate).rounded())
                let b = Int(((w.to - margin) * rate).rounded())
                guard b - a >= Int(0.02 * rate) else { return nil }
                return Analysis.toneAmplitude(x[a..<min(b, x.count)], frequency: role.frequency, sampleRate: rate)
            }
            let audible = role.windows.filter { $0.state == "audible" }.compactMap(level)
            guard let reference = audible.max(), reference > 0 else { continue }
            for w in role.windows {
                guard let l = level(w) else { continue }
                let dB = Analysis.dB(l / reference)
                let place = "\(key) \(role.name) \(w.from)–\(w.to) s \(w.state): \(String(format: "%.1f", dB)) dB"
                switch w.state {
                case "audible": #expect(dB > -8, "\(place)")
                case "ducked":
                    #expect(dB > -21 && dB < -9, "\(place)")
                    // The duck level itself (the engine's, or a ducking rule's).
                    if let expected = w.db { #expect(abs(dB - expected) < 1.5, "\(place), expected \(expected) dB") }
                case "silent": #expect(dB < -40, "\(place)")
                case "attenuated": #expect(dB < -1, "\(place)")
                default: break
                }
            }
        }
    }

    @Test(arguments: keys)
    func keyEventsAreInTheJournal(key: String) throws {
        let e = Self.expected.first { $0.key == key }!
        let journal = try render(e).journal
        func matches(_ entry: LogEntry, _ pattern: [String: Any]) -> Bool {
            for (k, v) in pattern {
                switch k {
                case "time": continue
                case "frame": if entry.frame != (v as! NSNumber).int64Value { return false }
                case "type": if entry.type != v as! String { return false }
                default:
                    guard let field = entry.fields.first(where: { $0.key == k })?.value else { return false }
                    switch (field, v) {
                    case (.string(let s), let p as String): if s != p { return false }
                    case (.bool(let b), let p as NSNumber): if b != p.boolValue { return false }
                    case (.number(let d), let p as NSNumber): if d != p.doubleValue { return false }
                    case (.null, _ as NSNull): break
                    default: return false
                    }
                }
            }
            return true
        }
        for p in e.present {
            #expect(journal.contains { matches($0, p) }, "\(key): missing \(p)")
        }
        for p in e.absent {
            var pattern = p
            if let t = p["time"] as? NSNumber, p["frame"] == nil {
                pattern["frame"] = NSNumber(value: Int64((t.doubleValue * 48_000).rounded()))
            }
            #expect(!journal.contains { matches($0, pattern) }, "\(key): unexpected \(p)")
        }
    }

    /// The journal equals fixtures/golden/<scene>.jsonl. Set TUTTI_UPDATE_GOLDEN=1 to rewrite
    /// them (then review the diff: the key-event test above checks them independently).
    @Test(arguments: keys)
    func journalMatchesGolden(key: String) throws {
        let e = Self.expected.first { $0.key == key }!
        let text = try render(e).journal.map { $0.jsonLine + "\n" }.joined()
        let golden = Tool.fixtures + "/golden/" + key + ".jsonl"
        if ProcessInfo.processInfo.environment["TUTTI_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Tool.fixtures + "/golden", withIntermediateDirectories: true)
            try text.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(text == expected)
    }
}
