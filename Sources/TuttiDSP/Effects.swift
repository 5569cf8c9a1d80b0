#if canImport(Glibc)
    import Glibc
#endif

/// One effect of a bus's (or the master's) effect chain, with its parameters. Value type:
/// any thread. Validate with `problem(place:sampleRate:)` before building a chain.
public enum EffectSettings: Sendable, Equatable {
    /// An RBJ Audio EQ Cookbook biquad: `kind` at `frequencyHz` (0 < f < Nyquist), quality
    /// `q` (> 0), and `gainDB` (peaking and shelves only; ignored by the others).
    case biquad(BiquadKind, frequencyHz: Double, q: Double, gainDB: Double)
    /// A feed-forward compressor: above `thresholdDB` (−100…0; the detector is the mean square
    /// over 10 ms, read so that a sine peaking at full scale is 0 dB: a sine's level is its
    /// peak in dBFS) the output level rises 1/`ratio` dB per dB (1…100); the gain reduction
    /// moves in with `attackSeconds` and out with `releaseSeconds` (time constants, 0…10 s
    /// each); `makeupDB` (−60…60) is added after. Linked: every channel gets the same gain,
    /// from the loudest.
    case compressor(thresholdDB: Double, ratio: Double, attackSeconds: Double, releaseSeconds: Double, makeupDB: Double)
    /// A feedback delay: out = (1 − mix)·in + mix·wet, wet = the line `timeSeconds` ago (0 <
    /// time ≤ `EffectSettings.maxDelaySeconds`), the line fed back by `feedback` (0…0.95). The
    /// tail rings after the input stops until it is below −90 dBFS, then the delay goes idle.
    case delay(timeSeconds: Double, feedback: Double, mix: Double)

    /// The longest delay time, seconds.
    public static let maxDelaySeconds = 10.0

    /// The biquad forms of the RBJ Audio EQ Cookbook.
    public enum BiquadKind: String, Sendable, Equatable, CaseIterable {
        /// Second-order lowpass (gain ignored).
        case lowpass
        /// Second-order highpass (gain ignored).
        case highpass
        /// Bandpass with 0 dB peak gain (gain ignored).
        case bandpass
        /// Notch (gain ignored).
        case notch
        /// Peaking EQ: `gainDB` at the centre frequency.
        case peaking
        /// Low shelf: `gainDB` below the corner (the cookbook's S is replaced by Q).
        case lowshelf
        /// High shelf: `gainDB` above the corner.
        case highshelf
    }

    /// What is wrong with the parameters, naming each field as `place.field` (e.g.
    /// `engine.effects[0].frequency`, the JSON names); nil when valid at `sampleRate` Hz.
    public func problem(place: String, sampleRate: Int) -> String? {
        check(sampleRate: sampleRate).map { "\(place).\($0.field) \($0.problem)" }
    }

    /// The first invalid field at `sampleRate` Hz (its JSON name: frequency, q, gain,
    /// threshold, ratio, attack, release, makeup, time, feedback, mix) and what is wrong with
    /// it ("must be finite and …, got …"); nil when valid. Any thread.
    public func check(sampleRate: Int) -> (field: String, problem: String)? {
        func bad(_ field: String, _ value: Double, _ ok: Bool, _ range: String) -> (field: String, problem: String)? {
            value.isFinite && ok ? nil : (field, "must be finite and \(range), got \(value)")
        }
        let nyquist = Double(sampleRate) / 2
        switch self {
        case .biquad(_, let f, let q, let g):
            return bad("frequency", f, f > 0 && f < nyquist, "in 0…\(nyquist) Hz (both excluded: the Nyquist frequency is \(nyquist))")
                ?? bad("q", q, q > 0 && q <= 100, "in 0…100 (0 excluded)")
                ?? bad("gain", g, abs(g) <= 60, "in −60…60 dB")
        case .compressor(let t, let r, let a, let rel, let m):
            return bad("threshold", t, (-100...0).contains(t), "in −100…0 dB")
                ?? bad("ratio", r, (1...100).contains(r), "in 1…100")
                ?? bad("attack", a, (0...10).contains(a), "in 0…10 s")
                ?? bad("release", rel, (0...10).contains(rel), "in 0…10 s")
                ?? bad("makeup", m, (-60...60).contains(m), "in −60…60 dB")
        case .delay(let t, let fb, let mix):
            let maxTime = EffectSettings.maxDelaySeconds
            return bad("time", t, t > 0 && t <= maxTime && (t * Double(sampleRate)).rounded() >= 1, "in 0…\(maxTime) s, at least one frame")
                ?? bad("feedback", fb, (0...0.95).contains(fb), "in 0…0.95")
                ?? bad("mix", mix, (0...1).contains(mix), "in 0…1")
        }
    }
}

