#if canImport(Glibc)
    import Glibc
#endif

/// A sine oscillator with a double-precision phase (no drift over long renders).
/// Owned by the render side.
///
/// The sine is `sineOfPhase`: a polynomial in plain multiplies and adds (no fused multiply-add,
/// no libm), so a tone renders to the same bytes on every machine and costs a few nanoseconds a
/// sample (libm's `sin` took 11 ns, most of a 10 000-tone scene's render).
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
            let v = amplitude * Float(sineOfPhase(phase))
            for c in 0..<channelCount { output[f &* channelCount &+ c] = v }
            phase += increment
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        }
    }
}

/// sin(`phase`) for a phase in [0, 2π] (what the oscillator keeps), within 1e-11 of the
/// exact value: the phase is folded onto [−π/2, π/2] (sin(p) = −sin(p − π) = sin(π − x)),
/// then the Taylor series to x¹⁵ in Horner form, in multiplies and adds only (the same
/// result on every CPU). Any thread; real-time safe.
@inlinable @_noLocks public func sineOfPhase(_ phase: Double) -> Double {
    let pi = Double.pi
    var x = phase - pi // sin(phase) = −sin(x), x ∈ [−π, π]
    if x > pi / 2 { x = pi - x } else if x < -pi / 2 { x = -pi - x }
    let x2 = x * x
    var r = -1.0 / 1_307_674_368_000 // −1/15!
    r = r * x2 + 1.0 / 6_227_020_800 // 1/13!
    r = r * x2 - 1.0 / 39_916_800 // 1/11!
    r = r * x2 + 1.0 / 362_880 // 1/9!
    r = r * x2 - 1.0 / 5_040 // 1/7!
    r = r * x2 + 1.0 / 120 // 1/5!
    r = r * x2 - 1.0 / 6 // 1/3!
    r = r * x2 + 1
    return -(r * x)
}
