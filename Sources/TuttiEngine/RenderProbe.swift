/// What the render side actually applied, for offline inspection (`tutti render --plot`):
/// per record of `intervalFrames` output frames, the gain each bus applied at the record's
/// last frame (gate × bus gain × duck × the volume of its class, the exact factor the mixer
/// multiplied with) and the output's peak (largest absolute sample, any channel).
///
/// Preallocated: `recordCapacity` records of `busSlots` gains; records past the capacity
/// are not kept. Attach it with `Engine.attachProbe(_:)` before rendering; the renderer then
/// fills it after every mixed chunk (no allocation; nothing at all when no probe is attached).
///
/// Thread: the render thread writes; read it after rendering, on the thread that rendered
/// (the offline loop) or after that thread stopped.
public final class RenderProbe: @unchecked Sendable {
    /// Output frames per record.
    public let intervalFrames: Int
    /// Records it can hold.
    public let recordCapacity: Int
    /// Bus slots per record (`BusID.slot` indexes them).
    public let busSlots: Int
    let storage: ProbeStorage

    /// A probe for `recordCapacity` records of `intervalFrames` frames (≥ 1 each) and
    /// `busSlots` buses. Control thread.
    public init(intervalFrames: Int, recordCapacity: Int, busSlots: Int) {
        precondition(intervalFrames >= 1 && recordCapacity >= 0 && busSlots >= 0)
        self.intervalFrames = intervalFrames
        self.recordCapacity = recordCapacity
        self.busSlots = busSlots
        storage = ProbeStorage(intervalFrames: intervalFrames, recordCapacity: recordCapacity, busSlots: busSlots)
    }

    deinit { storage.deallocate() }

    /// Records written so far (the last record the renderer touched, plus one).
    public var recordCount: Int { storage.recordCount.pointee }

    /// The linear gain bus slot `bus` applied at the last frame of record `record`; nil when
    /// that slot held no bus then.
    public func gain(record: Int, bus: Int) -> Float? {
        precondition(record >= 0 && record < recordCapacity && bus >= 0 && bus < busSlots)
        let g = storage.gains[record * busSlots + bus]
        return g.isNaN ? nil : g
    }

    /// The output's peak (linear, ≥ 0) over record `record`.
    public func peak(record: Int) -> Float {
        precondition(record >= 0 && record < recordCapacity)
        return storage.peaks[record]
    }
}

/// The memory of a `RenderProbe`, as the render side holds it: pointers and sizes only (a
/// trivial value, so it travels in a command). Thread: see `RenderProbe`.
@usableFromInline struct ProbeStorage {
    @usableFromInline let intervalFrames: Int
    @usableFromInline let recordCapacity: Int
    @usableFromInline let busSlots: Int
    /// Per record: its peak; per record × bus slot: the gain (NaN: no bus).
    @usableFromInline let peaks: UnsafeMutablePointer<Float>
    @usableFromInline let gains: UnsafeMutablePointer<Float>
    @usableFromInline let recordCount: UnsafeMutablePointer<Int>

    init(intervalFrames: Int, recordCapacity: Int, busSlots: Int) {
        self.intervalFrames = intervalFrames
        self.recordCapacity = recordCapacity
        self.busSlots = busSlots
        peaks = .allocate(capacity: max(recordCapacity, 1))
        peaks.initialize(repeating: 0, count: max(recordCapacity, 1))
        gains = .allocate(capacity: max(recordCapacity * busSlots, 1))
        gains.initialize(repeating: .nan, count: max(recordCapacity * busSlots, 1))
        recordCount = .allocate(capacity: 1)
        recordCount.initialize(to: 0)
    }

    func deallocate() {
        peaks.deallocate()
        gains.deallocate()
        recordCount.deallocate()
    }
}

extension Renderer {
    /// Render thread, after a chunk of `n` frames starting at `framePosition` was mixed into
    /// `output`: fold its peak and the buses' gains into the probe's records.
    @inlinable @_noLocks
    func recordProbe(_ p: ProbeStorage, output: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        var offset = 0
        while offset < n {
            let frame = framePosition &+ Int64(offset)
            let record = Int(frame / Int64(p.intervalFrames))
            let recordEnd = Int64(record &+ 1) &* Int64(p.intervalFrames)
            let count = min(n &- offset, Int(recordEnd &- frame))
            if record >= p.recordCapacity { return }
            var peak = p.peaks[record]
            for k in (offset &* ch)..<((offset &+ count) &* ch) {
                let v = abs(output[k])
                if v > peak { peak = v }
            }
            p.peaks[record] = peak
            let last = offset &+ count &- 1
            let row = p.gains + record &* p.busSlots
            for b in 0..<min(busHighWater, p.busSlots) where busOccupied[b] {
                row[b] = busRamping[b] ? busGains[b &* busGainStride &+ last] : busScalar[b]
            }
            if record &+ 1 > p.recordCount.pointee { p.recordCount.pointee = record &+ 1 }
            offset &+= count
        }
    }
}
