import CTuttiKernels

#if canImport(Glibc)
    import Glibc
#endif

/// Settings of the output peak limiter (`engine.limiter`). Value type: any thread.
public struct LimiterSettings: Sendable, Equatable {
    /// The largest absolute sample value the output may have, dBFS (−60…0).
    public var ceilingDB: Double = -1
    /// Time constant of the gain's recovery once the peaks are gone, seconds (0…10; 0:
    /// recovers at once).
    public var releaseSeconds: Double = 0.1
    /// How far ahead the limiter looks, seconds (0…0.1): with 0 it adds no latency and a peak
    /// is caught at its own sample (an instant gain drop); with more, the gain glides down over
    /// the lookahead before a peak and the output is delayed by exactly that much.
    public var lookaheadSeconds: Double = 0

    /// A limiter at `ceilingDB`, with `releaseSeconds` and `lookaheadSeconds`.
    public init(ceilingDB: Double = -1, releaseSeconds: Double = 0.1, lookaheadSeconds: Double = 0) {
        self.ceilingDB = ceilingDB
        self.releaseSeconds = releaseSeconds
        self.lookaheadSeconds = lookaheadSeconds
    }

    /// The ceiling as a linear sample value (10^(ceilingDB/20)).
    public var ceiling: Float { Float(pow(10, ceilingDB / 20)) }

    /// The lookahead in frames at `sampleRate` (rounded to the nearest frame).
    public func lookaheadFrames(sampleRate: Int) -> Int { Int((lookaheadSeconds * Double(sampleRate)).rounded()) }

    /// What is out of range, naming the field as the caller knows it (`names`: the names of
    /// the ceiling, release and lookahead fields); nil when every value is valid.
    public func problem(names: (ceiling: String, release: String, lookahead: String)) -> String? {
        if !(ceilingDB.isFinite && (-60...0).contains(ceilingDB)) {
            return "\(names.ceiling) must be finite and in −60…0 dB, got \(ceilingDB)"
        }
        if !(releaseSeconds.isFinite && (0...10).contains(releaseSeconds)) {
            return "\(names.release) must be finite and in 0…10 s, got \(releaseSeconds)"
        }
        if !(lookaheadSeconds.isFinite && (0...0.1).contains(lookaheadSeconds)) {
            return "\(names.lookahead) must be finite and in 0…0.1 s, got \(lookaheadSeconds)"
        }
        return nil
    }
}

