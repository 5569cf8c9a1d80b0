import Synchronization

/// Where a source is in its life, as the render side last published it. The raw values are
/// the C ABI's `TUTTI_SOURCE_*`. Value type: any thread.
public enum PlaybackState: Int32, Sendable, CaseIterable {
    /// Not playing, at its start (new, stopped, or rewound).
    case stopped = 0
    /// Advancing (heard unless its session is silenced, ducked to silence or gated).
    case playing = 1
    /// Not playing, holding a position past its start.
    case paused = 2
    /// Played past its last frame (not looping, or its loop count ran out); rewound, waiting for the next play.
    case ended = 3
}

/// What the render side last published about one source. Value type: any thread.
public struct SourceStatus: Hashable, Sendable {
    /// The state at the end of the last rendered block.
    public var state: PlaybackState
    /// Frames played since the last rewind, at the engine rate.
    public var position: Int64
    /// Stream and streaming-file sources: frames rendered with no data (silence).
    public var underrunFrames: Int64

    /// A source that has not been rendered yet: stopped at 0.
    public static let initial = SourceStatus(state: .stopped, position: 0, underrunFrames: 0)
}

/// Render → control publication of per-source status and engine counters, race-free.
///
/// Each source slot is a seqlock (a sequence number that is odd while the render thread writes
/// the fields) over atomic fields, so a reader on any thread gets the fields of one publication
/// together, and tools like TSan see no data race. Readers retry while a write is in progress
/// (it is a few stores long).
///
/// A slot is written only when something a reader would see changed. A playing source's
/// position is published with the engine frame it held at (`frame`); a reader adds the frames
/// rendered since (the engine clock, `framesRendered`, read inside the same seqlock check). So
/// the render thread, once per render call, writes the slot of a playing source only when its
/// position moved other than frame for frame with the clock (a wrap, a seek, a rate, an
/// underrun) or its state or underrun count changed: a source that plays steadily costs no
/// seqlock write, and readers still get the position at the end of the last rendered block.
///
/// Thread: `publish…` on the render thread only; `read…` and the counters on any thread.
/// The control side owns the memory (`deallocate`).
@usableFromInline struct StatusBoard: @unchecked Sendable { // render-side memory: seqlock slots
    /// Per slot: sequence, id (raw), state, position, underrun frames (published together);
    /// then the underrun report's state: reported and not yet acknowledged by the control side
    /// (5), the total seen at the last publish (6, render side only), whether the last publish
    /// saw it grow (7, render side only); then the engine frame the position held at (8,
    /// published with 1–4). Padded to 16 fields (two cache lines).
    @inlinable static var fieldsPerSlot: Int { 16 }
    @usableFromInline let slots: Int
    @usableFromInline let storage: UnsafeMutablePointer<Atomic<Int64>>
    /// Engine counters: frames rendered, commands applied, events dropped (stays 0).
    @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int64>>

    init(slots: Int) {
        self.slots = slots
        let n = slots * StatusBoard.fieldsPerSlot
        storage = .allocate(capacity: n)
        for i in 0..<n { (storage + i).initialize(to: Atomic(0)) }
        counters = .allocate(capacity: 3)
        for i in 0..<3 { (counters + i).initialize(to: Atomic(0)) }
    }

    func deallocate() {
        storage.deallocate()
        counters.deallocate()
    }

    @inlinable @inline(__always) @_noLocks func field(_ slot: Int, _ k: Int) -> UnsafeMutablePointer<Atomic<Int64>> {
        storage + (slot &* StatusBoard.fieldsPerSlot &+ k)
    }

    /// Frames rendered so far: the engine clock.
    @inlinable var framesRendered: UnsafeMutablePointer<Atomic<Int64>> { @_noLocks get { counters } }
    /// Commands applied by the render side (taken off the pending heap) so far.
    @inlinable var commandsApplied: UnsafeMutablePointer<Atomic<Int64>> { @_noLocks get { counters + 1 } }
    /// Events the render side could not report (a bug if ever non-zero: the ring is sized so it cannot fill).
    @inlinable var eventsDropped: UnsafeMutablePointer<Atomic<Int64>> { @_noLocks get { counters + 2 } }

