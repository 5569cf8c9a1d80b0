/// A gain that moves linearly to a target over a number of frames.
/// Owned by whoever renders (a value inside a render-side node).
/// When settled, `value` is exactly `target`, so unity gain stays bit-exact.
public struct LinearRamp: Sendable {
    @usableFromInline var _value: Float
    @usableFromInline var _target: Float
    @inlinable public var value: Float { _value }
    @inlinable public var target: Float { _target }
    @usableFromInline var step: Float = 0
    @usableFromInline var remainingFrames: Int = 0

    @inlinable public init(value: Float) {
        self._value = value
        self._target = value
    }

    @inlinable public var isRamping: Bool { remainingFrames > 0 }

    /// Start a ramp from the current value. `frameCount <= 0` jumps.
    @inlinable public mutating func ramp(to newTarget: Float, frameCount: Int) {
        _target = newTarget
        if frameCount <= 0 || value == newTarget {
            _value = newTarget
            remainingFrames = 0
            step = 0
        } else {
            step = (newTarget - value) / Float(frameCount)
            remainingFrames = frameCount
        }
    }

    /// The gain for the next frame; frame k of an n-frame ramp gets start + step·(k+1),
    /// the last one exactly the target.
    @inlinable @inline(__always) public mutating func next() -> Float {
        if remainingFrames > 0 {
            remainingFrames -= 1
            _value = remainingFrames == 0 ? target : value + step
        }
        return value
    }

    /// Advance `frameCount` frames without producing values.
    @inlinable public mutating func skip(_ frameCount: Int) {
        guard remainingFrames > 0 else { return }
        if frameCount >= remainingFrames {
            _value = target
            remainingFrames = 0
        } else {
            _value += step * Float(frameCount)
            remainingFrames -= frameCount
        }
    }

    /// Frames until settled (0 when settled).
    @inlinable public var framesRemaining: Int { remainingFrames }
}

/// A ducking envelope: gain moves linearly in decibels toward a target at a fixed
/// rate in dB per frame (attack and release each define their own rate).
/// Owned by the render side. At 0 dB the gain is exactly 1.
public struct DuckEnvelope: Sendable {
    @usableFromInline var db = LinearRamp(value: 0)
    @usableFromInline var _gain: Float = 1
    @inlinable public var gain: Float { _gain }
    @inlinable public var currentDB: Float { db.value }
    @inlinable public var targetDB: Float { db.target }

    @inlinable public init() {}

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
