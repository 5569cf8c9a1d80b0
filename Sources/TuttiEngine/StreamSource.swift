import Synchronization
import TuttiDSP

/// The control side of a stream source: the host pushes interleaved frames at the stream's
/// own rate and channel count into a lock-free ring; the render thread converts them to the
/// engine rate (a streaming libsamplerate converter built here, ahead of time) and maps the
/// channels to the engine's. Built by `Engine.addSource(.stream…)`, which knows the engine
/// rate, so every stream plays at its true pitch.
///
/// Thread: one producer thread at a time calls `write`; the engine keeps the object alive
/// while the render side uses its `node`.
public final class StreamSource: @unchecked Sendable { // render-side memory: an SPSC ring and atomics
    // @unchecked: the ring and the end flag are shared with the render thread by design (a
    // single-producer ring, an atomic flag); everything else is immutable.
    /// Channels of the frames written (1 or 2).
    public let channelCount: Int
    /// Rate of the frames written, Hz.
    public let sampleRate: Double
    /// Frames the ring holds.
    public let capacityFrames: Int
    /// Whether the stream plays its frames as written (its rate is the engine's: no converter).
    public let passesThrough: Bool
    let storage: RingStorage<Float>
    let ring: SampleRing
    /// nil when the stream passes through.
    let resampler: StreamingResampler?
    /// 1 once `end()` was called (the render side flushes, then ends the source).
    let endFlag: UnsafeMutablePointer<Atomic<Int>>
    /// The de-click fade when the ring runs dry and when data returns, frames at the engine rate.
    let dryFadeFrames: Int

    init(sampleRate: Double, channelCount: Int, engineSampleRate: Double, quality: ResamplerQuality, capacityFrames: Int) throws(TuttiError)
    {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        storage = RingStorage(capacity: capacityFrames * channelCount)
        ring = SampleRing(storage)
        self.capacityFrames = ring.indices.capacity / channelCount
        passesThrough = sampleRate == engineSampleRate
        if passesThrough {
            resampler = nil
        } else {
            do {
                resampler = try StreamingResampler(
                    quality: quality, channelCount: channelCount, fromRate: sampleRate, toRate: engineSampleRate)
            } catch {
                throw TuttiError(.invalidArgument, "stream converter \(sampleRate) Hz → \(engineSampleRate) Hz: \(error)")
            }
        }
        endFlag = .allocate(capacity: 1)
        endFlag.initialize(to: Atomic(0))
        dryFadeFrames = max(Int(engineSampleRate * 0.002 + 0.5), 1)
    }

    deinit {
        endFlag.deinitialize(count: 1)
        endFlag.deallocate()
    }

    /// Producer thread: append whole interleaved frames; returns the number of frames taken
    /// (fewer when the ring is full; the rest is the caller's to retry). 0 once ended.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        guard let base = samples.baseAddress, !isEnded else { return 0 }
        let frames = samples.count / channelCount
        let take = min(frames, ring.indices.writable().count / channelCount)
        return ring.write(from: base, count: take * channelCount) / channelCount
    }

    /// Producer thread: no more frames will come. The render side plays every frame written
    /// (the converter's tail included), then the source ends (`sourceEnded`). Returns false
    /// when it was already ended.
    public func end() -> Bool {
        endFlag.pointee.exchange(1, ordering: .releasing) == 0
    }

    /// Whether `end()` was called. Any thread.
    public var isEnded: Bool { endFlag.pointee.load(ordering: .acquiring) != 0 }

    /// Frames written and not yet consumed by the render side.
    public var bufferedFrames: Int { ring.indices.count / channelCount }

    var node: StreamNode {
        StreamNode(input: ring, resampler: resampler?.kernel, channelCount: channelCount, endFlag: endFlag, dryFadeFrames: dryFadeFrames)
    }
}