/// A peak limiter over interleaved float audio, in place: no sample it outputs exceeds the
/// ceiling in absolute value, and while the gain is at rest (1) and the input stays at or
/// below the ceiling the output is the input, bit for bit (delayed by the lookahead).
///
/// Per frame: the gain the frame needs (ceiling / its largest absolute sample, or 1); with no
/// lookahead, the gain drops to it at that frame and recovers exponentially (`releaseSeconds`)
/// after. With a lookahead of L frames, the needed gain is held as the minimum over the next
/// L + 1 frames, released the same way, then averaged over L + 1 frames, so the gain glides
/// down over L frames before the peak; the audio is delayed by L frames to meet it. A final
/// clamp to ±ceiling catches rounding. Its memory is allocated at creation; `process` neither
/// allocates, locks nor calls the system. Thread: the render thread once created.
public struct PeakLimiter {
    @usableFromInline let channelCount: Int
    @usableFromInline let ceiling: Float
    @usableFromInline let release: Float
    /// The lookahead, frames (0: none).
    public let lookaheadFrames: Int
    /// 1 − the envelope's gain (released state, before averaging): 0 at rest.
    @usableFromInline var reduction: Float = 0
    // Lookahead state: the delayed samples, the sliding minimum (a monotonic queue of frame
    // numbers and gains), and the averaging window of released gains.
    @usableFromInline let delay: UnsafeMutablePointer<Float>
    @usableFromInline var delayIndex = 0
    @usableFromInline let minFrames: UnsafeMutablePointer<Int64>
    @usableFromInline let minGains: UnsafeMutablePointer<Float>
    @usableFromInline var minHead = 0
    @usableFromInline var minCount = 0
    @usableFromInline let window: UnsafeMutablePointer<Float>
    @usableFromInline var windowIndex = 0
    @usableFromInline var windowSum: Double
    /// Entries of `window` below 1 (0: the average is exactly 1).
    @usableFromInline var windowBelowOne = 0
    @usableFromInline var frame: Int64 = 0
    /// The smallest gain of the last `process` call.
    @usableFromInline var meterGain: Float = 1
    /// Always the per-frame loops, never the stereo paths (whose output must equal theirs, bit
    /// for bit): tests set it to get the reference. Control side, before processing.
    @usableFromInline package var perFrameReference = false
    /// Per-frame gains of the chunk being processed (`gainChunkFrames` floats; the stereo path
    /// with lookahead).
    @usableFromInline let gainScratch: UnsafeMutablePointer<Float>
    /// Frames per pass of the stereo path with lookahead (the size of `gainScratch`).
    @usableFromInline static let gainChunkFrames = 256
    // The stereo path with lookahead keeps the sliding minimum and the averaging window in
    // forms of its own (the per-frame loop's queue and ring stay untouched by it):
    // - the sliding minimum by blocks of L + 1 frames (van Herk / Gil-Werman): the needed
    //   gains of the current block so far (`blockGains`), the current block's running minimum
    //   (`prefixMinimum`) and the suffix minima of the block before (`suffixMinima`, L + 2
    //   entries, the last 1); a window of L + 1 frames is the end of the previous block and the
    //   start of the current one, so its minimum is min(suffixMinima[p + 1], prefixMinimum)
    //   at position p: exact, whatever the order;
    // - the released gains of the last L + 1 frames, then the chunk's (`gainHistory`, linear:
    //   entry k is the frame L + 1 before entry L + 1 + k).
    @usableFromInline let blockGains: UnsafeMutablePointer<Float>
    @usableFromInline let suffixMinima: UnsafeMutablePointer<Float>
    @usableFromInline var prefixMinimum: Float = 1
    @usableFromInline var blockPosition = 0
    /// The window minimum of the last frame processed (the stereo path with lookahead).
    @usableFromInline var lastMinimum: Float = 1
    @usableFromInline let gainHistory: UnsafeMutablePointer<Float>
    /// Per-frame scratch of a chunk: window minima, reductions (entry 0 the chunk's incoming
    /// one, entry k + 1 after frame k) and running sums of the average.
    @usableFromInline let minimumScratch: UnsafeMutablePointer<Float>
    @usableFromInline let reductionScratch: UnsafeMutablePointer<Float>
    @usableFromInline let sumScratch: UnsafeMutablePointer<Double>
    /// Chunks the stereo path with lookahead limited (not at rest), and of those the ones whose
    /// envelope and average it did again frame by frame, or whose running sums it added in
    /// order (see `stereoLimitChunk`). Tests read them to see that each way was taken; the
    /// control side, between `process` calls.
    @usableFromInline package var chunksLimited = 0
    @usableFromInline package var chunksRedone = 0
    @usableFromInline package var chunksSummedInOrder = 0
    /// The C kernel table of the stereo path with lookahead's vector passes (needed gains,
    /// window minima, suffix minima, the gains applied): the active variant's, or the one a
    /// test sets (every variant gives the same bits).
    @usableFromInline var kernels: UnsafePointer<tk_kernels>

    /// Its largest gain reduction during the last `process` call: the smallest linear gain
    /// (≤ 1) it applied to any frame it output then; 1 when it left the audio untouched. Only
    /// observes: reading it changes nothing. Render thread, or the thread that rendered
    /// offline between blocks.
    @inlinable public var smallestGain: Float {
        @_noLocks get { meterGain }
    }

    /// A limiter for `channelCount` interleaved channels at `sampleRate` Hz. Allocates:
    /// control side. Call `deallocate()` when done.
    public init(settings: LimiterSettings, sampleRate: Int, channelCount: Int) {
        self.channelCount = channelCount
        ceiling = settings.ceiling
        let releaseFrames = settings.releaseSeconds * Double(sampleRate)
        release = releaseFrames > 0 ? Float(exp(-1 / releaseFrames)) : 0
        let l = settings.lookaheadFrames(sampleRate: sampleRate)
        lookaheadFrames = l
        delay = allocateAudio(Float.self, capacity: l * channelCount)
        delay.initialize(repeating: 0, count: max(l * channelCount, 1))
        minFrames = .allocate(capacity: l + 1)
        minFrames.initialize(repeating: 0, count: l + 1)
        minGains = .allocate(capacity: l + 1)
        minGains.initialize(repeating: 1, count: l + 1)
        window = .allocate(capacity: l + 1)
        window.initialize(repeating: 1, count: l + 1)
        windowSum = Double(l + 1)
        gainScratch = allocateAudio(Float.self, capacity: PeakLimiter.gainChunkFrames)
        gainScratch.initialize(repeating: 1, count: PeakLimiter.gainChunkFrames)
        let chunk = PeakLimiter.gainChunkFrames
        blockGains = allocateAudio(Float.self, capacity: l + 4)
        blockGains.initialize(repeating: 1, count: l + 4)
        suffixMinima = allocateAudio(Float.self, capacity: l + 2)
        suffixMinima.initialize(repeating: 1, count: l + 2)
        gainHistory = allocateAudio(Float.self, capacity: l + 1 + chunk)
        gainHistory.initialize(repeating: 1, count: l + 1 + chunk)
        minimumScratch = allocateAudio(Float.self, capacity: chunk)
        minimumScratch.initialize(repeating: 1, count: chunk)
        reductionScratch = allocateAudio(Float.self, capacity: chunk + 1)
        reductionScratch.initialize(repeating: 0, count: chunk + 1)
        sumScratch = allocateAudio(Double.self, capacity: chunk)
        sumScratch.initialize(repeating: 0, count: chunk)
        kernels = tk_active_table().unsafelyUnwrapped
    }

