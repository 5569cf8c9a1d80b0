import Foundation
import TuttiDSP

extension OfflineRenderer {
    /// Read, render and write: the whole `tutti render` job. The WAV, the events log and the
    /// timeline picture (`plotPath`: `.svg` or `.html`) go to temporary files that replace the
    /// destinations only when everything succeeded; a bad picture path fails before rendering.
    /// `progress` hears about each audio file as it is loaded, then about the render.
    /// `format` and `resampler`, when given, override the scene's `engine.output` and
    /// `engine.resampler`. `busOutputs` names the WAV of each output bus past main
    /// (`engine.outputBuses`): every such bus needs one, and each names a bus — otherwise a
    /// `BusOutputError` before anything is written. All WAVs have the same length and are
    /// sample-aligned. `inputs` feeds input sources from files (`--input ID=FILE`;
    /// `InputArgumentError` for an unknown or non-input source, `SceneError` naming a file
    /// that cannot be read or has the wrong channel count); an input without a file captures
    /// silence and `notice` hears about it once. Sessions' `recordTo` recordings are written
    /// with the output, into place only on success. The report measures the output's peak and
    /// its samples beyond full scale (`OutputLevels`), over every output written. Control side
    /// (the calling thread does all of it). The scene's `warnings` (deprecated keys) go to
    /// `warning`, one line each, before anything is rendered.
    public static func renderFile(
        scenePath: String, outputPath: String, eventsPath: String?,
        format: SampleFormat?, resampler: ResamplerQuality? = nil, plotPath: String? = nil,
        busOutputs: [(bus: String, path: String)] = [],
        inputs inputFiles: [(source: String, path: String)] = [], allowWritesAnywhere: Bool = false,
        notice: (String) -> Void = { _ in }, warning: (String) -> Void = { _ in },
        progress: @escaping (RenderProgress) -> Void = { _ in }
    ) throws -> RenderReport {
        let started = Date()
        let plotFormat = try plotPath.map { try TimelineFormat(path: $0) }
        var scene = try loadScene(path: scenePath)
        for line in scene.warnings { warning(line) }
        if !allowWritesAnywhere {
            try scene.checkWritesConfined(outputDirectory: (outputPath as NSString).deletingLastPathComponent)
        }
        if let resampler { scene.engine.resampler = resampler }
        if let eventsPath, eventsPath == outputPath { throw SceneError(eventsPath, "the events log and the WAV output are the same file") }
        if let plotPath, plotPath == outputPath || plotPath == eventsPath {
            throw SceneError(plotPath, "the timeline picture and another output are the same file")
        }
        let busPaths = try busOutputPaths(busOutputs, buses: scene.engine.outputBuses, scenePath: scenePath)
        let loader = AudioLoader(scene: scene)
        loader.progress = progress
        let renderer = try OfflineRenderer(scene: scene, audio: loader)
        var given: Set<String> = []
        for (source, path) in inputFiles {
            guard given.insert(source).inserted else { throw InputArgumentError(description: "--input \(source) is given twice") }
            try renderer.feedInput(source, file: path)
        }
        for name in renderer.inputSourceNames where !given.contains(name) {
            notice("input \"\(name)\" has no --input \(name)=FILE.wav: it captures silence")
        }
        if plotPath != nil { try renderer.recordTimeline() }
        let loaded = Date()
        let sampleFormat = format ?? scene.engine.output
        let writer = try AtomicWAVWriter(
            path: outputPath, sampleRate: scene.engine.sampleRate,
            channelCount: scene.engine.channelCount, format: sampleFormat, frameCount: renderer.totalFrames)
        var busWriters: [AtomicWAVWriter] = []
        // Each session's recording, written like the output: into place only on success.
        var recordings: [AtomicWAVWriter] = []
        do {
            for path in busPaths {
                busWriters.append(
                    try AtomicWAVWriter(
                        path: path, sampleRate: scene.engine.sampleRate, channelCount: scene.engine.channelCount, format: sampleFormat,
                        frameCount: renderer.totalFrames))
            }
            for s in scene.sessions {
                guard let file = scene.recordTo[s.id], let input = renderer.inputs.first(where: { $0.session == s.id }) else { continue }
                let path = scene.resolve(file)
                if path == outputPath || path == eventsPath || path == plotPath || busPaths.contains(path) {
                    throw SceneError(path, "session \"\(s.id)\" records to the same file as another output")
                }
                let recording = try AtomicWAVWriter(
                    path: path, sampleRate: scene.engine.sampleRate, channelCount: input.source.channelCount, format: sampleFormat,
                    frameCount: renderer.totalFrames)
                recordings.append(recording)
                renderer.record(session: s.id, file: file) { try recording.write($0) }
            }
        } catch {
            writer.discard()
            for w in busWriters { w.discard() }
            for r in recordings { r.discard() }
            throw error
        }
        let eventsWriter = try eventsPath.map { try AtomicTextWriter(path: $0) }
        let plotWriter = try plotPath.map { try AtomicTextWriter(path: $0) }
        var levels = OutputLevels()
        do {
            try renderer.render(
                progress: { progress(.rendering(fraction: $0)) },
                busSink: {
                    levels.measure($1)
                    try busWriters[$0 - 1].write($1)
                },
                sink: {
                    levels.measure($0)
                    try writer.write($0)
                })
            if let eventsWriter {
                for e in renderer.journal { eventsWriter.append(e.jsonLine + "\n") }
                try eventsWriter.prepare()
            }
            if let plotWriter, let plotFormat, let timeline = renderer.timeline(title: (scenePath as NSString).lastPathComponent) {
                let picture = TimelineSVG(timeline)
                plotWriter.append(plotFormat == .svg ? picture.svg() : picture.html())
                try plotWriter.prepare()
            }
            // All into place, or none if the process is stopped meanwhile.
            try TemporaryFiles.together { held in
                try writer.commit(in: &held)
                for w in busWriters { try w.commit(in: &held) }
                for r in recordings { try r.commit(in: &held) }
                try eventsWriter?.commit(in: &held)
                try plotWriter?.commit(in: &held)
            }
        } catch {
            writer.discard()
            for w in busWriters { w.discard() }
            for r in recordings { r.discard() }
            eventsWriter?.discard()
            plotWriter?.discard()
            throw error
        }
        let finished = Date()
        return RenderReport(
            frameCount: Int(renderer.totalFrames), seconds: scene.duration,
            wallSeconds: finished.timeIntervalSince(started), loadSeconds: loaded.timeIntervalSince(started),
            renderSeconds: finished.timeIntervalSince(loaded), format: sampleFormat, container: writer.container,
            eventCount: renderer.journal.count, files: loader.report, levels: levels)
    }
}