/// Render-side state of a stream source. Trivial value. The converter reads the ring in
/// place (no staging copy); only the render thread releases what it used. A stream at the
/// engine's rate has no converter: its frames are copied as written.
@usableFromInline struct StreamNode {
    @usableFromInline let input: SampleRing
    @usableFromInline let resampler: ResamplerKernel?
    @usableFromInline let channelCount: Int
    @usableFromInline let endFlag: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let dryFadeFrames: Int
    /// Output frames that had to be filled with silence because no input was there.
    @usableFromInline var underrunFrames = 0
    /// The ring ran dry (without an end): the next data fades in.
    @usableFromInline var starved = false
    /// The stream was ended and everything written has been played.
    @usableFromInline var finished = false

    @usableFromInline init(
        input: SampleRing, resampler: ResamplerKernel?, channelCount: Int, endFlag: UnsafeMutablePointer<Atomic<Int>>, dryFadeFrames: Int
    ) {
        self.input = input
        self.resampler = resampler
        self.channelCount = channelCount
        self.endFlag = endFlag
        self.dryFadeFrames = dryFadeFrames
    }

    /// Produce up to `frameCount` frames at the engine rate into `output` (stream channel
    /// layout). Returns the frames of content: `frameCount`, or fewer once the stream was
    /// ended and its last frame played (`finished` is then set; the rest is silence). A ring
    /// that runs dry otherwise fades the last frames out over the de-click time, plays silence
    /// counted in `underrunFrames`, and fades the next data in.
    @inlinable @_noLocks
    mutating func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        let ch = channelCount
        if finished {
            output.update(repeating: 0, count: frameCount &* ch)
            return 0
        }
        // Read the flag before the ring: frames written before `end()` are then all visible.
        let ending = endFlag.pointee.load(ordering: .acquiring) != 0
        var produced = 0
        if let resampler {
            var idle = 0
            while produced < frameCount {
                // Writes are whole frames and the capacity a power of two: a span holds whole frames.
                let span = input.readableSpan()
                let frames = span.count / ch
                let r = resampler.process(
                    input: span.pointer, inputFrameCount: frames,
                    output: output + produced &* ch, outputFrameCount: frameCount &- produced, endOfInput: ending && frames == 0)
                input.release(r.used &* ch)
                produced &+= r.generated
                if r.used == 0, r.generated == 0 {
                    idle &+= 1
                    if frames == 0 || idle > 2 { break }
                }
            }
        } else {
            while produced < frameCount {
                let span = input.readableSpan()
                let frames = min(span.count / ch, frameCount &- produced)
                if frames == 0 { break }
                let dst = output + produced &* ch
                let src = span.pointer
                for k in 0..<(frames &* ch) { dst[k] = src[k] }
                input.release(frames &* ch)
                produced &+= frames
            }
        }
        if produced > 0, starved {
            // Data is back: fade it in.
            let k = min(dryFadeFrames, produced)
            for f in 0..<k {
                let g = Float(f &+ 1) / Float(k &+ 1)
                for c in 0..<ch { output[f &* ch &+ c] *= g }
            }
            starved = false
        }
        if produced < frameCount {
            (output + produced &* ch).update(repeating: 0, count: (frameCount &- produced) &* ch)
            if ending, input.readableSpan().count == 0 {
                // Everything written has been heard: the stream's content ends here.
                finished = true
                return produced
            }
            if !starved {
                // Ran dry: fade the last frames out instead of a cut.
                let k = min(dryFadeFrames, produced)
                for f in 0..<k {
                    let g = Float(k &- f) / Float(k &+ 1)
                    for c in 0..<ch { output[(produced &- k &+ f) &* ch &+ c] *= g }
                }
                starved = true
            }
            underrunFrames &+= frameCount &- produced
        }
        return frameCount
    }

    /// Clear the converter's history (a stop rewinds the stream's conversion, not its data).
    @inlinable @_noLocks
    func reset() { resampler?.reset() }
}
