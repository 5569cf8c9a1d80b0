import Tutti
import TuttiDSP

/// A scene prepared for live playback: `engine` holds the scene's graph (the same sources
/// and buses, with the same ids, as an offline render), and `timeline` every command the
/// offline render sends, recorded from a shadow render done at creation. Queuing the
/// timeline ahead of the render thread (`schedule(through:)`) makes the live output equal
/// to `tutti render` sample for sample, whatever the backend's period size: the renderer
/// applies each command at its frame.
///
/// Thread: the control thread calls `schedule` and `pollEvents`; the render thread (a
/// backend) calls `engine.render(into:frameCount:)`.
public final class ScenePlayback {
    /// The scene played.
    public let scene: Scene
    /// The engine holding the scene's graph: a backend renders it.
    public let engine: Engine
    /// In non-decreasing frame order.
    package let timeline: [(frame: Int64, command: EngineCommand)]
    /// The policy journal of the scene (what `--events` writes).
    public let journal: [LogEntry]
    /// The scene's length in output frames.
    public var totalFrames: Int64 { Int64(scene.durationFrames) }
    /// The audio files loaded for it: each once, for both the shadow and the live render.
    public let loading: AudioLoadReport
    /// Index of the next timeline command to queue.
    public private(set) var nextCommand = 0
    private let live: SceneRenderer

    /// Loads the scene's files (once), records the timeline with a shadow render and builds
    /// the live graph. Errors name the scene place and the file. Control thread.
    public init(scene: Scene) throws {
        self.scene = scene
        // One loader: each file is decoded and converted once for both renderers.
        let audio = AudioLoader(scene: scene)
        let shadow = try SceneRenderer(scene: scene, audio: audio)
        shadow.recordsCommands = true
        try shadow.render { _ in }
        timeline = shadow.recordedCommands
        journal = shadow.journal
        live = try SceneRenderer(scene: scene, audio: audio)
        engine = live.engine
        loading = audio.report
    }

    /// Queue every timeline command with a frame before `frame` that fits in the command
    /// ring. Returns the number queued; commands that did not fit go on the next call.
    @discardableResult
    public func schedule(through frame: Int64) -> Int {
        var queued = 0
        while nextCommand < timeline.count, timeline[nextCommand].frame < frame {
            let c = timeline[nextCommand]
            do { try engine.send(c.command, at: .frame(c.frame)) } catch { break }
            nextCommand += 1
            queued += 1
        }
        return queued
    }

    /// Streaming file sources of the live render and the frames they rendered with no data
    /// (underruns), summed, as last published. Control thread.
    public var fileStreamUnderruns: (sourceCount: Int, underrunFrames: Int64) {
        var count = 0
        var frames: Int64 = 0
        for id in live.sourceIDsInUse where engine.fileStream(id) != nil {
            count += 1
            frames += engine.status(id)?.underrunFrames ?? 0
        }
        return (count, frames)
    }

    /// True once every command has been queued.
    public var isFullyScheduled: Bool { nextCommand == timeline.count }
    /// The first frame a backend must not render yet: the frame of the first command not
    /// queued (Int64.max once all are). A backend's `renderHorizon`.
    public var renderHorizon: Int64 { isFullyScheduled ? Int64.max : timeline[nextCommand].frame }

    /// Drain render-side reports (frees retired nodes); call it regularly from the control thread.
    @discardableResult
    public func pollEvents() -> [EngineEvent] {
        engine.pollEvents()
    }
}
