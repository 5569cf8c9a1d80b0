/// A gain that moves linearly to a target over a number of frames.
/// Owned by whoever renders (a value inside a render-side node).
/// The value at frame k of a ramp is computed from k (start + step·k), not accumulated, so
/// skipping n frames and stepping n times land on the same bits: output does not depend on
/// how a block is split. When settled, `value` is exactly `target` (unity stays bit-exact).
public struct LinearRamp: Sendable {
    @usableFromInline var _value: Float
    @usableFromInline var _target: Float
    @usableFromInline var start: Float = 0
    @usableFromInline var step: Float = 0
    @usableFromInline var elapsedFrames: Int = 0
    @usableFromInline var totalFrames: Int = 0
    /// The gain of the last frame produced (linear; the start value before any frame).
    @inlinable public var value: Float { _value }
    /// The gain the ramp is heading to (linear); equals `value` when settled.
    @inlinable public var target: Float { _target }

    /// A settled ramp at `value` (linear gain).
    @inlinable public init(value: Float) {
        self._value = value
        self._target = value
    }

    /// Whether frames remain before `target` is reached.
    @inlinable public var isRamping: Bool { elapsedFrames < totalFrames }

    /// Start a ramp from the current value. `frameCount <= 0` jumps.
    @inlinable @_noLocks public mutating func ramp(to newTarget: Float, frameCount: Int) {
        _target = newTarget
        elapsedFrames = 0
        if frameCount <= 0 || _value == newTarget {
            _value = newTarget
            totalFrames = 0
        } else {
            start = _value
            step = (newTarget - _value) / Float(frameCount)
            totalFrames = frameCount
        }
    }

    /// The gain for the next frame; frame k (1-based) of an n-frame ramp gets start + step·k,
    /// the last one exactly the target.
    @inlinable @inline(__always) @_noLocks public mutating func next() -> Float {
        if elapsedFrames < totalFrames {
            elapsedFrames &+= 1
            _value = elapsedFrames == totalFrames ? _target : start + step * Float(elapsedFrames)
        }
        return _value
    }

    /// Advance `frameCount` frames without producing values.
    @inlinable @_noLocks public mutating func skip(_ frameCount: Int) {
        guard elapsedFrames < totalFrames else { return }
        elapsedFrames = min(elapsedFrames &+ frameCount, totalFrames)
        _value = elapsedFrames == totalFrames ? _target : start + step * Float(elapsedFrames)
    }

    /// Frames until settled (0 when settled).
    @inlinable public var framesRemaining: Int { totalFrames &- elapsedFrames }
}

/// The transport fade of a source: a `LinearRamp`, or while a crossfade runs an
/// equal-power segment (`rampEqualPower(to:frameCount:)`). In the linear shape it is exactly
/// the `LinearRamp` it holds (same values, same bits). Owned by the render side.
public struct FadeRamp: Sendable {
    /// The linear ramp; in the equal-power shape it counts the frames and holds the target.
    @usableFromInline var linear: LinearRamp
    /// The last ramp started was equal-power: `value` follows the quarter sine.
    @usableFromInline var equalPower = false
    /// The equal-power segment's start value and the value of its last frame produced.
    @usableFromInline var curveStart: Float = 0
    @usableFromInline var curveValue: Float = 0

    /// A settled fade at `value` (linear gain).
    @inlinable public init(value: Float) { linear = LinearRamp(value: value) }

    /// The gain of the last frame produced (linear; the start value before any frame).
    @inlinable public var value: Float { equalPower ? curveValue : linear.value }
    /// The gain it is heading to (linear); equals `value` when settled.
    @inlinable public var target: Float { linear.target }
    /// Whether frames remain before `target` is reached.
    @inlinable public var isRamping: Bool { linear.isRamping }
    /// Frames until settled (0 when settled).
    @inlinable public var framesRemaining: Int { linear.framesRemaining }
    /// An equal-power segment down to 0 is running (a crossfade's fade-out).
    @inlinable public var isEqualPowerFadeOut: Bool {
        @_noLocks get { equalPower && linear.isRamping && linear.target == 0 }
    }

    /// Start a linear ramp from the current value (`LinearRamp.ramp(to:frameCount:)`).
    @inlinable @_noLocks public mutating func ramp(to newTarget: Float, frameCount: Int) {
        if equalPower {
            equalPower = false
            linear = LinearRamp(value: curveValue)
        }
        linear.ramp(to: newTarget, frameCount: frameCount)
    }

