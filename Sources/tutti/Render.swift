import ArgumentParser
import Foundation
import Tutti
import TuttiDSP
import TuttiScene

extension ResamplerQuality: ExpressibleByArgument {}

enum OutputFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case f32, float32, s16, s24
    var sampleFormat: SampleFormat {
        switch self {
        case .f32, .float32: .float32
        case .s16: .s16
        case .s24: .s24
        }
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a scene file offline to a WAV file (or a batch of them: --batch).",
        discussion:
            "The output (and the events log) are written to temporary files and moved into place only when the render succeeded: on any error, nothing you had is touched. SIGINT, SIGTERM or SIGHUP remove the temporary files and exit 130, 143 or 129. With --batch MANIFEST.jsonl (one {\"scene\": …, \"output\": …} per line; docs/scaling.md) each entry is rendered by a child process, --jobs at a time, --shard I/N taking every N-th entry from I; a failed entry does not stop the others; a JSON report is written and the exit status is 1 when any entry failed."
    )

    @Argument(help: "The scene file (JSON; see docs/scene-format.md). Not with --batch.")
    var scene: String?

    @Option(name: .shortAndLong, help: "The WAV file to write. Not with --batch (each manifest line names its output).")
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Render every entry of a JSON Lines manifest: {\"scene\": …, \"output\": …, \"events\", \"format\", \"resampler\"} per line, paths relative to the manifest.",
            valueName: "MANIFEST.jsonl"))
    var batch: String?

    @Option(help: "With --batch: how many renders run at once (child processes; default: the number of CPUs).")
    var jobs: Int?

    @Option(help: ArgumentHelp("With --batch: render only entries I, I+N, I+2N, … (0 ≤ I < N; entries numbered from 0).", valueName: "I/N"))
    var shard: String?

    @Option(help: "With --batch: the JSON report to write (default: the manifest's name with .report.json, or .shard-I-of-N.report.json).")
    var report: String?

    @Option(help: "Also write the policy events log as JSON lines.")
    var events: String?

    @Option(help: "Sample format: f32, s16 or s24 (overrides the scene's engine.output; s16/s24 are TPDF-dithered).")
    var format: OutputFormatArgument?

    @Option(
        help: ArgumentHelp(
            "Converter for files at another sample rate (overrides the scene's engine.resampler).",
            discussion:
                "One of: \(ResamplerQuality.allCases.map(\.rawValue).joined(separator: ", ")). Default: the scene's, else \(ResamplerQuality.fileDefault.rawValue)."
        ))
    var resampler: ResamplerQuality?

    @Option(
        help:
            "Also draw the render's timeline: a .svg picture, or a .html page with the same picture and a legend (sessions, their state and applied gain, sources, policy events, output peaks)."
    )
    var plot: String?

    @Option(
        name: .customLong("bus-output"),
        help: ArgumentHelp(
            "Write output bus NAME of the scene's engine.outputBuses to FILE (NAME=FILE; repeat for each bus besides main, which goes to -o).",
            valueName: "NAME=FILE"))
    var busOutput: [String] = []

    @Option(
        name: .customLong("route-output"),
        help: ArgumentHelp("Deprecated: --bus-output (the same, for one release).", valueName: "NAME=FILE"))
    var routeOutput: [String] = []

    @Option(
        name: .customLong("input"),
        help: ArgumentHelp(
            "Feed input source ID from an audio file: ID=FILE.wav (repeatable).",
            discussion:
                "Sample n of the file is what the input hears at output frame n (converted to the scene's rate; its channel count must be the input's). An input without --input captures silence."
        ))
    var inputs: [String] = []

    @Flag(
        name: .customLong("allow-writes-anywhere"),
        help: ArgumentHelp(
            "Let the scene write its files (sessions' recordTo) outside its own folder and the output's folder (default: refused before anything is rendered, naming the JSON path); with --batch, also the entries' outputs outside the manifest's folder."
        ))
    var allowWritesAnywhere = false

    @Flag(help: "No progress bar and no summary line.")
    var quiet = false

    /// A bad `--plot` (unknown extension, a path that cannot be written, another output's
    /// path) is a usage error: nothing is rendered.
    func validate() throws {
        if batch != nil {
            try validateBatch()
            return
        }
        for (given, name) in [(jobs != nil, "--jobs"), (shard != nil, "--shard"), (report != nil, "--report")] where given {
            throw ValidationError("\(name) goes with --batch")
        }
        guard scene != nil else { throw ValidationError("a scene file (or --batch MANIFEST.jsonl) is required") }
        guard let output else { throw ValidationError("--output is required (the WAV file to write)") }
        var paths = [output] + (events.map { [$0] } ?? []) + (plot.map { [$0] } ?? [])
        var names: Set<String> = []
        let flag = busOutputFlag
        for (name, path) in try busOutputs() {
            guard name != "main" else { throw ValidationError("\(flag) main=\(path): output bus main goes to -o") }
            guard names.insert(name).inserted else { throw ValidationError("\(flag) \(name): given twice") }
            guard !paths.contains(path) else {
                throw ValidationError("\(flag) \(name)=\(path) names the same file as another output")
            }
            paths.append(path)
        }
        _ = try inputPairs()
        guard let plot else { return }
        do {
            _ = try TimelineFormat(path: plot)
            if plot == output || plot == events { throw SceneError(plot, "--plot names the same file as another output") }
            // Creates and removes a temporary file next to it: the folder must be writable.
            _ = try AtomicTextWriter(path: plot)
        } catch let e as SceneError {
            throw ValidationError("--plot \(e.description)")
        }
    }

    /// `--batch`: the manifest checked whole before anything is rendered, then its shard.
    func runBatch(_ path: String) throws {
        let failed: Int
        do {
            let manifest = try BatchManifest(path: path, allowWritesAnywhere: allowWritesAnywhere)
            let shard = try shard.map { text throws(SceneError) in try BatchManifest.Shard(text) }
            let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            failed = try Batch(
                manifest: manifest, shard: shard, jobs: jobs ?? max(1, cpus),
                reportPath: report ?? Batch.defaultReportPath(manifest: path, shard: shard), defaultFormat: format?.sampleFormat,
                defaultResampler: resampler, allowWritesAnywhere: allowWritesAnywhere, quiet: quiet
            ).run()
        } catch {
            throw fail(error)
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// The flag the output buses' files were given with: `--bus-output`, or its deprecated
    /// old name `--route-output`.
    var busOutputFlag: String { routeOutput.isEmpty ? "--bus-output" : "--route-output" }

    /// `--bus-output NAME=FILE` values (or the deprecated `--route-output`'s), split; both
    /// flags at once is a usage error.
    func busOutputs() throws -> [(bus: String, path: String)] {
        if !busOutput.isEmpty && !routeOutput.isEmpty {
            throw ValidationError("--bus-output and --route-output: give one (--route-output is the deprecated name of --bus-output)")
        }
        let flag = busOutputFlag
        return try (busOutput + routeOutput).map { value in
            guard let eq = value.firstIndex(of: "="), eq != value.startIndex, value.index(after: eq) != value.endIndex else {
                throw ValidationError("\(flag) \(value): expected NAME=FILE")
            }
            return (String(value[..<eq]), String(value[value.index(after: eq)...]))
        }
    }

    /// `--input ID=FILE` arguments, split; a malformed one is a usage error.
    func inputPairs() throws -> [(source: String, path: String)] {
        try inputs.map { arg in
            guard let eq = arg.firstIndex(of: "="), eq != arg.startIndex, arg.index(after: eq) != arg.endIndex else {
                throw ValidationError("--input expects ID=FILE.wav, got \"\(arg)\"")
            }
            return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
        }
    }

    /// With --batch: no scene, no single-render outputs; --jobs ≥ 1; --shard I/N well formed.
    func validateBatch() throws {
        if scene != nil { throw ValidationError("--batch: the scenes come from the manifest, not from an argument") }
        let single: [(Bool, String)] = [
            (output != nil, "--output"), (events != nil, "--events"), (plot != nil, "--plot"), (!busOutput.isEmpty, "--bus-output"),
            (!routeOutput.isEmpty, "--route-output"),
            (!inputs.isEmpty, "--input"),
        ]
        for (given, name) in single where given {
            throw ValidationError(
                "\(name) is per render: with --batch, give it on the manifest's lines (\"output\", \"events\") or render that scene alone")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs \(jobs): at least 1") }
        if let shard {
            do { _ = try BatchManifest.Shard(shard) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        Interrupts.install()
        if let batch {
            try runBatch(batch)
            return
        }
        let scene = scene!
        let output = output!
        if !routeOutput.isEmpty { Warnings.deprecatedFlag("render", "--route-output", use: "--bus-output") }
        let progress = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) == 1)
        do {
            let report = try OfflineRenderer.renderFile(
                scenePath: scene, outputPath: output, eventsPath: events,
                format: format?.sampleFormat, resampler: resampler, plotPath: plot, busOutputs: try busOutputs(),
                inputs: try inputPairs(), allowWritesAnywhere: allowWritesAnywhere,
                notice: { FileHandle.standardError.write(Data("tutti: \($0)\n".utf8)) }, warning: Warnings.print,
                progress: { progress.update($0) })
            progress.finish()
            if !quiet { FileHandle.standardError.write(Data((report.summary + "\n").utf8)) }
        } catch let error as BusOutputError {
            progress.finish()
            throw ValidationError(error.description)
        } catch let error as InputArgumentError {
            progress.finish()
            throw ValidationError("--input: \(error.description)")
        } catch {
            progress.finish()
            throw fail(error)
        }
    }
}
