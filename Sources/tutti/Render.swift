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
        abstract: "Render a scene file offline to a WAV file.",
        discussion:
            "The output (and the events log) are written to temporary files and moved into place only when the render succeeded: on any error, nothing you had is touched. SIGINT, SIGTERM or SIGHUP remove the temporary files and exit 130, 143 or 129."
    )

    @Argument(help: "The scene file (JSON; see docs/scene-format.md).")
    var scene: String

    @Option(name: .shortAndLong, help: "The WAV file to write.")
    var output: String

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
        name: .customLong("route-output"),
        help: ArgumentHelp(
            "Write route NAME of the scene's engine.routes to FILE (NAME=FILE; repeat for each route besides main, which goes to -o).",
            valueName: "NAME=FILE"))
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
            "Let the scene write its files (sessions' recordTo) outside its own folder and the output's folder (default: refused before anything is rendered, naming the JSON path)."
        ))
    var allowWritesAnywhere = false

    @Flag(help: "No progress bar and no summary line.")
    var quiet = false

    /// A bad `--plot` (unknown extension, a path that cannot be written, another output's
    /// path) is a usage error: nothing is rendered.
    func validate() throws {
        var paths = [output] + (events.map { [$0] } ?? []) + (plot.map { [$0] } ?? [])
        var names: Set<String> = []
        for (name, path) in try routeOutputs() {
            guard name != "main" else { throw ValidationError("--route-output main=\(path): route main goes to -o") }
            guard names.insert(name).inserted else { throw ValidationError("--route-output \(name): given twice") }
            guard !paths.contains(path) else {
                throw ValidationError("--route-output \(name)=\(path) names the same file as another output")
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

    /// `--route-output NAME=FILE` values, split.
    func routeOutputs() throws -> [(route: String, path: String)] {
        try routeOutput.map { value in
            guard let eq = value.firstIndex(of: "="), eq != value.startIndex, value.index(after: eq) != value.endIndex else {
                throw ValidationError("--route-output \(value): expected NAME=FILE")
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

    func run() throws {
        Interrupts.install()
        let progress = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) == 1)
        do {
            let report = try SceneRenderer.renderFile(
                scenePath: scene, outputPath: output, eventsPath: events,
                format: format?.sampleFormat, resampler: resampler, plotPath: plot, routeOutputs: try routeOutputs(),
                inputs: try inputPairs(), allowWritesAnywhere: allowWritesAnywhere,
                notice: { FileHandle.standardError.write(Data("tutti: \($0)\n".utf8)) },
                progress: { progress.update($0) })
            progress.finish()
            if !quiet { FileHandle.standardError.write(Data((report.summary + "\n").utf8)) }
        } catch let error as RouteOutputError {
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
