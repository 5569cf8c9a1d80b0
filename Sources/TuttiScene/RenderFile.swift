import Foundation
import TuttiDSP

/// What a finished render did.
public struct RenderReport: Sendable {
    public var frameCount: Int
    public var seconds: Double
    public var wallSeconds: Double
    public var format: SampleFormat
    public var eventCount: Int
}

extension SceneRenderer {
    /// Read, render and write: the whole `tutti render` job. The WAV and the events log go to
    /// temporary files that replace the destinations only when everything succeeded.
    public static func renderFile(
        scenePath: String, outputPath: String, eventsPath: String?,
        format: SampleFormat?, progress: (Double) -> Void = { _ in }
    ) throws -> RenderReport {
        let started = Date()
        let scene = try loadScene(path: scenePath)
        if let eventsPath, eventsPath == outputPath { throw SceneError(eventsPath, "the events log and the WAV output are the same file") }
        let renderer = try SceneRenderer(scene: scene)
        let sampleFormat = format ?? scene.engine.output
        let writer = try AtomicWAVWriter(
            path: outputPath, sampleRate: scene.engine.sampleRate,
            channelCount: scene.engine.channelCount, format: sampleFormat, frameCount: renderer.totalFrames)
        let eventsWriter = try eventsPath.map { try AtomicTextWriter(path: $0) }
        do {
            try renderer.render(progress: progress) { try writer.write($0) }
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
        return RenderReport(
            frameCount: Int(renderer.totalFrames), seconds: scene.duration,
            wallSeconds: Date().timeIntervalSince(started), format: sampleFormat,
            eventCount: renderer.journal.count)
    }
}