    /// Start an equal-power segment from the current value v₀ to `newTarget` over
    /// `frameCount` frames: at frame k of n (t = k/n) a rise is v₀ + (target − v₀)·sin(πt/2),
    /// a fall target + (v₀ − target)·cos(πt/2) — from 1 to 0 and 0 to 1 the two sum to unit
    /// power frame by frame. The value is computed from k (not accumulated; the sine is
    /// `sineOfPhase`: the same bits on every machine) and the last frame is exactly the
    /// target. `frameCount <= 0` jumps.
    @inlinable @_noLocks public mutating func rampEqualPower(to newTarget: Float, frameCount: Int) {
        let start = value
        ramp(to: newTarget, frameCount: frameCount)
        guard linear.isRamping else { return }
        equalPower = true
        curveStart = start
        curveValue = start
    }

    /// The gain for the next frame.
    @inlinable @inline(__always) @_noLocks public mutating func next() -> Float {
        guard equalPower else { return linear.next() }
        if linear.isRamping {
            _ = linear.next()
            curveValue = curve()
        }
        return curveValue
    }

    /// Advance `frameCount` frames without producing values.
    @inlinable @_noLocks public mutating func skip(_ frameCount: Int) {
        guard equalPower else {
            linear.skip(frameCount)
            return
        }
        guard linear.isRamping else { return }
        linear.skip(frameCount)
        curveValue = curve()
    }

    /// The equal-power value after the frames elapsed; exactly the target at the end.
    @inlinable @inline(__always) @_noLocks func curve() -> Float {
        let n = linear.totalFrames
        let k = linear.elapsedFrames
        let end = linear.target
        if k >= n { return end }
        let quarter = Double.pi / 2
        if end >= curveStart {
            return curveStart + (end - curveStart) * Float(sineOfPhase(quarter * (Double(k) / Double(n))))
        }
        // cos(πt/2) = sin(π(n − k)/2n).
        return end + (curveStart - end) * Float(sineOfPhase(quarter * (Double(n &- k) / Double(n))))
    }
}

/// A ducking envelope: gain moves linearly in decibels toward a target at a fixed
/// rate in dB per frame (attack and release each define their own rate).
/// Owned by the render side. At 0 dB the gain is exactly 1.
public struct DuckEnvelope: Sendable {
    @usableFromInline var db = LinearRamp(value: 0)
    @usableFromInline var _gain: Float = 1
    /// The linear gain of the last frame produced (1 at 0 dB).
    @inlinable public var gain: Float { _gain }
    /// The level of the last frame produced, in dB (≤ 0).
    @inlinable public var currentDB: Float { db.value }
    /// The level the envelope is moving to, in dB.
    @inlinable public var targetDB: Float { db.target }

    /// An envelope at rest at 0 dB (gain 1).
    @inlinable public init() {}

    /// Whether it is still moving toward `targetDB`.
    @inlinable public var isMoving: Bool { db.isRamping }

    /// Move toward `targetDB` (≤ 0) at `dBPerFrame` (> 0); a rate ≤ 0 jumps. The last frame
    /// lands exactly on the target.
    @inlinable @_noLocks public mutating func move(to newTargetDB: Float, dBPerFrame rate: Float) {
        let distance = abs(newTargetDB - db.value)
        let exact = rate <= 0 ? 0 : distance / rate
        var frames = Int(exact)
        if Float(frames) < exact { frames &+= 1 }
        db.ramp(to: newTargetDB, frameCount: frames)
        if frames == 0 { _gain = DuckEnvelope.gain(forDB: newTargetDB) }
    }

    /// Rate that covers `rangeDB` decibels in `frameCount` frames.
    @inlinable public static func rate(rangeDB: Float, frameCount: Int) -> Float {
        frameCount <= 0 ? 0 : abs(rangeDB) / Float(frameCount)
    }

    /// The linear gain of `dB` decibels (exactly 1 at 0 dB). Real-time safe; any thread.
    @inlinable @inline(__always) @_noLocks public static func gain(forDB dB: Float) -> Float {
        dB == 0 ? 1 : _unsafePerformance { expf(dB * 0.115_129_254_649_702_28) } // ln(10)/20
    }

    /// Advance `frameCount` frames without producing values.
    @inlinable @_noLocks public mutating func skip(_ frameCount: Int) {
        guard db.isRamping else { return }
        db.skip(frameCount)
        _gain = DuckEnvelope.gain(forDB: db.value)
    }

    /// The gain for the next frame.
    @inlinable @inline(__always) @_noLocks public mutating func next() -> Float {
        if db.isRamping { _gain = DuckEnvelope.gain(forDB: db.next()) }
        return _gain
    }
}

#if canImport(Glibc)
    import Glibc
#endif
