import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The atomics a streaming file source shares between the render thread and the engine's
/// file worker. Trivial value over storage the `FileStream` owns.
///
/// The hand-over is generation-tagged: the render side asks for data from a position by
/// storing the position, then a new generation (release). The worker, when it sees a new
/// generation, stores where in the ring its data for that generation starts (the ring's
/// write counter), then publishes the generation as served (release), and only then writes
/// samples. The render side trusts the ring only when the served generation is the one it
/// asked for; everything before that start is stale and released unread. So no sample from
/// before a seek is ever played after it, whatever the timing.
@usableFromInline struct FileStreamLink: @unchecked Sendable { // render-side memory: pointers into a FileStream's ring
    /// Render → worker: the generation wanted and the engine frame it starts at.
    @usableFromInline let requestedGeneration: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let requestedPosition: UnsafeMutablePointer<Atomic<Int>>
    /// Render → worker, with the generation: the loop region (engine frames) and the wraps
    /// left in it (-1: endless, 0: none) that the data from `requestedPosition` follows.
    @usableFromInline let requestedLoopStart: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let requestedLoopEnd: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let requestedWraps: UnsafeMutablePointer<Atomic<Int>>
    /// The wraps playback has again after the file's end (it ends and rewinds): the loop count
    /// while the loop is on, else 0.
    @usableFromInline let requestedWrapsAfterEnd: UnsafeMutablePointer<Atomic<Int>>
    /// Worker → render: the generation whose data the ring holds from `servedStart` (a sample
    /// counter of the ring, not masked).
    @usableFromInline let servedGeneration: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let servedStart: UnsafeMutablePointer<Atomic<Int>>
    /// Worker → anyone: 1 once the file could not be read further (it stays silent from there).
    @usableFromInline let failed: UnsafeMutablePointer<Atomic<Int>>

    static func create() -> FileStreamLink {
        FileStreamLink(
            requestedGeneration: .allocateAtomic(0), requestedPosition: .allocateAtomic(0), requestedLoopStart: .allocateAtomic(0),
            requestedLoopEnd: .allocateAtomic(0), requestedWraps: .allocateAtomic(0), requestedWrapsAfterEnd: .allocateAtomic(0),
            servedGeneration: .allocateAtomic(0),
            servedStart: .allocateAtomic(0),
            failed: .allocateAtomic(0))
    }

    func destroy() {
        requestedGeneration.deallocateAtomic()
        requestedPosition.deallocateAtomic()
        requestedLoopStart.deallocateAtomic()
        requestedLoopEnd.deallocateAtomic()
        requestedWraps.deallocateAtomic()
        requestedWrapsAfterEnd.deallocateAtomic()
        servedGeneration.deallocateAtomic()
        servedStart.deallocateAtomic()
        failed.deallocateAtomic()
    }
}

/// Render-side state of a streaming file source: reads frames at the engine rate and channel
/// count from the ring the worker fills. The worker writes the frames in the order playback
/// reads them: from the requested position up to the loop region's end, then the region again
/// as many times as wraps remain (the seam contiguous in the ring), then on to the file's end
/// and from its start again. So a loop wraps without a request, sample-exactly. Trivial value;
/// render thread once installed.
@usableFromInline struct FileStreamNode {
    @usableFromInline let ring: SampleRing
    @usableFromInline let link: FileStreamLink
    /// Length of the file at the engine rate.
    @usableFromInline let frameCount: Int
    @usableFromInline let channelCount: Int
    /// Frames of the fade-out when the ring runs dry and of the fade-in when it comes back.
    @usableFromInline let dryFadeFrames: Int
    /// After running dry, wait for this much data (or what the block needs) before resuming.
    @usableFromInline let resumeFrames: Int
    /// The generation the render side asked for last.
    @usableFromInline var generation = 0
    /// Ran dry: silent until data comes back, then fades in.
    @usableFromInline var dry = false
    /// Frames of the fade-in after a dry spell still to apply (counting down).
    @usableFromInline var fadeInLeft = 0
    /// Output frames rendered as silence because no data was there.
    @usableFromInline var underrunFrames = 0

    @usableFromInline init(ring: SampleRing, link: FileStreamLink, frameCount: Int, channelCount: Int, dryFadeFrames: Int) {
        self.ring = ring
        self.link = link
        self.frameCount = frameCount
        self.channelCount = channelCount
        self.dryFadeFrames = max(dryFadeFrames, 1)
        resumeFrames = min(ring.indices.capacity / channelCount / 4, 4 * self.dryFadeFrames + 2048)
    }

