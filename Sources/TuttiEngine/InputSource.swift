import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The control side of an input (capture) source: the host's capture thread — or the offline
/// driver — pushes interleaved frames at the engine rate into a lock-free ring; the render
/// thread takes exactly one frame per rendered frame from it, mixed to the output while the
/// source plays (monitoring, at the source's gain) and discarded while it does not (a
/// microphone is live: what it heard while paused is gone). With a tap, the render thread also
/// pushes what it captured into a second ring, time-aligned from the first captured frame:
/// the captured frames while playing, silence otherwise (paused, interrupted — a muted mic —,
/// inactive). A recorder thread drains the tap with `readRecorded`. Built by
/// `Engine.addSource(.input…)`.
///
/// Thread: one producer thread calls `write`; one consumer thread calls `readRecorded`;
/// the counters may be read from any thread. The engine keeps the object alive while the
/// render side uses its rings.
public final class InputSource: @unchecked Sendable { // render-side memory: SPSC rings and atomics
    /// Channels of the frames written and recorded (1 or 2).
    public let channelCount: Int
    /// Frames the capture ring holds.
    public let capacityFrames: Int
    /// Frames the tap ring holds (0: no tap).
    public let tapCapacityFrames: Int
    let storage: RingStorage<Float>
    let ring: SampleRing
    let tapStorage: RingStorage<Float>?
    let tapRing: SampleRing?
    /// Render-side counters: the engine frame of the first captured frame (-1 before), and
    /// tap frames dropped because the recorder did not keep up.
    let counters: UnsafeMutablePointer<Atomic<Int>>
    let droppedCounter: UnsafeMutablePointer<Atomic<Int>>

    init(channelCount: Int, capacityFrames: Int, tapCapacityFrames: Int) {
        self.channelCount = channelCount
        storage = RingStorage(capacity: capacityFrames * channelCount)
        ring = SampleRing(storage)
        self.capacityFrames = ring.indices.capacity / channelCount
        if tapCapacityFrames > 0 {
            let t = RingStorage<Float>(capacity: tapCapacityFrames * channelCount)
            tapStorage = t
            tapRing = SampleRing(t)
            self.tapCapacityFrames = t.indices.capacity / channelCount
        } else {
            tapStorage = nil
            tapRing = nil
            self.tapCapacityFrames = 0
        }
        counters = .allocateAtomic(-1)
        droppedCounter = .allocateAtomic(0)
    }

    deinit {
        counters.deallocateAtomic()
        droppedCounter.deallocateAtomic()
    }

    /// Producer thread: append whole interleaved frames (engine rate, `channelCount`
    /// channels); returns the number of frames taken (fewer when the ring is full).
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let frames = samples.count / channelCount
        let take = min(frames, ring.indices.writable().count / channelCount)
        return ring.write(from: base, count: take * channelCount) / channelCount
    }

    /// The capture ring itself, for a producer on a real-time thread (a backend's device or
    /// process callback: `write(frames:frameCount:channelCount:)` there takes no lock and
    /// touches no reference count). Valid while this object lives.
    public var captureRing: SampleRing { ring }

    /// Producer thread: append `frameCount` frames of silence; returns the frames taken.
    @discardableResult
    public func writeSilence(frameCount: Int) -> Int {
        let take = min(max(frameCount, 0), ring.indices.writable().count / channelCount)
        return ring.writeZeros(count: take * channelCount) / channelCount
    }

    /// Frames written and not yet taken by the render side.
    public var bufferedFrames: Int { ring.indices.count / channelCount }

    /// Consumer thread: move up to `output.count / channelCount` recorded frames (interleaved)
    /// into `output`; returns the frames moved. 0 without a tap.
    public func readRecorded(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let tap = tapRing, let base = output.baseAddress else { return 0 }
        let wanted = output.count / channelCount * channelCount
        var done = 0
        while done < wanted {
            let span = tap.readableSpan()
            let n = min(span.count, wanted - done)
            if n == 0 { break }
            (base + done).update(from: span.pointer, count: n)
            tap.release(n)
            done += n
        }
        return done / channelCount
    }

    /// Recorded frames waiting for `readRecorded`.
    public var recordedFrames: Int { (tapRing?.indices.count ?? 0) / channelCount }

    /// Any thread: the engine frame at which the input first captured (the recording's
    /// first frame), nil before.
    public var recordingStartFrame: Int64? {
        let f = counters.pointee.load(ordering: .acquiring)
        return f < 0 ? nil : Int64(f)
    }

    /// Any thread: recorded frames lost because the tap ring was full (the recorder fell behind).
    public var droppedRecordedFrames: Int { droppedCounter.pointee.load(ordering: .relaxed) }

    var node: InputNode {
        InputNode(ring: ring, tap: tapRing, channelCount: channelCount, startFrame: counters, dropped: droppedCounter)
    }
}