/// A `--bus-output` that names no output bus of the scene, or an output bus of the scene
/// that has no `--bus-output`: a usage error (nothing is rendered or written). Value type: any thread.
public struct BusOutputError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, naming the output bus.
    public let description: String
}

/// The old name of `BusOutputError`.
@available(*, deprecated, renamed: "BusOutputError")
public typealias RouteOutputError = BusOutputError

extension OfflineRenderer {
    /// The output path of each output bus past main, in bus order.
    static func busOutputPaths(_ outputs: [(bus: String, path: String)], buses: [String], scenePath: String) throws -> [String] {
        for o in outputs where !buses.dropFirst().contains(o.bus) {
            throw BusOutputError(
                description: "--bus-output \(o.bus)=\(o.path): the scene has no output bus \"\(o.bus)\" besides main "
                    + "(engine.outputBuses: \(buses.joined(separator: ", ")))")
        }
        return try buses.dropFirst().map { name in
            guard let o = outputs.first(where: { $0.bus == name }) else {
                throw BusOutputError(description: "output bus \"\(name)\" of \(scenePath) has no output: add --bus-output \(name)=FILE.wav")
            }
            return o.path
        }
    }

    /// `renderFile` with the output buses' WAVs under their old parameter name. Control side.
    @available(
        *, deprecated,
        renamed:
            "renderFile(scenePath:outputPath:eventsPath:format:resampler:plotPath:busOutputs:inputs:allowWritesAnywhere:notice:warning:progress:)"
    )
    public static func renderFile(
        scenePath: String, outputPath: String, eventsPath: String?,
        format: SampleFormat?, resampler: ResamplerQuality? = nil, plotPath: String? = nil,
        routeOutputs: [(route: String, path: String)],
        inputs inputFiles: [(source: String, path: String)] = [], allowWritesAnywhere: Bool = false,
        notice: (String) -> Void = { _ in }, progress: @escaping (RenderProgress) -> Void = { _ in }
    ) throws -> RenderReport {
        try renderFile(
            scenePath: scenePath, outputPath: outputPath, eventsPath: eventsPath, format: format, resampler: resampler,
            plotPath: plotPath, busOutputs: routeOutputs.map { (bus: $0.route, path: $0.path) }, inputs: inputFiles,
            allowWritesAnywhere: allowWritesAnywhere, notice: notice, progress: progress)
    }
}