/// Normalized biquad coefficients (a0 = 1): y = b0·x + b1·x₁ + b2·x₂ − a1·y₁ − a2·y₂. Value
/// type: any thread.
public struct BiquadCoefficients: Sendable, Equatable {
    /// Feed-forward coefficients.
    public var b0, b1, b2: Double
    /// Feedback coefficients (a0 normalized to 1).
    public var a1, a2: Double

    /// The RBJ cookbook coefficients of `kind` at `frequencyHz`, `q`, `gainDB`, for
    /// `sampleRate` Hz.
    public init(_ kind: EffectSettings.BiquadKind, frequencyHz: Double, q: Double, gainDB: Double, sampleRate: Double) {
        let w0 = 2 * Double.pi * frequencyHz / sampleRate
        let cw = cos(w0)
        let alpha = sin(w0) / (2 * q)
        let a = pow(10, gainDB / 40)
        var b0: Double
        var b1: Double
        var b2: Double
        var a0: Double
        var a1: Double
        var a2: Double
        switch kind {
        case .lowpass:
            (b0, b1, b2) = ((1 - cw) / 2, 1 - cw, (1 - cw) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cw, 1 - alpha)
        case .highpass:
            (b0, b1, b2) = ((1 + cw) / 2, -(1 + cw), (1 + cw) / 2)
            (a0, a1, a2) = (1 + alpha, -2 * cw, 1 - alpha)
        case .bandpass:
            (b0, b1, b2) = (alpha, 0, -alpha)
            (a0, a1, a2) = (1 + alpha, -2 * cw, 1 - alpha)
        case .notch:
            (b0, b1, b2) = (1, -2 * cw, 1)
            (a0, a1, a2) = (1 + alpha, -2 * cw, 1 - alpha)
        case .peaking:
            (b0, b1, b2) = (1 + alpha * a, -2 * cw, 1 - alpha * a)
            (a0, a1, a2) = (1 + alpha / a, -2 * cw, 1 - alpha / a)
        case .lowshelf:
            let s = 2 * a.squareRoot() * alpha
            b0 = a * ((a + 1) - (a - 1) * cw + s)
            b1 = 2 * a * ((a - 1) - (a + 1) * cw)
            b2 = a * ((a + 1) - (a - 1) * cw - s)
            a0 = (a + 1) + (a - 1) * cw + s
            a1 = -2 * ((a - 1) + (a + 1) * cw)
            a2 = (a + 1) + (a - 1) * cw - s
        case .highshelf:
            let s = 2 * a.squareRoot() * alpha
            b0 = a * ((a + 1) + (a - 1) * cw + s)
            b1 = -2 * a * ((a - 1) + (a + 1) * cw)
            b2 = a * ((a + 1) + (a - 1) * cw - s)
            a0 = (a + 1) - (a - 1) * cw + s
            a1 = 2 * ((a - 1) - (a + 1) * cw)
            a2 = (a + 1) - (a - 1) * cw - s
        }
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    /// |H(e^{jω})| in dB at `frequencyHz` for `sampleRate` Hz: the formula the filter is
    /// measured against.
    public func magnitudeDB(atHz frequencyHz: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequencyHz / sampleRate
        let (c1, s1, c2, s2) = (cos(w), sin(w), cos(2 * w), sin(2 * w))
        let nr = b0 + b1 * c1 + b2 * c2
        let ni = -(b1 * s1 + b2 * s2)
        let dr = 1 + a1 * c1 + a2 * c2
        let di = -(a1 * s1 + a2 * s2)
        return 10 * log10((nr * nr + ni * ni) / (dr * dr + di * di))
    }
}

/// −90 dBFS as a sample value: a delay tail below it is cut and the delay goes idle.
@usableFromInline let effectIdleLevel: Float = 3.162_277_7e-5

/// The render-side state of one effect. Built on the control side (it allocates there);
/// `process` neither allocates, locks nor calls the system. Thread: the render thread once
/// handed over.
public struct EffectUnit {
    @usableFromInline enum Kind { case biquad, compressor, delay }
    @usableFromInline let kind: Kind
    @usableFromInline let channelCount: Int
    // Biquad: coefficients and per-channel state (transposed direct form II, Double).
    @usableFromInline var coefficients = BiquadCoefficients(.lowpass, frequencyHz: 1000, q: 0.7, gainDB: 0, sampleRate: 48_000)
    /// Per channel z1, z2 of the filter; then (a glide's) of the incoming filter.
    @usableFromInline let state: UnsafeMutablePointer<Double>
    /// A glide: the incoming coefficients, its length and the frames left (0: none).
    @usableFromInline var nextCoefficients = BiquadCoefficients(.lowpass, frequencyHz: 1000, q: 0.7, gainDB: 0, sampleRate: 48_000)
    @usableFromInline var glideFrames = 0
    @usableFromInline var glideRemaining = 0
    // Compressor.
    @usableFromInline var thresholdPower: Float = 1
    @usableFromInline var slope: Float = 0
    @usableFromInline var attack: Float = 0
    @usableFromInline var release: Float = 0
    @usableFromInline var makeup: Float = 1
    /// The detector: mean square (×2, so a full-scale sine reads 1), smoothed over 10 ms.
    @usableFromInline var power: Float = 0
    @usableFromInline var detector: Float = 0
    /// How far the gain is below unity (1 − the linear gain, ≥ 0), smoothed by attack and
    /// release.
    @usableFromInline var reduction: Float = 0
    /// The smallest gain (1 − `reduction`) of the last `process` call (1 for other effects).
    @usableFromInline var meterGain: Float = 1
    // Delay: the line (frames × channels), its length, position, and the largest value
    // written during this lap and the last one (the tail's level).
    @usableFromInline let line: UnsafeMutablePointer<Float>
    @usableFromInline var lineFrames = 0
    @usableFromInline var lineIndex = 0
    @usableFromInline var feedback: Float = 0
    @usableFromInline var wet: Float = 0
    @usableFromInline var dry: Float = 1
    @usableFromInline var lapPeak: Float = 0
    @usableFromInline var lastLapPeak: Float = 0
    @usableFromInline var idle = true
    /// Nothing rings (a silent input passes untouched). Render thread.
    @inlinable public var isIdle: Bool { idle }
    /// This is a compressor.
    @inlinable public var isCompressor: Bool {
        @_noLocks get {
            switch kind {
            case .compressor: true
            case .biquad, .delay: false
            }
        }
    }
    /// A compressor's largest gain reduction during the last `process` call: the smallest
    /// linear gain (≤ 1, makeup not included) it applied to any frame of it; 1 when it
    /// reduced nothing, and always 1 for other effects. Only observes: reading it changes
    /// nothing. Render thread, or the thread that rendered offline between blocks.
    @inlinable public var smallestReductionGain: Float {
        @_noLocks get { meterGain }
    }

