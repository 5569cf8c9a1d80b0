import ArgumentParser
import Foundation
import Tutti
import TuttiBenchSupport
import TuttiDSP
import TuttiEngine
import TuttiScene

#if canImport(Glibc)
    import Glibc
#endif

/// `tutti bench scene SCENE.json`: a user's own scene timed block by block, with its policy
/// events, ducking, conversion and effects, next to a reference measured in the same run
/// (docs/performance.md, "Benchmark your own scene").
struct BenchScene: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "Time the render of your own scene block by block, next to the bare mix kernel.",
        discussion: """
            The scene renders offline, as `tutti render` would (every file loaded whole), and \
            each block's engine render calls are timed (the policy work between them is not). \
            After each block the reference runs: the bare C mix kernel (the variant in use) \
            adding as many sources as the scene has, at the same block size. The whole scene \
            is rendered --rounds times; each figure is the median over the rounds. Reported: \
            p50 / p99 / p99.9 / max per block, as nanoseconds and as a share of the block's \
            deadline, over the whole scene and per stretch between events.
            With --baseline PREV.json (an earlier --json report), the engine/reference ratios \
            at p50 and p99 are compared: the exit status is 1 when either grew by more than \
            --max-regression percent. Ratios, not times: the reference absorbs the machine's \
            speed of the moment. A baseline of another scene or another machine kind is \
            refused unless --force.
            """)

    @Argument(help: "The scene file (JSON; see docs/scene-format.md).")
    var scene: String

    @Option(help: "How many times the whole scene is rendered (figures: the median over rounds).")
    var rounds = 3

    @Flag(help: "Print one JSON object (for CI; a later --baseline) instead of the report.")
    var json = false

    @Option(help: ArgumentHelp("An earlier `tutti bench scene --json` report to compare with.", valueName: "PREV.json"))
    var baseline: String?

    @Option(
        name: .customLong("max-regression"),
        help: ArgumentHelp("With --baseline: the largest growth allowed, percent (default 10).", valueName: "P"))
    var maxRegression: Double?

    @Flag(help: "With --baseline: compare even when it is of another scene or machine kind.")
    var force = false

    func validate() throws {
        guard (1...100).contains(rounds) else { throw ValidationError("--rounds must be 1…100") }
        if let maxRegression {
            guard baseline != nil else { throw ValidationError("--max-regression goes with --baseline") }
            guard maxRegression > 0, maxRegression.isFinite else { throw ValidationError("--max-regression must be more than 0 percent") }
        }
        if force, baseline == nil { throw ValidationError("--force goes with --baseline") }
    }

    func run() throws {
        let report: SceneBenchReport
        let previous: SceneBenchReport?
        do {
            // The baseline is read first: a bad one costs no measuring.
            previous = try baseline.map(SceneBenchReport.load)
            report = try SceneBench.measure(scenePath: scene, rounds: rounds)
        } catch {
            throw fail(error)
        }
        if json {
            print(report.jsonText)
        } else {
            print(report.text, terminator: "")
        }
        guard let previous else { return }
        let mismatch = report.mismatch(with: previous)
        if let mismatch, !force {
            FileHandle.standardError.write(
                Data("tutti: error: --baseline \(baseline!): \(mismatch); not compared (--force compares anyway)\n".utf8))
            throw ExitCode(1)
        }
        let limit = maxRegression ?? 10
        let verdict = report.compare(with: previous, maxRegressionPercent: limit)
        let note = mismatch.map { " (\($0); compared because of --force)" } ?? ""
        FileHandle.standardError.write(Data((verdict.lines.joined(separator: "\n") + note + "\n").utf8))
        if verdict.regressed { throw ExitCode(1) }
    }
}

/// The figures of one `tutti bench scene`: what `--json` prints and `--baseline` reads.
struct SceneBenchReport: Codable {
    /// p50 / p99 / p99.9 / max of one set of block times, nanoseconds.
    struct Latency: Codable {
        var p50: Double
        var p99: Double
        var p999: Double
        var max: Double

        enum CodingKeys: String, CodingKey {
            case p50, p99
            case p999 = "p99.9"
            case max
        }
    }

    /// The blocks from one event (or the start) to the next.
    struct Stretch: Codable {
        /// Where it starts, seconds.
        var fromSeconds: Double
        /// The scene event that starts it (`events[i]`), or "start".
        var event: String
        var blocks: Int
        var engineNs: Latency
    }

    /// What the machine was: a baseline of another kind is not compared without --force.
    struct Machine: Codable, Equatable {
        var cpu: String
        var cores: Int
        var kernel: String
        var kernels: String
    }

    var command = "tutti bench scene"
    var scene: String
    var sceneSHA256: String
    var machine: Machine
    var sampleRate: Int
    var channels: Int
    var blockFrames: Int
    var deadlineNs: Double
    var rounds: Int
    var blocks: Int
    var referenceSources: Int
    var engineNs: Latency
    var referenceNs: Latency
    var deadlineShare: Latency
    var ratioToReference: Latency
    var stretches: [Stretch]

