#if canImport(Glibc)
    import Glibc
#endif

/// A sine oscillator with a double-precision phase (no drift over long renders).
/// Owned by the render side.
public struct SineOscillator: Sendable {
    /// Hz, fixed at creation.
    public let frequency: Double
    /// Peak amplitude (linear).
    public let amplitude: Float
    /// The rate it renders at, Hz.
    public let sampleRate: Double
    @usableFromInline var phase: Double = 0
    @usableFromInline let increment: Double

    /// A sine at `frequency` Hz and `amplitude` peak, rendered at `sampleRate` Hz, phase 0.
    public init(frequency: Double, amplitude: Float, sampleRate: Double) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.sampleRate = sampleRate
        increment = 2 * Double.pi * frequency / sampleRate
    }

    /// Back to phase 0.
    @inlinable @_noLocks public mutating func reset() { phase = 0 }

    /// The phase it has `frame` frames after a reset.
    @inlinable @_noLocks public mutating func seek(toFrame frame: Int) {
        let p = Double(frame) * increment
        phase = _unsafePerformance { fmod(p, 2 * Double.pi) }
    }

    /// Write `frameCount` frames (the same value on every channel) into `output`, overwriting it.
    @inlinable @_noLocks
    public mutating func render(into output: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        for f in 0..<frameCount {
            let p = phase
            let v = amplitude * Float(_unsafePerformance { sin(p) })
            for c in 0..<channelCount { output[f &* channelCount &+ c] = v }
            phase += increment
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        }
    }
}