    /// The effect `settings` for `channelCount` interleaved channels at `sampleRate` Hz
    /// (valid settings: see `EffectSettings.problem`). Allocates: control side. Call
    /// `deallocate()` when no thread processes with it.
    public init(_ settings: EffectSettings, sampleRate: Int, channelCount: Int) {
        self.channelCount = channelCount
        let rate = Double(sampleRate)
        switch settings {
        case .biquad(let k, let f, let q, let g):
            kind = .biquad
            coefficients = BiquadCoefficients(k, frequencyHz: f, q: q, gainDB: g, sampleRate: rate)
            state = .allocate(capacity: 4 * channelCount)
            state.initialize(repeating: 0, count: 4 * channelCount)
            line = allocateAudio(Float.self, capacity: 1)
        case .compressor(let t, let r, let a, let rel, let m):
            kind = .compressor
            thresholdPower = Float(pow(10, t / 10))
            slope = Float(1 - 1 / r)
            attack = a > 0 ? Float(exp(-1 / (a * rate))) : 0
            release = rel > 0 ? Float(exp(-1 / (rel * rate))) : 0
            makeup = Float(pow(10, m / 20))
            detector = Float(exp(-1 / (0.01 * rate)))
            state = .allocate(capacity: 1)
            line = allocateAudio(Float.self, capacity: 1)
        case .delay(let t, let fb, let mix):
            kind = .delay
            lineFrames = max(1, Int((t * rate).rounded()))
            line = allocateAudio(Float.self, capacity: lineFrames * channelCount)
            line.initialize(repeating: 0, count: lineFrames * channelCount)
            feedback = Float(fb)
            wet = Float(mix)
            dry = Float(1 - mix)
            state = .allocate(capacity: 1)
        }
    }