    static func load(_ path: String) throws -> SceneBenchReport {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw SceneError(path, "cannot read the baseline: \((error as NSError).localizedDescription)")
        }
        do { return try JSONDecoder().decode(SceneBenchReport.self, from: data) } catch {
            throw SceneError(path, "not a `tutti bench scene --json` report (\(error))")
        }
    }

    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { return String(decoding: try encoder.encode(self), as: UTF8.self) } catch {
            return "{\"error\": \"\(error)\"}"
        }
    }

    /// Why `previous` is not comparable (another scene, another machine kind), or nil.
    func mismatch(with previous: SceneBenchReport) -> String? {
        if previous.sceneSHA256 != sceneSHA256 { return "it is of another scene (\(previous.scene), different contents)" }
        if previous.machine != machine {
            let p = previous.machine
            return "it is of another machine kind (\(p.cpu), \(p.cores) cores, kernel \(p.kernel), \(p.kernels) kernels)"
        }
        return nil
    }

    /// The ratios engine / reference at p50 and p99 against `previous`'s.
    func compare(with previous: SceneBenchReport, maxRegressionPercent: Double) -> (lines: [String], regressed: Bool) {
        var lines: [String] = []
        var regressed = false
        for (name, now, before) in [
            ("p50", ratioToReference.p50, previous.ratioToReference.p50), ("p99", ratioToReference.p99, previous.ratioToReference.p99),
        ] {
            let growth = before > 0 ? (now / before - 1) * 100 : 0
            let bad = growth > maxRegressionPercent
            regressed = regressed || bad
            lines.append(
                String(
                    format: "tutti: bench scene: %@ engine/reference %.2f× (baseline %.2f×): %+.1f %% %@", name, now, before, growth,
                    bad ? "REGRESSION (limit +\(SceneBench.number(maxRegressionPercent)) %)" : "ok"))
        }
        return (lines, regressed)
    }

    var text: String {
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        func right(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
        func row(_ name: String, _ values: [String]) -> String {
            "  " + pad(name, 24) + values.map { right($0, 11) }.joined() + "\n"
        }
        func ns(_ l: Latency) -> [String] { [l.p50, l.p99, l.p999, l.max].map { String(format: "%.0f", $0) } }
        var s = "tutti bench scene: \(scene)\n"
        s += "  \(sampleRate) Hz, \(channels) ch, \(blockFrames)-frame blocks (deadline \(SceneBench.number(deadlineNs / 1000)) µs), "
        s +=
            "\(blocks) blocks × \(rounds) round\(rounds == 1 ? "" : "s"); \(machine.kernels) kernels on \(machine.cpu), kernel \(machine.kernel)\n"
        s += row("per block (ns)", ["p50", "p99", "p99.9", "max"])
        s += row("engine", ns(engineNs))
        s += row("reference (\(referenceSources) src)", ns(referenceNs))
        s += row(
            "share of deadline",
            [deadlineShare.p50, deadlineShare.p99, deadlineShare.p999, deadlineShare.max].map { String(format: "%.1f %%", $0 * 100) })
        s += row(
            "engine / reference",
            [ratioToReference.p50, ratioToReference.p99, ratioToReference.p999, ratioToReference.max].map { String(format: "%.2f×", $0) })
        s += "  stretches between events (engine, ns):\n"
        s += "  " + pad("from", 12) + pad("event", 12) + right("blocks", 8) + right("p50", 11) + right("p99", 11) + right("max", 11) + "\n"
        for st in stretches {
            s += "  " + pad(String(format: "%.3f s", st.fromSeconds), 12) + pad(st.event, 12) + right(String(st.blocks), 8)
            s += [st.engineNs.p50, st.engineNs.p99, st.engineNs.max].map { right(String(format: "%.0f", $0), 11) }.joined() + "\n"
        }
        return s
    }
}

