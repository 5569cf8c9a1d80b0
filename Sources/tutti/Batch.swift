import Foundation
import Glibc
import TuttiDSP
import TuttiScene

/// `tutti render --batch MANIFEST.jsonl`: every entry of a manifest (or of one shard of it)
/// rendered by a child `tutti render` process, `jobs` at a time, then one JSON report and one
/// summary line (docs/scaling.md, "Batch renders").
///
/// Each entry runs in its own process, so a scene that fails, or even crashes, fails alone:
/// the others go on, and it is named (line, scene, the child's error) in the report. The
/// outputs are the children's, written as `tutti render` writes them (to a temporary file,
/// moved into place only when the render succeeded).
///
/// Thread: the main thread; the children are separate processes.
struct Batch {
    var manifest: BatchManifest
    var shard: BatchManifest.Shard?
    var jobs: Int
    var reportPath: String
    var defaultFormat: SampleFormat?
    var defaultResampler: ResamplerQuality?
    var allowWritesAnywhere: Bool
    var quiet: Bool

    /// What became of one entry.
    struct Outcome {
        var entry: BatchManifest.Entry
        var failure: String?
        var seconds: Double
        var outputBytes: Int
        var sha256: String?
    }

    /// The report file for a manifest: its name with `.report.json` (and the shard,
    /// `.shard-I-of-N`) in place of its extension, next to it.
    static func defaultReportPath(manifest: String, shard: BatchManifest.Shard?) -> String {
        let stem = (manifest as NSString).deletingPathExtension
        return stem + (shard.map { ".shard-\($0.index)-of-\($0.count)" } ?? "") + ".report.json"
    }

    /// Renders the shard's entries; returns how many failed.
    func run() throws -> Int {
        let entries = manifest.entries(in: shard)
        let started = Date()
        let scratch = NSTemporaryDirectory() + "tutti-batch-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let executable = try Self.ownExecutable()

        var outcomes: [Int: Outcome] = [:]
        var running: [pid_t: (entry: BatchManifest.Entry, started: Date, log: String)] = [:]
        var next = 0
        let showProgress = !quiet && isatty(STDERR_FILENO) == 1
        while next < entries.count || !running.isEmpty {
            while next < entries.count && running.count < jobs {
                let entry = entries[next]
                next += 1
                let log = scratch + "/\(entry.index).log"
                do {
                    let pid = try Self.spawn([executable] + arguments(entry), stderrPath: log)
                    running[pid] = (entry, Date(), log)
                } catch {
                    outcomes[entry.index] = Outcome(entry: entry, failure: "\(error)", seconds: 0, outputBytes: 0, sha256: nil)
                }
            }
            guard !running.isEmpty else { continue }
            var status: Int32 = 0
            let pid = waitpid(-1, &status, 0)
            if pid < 0 {
                if errno == EINTR { continue }
                throw SceneError("--batch", "waitpid: \(String(cString: strerror(errno)))")
            }
            guard let job = running.removeValue(forKey: pid) else { continue }
            outcomes[job.entry.index] = finish(job.entry, status: status, seconds: Date().timeIntervalSince(job.started), log: job.log)
            if showProgress {
                let failed = outcomes.values.filter { $0.failure != nil }.count
                FileHandle.standardError.write(
                    Data("\r\u{1B}[Kbatch: \(outcomes.count)/\(entries.count) done, \(failed) failed, \(running.count) running".utf8))
            }
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }

        let ordered = entries.map { outcomes[$0.index]! }
        let failed = ordered.filter { $0.failure != nil }
        let seconds = Date().timeIntervalSince(started)
        try writeReport(ordered, seconds: seconds)
        for outcome in failed {
            FileHandle.standardError.write(
                Data("tutti: batch: \(manifest.path):\(outcome.entry.line) (\(outcome.entry.scene)) failed: \(outcome.failure!)\n".utf8))
        }
        if !quiet {
            let shardText = shard.map { ", shard \($0)" } ?? ""
            FileHandle.standardError.write(
                Data(
                    "tutti: batch: \(ordered.count - failed.count) rendered, \(failed.count) failed of \(entries.count)\(shardText) in \(String(format: "%.1f", seconds)) s, \(jobs) job\(jobs == 1 ? "" : "s"); report \(reportPath)\n"
                        .utf8))
        }
        return failed.count
    }

    /// The child's `tutti render` arguments for `entry`.
    func arguments(_ entry: BatchManifest.Entry) -> [String] {
        var args = ["render", entry.scene, "--output", entry.output, "--quiet"]
        if let events = entry.events { args += ["--events", events] }
        if let format = entry.format ?? defaultFormat { args += ["--format", Self.formatName(format)] }
        if let resampler = entry.resampler ?? defaultResampler { args += ["--resampler", resampler.rawValue] }
        if allowWritesAnywhere { args.append("--allow-writes-anywhere") }
        return args
    }

    static func formatName(_ format: SampleFormat) -> String {
        switch format {
        case .float32: "f32"
        case .s16: "s16"
        case .s24: "s24"
        }
    }

    /// The outcome of a child that ended with `status`: its error line when it failed, the
    /// output's size and hash when it succeeded.
    func finish(_ entry: BatchManifest.Entry, status: Int32, seconds: Double, log: String) -> Outcome {
        var outcome = Outcome(entry: entry, failure: nil, seconds: seconds, outputBytes: 0, sha256: nil)
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let message = text.split(separator: "\n").last.map {
                $0.hasPrefix("tutti: error: ") ? String($0.dropFirst("tutti: error: ".count)) : String($0)
            }
            let how = exited ? "exit status \(code)" : "killed by signal \(status & 0x7f)"
            outcome.failure = message.map { "\($0) (\(how))" } ?? how
            return outcome
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: entry.output))
            outcome.outputBytes = data.count
            outcome.sha256 = SHA256.hex(of: data)
        } catch {
            outcome.failure = "the render succeeded but its output cannot be read: \((error as NSError).localizedDescription)"
        }
        return outcome
    }

    /// The JSON report, written atomically (nothing is left half-written).
    func writeReport(_ outcomes: [Outcome], seconds: Double) throws {
        let entries: [[String: Any]] = outcomes.map { o in
            var e: [String: Any] = [
                "index": o.entry.index, "line": o.entry.line, "scene": o.entry.scene, "output": o.entry.output,
                "status": o.failure == nil ? "ok" : "failed", "seconds": (o.seconds * 1000).rounded() / 1000,
            ]
            if let failure = o.failure {
                e["error"] = failure
            } else {
                e["outputBytes"] = o.outputBytes
                e["sha256"] = o.sha256
            }
            return e
        }
        var report: [String: Any] = [
            "manifest": manifest.path, "entries": entries, "jobs": jobs, "seconds": (seconds * 1000).rounded() / 1000,
            "rendered": outcomes.filter { $0.failure == nil }.count, "failed": outcomes.filter { $0.failure != nil }.count,
        ]
        if let shard { report["shard"] = shard.description }
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        let writer = try AtomicTextWriter(path: reportPath)
        writer.append(String(decoding: data, as: UTF8.self) + "\n")
        try writer.commit()
    }

    /// This executable's path (children run the same build).
    static func ownExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw SceneError("--batch", "cannot find the tutti executable (/proc/self/exe)") }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts `argv` with stdout to /dev/null and stderr to `stderrPath`, in this process's
    /// environment; returns its pid.
    static func spawn(_ argv: [String], stderrPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        guard rc == 0 else { throw SceneError("--batch", "cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        return pid
    }
}