    /// Render thread: publish one slot: `position` as of engine frame `frame` (a playing
    /// source's readers add the frames rendered since; see the type's comment). Before
    /// `framesRendered` is stored for the same render call.
    @inlinable @inline(__always) @_noLocks
    func publish(slot: Int, id: UInt64, state: PlaybackState, position: Int64, underrunFrames: Int64, frame: Int64) {
        let seq = field(slot, 0)
        let s = seq.pointee.load(ordering: .relaxed)
        seq.pointee.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        field(slot, 1).pointee.store(Int64(bitPattern: id), ordering: .relaxed)
        field(slot, 2).pointee.store(Int64(state.rawValue), ordering: .relaxed)
        field(slot, 3).pointee.store(position, ordering: .relaxed)
        field(slot, 4).pointee.store(underrunFrames, ordering: .relaxed)
        field(slot, 8).pointee.store(frame, ordering: .relaxed)
        seq.pointee.store(s &+ 2, ordering: .releasing)
    }

    /// Render thread: a new source in `slot` (no underrun seen, none being reported).
    @inlinable @inline(__always) @_noLocks
    func resetUnderruns(slot: Int) {
        field(slot, 6).pointee.store(0, ordering: .relaxed)
        field(slot, 7).pointee.store(0, ordering: .relaxed)
    }

    /// Render thread, once per render call: `total` underrun frames so far. Returns the frames
    /// missed in this call when a run of underruns begins in it (the previous call had none)
    /// and no report of the slot awaits the control side's acknowledgement — the caller then
    /// reports it; else 0.
    @inlinable @inline(__always) @_noLocks
    func noteUnderruns(slot: Int, total: Int64) -> Int64 {
        let seen = field(slot, 6).pointee.load(ordering: .relaxed)
        guard total != seen else {
            field(slot, 7).pointee.store(0, ordering: .relaxed)
            return 0
        }
        field(slot, 6).pointee.store(total, ordering: .relaxed)
        let wasGrowing = field(slot, 7).pointee.exchange(1, ordering: .relaxed) != 0
        guard !wasGrowing, total > seen else { return 0 }
        // One report at a time per slot: the control side clears the flag as it takes it.
        guard field(slot, 5).pointee.exchange(1, ordering: .acquiringAndReleasing) == 0 else { return 0 }
        return total &- seen
    }

    /// Control thread: the underrun report of `slot` was taken; the next run may be reported.
    func acknowledgeUnderrun(slot: Int) {
        guard slot >= 0, slot < slots else { return }
        field(slot, 5).pointee.store(0, ordering: .releasing)
    }

    /// Any thread: the status last published for `id`, or nil when the slot holds another
    /// source (not installed yet, or already gone). A playing source's position is the one
    /// published plus the frames rendered since it was (the render side publishes again as
    /// soon as that would be wrong), so it is the position at the end of the last rendered
    /// block.
    func read(_ id: SourceID) -> SourceStatus? {
        let slot = id.slot
        guard slot >= 0, slot < slots else { return nil }
        let seq = field(slot, 0)
        while true {
            let s1 = seq.pointee.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            let raw = UInt64(bitPattern: field(slot, 1).pointee.load(ordering: .relaxed))
            let state = field(slot, 2).pointee.load(ordering: .relaxed)
            var position = field(slot, 3).pointee.load(ordering: .relaxed)
            let underruns = field(slot, 4).pointee.load(ordering: .relaxed)
            let frame = field(slot, 8).pointee.load(ordering: .relaxed)
            // The clock is stored after every slot of its render call: a clock from a later
            // call than this publication comes with a changed sequence if the slot changed.
            let clock = framesRendered.pointee.load(ordering: .acquiring)
            atomicMemoryFence(ordering: .acquiring)
            guard seq.pointee.load(ordering: .relaxed) == s1 else { continue }
            guard raw == id.rawValue else { return nil }
            let playback = PlaybackState(rawValue: Int32(truncatingIfNeeded: state)) ?? .stopped
            // Published during a render call whose clock is not stored yet: as published.
            if playback == .playing, clock > frame { position &+= clock &- frame }
            return SourceStatus(state: playback, position: position, underrunFrames: underruns)
        }
    }
}
