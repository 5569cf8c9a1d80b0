/// Where a `renderFile` job is, for a progress display. Value type: passed on the job's thread.
public enum RenderProgress: Sendable, Equatable {
    /// Loading audio files: `done` of `total` distinct files are loaded; `file` (as the scene
    /// names it) is the one being loaded now, or the last one when `done == total`.
    case loading(done: Int, total: Int, file: String)
    /// Rendering: the fraction of the output frames written, 0…1.
    case rendering(fraction: Double)
}