    /// The delay line's first byte (a one-sample placeholder for other effects; 64-byte
    /// aligned: `allocateAudio`). Tests and debugging: read it while nothing processes.
    package var lineAddress: UnsafeRawPointer { UnsafeRawPointer(line) }

    /// Frees its memory. Control side, once no thread processes with it.
    public func deallocate() {
        state.deallocate()
        deallocateAudio(line)
    }

    /// Process `n` interleaved frames of `buffer` in place. Render thread.
    @inlinable @_noLocks
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        switch kind {
        case .biquad: processBiquad(buffer, frameCount: n)
        case .compressor: processCompressor(buffer, frameCount: n)
        case .delay: processDelay(buffer, frameCount: n)
        }
    }

    @inlinable @_noLocks
    static func isSilent(_ buffer: UnsafeMutablePointer<Float>, count: Int) -> Bool {
        for i in 0..<count where buffer[i] != 0 { return false }
        return true
    }

    /// A biquad: move to `target` (computed on the control side) over `frames` frames without
    /// zipper noise — the incoming filter starts from the current state and the output
    /// crossfades linearly from the current filter to it; 0: a step (new coefficients, same
    /// state). A glide in progress completes at once first. Does nothing to other effects.
    /// Render thread.
    @inlinable @_noLocks
    public mutating func glide(to target: BiquadCoefficients, frames: Int) {
        guard case .biquad = kind else { return }
        if glideRemaining > 0 {
            coefficients = nextCoefficients
            for i in 0..<(2 &* channelCount) { state[i] = state[2 &* channelCount &+ i] }
            glideRemaining = 0
        }
        if frames <= 0 {
            coefficients = target
            return
        }
        nextCoefficients = target
        for i in 0..<(2 &* channelCount) { state[2 &* channelCount &+ i] = state[i] }
        glideFrames = frames
        glideRemaining = frames
        idle = false
    }

    @inlinable @_noLocks
    mutating func processGlide(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        let c = coefficients
        let d = nextCoefficients
        let total = Double(glideFrames)
        let done = glideFrames &- glideRemaining
        for k in 0..<ch {
            var z1 = state[2 &* k]
            var z2 = state[2 &* k &+ 1]
            var u1 = state[2 &* ch &+ 2 &* k]
            var u2 = state[2 &* ch &+ 2 &* k &+ 1]
            var i = k
            for f in 0..<n {
                let x = Double(buffer[i])
                let y = c.b0 * x + z1
                z1 = c.b1 * x - c.a1 * y + z2
                z2 = c.b2 * x - c.a2 * y
                let v = d.b0 * x + u1
                u1 = d.b1 * x - d.a1 * v + u2
                u2 = d.b2 * x - d.a2 * v
                let w = min(Double(done &+ f &+ 1) / total, 1)
                buffer[i] = Float(y + w * (v - y))
                i &+= ch
            }
            state[2 &* k] = z1
            state[2 &* k &+ 1] = z2
            state[2 &* ch &+ 2 &* k] = u1
            state[2 &* ch &+ 2 &* k &+ 1] = u2
        }
        glideRemaining = max(glideRemaining &- n, 0)
        if glideRemaining == 0 {
            coefficients = d
            for i in 0..<(2 &* ch) { state[i] = state[2 &* ch &+ i] }
        }
    }

    @inlinable @_noLocks
    mutating func processBiquad(_ buffer: UnsafeMutablePointer<Float>, frameCount count: Int) {
        let ch = channelCount
        var buffer = buffer
        var n = count
        if glideRemaining > 0 {
            // The frames after the glide's end run through the new filter alone.
            let m = min(n, glideRemaining)
            processGlide(buffer, frameCount: m)
            if m == n { return }
            buffer += m &* ch
            n &-= m
        }
        if idle, EffectUnit.isSilent(buffer, count: n &* ch) { return }
        let c = coefficients
        if ch == 2 {
            processStereoBiquad(buffer, frameCount: n, c)
            return
        }
        var ringing = false
        for k in 0..<ch {
            var z1 = state[2 &* k]
            var z2 = state[2 &* k &+ 1]
            var i = k
            for _ in 0..<n {
                let x = Double(buffer[i])
                let y = c.b0 * x + z1
                z1 = c.b1 * x - c.a1 * y + z2
                z2 = c.b2 * x - c.a2 * y
                buffer[i] = Float(y)
                i &+= ch
            }
            // A ringing-out below about −180 dBFS is cut: the filter goes idle.
            if abs(z1) < 1e-9, abs(z2) < 1e-9 {
                z1 = 0
                z2 = 0
            } else {
                ringing = true
            }
            state[2 &* k] = z1
            state[2 &* k &+ 1] = z2
        }
        idle = !ringing
    }

