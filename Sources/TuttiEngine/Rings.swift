import Synchronization
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// Fixed-capacity single-producer / single-consumer rings.
///
/// `RingIndices` is the lock-free core (head/tail counters, no elements); the typed rings
/// (`CommandRing`, `EventRing`, `SampleRing`) are concrete, trivial values over it, so the
/// render thread uses them under `@_noLocks` even in debug builds, where generic code is not
/// specialized. Each ring has one owner object (`RingStorage`) on the control side that
/// frees the memory. Elements are trivial: nothing is retained or released across threads.
/// Thread: one producer thread and one consumer thread at a time, named on each method.
public struct RingIndices: @unchecked Sendable { // render-side memory: SPSC indices, atomics
    /// Next slot to read; written by the consumer only.
    @usableFromInline let head: UnsafeMutablePointer<Atomic<Int>>
    /// Next slot to write; written by the producer only.
    @usableFromInline let tail: UnsafeMutablePointer<Atomic<Int>>
    /// Slots in the ring: the requested capacity rounded up to a power of two.
    public let capacity: Int
    @usableFromInline let mask: Int

    init(capacity requested: Int) {
        var size = 1
        while size < requested { size <<= 1 }
        capacity = size
        mask = size - 1
        head = .allocateAtomic(0)
        tail = .allocateAtomic(0)
    }

    func destroy() {
        head.deallocateAtomic()
        tail.deallocateAtomic()
    }

    /// Producer: first free slot and how many are free from it (in ring order).
    @inlinable @inline(__always)
    public func writable() -> (start: Int, count: Int) {
        let t = tail.pointee.load(ordering: .relaxed)
        return (t, capacity &- (t &- head.pointee.load(ordering: .acquiring)))
    }

    /// Producer: publish `n` slots written from `writable().start`.
    @inlinable @inline(__always)
    public func publish(_ n: Int) { tail.pointee.store(tail.pointee.load(ordering: .relaxed) &+ n, ordering: .releasing) }

    /// Consumer: first filled slot and how many are filled.
    @inlinable @inline(__always) @_noLocks
    public func readable() -> (start: Int, count: Int) {
        let h = head.pointee.load(ordering: .relaxed)
        return (h, tail.pointee.load(ordering: .acquiring) &- h)
    }

    /// Consumer: release `n` slots read from `readable().start`.
    @inlinable @inline(__always) @_noLocks
    public func release(_ n: Int) { head.pointee.store(head.pointee.load(ordering: .relaxed) &+ n, ordering: .releasing) }

    /// Filled slots (exact when the other side is idle).
    @inlinable public var count: Int {
        @_noLocks get { readable().count }
    }
}

/// Owns a ring's memory; lives on the control side. The elements start on an
/// `audioBufferAlignment` boundary (`allocateAudio`): sample rings are audio buffers, and
/// command and event rings share the code.
final class RingStorage<Element>: @unchecked Sendable { // render-side memory: owns a ring's allocation
    let indices: RingIndices
    let elements: UnsafeMutablePointer<Element>

    init(capacity: Int) {
        precondition(capacity > 0 && _isPOD(Element.self), "rings hold trivial elements only")
        indices = RingIndices(capacity: capacity)
        elements = allocateAudio(Element.self, capacity: indices.capacity)
    }

    deinit {
        deallocateAudio(elements)
        indices.destroy()
    }
}

/// Control → render commands.
@usableFromInline struct CommandRing: @unchecked Sendable { // render-side memory: an SPSC ring
    @usableFromInline let indices: RingIndices
    @usableFromInline let elements: UnsafeMutablePointer<RenderCommand>

    init(_ storage: RingStorage<RenderCommand>) {
        indices = storage.indices
        elements = storage.elements
    }

    /// Producer (control thread): false when full.
    func push(_ command: RenderCommand) -> Bool {
        let w = indices.writable()
        guard w.count > 0 else { return false }
        (elements + (w.start & indices.mask)).initialize(to: command)
        indices.publish(1)
        return true
    }

    /// Consumer (render thread).
    @inlinable @inline(__always) @_noLocks
    func pop(into command: inout RenderCommand) -> Bool {
        let r = indices.readable()
        guard r.count > 0 else { return false }
        command = elements[r.start & indices.mask]
        indices.release(1)
        return true
    }
}

/// Render → control events.
@usableFromInline struct EventRing: @unchecked Sendable { // render-side memory: an SPSC ring
    @usableFromInline let indices: RingIndices
    @usableFromInline let elements: UnsafeMutablePointer<RenderEvent>

    init(_ storage: RingStorage<RenderEvent>) {
        indices = storage.indices
        elements = storage.elements
    }

