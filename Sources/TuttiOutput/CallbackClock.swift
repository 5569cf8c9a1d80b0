import Glibc
import Synchronization
import TuttiEngine

/// The engine clock of a backend whose server calls it each cycle (JACK's process callback,
/// PipeWire's process event): whether the callback renders, how many of a cycle's frames it
/// may render (the control side's horizon and the frame limit), the frames rendered and the
/// silence played for a late control thread, and the play-out at a drained stop. One per
/// output; the backend's real-time core holds it (a noncopyable value: its atomics live
/// inside the core, read in place, with no reference to count on the real-time thread).
///
/// Thread: `beginCycle`, `endCycle` and `countCycle` run on the server's real-time thread
/// (atomics only: no lock, allocation or system call); everything else on the control thread
/// or the output's supervisor.
public struct CallbackClock: ~Copyable, Sendable {
    /// What the callback does. An enum: it holds under @_noLocks on 6.3.1.
    public enum Phase: Int, AtomicRepresentable, Sendable {
        /// Silence, the engine does not advance: before the output is connected, while it
        /// reconnects.
        case idle
        /// Each cycle renders the engine (as far as the horizon and the frame limit allow).
        case rendering
        /// The frame limit was reached, or a drained stop began: silence from then on.
        case finished
    }

    /// What one cycle may render: `count` engine frames from `start` (0 when not rendering),
    /// out of `wanted` (the cycle's frames, less any past the frame limit). Value type.
    public struct Grant: Sendable {
        /// The engine frame the cycle starts at.
        public var start: Int64
        /// Frames to render now.
        public var count: Int
        /// Frames the cycle would render without the horizon; -1 when not rendering.
        public var wanted: Int64

        /// A grant of `count` frames from `start` out of `wanted`. Real-time thread.
        @inlinable public init(start: Int64, count: Int, wanted: Int64) {
            self.start = start
            self.count = count
            self.wanted = wanted
        }
    }

    /// What the callback does now.
    public let phase = Atomic<Phase>(.idle)
    /// Cycles run (any phase): the control side waits on it after connecting and at a drain.
    public let cycleCount = Atomic<Int64>(0)
    /// Engine frames rendered: the engine clock the control side schedules against.
    public let framesRendered = Atomic<Int64>(0)
    /// Frames at or past this one are not rendered (the control side moves it forward once
    /// every command before it is queued). Int64.max: no limit.
    public let horizon = Atomic<Int64>(Int64.max)
    /// Frames of silence played because the horizon held the engine back.
    public let lateFrames = Atomic<Int64>(0)
    /// Frames to render before finishing; negative: no limit. Set by the control thread
    /// before the output connects.
    public let frameLimit = Atomic<Int64>(-1)

    /// A clock at frame 0, idle, without limits. Control thread.
    public init() {}

    /// The frames a cycle of `frameCount` frames renders. Real-time thread.
    @inlinable @_noLocks public func beginCycle(frameCount: Int) -> Grant {
        let done = framesRendered.load(ordering: .relaxed)
        guard phase.load(ordering: .acquiring) == .rendering else { return Grant(start: done, count: 0, wanted: -1) }
        var wanted = Int64(frameCount)
        let limit = frameLimit.load(ordering: .relaxed)
        if limit >= 0 { wanted = min(wanted, limit &- done) }
        let allowed = max(0, min(wanted, horizon.load(ordering: .acquiring) &- done))
        return Grant(start: done, count: Int(allowed), wanted: wanted)
    }

    /// Whether a render of `frameCount` frames now would render them all (the horizon is far
    /// enough, or the frame limit comes first), or not rendering (nothing held back): for a
    /// render thread that can wait for the horizon instead of playing silence. Any thread.
    @inlinable @_noLocks public func mayRender(frameCount: Int) -> Bool {
        guard phase.load(ordering: .acquiring) == .rendering else { return true }
        let done = framesRendered.load(ordering: .acquiring)
        var wanted = Int64(frameCount)
        let limit = frameLimit.load(ordering: .relaxed)
        if limit >= 0 { wanted = min(wanted, max(limit &- done, 0)) }
        return horizon.load(ordering: .acquiring) &- done >= wanted
    }

    /// After the grant's frames were rendered: the clock moves on, a held-back cycle is
    /// counted late, the frame limit finishes. Real-time thread.
    @inlinable @_noLocks public func endCycle(_ grant: Grant) {
        guard grant.wanted >= 0 else { return }
        let allowed = Int64(grant.count)
        framesRendered.store(grant.start &+ allowed, ordering: .releasing)
        if allowed < grant.wanted { lateFrames.add(grant.wanted &- allowed, ordering: .relaxed) }
        let limit = frameLimit.load(ordering: .relaxed)
        if limit >= 0, grant.start &+ allowed >= limit { phase.store(.finished, ordering: .releasing) }
    }

    /// The cycle is over (whatever it played). Real-time thread.
    @inlinable @_noLocks public func countCycle() {
        cycleCount.add(1, ordering: .releasing)
    }

    /// A drained stop: rendering ends (silence from the next cycle on), then — unless the
    /// server is gone (`serverLost`) or nothing was rendered — waits for `playOutCycles`
    /// more cycles, so that what the server holds is heard, at most `timeoutSeconds`.
    /// Control thread.
    public func finishAndPlayOut(playOutCycles: Int64, serverLost: Bool, timeoutSeconds: Double = 1) {
        _ = phase.compareExchange(expected: .rendering, desired: .finished, ordering: .acquiringAndReleasing)
        guard phase.load(ordering: .acquiring) == .finished, !serverLost else { return }
        let target = cycleCount.load(ordering: .acquiring) + playOutCycles
        let deadline = monotonicSeconds() + timeoutSeconds
        while cycleCount.load(ordering: .acquiring) < target, monotonicSeconds() < deadline { usleep(1000) }
    }

    /// Cycles that play out `latencyFrames` (the server's or device's latency) at
    /// `cycleFrames` frames a cycle, plus the cycle in progress. Any thread.
    public static func playOutCycles(latencyFrames: Int, cycleFrames: Int) -> Int64 {
        let cycle = max(cycleFrames, 1)
        return Int64((latencyFrames + cycle - 1) / cycle + 1)
    }
}
