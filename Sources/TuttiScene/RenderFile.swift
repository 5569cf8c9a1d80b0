import Foundation
import TuttiDSP

extension SceneRenderer {
    /// Read, render and write: the whole `tutti render` job. The WAV and the events log go to
    /// temporary files that replace the destinations only when everything succeeded.
    /// `progress` hears about each audio file as it is loaded, then about the render.
    /// `format` and `resampler`, when given, override the scene's `engine.output` and
    /// `engine.resampler`. Control side (the calling thread does all of it).
    public static func renderFile(
        scenePath: String, outputPath: String, eventsPath: String?,
        format: SampleFormat?, resampler: ResamplerQuality? = nil, progress: @escaping (RenderProgress) -> Void = { _ in }
    ) throws -> RenderReport {
        let started = Date()
        var scene = try loadScene(path: scenePath)
        if let resampler { scene.engine.resampler = resampler }
        if let eventsPath, eventsPath == outputPath { throw SceneError(eventsPath, "the events log and the WAV output are the same file") }
        let loader = AudioLoader(scene: scene)
        loader.progress = progress
        let renderer = try SceneRenderer(scene: scene, audio: loader)
        let loaded = Date()
        let sampleFormat = format ?? scene.engine.output
        let writer = try AtomicWAVWriter(
            path: outputPath, sampleRate: scene.engine.sampleRate,
            channelCount: scene.engine.channelCount, format: sampleFormat, frameCount: renderer.totalFrames)
        let eventsWriter = try eventsPath.map { try AtomicTextWriter(path: $0) }
        do {
            try renderer.render(progress: { progress(.rendering(fraction: $0)) }, sink: { try writer.write($0) })
            if let eventsWriter {
                for e in renderer.journal { eventsWriter.append(e.jsonLine + "\n") }
                try eventsWriter.prepare()
            }
            // Both into place, or neither if the process is stopped meanwhile.
            try TemporaryFiles.together {
                try writer.commit()
                try eventsWriter?.commit()
            }
        } catch {
            writer.discard()
            eventsWriter?.discard()
            throw error
        }
        let finished = Date()
        return RenderReport(
            frameCount: Int(renderer.totalFrames), seconds: scene.duration,
            wallSeconds: finished.timeIntervalSince(started), loadSeconds: loaded.timeIntervalSince(started),
            renderSeconds: finished.timeIntervalSince(loaded), format: sampleFormat, container: writer.container,
            eventCount: renderer.journal.count, files: loader.report)
    }
}
