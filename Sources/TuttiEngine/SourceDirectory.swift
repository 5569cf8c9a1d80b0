import Synchronization

/// What a write through the `SourceDirectory` did. Value type: any thread.
public enum StreamWriteOutcome: Equatable, Sendable {
    /// Whole frames taken (fewer than offered when the ring is full; 0 too).
    case written(frames: Int)
    /// The id names no live source (never added, removed, or its slot reused).
    case notFound
    /// The source is live but neither a stream nor an input.
    case notWritable
    /// The sample count is not whole frames of the source's `channelCount`.
    case partialFrame(channelCount: Int)
    /// The stream was ended (`StreamSource.end()`): it takes no more frames.
    case ended
}

/// The lock-free way from a source id to its data path, for the threads that feed streams and
/// inputs and read their status: a fixed table of one entry per source slot, published by the
/// control side (`Engine`) and read with atomics only — no lock, no allocation, no system call.
///
/// Each entry holds the raw id of the slot's live source (0: none), the count of threads inside
/// a write on that slot, and the stream or input it writes to (a retained reference, tagged by
/// kind). A writer announces itself, then checks the id; the control side, having revoked the
/// id, releases the object only once no writer is inside (else later, from `Engine`'s next
/// drain), so a writer never touches freed memory and the last release never happens on a
/// producer (possibly real-time) thread.
///
/// Thread: `write` and `isLive` from any thread; `publish`, `revoke` and `takeObject` from the
/// control thread (the one `Engine` serialises).
public final class SourceDirectory: @unchecked Sendable { // render-side memory: slots of atomics and writer counts
    // @unchecked: `entries` is raw memory holding only `Atomic` values; every access is an
    // atomic operation, and the memory lives as long as the directory.
    struct Entry: ~Copyable {
        let liveID = Atomic<UInt64>(0)
        let writers = Atomic<Int>(0)
        let object = Atomic<UInt>(0)
    }

    private let entries: UnsafeMutablePointer<Entry>
    /// Entries: the engine's `maxSources`.
    public let count: Int

    /// Tag in the low bit of `object`: an `InputSource` (else a `StreamSource`).
    private static let inputTag: UInt = 1

    init(count: Int) {
        self.count = count
        entries = .allocate(capacity: count)
        for i in 0..<count { (entries + i).initialize(to: Entry()) }
    }

    deinit {
        for i in 0..<count {
            let bits = entries[i].object.load(ordering: .relaxed)
            if bits != 0 { Self.release(bits) }
        }
        entries.deinitialize(count: count)
        entries.deallocate()
    }

    private static func release(_ bits: UInt) {
        guard let raw = UnsafeRawPointer(bitPattern: bits & ~inputTag) else { return }
        Unmanaged<AnyObject>.fromOpaque(raw).release()
    }

    /// Control thread: `id` is live in its slot; `object` (a `StreamSource` or `InputSource`,
    /// nil for other kinds) is what writes to it reach. The slot must be empty (taken back).
    func publish(_ id: SourceID, object: AnyObject?) {
        let entry = entries + id.slot
        var bits: UInt = 0
        if let stream = object as? StreamSource {
            bits = UInt(bitPattern: Unmanaged.passRetained(stream as AnyObject).toOpaque())
        } else if let input = object as? InputSource {
            bits = UInt(bitPattern: Unmanaged.passRetained(input as AnyObject).toOpaque()) | Self.inputTag
        }
        entry.pointee.object.store(bits, ordering: .sequentiallyConsistent)
        entry.pointee.liveID.store(id.rawValue, ordering: .sequentiallyConsistent)
    }

    /// Control thread: `slot`'s source is stale from now on (writes and reads say `notFound`).
    func revoke(slot: Int) {
        entries[slot].liveID.store(0, ordering: .sequentiallyConsistent)
    }

    /// Control thread, once the render side gave the slot back: detach its object. Returns it
    /// (to release now) when no writer is inside, or the bits to release later with
    /// `releaseIfUnused(slot:bits:)`.
    func takeObject(slot: Int) -> (bits: UInt, unused: Bool) {
        let bits = entries[slot].object.exchange(0, ordering: .sequentiallyConsistent)
        return (bits, entries[slot].writers.load(ordering: .sequentiallyConsistent) == 0)
    }

    /// Control thread: release an object detached from `slot` if no writer is inside the slot
    /// now; false (keep it for later) otherwise.
    func releaseIfUnused(slot: Int, bits: UInt) -> Bool {
        guard entries[slot].writers.load(ordering: .sequentiallyConsistent) == 0 else { return false }
        Self.release(bits)
        return true
    }

    /// Control thread: release detached bits now (no writer can reach them).
    func releaseNow(_ bits: UInt) { Self.release(bits) }

    /// Any thread: whether `id` names a live source. No lock, no allocation.
    public func isLive(_ id: SourceID) -> Bool {
        let slot = id.slot
        guard slot >= 0, slot < count else { return false }
        return entries[slot].liveID.load(ordering: .acquiring) == id.rawValue
    }

    /// Any thread, one producer per source at a time (the ring's single producer): append
    /// `count` interleaved samples (whole frames) to the stream or input `id` — or `count`
    /// whole frames of its channel count when `countIsFrames`. No lock, no allocation, no
    /// system call: safe on a real-time thread.
    public func write(_ id: SourceID, _ samples: UnsafePointer<Float>, count: Int, countIsFrames: Bool = false) -> StreamWriteOutcome {
        let slot = id.slot
        guard slot >= 0, slot < self.count else { return .notFound }
        let entry = entries + slot
        entry.pointee.writers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { entry.pointee.writers.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        guard entry.pointee.liveID.load(ordering: .sequentiallyConsistent) == id.rawValue else { return .notFound }
        let bits = entry.pointee.object.load(ordering: .sequentiallyConsistent)
        guard let raw = UnsafeRawPointer(bitPattern: bits & ~Self.inputTag) else {
            // Live with no data path: another kind of source, or detached in the meantime.
            return entry.pointee.liveID.load(ordering: .sequentiallyConsistent) == id.rawValue ? .notWritable : .notFound
        }
        let object = Unmanaged<AnyObject>.fromOpaque(raw)
        if bits & Self.inputTag != 0 {
            return object._withUnsafeGuaranteedRef { ref in
                let input = unsafeDowncast(ref, to: InputSource.self)
                let sampleCount = countIsFrames ? count &* input.channelCount : count
                guard sampleCount % input.channelCount == 0 else { return .partialFrame(channelCount: input.channelCount) }
                return .written(frames: input.write(UnsafeBufferPointer(start: samples, count: sampleCount)))
            }
        }
        return object._withUnsafeGuaranteedRef { ref in
            let stream = unsafeDowncast(ref, to: StreamSource.self)
            if stream.isEnded { return .ended }
            let sampleCount = countIsFrames ? count &* stream.channelCount : count
            guard sampleCount % stream.channelCount == 0 else { return .partialFrame(channelCount: stream.channelCount) }
            return .written(frames: stream.write(UnsafeBufferPointer(start: samples, count: sampleCount)))
        }
    }
}