    /// Stereo: both channels' recursions in one loop (independent chains the CPU overlaps);
    /// the same arithmetic per channel as the general loop, so the same samples.
    @inlinable @_noLocks
    mutating func processStereoBiquad(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int, _ c: BiquadCoefficients) {
        var l1 = state[0]
        var l2 = state[1]
        var r1 = state[2]
        var r2 = state[3]
        var i = 0
        for _ in 0..<n {
            let xl = Double(buffer[i])
            let xr = Double(buffer[i &+ 1])
            let yl = c.b0 * xl + l1
            let yr = c.b0 * xr + r1
            l1 = c.b1 * xl - c.a1 * yl + l2
            r1 = c.b1 * xr - c.a1 * yr + r2
            l2 = c.b2 * xl - c.a2 * yl
            r2 = c.b2 * xr - c.a2 * yr
            buffer[i] = Float(yl)
            buffer[i &+ 1] = Float(yr)
            i &+= 2
        }
        // A ringing-out below about −180 dBFS is cut: the filter goes idle.
        let leftQuiet = abs(l1) < 1e-9 && abs(l2) < 1e-9
        let rightQuiet = abs(r1) < 1e-9 && abs(r2) < 1e-9
        if leftQuiet {
            l1 = 0
            l2 = 0
        }
        if rightQuiet {
            r1 = 0
            r2 = 0
        }
        state[0] = l1
        state[1] = l2
        state[2] = r1
        state[3] = r2
        idle = leftQuiet && rightQuiet
    }

    @inlinable @_noLocks
    mutating func processCompressor(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        meterGain = 1
        if idle, EffectUnit.isSilent(buffer, count: n &* ch) { return }
        var smallest: Float = 1
        for f in 0..<n {
            var peak: Float = 0
            for k in 0..<ch {
                let v = buffer[f &* ch &+ k]
                let p = v * v
                if p > peak { peak = p }
            }
            // A sine of peak A has mean square A²/2: the detector smooths 2·x² (10 ms).
            power = 2 * peak + detector * (power - 2 * peak)
            // The gain the level asks for: (power / threshold)^(−slope / 2), i.e. the dB above
            // the threshold times −(1 − 1/ratio); it falls with the attack, rises with the release.
            // Smoothed as the distance below unity (1 − gain), which floats resolve down to
            // zero: smoothing the gain itself stalls about 1/(2·(1 − release)) ulps short of 1.
            var depth: Float = 0
            if power > thresholdPower { depth = 1 - EffectUnit.exp2(-slope * 0.5 * EffectUnit.log2(power / thresholdPower)) }
            reduction = depth + (depth > reduction ? attack : release) * (reduction - depth)
            if reduction < 1e-9 { reduction = 0 } // exactly unity from here (and no subnormals)
            let gain = 1 - reduction
            if gain < smallest { smallest = gain }
            let g = gain * makeup
            if g != 1 { for k in 0..<ch { buffer[f &* ch &+ k] *= g } }
        }
        meterGain = smallest
        // Detector below −100 dB and no reduction left: a silent input may pass untouched.
        idle = power < 1e-10 && reduction < 1e-6
        if idle { reduction = 0 }
    }

    /// log₂ of a positive normal `x` (exponent bits + a series for the mantissa; error below
    /// 1e-6): no call into the C library on the render thread.
    @inlinable @inline(__always) @_noLocks
    static func log2(_ x: Float) -> Float {
        let bits = x.bitPattern
        let e = Int32(bitPattern: (bits >> 23) & 0xFF) &- 127
        let m = Float(bitPattern: (bits & 0x7F_FFFF) | 0x3F80_0000)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        let ln = 2 * t * (1 + t2 * (1 / 3 + t2 * (1 / 5 + t2 * (1 / 7 + t2 * (1 / 9)))))
        return Float(e) + ln * 1.442_695_04
    }

    /// 2^`y` for |y| < 120 (an integer power from the exponent bits times a series for the
    /// fraction; relative error below 1e-6).
    @inlinable @inline(__always) @_noLocks
    static func exp2(_ y: Float) -> Float {
        let y = min(max(y, -120), 120)
        var i = Int32(y)
        if Float(i) > y { i &-= 1 }
        let f = (y - Float(i)) * 0.693_147_18
        let p = 1 + f * (1 + f * (1 / 2 + f * (1 / 6 + f * (1 / 24 + f * (1 / 120 + f * (1 / 720 + f * (1 / 5040)))))))
        return p * Float(bitPattern: UInt32(i &+ 127) << 23)
    }