    /// Half the ring: the most a waiting offline render asks to be there at once.
    @inlinable var halfCapacityFrames: Int { @_noLocks get { ring.indices.capacity / channelCount / 2 } }

    /// Ask the worker for the file from `position` (engine frames, clamped to the file's
    /// length), as playback with the loop region `loopStart ..< loopEnd` and `wraps` wraps left
    /// (-1: endless, 0: none) reads it, with `wrapsAfterEnd` wraps again once it ends and
    /// rewinds: see `SourceNode.wrapFrame(count:)`. Everything in the ring becomes stale.
    @inlinable @_noLocks
    mutating func request(position: Int, loopStart: Int, loopEnd: Int, wraps: Int, wrapsAfterEnd: Int) {
        generation &+= 1
        link.requestedPosition.pointee.store(min(max(position, 0), frameCount), ordering: .relaxed)
        link.requestedLoopStart.pointee.store(loopStart, ordering: .relaxed)
        link.requestedLoopEnd.pointee.store(loopEnd, ordering: .relaxed)
        link.requestedWraps.pointee.store(wraps, ordering: .relaxed)
        link.requestedWrapsAfterEnd.pointee.store(wrapsAfterEnd, ordering: .relaxed)
        link.requestedGeneration.pointee.store(generation, ordering: .releasing)
    }

    /// Frames of the current generation readable now, after releasing stale ones; -1 while the
    /// worker has not taken up the current generation.
    @inlinable @_noLocks
    func readableFrames() -> Int {
        guard link.servedGeneration.pointee.load(ordering: .acquiring) == generation else { return -1 }
        let start = link.servedStart.pointee.load(ordering: .relaxed)
        let r = ring.indices.readable()
        // Samples before `start` belong to an older generation: drop them unread.
        if r.start &- start < 0 { ring.release(start &- r.start) }
        return ring.indices.readable().count / channelCount
    }

    /// Whether `frameCount` frames can be read without running dry (or never will: failed).
    @inlinable @_noLocks
    func isReady(frameCount n: Int) -> Bool {
        if link.failed.pointee.load(ordering: .relaxed) != 0 { return true }
        return readableFrames() >= n
    }

    /// Produce `n` output frames (engine layout) into `output`; returns the file frames
    /// consumed (fewer than `n` only when the ring ran dry: the rest is silence, counted).
    @inlinable @_noLocks
    mutating func read(into output: UnsafeMutablePointer<Float>, frameCount n: Int) -> Int {
        let ch = channelCount
        let avail = max(readableFrames(), 0)
        if dry {
            guard avail >= n || avail >= resumeFrames else {
                output.update(repeating: 0, count: n &* ch)
                underrunFrames &+= n
                return 0
            }
            dry = false
            fadeInLeft = dryFadeFrames
        }
        let m = min(n, avail)
        // At most two contiguous pieces (the ring wraps once).
        var copied = 0
        while copied < m {
            let span = ring.readableSpan()
            let take = min(span.count / ch, m &- copied)
            if take <= 0 { break }
            let dst = output + copied &* ch
            let src = span.pointer
            _unsafePerformance { _ = memcpy(dst, src, take &* ch &* 4) }
            ring.release(take &* ch)
            copied &+= take
        }
        if fadeInLeft > 0 {
            // Coming back from a dry spell: a linear fade-in over `dryFadeFrames`.
            var f = 0
            while f < copied, fadeInLeft > 0 {
                // Never exactly 0: every frame read from the file carries some of it.
                let g = Float(dryFadeFrames &- fadeInLeft &+ 1) / Float(dryFadeFrames &+ 1)
                for c in 0..<ch { output[f &* ch &+ c] *= g }
                fadeInLeft &-= 1
                f &+= 1
            }
        }
        if copied < n {
            // Running dry: fade out what there is, then silence until data comes back.
            let fade = min(copied, dryFadeFrames)
            if fade > 0 {
                for k in 0..<fade {
                    let g = Float(fade &- k) / Float(fade &+ 1)
                    let base = (copied &- fade &+ k) &* ch
                    for c in 0..<ch { output[base &+ c] *= g }
                }
            }
            (output + copied &* ch).update(repeating: 0, count: (n &- copied) &* ch)
            underrunFrames &+= n &- copied
            dry = true
        }
        return copied
    }
}
