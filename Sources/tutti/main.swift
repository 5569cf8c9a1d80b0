import ArgumentParser
import Foundation
import Tutti
import TuttiDSP
import TuttiScene

struct TuttiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tutti",
        abstract: "Tutti: a real-time audio mixing engine with a phone-style audio policy.",
        subcommands: [Render.self, Explain.self, Bench.self, Play.self, Devices.self])
}

/// Print a user-facing error and exit non-zero (1). ArgumentParser handles usage errors itself (exit 64).
func fail(_ error: Error) -> ExitCode {
    FileHandle.standardError.write(Data("tutti: error: \(error)\n".utf8))
    return ExitCode(1)
}

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
            "The output (and the events log) are written to temporary files and moved into place only when the render succeeded: on any error, nothing you had is touched."
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
        help:
            "Also draw the render's timeline: a .svg picture, or a .html page with the same picture and a legend (sessions, their state and applied gain, sources, policy events, output peaks)."
    )
    var plot: String?

    @Flag(help: "No progress bar.")
    var quiet = false

    /// A bad `--plot` (unknown extension, a path that cannot be written, another output's
    /// path) is a usage error: nothing is rendered.
    func validate() throws {
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

    func run() throws {
        let progress = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) == 1)
        do {
            let report = try SceneRenderer.renderFile(
                scenePath: scene, outputPath: output, eventsPath: events,
                format: format?.sampleFormat, plotPath: plot, progress: { progress.update($0) })
            progress.finish()
            if !quiet {
                FileHandle.standardError.write(
                    Data(
                        String(
                            format: "rendered %.2f s (%d frames, %@) in %.2f s (%.0f× real time), %d events\n",
                            report.seconds, report.frameCount, report.format.rawValue, report.wallSeconds,
                            report.seconds / max(report.wallSeconds, 1e-9), report.eventCount
                        ).utf8))
            }
        } catch {
            progress.finish()
            throw fail(error)
        }
    }
}

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Why is a session ducked, silent or paused? Every session's state at a moment of a scene, and the events that put it there.")

    @Argument(help: "The scene file.")
    var scene: String

    @Option(help: "The moment, in seconds from the start (events at that time included).")
    var at: Double

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        do {
            let s = try SceneRenderer.loadScene(path: scene)
            let e = try Explanation.explain(scene: s, at: at)
            print(json ? JSONWriter.string(e.json) : e.text, terminator: json ? "\n" : "")
        } catch {
            throw fail(error)
        }
    }
}

/// A one-line progress bar on stderr, shown only once a render has taken more than a second.
final class ProgressBar {
    let enabled: Bool
    let start = Date()
    var lastDraw = Date.distantPast
    var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(start) > 1, now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        drawn = true
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data(String(format: "\rrendering [%@] %3.0f%%", bar, fraction * 100).utf8))
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}

TuttiCommand.main()
