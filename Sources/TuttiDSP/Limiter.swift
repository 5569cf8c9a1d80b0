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
    }

    /// The lookahead's sliding minimum as it stands after the last frame processed: the
    /// smallest needed gain of that frame and the L before it (1 before any frame), and how
    /// many entries its queue holds (at most L + 1). For tests; the control side, between
    /// `process` calls.
    package var lookaheadMinimum: (gain: Float, queued: Int) { (minCount > 0 ? minGains[minHead] : 1, minCount) }

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

    /// `i % span` for i ≥ 0, without a division when i < 2 × span (always, for the queue's
    /// indices: head < span and count ≤ span).
    @inlinable @inline(__always) @_noLocks
    static func wrapped(_ i: Int, _ span: Int) -> Int {
        if i < span { return i }
        if i < span &* 2 { return i &- span }
        return i % span
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

    /// `neededGain` of frames 0..<n of stereo `x`, into `gains`: four frames per vector step,
    /// each lane the same two comparisons and division as the scalar function.
    @inlinable @inline(__always) @_noLocks
    func stereoNeededGains(_ x: UnsafeMutablePointer<Float>, frameCount count: Int, into gains: UnsafeMutablePointer<Float>) {
        let c = ceiling
        var f = 0
        while f &+ 4 <= count {
            let v = UnsafeRawPointer(x + 2 &* f).loadUnaligned(as: SIMD8<Float>.self)
            let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF
            let m = unsafeBitCast(bits, to: SIMD8<Float>.self)
            let left = m.evenHalf
            let right = m.oddHalf
            var peak = SIMD4<Float>(repeating: 0)
            peak.replace(with: left, where: left .> peak)
            peak.replace(with: right, where: right .> peak)
            var needed = SIMD4<Float>(repeating: 1)
            needed.replace(with: SIMD4(repeating: c) / peak, where: peak .> c)
            UnsafeMutableRawPointer(gains + f).storeBytes(of: needed, as: SIMD4<Float>.self)
            f &+= 4
        }
        while f < count {
            gains[f] = neededGain(x, frame: f)
            f &+= 1
        }
    }

    /// `processWithLookahead` for two channels, `gainChunkFrames` frames at a time: the needed
    /// gains (`stereoNeededGains`), then per frame the sliding minimum, the envelope and the
    /// average (the same operations in the same order, the state in locals), then the delay
    /// line and the gains applied.
    @inlinable @_noLocks
    mutating func processStereoWithLookahead(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let l = lookaheadFrames
        let span = l &+ 1
        let spanD = Double(span)
        let rel = release
        let gains = gainScratch
        let minFrames = self.minFrames
        let minGains = self.minGains
        let window = self.window
        let delay = self.delay
        var r = reduction
        var minHead = self.minHead
        var minCount = self.minCount
        var windowIndex = self.windowIndex
        var windowSum = self.windowSum
        var windowBelowOne = self.windowBelowOne
        var frame = self.frame
        var delayIndex = self.delayIndex
        var smallest: Float = 1
        var start = 0
        while start < n {
            let count = min(n &- start, PeakLimiter.gainChunkFrames)
            let x = buffer + 2 &* start
            stereoNeededGains(x, frameCount: count, into: gains)
            for k in 0..<count {
                let needed = gains[k]
                // Sliding minimum of the needed gains over the last L + 1 frames, as the
                // per-frame loop keeps it (the expired head first; at most L + 1 entries, so
                // `% span` is one subtraction: see `wrapped`).
                if minCount > 0 && minFrames[minHead] <= frame &- Int64(span) {
                    minHead = minHead &+ 1 == span ? 0 : minHead &+ 1
                    minCount &-= 1
                }
                while minCount > 0 {
                    let back = PeakLimiter.wrapped(minHead &+ minCount &- 1, span)
                    if minGains[back] < needed { break }
                    minCount &-= 1
                }
                let slot = PeakLimiter.wrapped(minHead &+ minCount, span)
                minFrames[slot] = frame
                minGains[slot] = needed
                minCount &+= 1
                var unused: Float = 1
                let g = PeakLimiter.step(&r, release: rel, toward: minGains[minHead], smallest: &unused)
                // Average of the released gains over L + 1 frames: glides down before a peak.
                let old = window[windowIndex]
                if old < 1 { windowBelowOne &-= 1 }
                if g < 1 { windowBelowOne &+= 1 }
                window[windowIndex] = g
                windowIndex = windowIndex &+ 1 == span ? 0 : windowIndex &+ 1
                var gain: Float = 1
                if windowBelowOne == 0 {
                    windowSum = spanD
                } else {
                    windowSum += Double(g) - Double(old)
                    gain = min(Float(windowSum / spanD), 1)
                }
                if gain < smallest { smallest = gain }
                gains[k] = gain
                frame &+= 1
            }
            // Out goes the frame from L frames ago; in goes this one.
            for k in 0..<count {
                let gain = gains[k]
                let d = delay + 2 &* delayIndex
                let x0 = d[0]
                let x1 = d[1]
                d[0] = x[2 &* k]
                d[1] = x[2 &* k &+ 1]
                x[2 &* k] = gain == 1 ? x0 : clamp(x0 * gain)
                x[2 &* k &+ 1] = gain == 1 ? x1 : clamp(x1 * gain)
                delayIndex = delayIndex &+ 1 == l ? 0 : delayIndex &+ 1
            }
            start &+= count
        }
        reduction = r
        self.minHead = minHead
        self.minCount = minCount
        self.windowIndex = windowIndex
        self.windowSum = windowSum
        self.windowBelowOne = windowBelowOne
        self.frame = frame
        self.delayIndex = delayIndex
        meterGain = smallest
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