    /// The kernel variant of the stereo path with lookahead's vector passes (by default the
    /// active one, `KernelVariant.active`). Tests set it to run every variant the CPU supports;
    /// the control side, before processing.
    package var kernelVariant: KernelVariant {
        get { KernelVariant(table: kernels) }
        set { kernels = newValue.table }
    }

    /// The lookahead delay line's first byte (64-byte aligned: `allocateAudio`). Tests and
    /// debugging: read it while nothing processes.
    package var delayLineAddress: UnsafeRawPointer { UnsafeRawPointer(delay) }

    /// Frees its memory. Control side, once no thread processes with it.
    public func deallocate() {
        deallocateAudio(delay)
        minFrames.deallocate()
        minGains.deallocate()
        window.deallocate()
        deallocateAudio(gainScratch)
        deallocateAudio(blockGains)
        deallocateAudio(suffixMinima)
        deallocateAudio(gainHistory)
        deallocateAudio(minimumScratch)
        deallocateAudio(reductionScratch)
        deallocateAudio(sumScratch)
    }

    /// The lookahead's sliding minimum as it stands after the last frame processed: the
    /// smallest needed gain of that frame and the L before it (1 before any frame), and how
    /// many entries it holds (at most L + 1: the per-frame loop's queue, or the frames in the
    /// window for the stereo path). For tests; the control side, between `process` calls.
    package var lookaheadMinimum: (gain: Float, queued: Int) {
        if channelCount == 2 && !perFrameReference { return (lastMinimum, Int(min(frame, Int64(lookaheadFrames + 1)))) }
        return (minCount > 0 ? minGains[minHead] : 1, minCount)
    }

    /// The gain frame `f` of `buffer` needs: ceiling / its largest absolute sample, or 1.
    @inlinable @inline(__always) @_noLocks
    func neededGain(_ buffer: UnsafeMutablePointer<Float>, frame f: Int) -> Float {
        var peak: Float = 0
        for c in 0..<channelCount {
            let v = abs(buffer[f &* channelCount &+ c])
            if v > peak { peak = v }
        }
        return peak > ceiling ? ceiling / peak : 1
    }

    /// One step of the envelope toward `needed`: an instant drop, an exponential recovery
    /// that lands exactly on 1. The state is the reduction 1 − gain, which keeps full
    /// precision near 1 (a gain near 1 would stall a float recurrence short of it).
    @inlinable @inline(__always) @_noLocks
    mutating func step(toward needed: Float) -> Float {
        var unused: Float = 1
        return PeakLimiter.step(&reduction, release: release, toward: needed, smallest: &unused)
    }

    /// `step(toward:)` on a reduction `r` held in a local, also lowering `smallest` to the
    /// gain it returns.
    @inlinable @inline(__always) @_noLocks
    static func step(_ r: inout Float, release: Float, toward needed: Float, smallest: inout Float) -> Float {
        if r > 0 {
            r *= release
            if r < 1e-6 { r = 0 }
        }
        var g = 1 - r
        if needed < g {
            g = needed
            r = 1 - needed
        }
        if g < smallest { smallest = g }
        return g
    }