    @inlinable @_noLocks
    mutating func processDelay(_ buffer: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        if idle {
            if EffectUnit.isSilent(buffer, count: n &* ch) { return }
            idle = false
        }
        for f in 0..<n {
            let d = line + lineIndex &* ch
            for k in 0..<ch {
                let i = f &* ch &+ k
                let x = buffer[i]
                let delayed = d[k]
                let w = x + feedback * delayed
                d[k] = w
                let a = abs(w)
                if a > lapPeak { lapPeak = a }
                buffer[i] = dry * x + wet * delayed
            }
            lineIndex &+= 1
            if lineIndex == lineFrames {
                lineIndex = 0
                lastLapPeak = lapPeak
                lapPeak = 0
            }
        }
        // Idle once the input is silent and everything in the line is below −90 dBFS: the line
        // is cleared so a later input starts from silence.
        if max(lapPeak, lastLapPeak) < effectIdleLevel, EffectUnit.isSilent(buffer, count: n &* ch) {
            line.update(repeating: 0, count: lineFrames &* ch)
            lapPeak = 0
            lastLapPeak = 0
            lineIndex = 0
            idle = true
        }
    }
}

/// An ordered chain of effects on a bus or the master, with the bus's own mix buffer. Built on
/// the control side (`make`), handed to the render thread by command, handed back to be freed
/// (`destroy`). Thread: the render thread once handed over.
public struct EffectChain {
    /// The effects, in order.
    public let units: UnsafeMutablePointer<EffectUnit>
    /// How many effects.
    public let count: Int
    /// The bus's mix buffer (`maxFrames` interleaved frames, 64-byte aligned): its sources mix
    /// here, the chain processes it, then it joins the output.
    public let buffer: UnsafeMutablePointer<Float>

    /// A chain of `settings` (valid: see `EffectSettings.problem`) for `channelCount` channels
    /// at `sampleRate`, with a buffer of `maxFrames` frames. Allocates: control side.
    public static func make(_ settings: [EffectSettings], sampleRate: Int, channelCount: Int, maxFrames: Int)
        -> UnsafeMutablePointer<EffectChain>
    {
        let units = UnsafeMutablePointer<EffectUnit>.allocate(capacity: max(settings.count, 1))
        for (i, s) in settings.enumerated() {
            (units + i).initialize(to: EffectUnit(s, sampleRate: sampleRate, channelCount: channelCount))
        }
        let buffer = allocateAudio(Float.self, capacity: maxFrames * channelCount)
        buffer.initialize(repeating: 0, count: maxFrames * channelCount)
        let chain = UnsafeMutablePointer<EffectChain>.allocate(capacity: 1)
        chain.initialize(to: EffectChain(units: units, count: settings.count, buffer: buffer))
        return chain
    }

    /// Frees a chain made by `make`. Control side, once no thread processes with it.
    public static func destroy(_ chain: UnsafeMutablePointer<EffectChain>) {
        let c = chain.pointee
        for i in 0..<c.count { c.units[i].deallocate() }
        c.units.deinitialize(count: c.count).deallocate()
        deallocateAudio(c.buffer)
        chain.deinitialize(count: 1).deallocate()
    }

    /// Every effect is idle (a silent input would come out silent without processing).
    @inlinable public var isIdle: Bool {
        @_noLocks get {
            for i in 0..<count where !units[i].isIdle { return false }
            return true
        }
    }

    /// The chain's compressor gain reduction during the last `process`: the product of its
    /// compressors' `smallestReductionGain` (linear, ≤ 1); nil when it has no compressor.
    /// Render thread, or the thread that rendered offline between blocks.
    @inlinable public var compressorGain: Float? {
        @_noLocks get {
            var any = false
            var g: Float = 1
            for i in 0..<count where units[i].isCompressor {
                any = true
                g *= units[i].smallestReductionGain
            }
            return any ? g : nil
        }
    }

    /// Run `buffer`'s first `n` frames through every effect in order, in place. Render thread.
    @inlinable @_noLocks
    public func process(frameCount n: Int) {
        for i in 0..<count { units[i].process(buffer, frameCount: n) }
    }
}
