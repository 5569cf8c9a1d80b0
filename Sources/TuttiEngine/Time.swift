/// When a change happens, on the engine's one clock: frames at the engine's sample rate,
/// frame 0 being the first frame ever rendered. Value type: any thread.
public enum EngineTime: Hashable, Sendable {
    /// The first frame of the next block rendered. A `.now` change never waits behind changes
    /// scheduled earlier for later frames; changes for the same frame apply in the order made.
    case now
    /// Exactly at this frame. A frame already rendered counts as `.now`.
    case frame(Int64)

    /// The frame to stamp on a command (`-1`: now).
    @inlinable var commandFrame: Int64 {
        switch self {
        case .now: -1
        case .frame(let f): max(f, -1)
        }
    }
}