    /// Limit `frameCount` interleaved frames of `buffer` in place (delayed by the lookahead).
    /// Render thread.
    @inlinable @_noLocks
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        if lookaheadFrames == 0 {
            processWithoutLookahead(buffer, frameCount: n)
        } else {
            processWithLookahead(buffer, frameCount: n)
        }
    }

    @inlinable @_noLocks
    mutating func processWithoutLookahead(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        meterGain = 1
        // At rest and nothing over the ceiling: untouched (the common case, one scan).
        if reduction == 0 && !PeakLimiter.anyOver(buffer, count: n &* ch, ceiling: ceiling) { return }
        if ch == 2 && !perFrameReference {
            processStereoWithoutLookahead(buffer, frameCount: n)
            return
        }
        var smallest: Float = 1
        defer { meterGain = smallest }
        for f in 0..<n {
            let g = step(toward: neededGain(buffer, frame: f))
            if g < smallest { smallest = g }
            if g == 1 { continue }
            for c in 0..<ch { buffer[f &* ch &+ c] = clamp(buffer[f &* ch &+ c] * g) }
        }
    }

    /// Whether a sample of `x[0..<count]` is over `c` in absolute value (a NaN is not): the
    /// same comparison per sample as `abs(x[i]) > c`, sixteen samples per vector step.
    @inlinable @inline(__always) @_noLocks
    static func anyOver(_ x: UnsafeMutablePointer<Float>, count: Int, ceiling c: Float) -> Bool {
        let cv = SIMD16<Float>(repeating: c)
        var i = 0
        while i &+ 16 <= count {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD16<Float>.self)
            let a = unsafeBitCast(unsafeBitCast(v, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF, to: SIMD16<Float>.self)
            if any(a .> cv) { return true }
            i &+= 16
        }
        while i < count {
            if abs(x[i]) > c { return true }
            i &+= 1
        }
        return false
    }

    /// `processWithLookahead` for two channels, `gainChunkFrames` frames at a time. A chunk
    /// at rest (reduction 0, every gain of the averaging window 1) with no sample over the
    /// ceiling is the delayed input, untouched (`stereoRestChunk`); any other goes through
    /// `stereoLimitChunk`. The output and the meter are the per-frame loop's, bit for bit.
    @inlinable @_noLocks
    mutating func processStereoWithLookahead(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        var smallest: Float = 1
        var start = 0
        while start < n {
            let count = min(n &- start, PeakLimiter.gainChunkFrames)
            let x = buffer + 2 &* start
            if reduction == 0 && windowBelowOne == 0 && !PeakLimiter.anyOver(x, count: 2 &* count, ceiling: ceiling) {
                stereoRestChunk(x, frameCount: count)
            } else {
                let s = stereoLimitChunk(x, frameCount: count)
                if s < smallest { smallest = s }
            }
            start &+= count
        }
        meterGain = smallest
    }

    /// A chunk at rest with no sample over the ceiling: every needed gain is 1, and so is every
    /// window minimum (a reduction of 0 after a frame means its window's minimum was 1: a
    /// smaller one sets the reduction to 1 − it > 0), every released gain and every average;
    /// the output is the delayed input, bit for bit. The sliding minimum takes the chunk's
    /// needed gains (1); the averaging window already holds only 1s (none below 1).
    @inlinable @_noLocks
    mutating func stereoRestChunk(_ x: UnsafeMutablePointer<Float>, frameCount count: Int) {
        let span = lookaheadFrames &+ 1
        var pos = blockPosition
        var k = 0
        while k < count {
            let seg = min(count &- k, span &- pos)
            (blockGains + pos).update(repeating: 1, count: seg)
            pos &+= seg
            k &+= seg
            if pos == span {
                // The block is the window of its last frame, a frame of this chunk: all 1s.
                suffixMinima.update(repeating: 1, count: span)
                pos = 0
                prefixMinimum = 1
            }
        }
        blockPosition = pos
        lastMinimum = 1
        frame &+= Int64(count)
        // The delay line: out goes the frame from L frames ago, in goes this one.
        let l = lookaheadFrames
        var di = delayIndex
        var f = 0
        while f < count {
            let seg = min(count &- f, l &- di)
            let d = delay + 2 &* di
            let xs = x + 2 &* f
            var j = 0
            while j &+ 4 <= seg {
                let held = UnsafeRawPointer(d + 2 &* j).loadUnaligned(as: SIMD8<Float>.self)
                let input = UnsafeRawPointer(xs + 2 &* j).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(d + 2 &* j).storeBytes(of: input, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(xs + 2 &* j).storeBytes(of: held, as: SIMD8<Float>.self)
                j &+= 4
            }
            while j < seg {
                let h0 = d[2 &* j]
                let h1 = d[2 &* j &+ 1]
                d[2 &* j] = xs[2 &* j]
                d[2 &* j &+ 1] = xs[2 &* j &+ 1]
                xs[2 &* j] = h0
                xs[2 &* j &+ 1] = h1
                j &+= 1
            }
            f &+= seg
            di &+= seg
            if di == l { di = 0 }
        }
        delayIndex = di
    }

    /// One chunk of the stereo path with lookahead (at most `gainChunkFrames` frames), in
    /// passes; returns the smallest gain applied. Every value is the per-frame loop's, bit for
    /// bit. Passes 1, 2, 5 and the sums of 4 are C kernels of the variant in `kernels` (4, 8 or
    /// 16 frames per vector step; every variant gives the per-frame loop's bits):
    ///
    /// 1. The needed gains (`limiter_needed_stereo`).
    /// 2. The window minima by blocks of L + 1 frames (`blockGains`, `suffixMinima`,
    ///    `prefixMinimum`; no queue) and 1 − each (`limiter_window_minima`; a completed block's
    ///    suffix minima: `limiter_suffix_minima`).
    /// 3. The envelope taken as r ← max(r × release, 1 − minimum) (one multiplication and one
    ///    comparison on the chain, where the per-frame step also has its 1e-6 cut and compares
    ///    through 1 − r), as four chains over the chunk's quarters, each taken on from the end
    ///    of the one before until it meets its own values.
    /// 4. Four frames per vector step: the per-frame step from each frame's incoming reduction
    ///    must give the reduction taken; its gains go into the averaging window
    ///    (`gainHistory`), whose count of gains below 1 is kept and must not return to 0. Then,
    ///    while the running sum is exact (see the comment there), the sums a vector at a time
    ///    and the averages (`limiter_window_averages`).
    ///    When a check fails: the envelope and the average frame by frame with `step` from the
    ///    chunk's incoming state, or the sums alone in order.
    /// 5. The delay line and the gains applied (`limiter_apply_stereo`: the same product and
    ///    clamp; a frame at gain 1 is the delayed sample as it was).
    @inlinable @_noLocks
    mutating func stereoLimitChunk(_ x: UnsafeMutablePointer<Float>, frameCount count: Int) -> Float {
        let gains = gainScratch
        let table = kernels
        let c = ceiling
        _unsafePerformance { table.pointee.limiter_needed_stereo.unsafelyUnwrapped(gains, x, count, c) }
        let span = lookaheadFrames &+ 1
        let spanD = Double(span)
        let rel = release
        let mins = minimumScratch
        let rs = reductionScratch
        let history = gainHistory
        let sums = sumScratch
        let blockGains = self.blockGains
        let suffix = self.suffixMinima
        // Pass 2: the window minima (the running minimum of the current block, then the
        // smaller of it and the previous block's suffix minimum) and 1 − each, a vector of
        // frames per step in the C kernel (a scan of shifted minima and the carry).
        let minimaKernel = table.pointee.limiter_window_minima.unsafelyUnwrapped
        let suffixKernel = table.pointee.limiter_suffix_minima.unsafelyUnwrapped
        var pos = blockPosition
        var prefix = prefixMinimum
        var k = 0
        while k < count {
            let seg = min(count &- k, span &- pos)
            let p = prefix
            prefix = _unsafePerformance { minimaKernel(mins + k, gains + k, blockGains + pos, gains + k, suffix + (pos &+ 1), seg, p) }
            pos &+= seg
            k &+= seg
            if pos == span {
                _unsafePerformance { suffixKernel(suffix, blockGains, span) }
                pos = 0
                prefix = 1
            }
        }
        blockPosition = pos
        prefixMinimum = prefix
        lastMinimum = mins[count &- 1]
        // Pass 3: the envelope taken, r ← max(r × release, 1 − minimum) (pass 4 checks it
        // against the per-frame step), as four chains over the four quarters of the chunk at
        // once: the second, third and fourth start from 0 (as if no reduction came in), then
        // each is taken on from the true end of the one before until it meets its own values
        // (from there on the two are the same recurrence from the same value: the reduction
        // set by a drop forgets what came before; a release that never meets is taken on to
        // the quarter's end, as one chain would).
        // (`gains` holds 1 − each window minimum since pass 2.)
        let cs = gains
        let r0 = reduction
        rs[0] = r0
        if count >= 32 {
            let q = count >> 2
            var a = r0
            var b: Float = 0
            var c: Float = 0
            var d: Float = 0
            for i in 0..<q {
                let ma = a * rel
                let mb = b * rel
                let mc = c * rel
                let md = d * rel
                let ca = cs[i]
                let cb = cs[q &+ i]
                let cc = cs[2 &* q &+ i]
                let cd = cs[3 &* q &+ i]
                a = ma < ca ? ca : ma
                b = mb < cb ? cb : mb
                c = mc < cc ? cc : mc
                d = md < cd ? cd : md
                rs[1 &+ i] = a
                rs[1 &+ q &+ i] = b
                rs[1 &+ 2 &* q &+ i] = c
                rs[1 &+ 3 &* q &+ i] = d
            }
            for i in (4 &* q)..<count {
                let m = d * rel
                d = m < cs[i] ? cs[i] : m
                rs[1 &+ i] = d
            }
            for start in stride(from: q, to: 4 &* q, by: q) {
                var t = rs[start]
                for i in start..<count {
                    let m = t * rel
                    t = m < cs[i] ? cs[i] : m
                    if t == rs[1 &+ i] { break }
                    rs[1 &+ i] = t
                }
            }
        } else {
            var r = r0
            for i in 0..<count {
                let m = r * rel
                r = m < cs[i] ? cs[i] : m
                rs[1 &+ i] = r
            }
        }
        // Pass 4, four frames per vector step: the per-frame step from each frame's incoming
        // reduction must give the reduction taken; its gain goes into the averaging window,
        // whose count of gains below 1 (a scan of +1 per gain below 1 entering, −1 per one
        // leaving) must not return to 0 (the per-frame loop then resets the sum to L + 1).
        // The running sum is taken as exact: while the incoming sum is a multiple of 2^−38
        // below 4096 and every gain entering or leaving is at least 2^−15 (a multiple of
        // 2^−38), every partial sum is a multiple of 2^−38 below 2^13, 51 bits: no addition
        // rounds, in the per-frame loop's order or any other, so the sums are added four at a
        // time. Then the averages (the same double division, to float, at most 1) and the
        // meter. When a check fails, the sums (or the envelope and the sums) are done again
        // frame by frame in the per-frame loop's order.
        let below0 = windowBelowOne
        let sum0 = windowSum
        var redo = false
        var inexact = !(sum0 >= 0 && sum0 < 4096 && Double(Int64(sum0 * 0x1p38)) == sum0 * 0x1p38)
        // Some gain of the chunk is 1 (only then can the count return to 0: a window holding
        // a gain below 1 counts it).
        var someAtOne = false
        // Σ (gain below 1 entering) − (gain below 1 leaving).
        var change = 0
        var sum = sum0
        var smallest: Float = 1
        var f = 0
        if span >= 4 {
            // The envelope checked and the gains into the window.
            var wrong = SIMD4<Int32>()
            var entering = SIMD4<Int32>()
            var leaving = SIMD4<Int32>()
            var lowest = SIMD4<Float>(repeating: 1)
            let tiny = SIMD4<Float>(repeating: 1e-6)
            let one = SIMD4<Float>(repeating: 1)
            let zero = SIMD4<Float>()
            while f &+ 4 <= count {
                let before = UnsafeRawPointer(rs + f).loadUnaligned(as: SIMD4<Float>.self)
                let taken = UnsafeRawPointer(rs + (f &+ 1)).loadUnaligned(as: SIMD4<Float>.self)
                let minimum = UnsafeRawPointer(mins + f).loadUnaligned(as: SIMD4<Float>.self)
                let old = UnsafeRawPointer(history + f).loadUnaligned(as: SIMD4<Float>.self)
                var m = before * rel
                m.replace(with: zero, where: m .< tiny)
                // The step's gain: 1 − m, or the minimum when smaller; its reduction: m, or
                // 1 − the minimum.
                let u = 1 - m
                var g = u
                g.replace(with: minimum, where: minimum .< g)
                m.replace(with: 1 - minimum, where: minimum .< u)
                UnsafeMutableRawPointer(history + (span &+ f)).storeBytes(of: g, as: SIMD4<Float>.self)
                wrong |= unsafeBitCast(m, to: SIMD4<Int32>.self) ^ unsafeBitCast(taken, to: SIMD4<Int32>.self)
                // A true lane of a mask is −1.
                entering &+= unsafeBitCast(g .< one, to: SIMD4<Int32>.self)
                leaving &+= unsafeBitCast(old .< one, to: SIMD4<Int32>.self)
                lowest.replace(with: g, where: g .< lowest)
                lowest.replace(with: old, where: old .< lowest)
                f &+= 4
            }
            redo = wrong != SIMD4<Int32>()
            inexact = inexact || any(lowest .< SIMD4(repeating: 0x1p-15))
            let enteringCount = -Int(entering[0] &+ entering[1] &+ entering[2] &+ entering[3])
            someAtOne = enteringCount < f
            change = enteringCount &+ Int(leaving[0] &+ leaving[1] &+ leaving[2] &+ leaving[3])
            if !inexact && !redo {
                // The running sums (exact: see above, so the kernel's order of additions gives
                // these sums) and the averages (the same double division, to float, at most 1).
                let averagesKernel = table.pointee.limiter_window_averages.unsafelyUnwrapped
                var s = sum
                let done = f
                smallest = _unsafePerformance { averagesKernel(gains, history + span, history, done, &s, spanD) }
                sum = s
            }
        }
        while f < count {
            var step = rs[f]
            var unused: Float = 1
            let g = PeakLimiter.step(&step, release: rel, toward: mins[f], smallest: &unused)
            if step.bitPattern != rs[f &+ 1].bitPattern { redo = true }
            history[span &+ f] = g
            let old = history[f]
            if old < 1 { change &-= 1 }
            if g < 1 { change &+= 1 } else { someAtOne = true }
            if g < 0x1p-15 || old < 0x1p-15 { inexact = true }
            sum += Double(g) - Double(old)
            let q = Float(sum / spanD)
            let gain = q < 1 ? q : 1
            gains[f] = gain
            if gain < smallest { smallest = gain }
            f &+= 1
        }
        if someAtOne && !redo {
            // The count frame by frame: it must not return to 0.
            var below = below0
            for f in 0..<count {
                let previous = below
                if history[f] < 1 { below &-= 1 }
                if history[span &+ f] < 1 { below &+= 1 }
                if below == 0 && previous != 0 {
                    redo = true
                    break
                }
            }
        }
        var r = rs[count]
        var belowNow = below0 &+ change
        chunksLimited &+= 1
        if redo || inexact {
            sum = sum0
            if redo {
                chunksRedone &+= 1
                // The envelope and the average frame by frame, as the per-frame loop.
                r = r0
                belowNow = below0
                for f in 0..<count {
                    var unused: Float = 1
                    let g = PeakLimiter.step(&r, release: rel, toward: mins[f], smallest: &unused)
                    history[span &+ f] = g
                    let old = history[f]
                    if old < 1 { belowNow &-= 1 }
                    if g < 1 { belowNow &+= 1 }
                    if belowNow == 0 {
                        sum = spanD
                    } else {
                        sum += Double(g) - Double(old)
                    }
                    sums[f] = sum
                }
            } else {
                chunksSummedInOrder &+= 1
                // The sums alone, in order (the envelope and the count were right; the count
                // never returned to 0, so the per-frame loop never reset the sum).
                for f in 0..<count {
                    sum += Double(history[span &+ f]) - Double(history[f])
                    sums[f] = sum
                }
            }
            smallest = 1
            for f in 0..<count {
                let q = Float(sums[f] / spanD)
                let gain = q < 1 ? q : 1
                gains[f] = gain
                if gain < smallest { smallest = gain }
            }
        }
        reduction = r
        windowBelowOne = belowNow
        windowSum = sum
        frame &+= Int64(count)
        // The averaging window moves on: its last L + 1 gains to the front.
        for i in 0..<span { history[i] = history[i &+ count] }
        // Pass 5: out goes the frame from L frames ago, scaled; in goes this one (the C
        // kernel, a segment per stretch of the delay line up to its end).
        let l = lookaheadFrames
        let applyKernel = table.pointee.limiter_apply_stereo.unsafelyUnwrapped
        var di = delayIndex
        f = 0
        while f < count {
            let seg = min(count &- f, l &- di)
            let d = delay + 2 &* di
            let xs = x + 2 &* f
            let gs = gains + f
            _unsafePerformance { applyKernel(xs, d, gs, seg, c) }
            f &+= seg
            di &+= seg
            if di == l { di = 0 }
        }
        delayIndex = di
        return smallest
    }

    /// `processWithoutLookahead` for two channels, eight frames per step in one pass: their
    /// needed gains (the same comparisons and the same IEEE division per lane as `neededGain`;
    /// no division when none of the eight is over the ceiling), the envelope as a chain of one
    /// multiplication per frame checked afterwards (as if every step were only r × release: no
    /// frame needs a drop and the reduction does not fall below 1e-6; when that fails for one
    /// of the eight, they are done again frame by frame from the same state), then the gains
    /// applied (the same product and clamp). On the chain's path every gain is below 1 and the
    /// first is the smallest (the reduction only shrinks), or every gain is 1 and the frames
    /// stay as they are. One pass lets the processor overlap a step's division and stores with
    /// the next step's chain, the only serial work; the output and the meter are the per-frame
    /// loop's, bit for bit.
    @inlinable @_noLocks
    mutating func processStereoWithoutLookahead(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let c = ceiling
        let rel = release
        let cv = SIMD16<Float>(repeating: c)
        var r = reduction
        var smallest: Float = 1
        var f = 0
        while f &+ 8 <= n {
            let x = buffer + 2 &* f
            let v = UnsafeRawPointer(x).loadUnaligned(as: SIMD16<Float>.self)
            let m16 = unsafeBitCast(unsafeBitCast(v, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF, to: SIMD16<Float>.self)
            let left = m16.evenHalf
            let right = m16.oddHalf
            var peak = SIMD8<Float>(repeating: 0)
            peak.replace(with: left, where: left .> peak)
            peak.replace(with: right, where: right .> peak)
            var needed = SIMD8<Float>(repeating: 1)
            let over = peak .> c
            if any(over) { needed.replace(with: SIMD8(repeating: c) / peak, where: over) }
            var m = r
            var ms = SIMD8<Float>()
            for j in 0..<8 {
                m *= rel
                ms[j] = m
            }
            let g = 1 - ms
            let fails = (needed .< g) .| ((ms .> 0) .& (ms .< 1e-6))
            if !any(fails) {
                if m > 0 {
                    // Every gain below 1 (the reduction stays ≥ 1e-6), the first the smallest
                    // (the reduction only shrinks): scale and clamp all.
                    r = m
                    if g[0] < smallest { smallest = g[0] }
                    let g16 = SIMD16(
                        lowHalf: SIMD8(g[0], g[0], g[1], g[1], g[2], g[2], g[3], g[3]),
                        highHalf: SIMD8(g[4], g[4], g[5], g[5], g[6], g[6], g[7], g[7]))
                    let y = v * g16
                    var out = y
                    out.replace(with: cv, where: y .> cv)
                    out.replace(with: -cv, where: y .< -cv)
                    UnsafeMutableRawPointer(x).storeBytes(of: out, as: SIMD16<Float>.self)
                }
                // The reduction is 0 (or falls to 0 at once: no release): every gain is 1, the
                // frames stay as they are.
                r = m
                f &+= 8
                continue
            }
            // A drop, or the reduction reaching 0: frame by frame, as the per-frame loop.
            for j in 0..<8 {
                let g = PeakLimiter.step(&r, release: rel, toward: needed[j], smallest: &smallest)
                if g != 1 {
                    x[2 &* j] = clamp(x[2 &* j] * g)
                    x[2 &* j &+ 1] = clamp(x[2 &* j &+ 1] * g)
                }
            }
            f &+= 8
        }
        while f < n {
            let g = PeakLimiter.step(&r, release: rel, toward: neededGain(buffer, frame: f), smallest: &smallest)
            if g != 1 {
                buffer[2 &* f] = clamp(buffer[2 &* f] * g)
                buffer[2 &* f &+ 1] = clamp(buffer[2 &* f &+ 1] * g)
            }
            f &+= 1
        }
        reduction = r
        meterGain = smallest
    }

    @inlinable @_noLocks
    mutating func processWithLookahead(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        if ch == 2 && !perFrameReference {
            processStereoWithLookahead(buffer, frameCount: n)
            return
        }
        let l = lookaheadFrames
        let span = l &+ 1
        var smallest: Float = 1
        defer { meterGain = smallest }
        for f in 0..<n {
            let needed = neededGain(buffer, frame: f)
            // Sliding minimum of the needed gains over the last L + 1 frames (this one and the
            // L before it): the frame that left the window goes first, so the queue never
            // holds more than L + 1 entries.
            if minCount > 0 && minFrames[minHead] <= frame &- Int64(span) {
                minHead = (minHead &+ 1) % span
                minCount &-= 1
            }
            while minCount > 0 {
                let back = (minHead &+ minCount &- 1) % span
                if minGains[back] < needed { break }
                minCount &-= 1
            }
            let slot = (minHead &+ minCount) % span
            minFrames[slot] = frame
            minGains[slot] = needed
            minCount &+= 1
            let g = step(toward: minGains[minHead])
            // Average of the released gains over L + 1 frames: glides down before a peak.
            let old = window[windowIndex]
            if old < 1 { windowBelowOne &-= 1 }
            if g < 1 { windowBelowOne &+= 1 }
            window[windowIndex] = g
            windowIndex = windowIndex &+ 1 == span ? 0 : windowIndex &+ 1
            var gain: Float = 1
            if windowBelowOne == 0 {
                windowSum = Double(span)
            } else {
                windowSum += Double(g) - Double(old)
                gain = min(Float(windowSum / Double(span)), 1)
            }
            if gain < smallest { smallest = gain }
            frame &+= 1
            // Out goes the frame from L frames ago; in goes this one.
            let d = delay + delayIndex &* ch
            for c in 0..<ch {
                let k = f &* ch &+ c
                let x = d[c]
                d[c] = buffer[k]
                buffer[k] = gain == 1 ? x : clamp(x * gain)
            }
            delayIndex = delayIndex &+ 1 == l ? 0 : delayIndex &+ 1
        }
    }

    /// ±ceiling at most (rounding of the gain product can leave a sample an ulp above it).
    @inlinable @inline(__always) @_noLocks
    func clamp(_ y: Float) -> Float {
        if y > ceiling { return ceiling }
        if y < -ceiling { return -ceiling }
        return y
    }
}