    /// Producer (render thread): false when full.
    @inlinable @inline(__always) @_noLocks
    func push(_ event: RenderEvent) -> Bool {
        let w = indices.writable()
        guard w.count > 0 else { return false }
        (elements + (w.start & indices.mask)).initialize(to: event)
        indices.publish(1)
        return true
    }

    /// Consumer (control thread).
    func pop() -> RenderEvent? {
        let r = indices.readable()
        guard r.count > 0 else { return nil }
        let e = elements[r.start & indices.mask]
        indices.release(1)
        return e
    }
}

/// Interleaved samples from a producer thread to the render thread.
public struct SampleRing: @unchecked Sendable { // render-side memory: an SPSC ring
    /// The head/tail counters; capacity and fill level are read here (in samples).
    public let indices: RingIndices
    @usableFromInline let elements: UnsafeMutablePointer<Float>

    init(_ storage: RingStorage<Float>) {
        indices = storage.indices
        elements = storage.elements
    }

    /// Producer: copy up to `count` samples in; returns how many were stored.
    @inlinable @_noLocks
    public func write(from source: UnsafePointer<Float>, count: Int) -> Int {
        let w = indices.writable()
        let n = min(count, w.count)
        // At most two contiguous pieces (the ring wraps once).
        let first = w.start & indices.mask
        let head = min(n, indices.capacity &- first)
        let base = elements
        _unsafePerformance {
            _ = memcpy(base + first, source, head &* 4)
            if n > head { _ = memcpy(base, source + head, (n &- head) &* 4) }
        }
        indices.publish(n)
        return n
    }

    /// Producer: copy up to `frameCount` whole frames of `channelCount` samples in; returns
    /// the frames stored.
    @inlinable @_noLocks
    public func write(frames source: UnsafePointer<Float>, frameCount: Int, channelCount: Int) -> Int {
        let w = indices.writable()
        let take = min(frameCount, w.count / channelCount)
        return write(from: source, count: take &* channelCount) / channelCount
    }

    /// Producer: store up to `count` zero samples; returns how many were stored.
    @inlinable @_noLocks
    public func writeZeros(count: Int) -> Int {
        let w = indices.writable()
        let n = min(count, w.count)
        let first = w.start & indices.mask
        let head = min(n, indices.capacity &- first)
        (elements + first).update(repeating: 0, count: head)
        if n > head { elements.update(repeating: 0, count: n &- head) }
        indices.publish(n)
        return n
    }

    /// Consumer: the readable samples that are contiguous in memory (up to the wrap), to be
    /// read in place and then given back with `release`.
    @inlinable @_noLocks
    public func readableSpan() -> (pointer: UnsafePointer<Float>, count: Int) {
        let r = indices.readable()
        let first = r.start & indices.mask
        return (UnsafePointer(elements + first), min(r.count, indices.capacity &- first))
    }

    /// Consumer: `n` samples of `readableSpan()` have been used.
    @inlinable @_noLocks
    public func release(_ n: Int) { indices.release(n) }

    /// Consumer: copy up to `count` samples out (and release them); returns how many were
    /// copied.
    @inlinable @_noLocks
    public func read(into destination: UnsafeMutablePointer<Float>, count: Int) -> Int {
        var done = 0
        // At most two contiguous spans (the ring wraps once).
        while done < count {
            let span = readableSpan()
            let n = min(span.count, count &- done)
            if n == 0 { break }
            _unsafePerformance { _ = memcpy(destination + done, span.pointer, n &* 4) }
            release(n)
            done &+= n
        }
        return done
    }
}

/// A `SampleRing` with the memory it uses, for a producer and a consumer outside the engine
/// (a backend's feed from one real-time callback to another). The memory is freed when the
/// last reference goes: keep it while either side uses `ring`. Allocates: control thread.
public final class SampleRingBuffer: Sendable {
    private let storage: RingStorage<Float>
    /// The ring: a trivial value the producer and the consumer each keep a copy of.
    public let ring: SampleRing

    /// A ring of at least `capacity` samples (rounded up to a power of two). Control thread.
    public init(capacity: Int) {
        storage = RingStorage(capacity: capacity)
        ring = SampleRing(storage)
    }
}

extension UnsafeMutablePointer where Pointee == Atomic<Int> {
    /// One `Atomic<Int>` at a fixed address of its own (shared by reference between threads,
    /// reached from trivial values), starting at `value`. Freed by `deallocateAtomic()`.
    /// Control side.
    static func allocateAtomic(_ value: Int) -> Self {
        let p = Self.allocate(capacity: 1)
        p.initialize(to: Atomic(value))
        return p
    }

    /// Frees what `allocateAtomic(_:)` made. Control side, once no thread uses it.
    func deallocateAtomic() {
        deinitialize(count: 1)
        deallocate()
    }
}
