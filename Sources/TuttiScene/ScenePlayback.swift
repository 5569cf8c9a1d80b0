import Tutti
import TuttiDSP
import TuttiEngine
import TuttiPolicy

/// A scene played live: `engine` holds the scene's graph (the same sources and buses, with
/// the same ids, as an offline render), and a shadow renderer runs the scene offline a
/// little ahead of it, deciding every policy action exactly as `tutti render` does (it hears
/// the render side's reports — a source that ended, a voice stolen — at their frames). Each
/// command the shadow sends is queued for the live engine at the same frame, so the live
/// output equals `tutti render` sample for sample, whatever the backend's period size.
/// Control lines (`apply`) go to the shadow at the first frame it has not decided yet and
/// reach the live engine the same way.
///
/// Thread: the control thread calls `schedule`, `apply` and `pollEvents`; the render thread
/// (a backend) calls `engine.render(into:frameCount:)` and must not render past
/// `renderHorizon`.
public final class ScenePlayback {
    /// The scene played. Control thread.
    public let scene: Scene
    /// The engine holding the scene's graph: a backend renders it.
    /// Control thread; a backend renders it on its render thread (see the type).
    public let engine: Engine
    /// The scene's length in output frames. Control thread.
    public var totalFrames: Int64 { Int64(scene.durationFrames) }
    /// The audio files loaded for it: each once, for both the shadow and the live render. Control thread.
    public let loading: AudioLoadReport
    /// The policy journal so far (what `--events` would write, plus the control lines'). Control thread.
    public var journal: [LogEntry] { shadow.journal }
    /// Frames the shadow has decided: commands for every frame before it are known. Control thread.
    public var decidedFrames: Int64 { shadow.framePosition }
    private let shadow: OfflineRenderer
    private let live: OfflineRenderer
    /// The live graph's renderer (its input sources are what a backend captures into).
    var liveRenderer: OfflineRenderer { live }
    /// The live graph's sessions that have output, in scene order: each its id, the slot of
    /// its engine bus and its effective media role (a stream per session). Control thread.
    package var sessionStreams: [(name: String, bus: BusID, mediaRole: MediaRole)] { live.system.sessionStreams() }
    /// Shadow commands queued for the live engine so far.
    private var forwarded = 0

    /// Loads the scene's files (once) and builds the shadow and the live graph. Errors name
    /// the scene place and the file. Control thread.
    public init(scene: Scene) throws {
        self.scene = scene
        // One loader: each file is decoded and converted once for both renderers.
        let audio = AudioLoader(scene: scene)
        shadow = try OfflineRenderer(scene: scene, audio: audio)
        shadow.recordsCommands = true
        live = try OfflineRenderer(scene: scene, audio: audio)
        engine = live.engine
        loading = audio.report
    }

    /// Let the shadow decide every frame before `frame` (and the events at it), and queue what
    /// it decided for the live engine, as much as fits in the command ring. Returns the number
    /// of commands queued; those that did not fit go on the next call. Control thread.
    @discardableResult
    public func schedule(through frame: Int64) throws -> Int {
        let target = min(frame, totalFrames)
        if target > shadow.framePosition || (target == totalFrames && !shadowFinished) {
            try shadow.render(through: target) { _ in }
            if target == totalFrames { shadowFinished = true }
        }
        return forward()
    }
    private var shadowFinished = false

    /// Apply a control line now: at the first frame the shadow has not decided (heard that
    /// far ahead of the live render). Returns the journal entries it made; throws for an
    /// unknown source or session (nothing changes). Control thread.
    public func apply(_ line: ControlLine) throws -> [LogEntry] {
        let entries = try shadow.applyNow(line.action)
        forward()
        return Array(entries)
    }

    @discardableResult
    private func forward() -> Int {
        let recorded = shadow.recordedCommands
        var queued = 0
        while forwarded < recorded.count {
            let c = recorded[forwarded]
            do { try engine.send(c.command, at: .frame(c.frame)) } catch { break }
            forwarded += 1
            queued += 1
        }
        return queued
    }

    /// True once the shadow reached the end and every command it sent has been queued. Control thread.
    public var isFullyScheduled: Bool { shadowFinished && forwarded == shadow.recordedCommands.count }
    /// The first frame a backend must not render yet: the frame of the first command not
    /// queued, else the first frame the shadow has not decided (Int64.max once all is
    /// decided and queued). A backend's `renderHorizon`. Control thread (which hands it to the backend).
    public var renderHorizon: Int64 {
        if isFullyScheduled { return Int64.max }
        let recorded = shadow.recordedCommands
        if forwarded < recorded.count { return min(recorded[forwarded].frame, shadow.framePosition) }
        return shadow.framePosition
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

    /// The now-playing session (the policy's rule 8: the one remote commands go to) as decided
    /// so far (up to the lookahead ahead of the output) and its status; nil: no session
    /// answers remote commands. Control thread.
    package var nowPlaying: (session: String, status: NowPlayingStatus)? { shadow.system.nowPlaying }

    /// Drain render-side reports (frees retired nodes); call it regularly from the control thread.
    @discardableResult
    public func pollEvents() -> [EngineEvent] {
        // Only the live engine's: the shadow drains its own (its policy must hear them).
        engine.pollEvents()
    }
}
