#if canImport(Glibc)
    import Glibc
#endif

/// A sine oscillator with a double-precision phase (no drift over long renders).
/// Owned by the render side.
public struct SineOscillator: Sendable {
    public var frequency: Double
    public var amplitude: Float
    public let sampleRate: Double
    @usableFromInline var phase: Double = 0
    @usableFromInline var increment: Double

    public init(frequency: Double, amplitude: Float, sampleRate: Double) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.sampleRate = sampleRate
        increment = 2 * Double.pi * frequency / sampleRate
    }

    @inlinable public mutating func reset() { phase = 0 }

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