/// Render-side state of an input source. Trivial value.
@usableFromInline struct InputNode {
    @usableFromInline let ring: SampleRing
    @usableFromInline let tap: SampleRing?
    @usableFromInline let channelCount: Int
    @usableFromInline let startFrame: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let dropped: UnsafeMutablePointer<Atomic<Int>>
    /// Frames taken from the ring in the current chunk (the rest is discarded at its end).
    @usableFromInline var consumedFrames = 0
    /// The tap records from the first captured frame on.
    @usableFromInline var tapping = false
    /// Frames that had to be captured as silence because the ring was empty.
    @usableFromInline var underrunFrames = 0

    init(
        ring: SampleRing, tap: SampleRing?, channelCount: Int, startFrame: UnsafeMutablePointer<Atomic<Int>>,
        dropped: UnsafeMutablePointer<Atomic<Int>>
    ) {
        self.ring = ring
        self.tap = tap
        self.channelCount = channelCount
        self.startFrame = startFrame
        self.dropped = dropped
    }

    /// Take `frameCount` frames (input layout) into `output` (silence where the ring ran dry)
    /// and tap them; `frame` is the engine frame of the first.
    @inlinable @_noLocks
    mutating func capture(into output: UnsafeMutablePointer<Float>, frameCount: Int, frame: Int64) {
        let ch = channelCount
        let wanted = frameCount &* ch
        var done = 0
        while done < wanted {
            let span = ring.readableSpan()
            let n = min(span.count, wanted &- done)
            if n == 0 { break }
            _unsafePerformance { _ = memcpy(output + done, span.pointer, n &* 4) }
            ring.release(n)
            done &+= n
        }
        if done < wanted {
            (output + done).update(repeating: 0, count: wanted &- done)
            underrunFrames &+= (wanted &- done) / ch
        }
        consumedFrames &+= frameCount
        if let tap {
            if !tapping {
                tapping = true
                startFrame.pointee.store(Int(frame), ordering: .releasing)
            }
            let stored = tap.write(from: output, count: wanted)
            if stored < wanted { dropped.pointee.wrappingAdd((wanted &- stored) / ch, ordering: .relaxed) }
        }
    }

    /// End of a chunk of `frameCount` frames: the frames not captured are discarded from the
    /// ring and recorded as silence (once the recording started).
    @inlinable @_noLocks
    mutating func finishChunk(frameCount: Int) {
        let ch = channelCount
        let rest = frameCount &- consumedFrames
        consumedFrames = 0
        guard rest > 0 else { return }
        var skip = rest &* ch
        while skip > 0 {
            let span = ring.readableSpan()
            let n = min(span.count, skip)
            if n == 0 { break }
            ring.release(n)
            skip &-= n
        }
        if tapping, let tap {
            let stored = tap.writeZeros(count: rest &* ch)
            if stored < rest &* ch { dropped.pointee.wrappingAdd((rest &* ch &- stored) / ch, ordering: .relaxed) }
        }
    }
}
