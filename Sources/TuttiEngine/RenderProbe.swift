import TuttiDSP

/// What the render side actually applied, for offline inspection (`tutti render --plot`):
/// per record of `intervalFrames` output frames, the gain each bus applied at the record's
/// last frame (gate × bus gain × duck × the volume of its class, the exact factor the mixer
/// multiplied with) and the output's peak (largest absolute sample, any channel); and the
/// gain reductions the render applied on top: per bus with a compressor in its effect chain
/// and for the master chain's compressors, and for main's limiter, the smallest linear gain
/// over the record (the largest reduction; compressor makeup not included).
///
/// Preallocated: `recordCapacity` records of `busSlots` gains; records past the capacity
/// are not kept. Attach it with `Engine.attachProbe(_:)` before rendering; the renderer then
/// fills it after every mixed chunk (no allocation; nothing at all when no probe is attached).
///
/// Thread: the render thread writes; read it after rendering, on the thread that rendered
/// (the offline loop) or after that thread stopped.
public final class RenderProbe: @unchecked Sendable { // render-side memory: written by the render thread only
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

    /// The compressor gain reduction of bus slot `bus` over record `record`: the smallest
    /// linear gain (≤ 1, the product over the chain's compressors, makeup not included) they
    /// applied in the chunks of the record; nil when that bus had no compressor then.
    public func compressorGain(record: Int, bus: Int) -> Float? {
        precondition(record >= 0 && record < recordCapacity && bus >= 0 && bus < busSlots)
        let g = storage.compressorGains[record * (busSlots + 1) + bus]
        return g.isNaN ? nil : g
    }

    /// The master chain's (`engine.effects`) compressor gain reduction over record `record`,
    /// as `compressorGain(record:bus:)`; nil when the engine has no master compressor.
    public func masterCompressorGain(record: Int) -> Float? {
        precondition(record >= 0 && record < recordCapacity)
        let g = storage.compressorGains[record * (busSlots + 1) + busSlots]
        return g.isNaN ? nil : g
    }

    /// The smallest linear gain (≤ 1) main's limiter applied in the chunks of record
    /// `record` (its largest gain reduction); nil when the engine has no limiter.
    public func limiterGain(record: Int) -> Float? {
        precondition(record >= 0 && record < recordCapacity)
        let g = storage.limiterGains[record]
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
    /// Per record × (bus slots + 1, the last: the master chain): the compressors' smallest
    /// gain (NaN: none); per record: the limiter's (NaN: none).
    @usableFromInline let compressorGains: UnsafeMutablePointer<Float>
    @usableFromInline let limiterGains: UnsafeMutablePointer<Float>
    @usableFromInline let recordCount: UnsafeMutablePointer<Int>

    init(intervalFrames: Int, recordCapacity: Int, busSlots: Int) {
        self.intervalFrames = intervalFrames
        self.recordCapacity = recordCapacity
        self.busSlots = busSlots
        peaks = .allocate(capacity: max(recordCapacity, 1))
        peaks.initialize(repeating: 0, count: max(recordCapacity, 1))
        gains = .allocate(capacity: max(recordCapacity * busSlots, 1))
        gains.initialize(repeating: .nan, count: max(recordCapacity * busSlots, 1))
        compressorGains = .allocate(capacity: max(recordCapacity * (busSlots + 1), 1))
        compressorGains.initialize(repeating: .nan, count: max(recordCapacity * (busSlots + 1), 1))
        limiterGains = .allocate(capacity: max(recordCapacity, 1))
        limiterGains.initialize(repeating: .nan, count: max(recordCapacity, 1))
        recordCount = .allocate(capacity: 1)
        recordCount.initialize(to: 0)
    }

    func deallocate() {
        peaks.deallocate()
        gains.deallocate()
        compressorGains.deallocate()
        limiterGains.deallocate()
        recordCount.deallocate()
    }
}

extension Renderer {
    /// Render thread, after a chunk of `n` frames starting at `framePosition` was mixed into
    /// `output`: fold its peak, the buses' gains and the chunk's gain reductions (compressors,
    /// main's limiter) into the probe's records.
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
            let reductions = p.compressorGains + record &* (p.busSlots &+ 1)
            if anyBusEffects {
                for b in 0..<min(busHighWater, p.busSlots) where busOccupied[b] {
                    guard let chain = busEffects[b], let g = chain.pointee.compressorGain else { continue }
                    foldSmallest(reductions + b, g)
                }
            }
            if let masterEffects, let g = masterEffects.pointee.compressorGain { foldSmallest(reductions + p.busSlots, g) }
            if let limiters { foldSmallest(p.limiterGains + record, limiters[0].smallestGain) }
            if record &+ 1 > p.recordCount.pointee { p.recordCount.pointee = record &+ 1 }
            offset &+= count
        }
    }
}

/// `slot` becomes the smaller of itself and `gain` (NaN: nothing yet, so `gain`). Render thread.
@inlinable @inline(__always) @_noLocks
func foldSmallest(_ slot: UnsafeMutablePointer<Float>, _ gain: Float) {
    let old = slot.pointee
    if old.isNaN || gain < old { slot.pointee = gain }
}