/// The measurement behind `tutti bench scene`. Control thread (the render is offline).
enum SceneBench {
    static func number(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x) }

    /// The value at quantile `q` of `sorted` (nearest rank).
    static func quantile(_ sorted: [UInt64], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return Double(sorted[min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - (q > 0 ? 1 : 0))])
    }

    static func latency(_ times: [UInt64]) -> SceneBenchReport.Latency {
        let sorted = times.sorted()
        return .init(
            p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), p999: quantile(sorted, 0.999), max: Double(sorted.last ?? 0))
    }

    /// The median of each field over rounds.
    static func median(_ rounds: [SceneBenchReport.Latency]) -> SceneBenchReport.Latency {
        func m(_ values: [Double]) -> Double {
            let s = values.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        return .init(p50: m(rounds.map(\.p50)), p99: m(rounds.map(\.p99)), p999: m(rounds.map(\.p999)), max: m(rounds.map(\.max)))
    }

    static func measure(scenePath: String, rounds: Int) throws -> SceneBenchReport {
        let bytes: Data
        do { bytes = try Data(contentsOf: URL(fileURLWithPath: scenePath)) } catch {
            throw SceneError(scenePath, "no such scene file")
        }
        let scene = try OfflineRenderer.loadScene(path: scenePath)
        for line in scene.warnings { Warnings.print(line) }
        let block = scene.engine.blockFrames
        let channels = scene.engine.channelCount
        let referenceSources = max(1, scene.sources.count)

        // The reference's data: one buffer per source, random, and one output.
        let samples = block * channels
        let referenceInput = UnsafeMutablePointer<Float>.allocate(capacity: referenceSources * samples)
        let referenceOutput = UnsafeMutablePointer<Float>.allocate(capacity: samples)
        defer {
            referenceInput.deallocate()
            referenceOutput.deallocate()
        }
        var seed: UInt32 = 0x1234_5678
        for i in 0..<(referenceSources * samples) {
            seed ^= seed << 13
            seed ^= seed >> 17
            seed ^= seed << 5
            referenceInput[i] = Float(Int32(bitPattern: seed)) / Float(Int32.max) * 0.1
        }
        referenceOutput.initialize(repeating: 0, count: samples)

        // Stretches: the frames where events fall, in order.
        var starts: [(frame: Int64, event: String)] = [(0, "start")]
        for e in scene.events.sorted(by: { $0.at < $1.at }) {
            let f = scene.frame(at: e.at)
            if f == starts.last!.frame { continue }
            starts.append((f, e.place))
        }

        var engineRounds: [SceneBenchReport.Latency] = []
        var referenceRounds: [SceneBenchReport.Latency] = []
        var shareRounds: [SceneBenchReport.Latency] = []
        var ratioRounds: [SceneBenchReport.Latency] = []
        var stretchRounds: [[SceneBenchReport.Latency]] = Array(repeating: [], count: starts.count)
        var stretchBlocks = Array(repeating: 0, count: starts.count)
        var blockCount = 0
        let deadlineNs = Double(block) / Double(scene.engine.sampleRate) * 1e9
        for _ in 0..<rounds {
            let renderer = try OfflineRenderer(scene: scene, streamingThresholdSeconds: .infinity)
            renderer.timesEngineCalls = true
            var engineTimes: [UInt64] = []
            var referenceTimes: [UInt64] = []
            var perStretch: [[UInt64]] = Array(repeating: [], count: starts.count)
            var stretch = 0
            var blockStart: Int64 = 0
            engineTimes.reserveCapacity(Int(renderer.totalFrames) / block + 2)
            referenceTimes.reserveCapacity(Int(renderer.totalFrames) / block + 2)
            try renderer.render { out in
                let t = renderer.engineNanoseconds
                renderer.engineNanoseconds = 0
                let frames = out.count / channels
                // The reference, right after: the same frames, every source mixed.
                let r0 = TuttiEngine.monotonicNanoseconds()
                for k in 0..<referenceSources {
                    Kernels.mixAdd(referenceOutput, referenceInput + k * samples, count: frames * channels, gain: 0.5)
                }
                let r1 = TuttiEngine.monotonicNanoseconds()
                while stretch + 1 < starts.count, starts[stretch + 1].frame <= blockStart { stretch += 1 }
                engineTimes.append(t)
                referenceTimes.append(r1 - r0)
                perStretch[stretch].append(t)
                blockStart += Int64(frames)
            }
            blockCount = engineTimes.count
            let engine = latency(engineTimes)
            let reference = latency(referenceTimes)
            engineRounds.append(engine)
            referenceRounds.append(reference)
            shareRounds.append(
                .init(
                    p50: engine.p50 / deadlineNs, p99: engine.p99 / deadlineNs, p999: engine.p999 / deadlineNs, max: engine.max / deadlineNs
                ))
            ratioRounds.append(
                .init(
                    p50: engine.p50 / max(reference.p50, 1), p99: engine.p99 / max(reference.p99, 1),
                    p999: engine.p999 / max(reference.p999, 1), max: engine.max / max(reference.max, 1)))
            for k in 0..<starts.count {
                stretchBlocks[k] = perStretch[k].count
                stretchRounds[k].append(latency(perStretch[k]))
            }
        }
        // Keep the reference's output alive (its work is not optimized away).
        if referenceOutput[0].isNaN { FileHandle.standardError.write(Data("tutti: reference produced NaN\n".utf8)) }

        let kernel = BenchSetup.kernelRelease
        let cpu = BenchSetup.cpuModel
        return SceneBenchReport(
            scene: scenePath, sceneSHA256: SHA256.hex(of: bytes),
            machine: .init(cpu: cpu, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), kernel: kernel, kernels: KernelVariant.active.name),
            sampleRate: scene.engine.sampleRate, channels: channels, blockFrames: block, deadlineNs: deadlineNs, rounds: rounds,
            blocks: blockCount, referenceSources: referenceSources, engineNs: median(engineRounds), referenceNs: median(referenceRounds),
            deadlineShare: median(shareRounds), ratioToReference: median(ratioRounds),
            stretches: starts.indices.filter { stretchBlocks[$0] > 0 }.map {
                .init(
                    fromSeconds: Double(starts[$0].frame) / Double(scene.engine.sampleRate), event: starts[$0].event,
                    blocks: stretchBlocks[$0], engineNs: median(stretchRounds[$0]))
            })
    }
}
