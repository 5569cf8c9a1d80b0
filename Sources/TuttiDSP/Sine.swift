import CTuttiKernels

/// A sine oscillator whose every frame is a function of its index alone: frame n (counted
/// from the last reset or seek) is amplitude · sin(2π · frac(n · frequency / sampleRate)), in
/// double precision, so there is no drift over long renders (under 2e-6 rad of phase after a
/// day at 20 kHz, far less for lower tones) and the samples do not depend on how the frames
/// are split into blocks. Owned by the render side.
///
/// The sine is `sineOfPhase`: a polynomial in plain multiplies and adds (no fused multiply-add,
/// no libm), so a tone renders to the same bytes on every machine. It renders through the C
/// kernel table (`tk_kernels.sine`: scalar, SSE2, AVX2 and AVX-512 variants, every one
/// bit-identical to `renderReference`), a few frames at once, no frame waiting for the
/// previous one's phase: about 1 ns a frame with AVX-512 and 1.7 ns with AVX2, where the phase
/// carried from frame to frame took 4 ns (docs/performance.md).
public struct SineOscillator: Sendable {
    /// Hz, fixed at creation.
    public let frequency: Double
    /// Peak amplitude (linear).
    public let amplitude: Float
    /// The rate it renders at, Hz.
    public let sampleRate: Double
    /// Cycles per frame: frequency / sampleRate.
    @usableFromInline let cyclesPerFrame: Double
    /// The next frame to render, counted from phase 0.
    @usableFromInline var frame: Int64 = 0

    /// A sine at `frequency` Hz and `amplitude` peak, rendered at `sampleRate` Hz, phase 0.
    public init(frequency: Double, amplitude: Float, sampleRate: Double) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.sampleRate = sampleRate
        cyclesPerFrame = frequency / sampleRate
    }

    /// Back to phase 0.
    @inlinable @_noLocks public mutating func reset() { frame = 0 }

    /// The phase it has `frame` frames after a reset. `frame` ≥ 0.
    @inlinable @_noLocks public mutating func seek(toFrame frame: Int) { self.frame = Int64(frame) }

    /// Write `frameCount` frames (the same value on every channel) into `output`, overwriting
    /// it, through the active kernel variant. Real-time safe.
    @inlinable @_noLocks
    public mutating func render(into output: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        let (first, cycles, amp) = (frame, cyclesPerFrame, amplitude)
        _unsafePerformance { tk_sine(output, frameCount, channelCount, first, cycles, amp) }
        frame &+= Int64(frameCount)
    }

    /// What `render` writes, in Swift, one frame after another: the reference every kernel
    /// variant is tested against. Any thread.
    public mutating func renderReference(into output: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        for f in 0..<frameCount {
            let v = amplitude * Float(sineOfPhase(phaseOfFrame(Double(frame &+ Int64(f)), cyclesPerFrame: cyclesPerFrame)))
            for c in 0..<channelCount { output[f &* channelCount &+ c] = v }
        }
        frame &+= Int64(frameCount)
    }
}

/// 2π · frac(`n` · `cyclesPerFrame`) in [0, 2π], for a frame index `n` (an integer below 2^51):
/// the floor by rounding with 1.5 · 2^52 (added, then subtracted: the nearest integer) and a
/// correction, so only adds, subtracts, multiplies and a comparison — what every variant of
/// the C tone kernel does in each lane. Any thread; real-time safe.
@inlinable @_noLocks public func phaseOfFrame(_ n: Double, cyclesPerFrame: Double) -> Double {
    let magic = 6_755_399_441_055_744.0 // 1.5 · 2^52
    let c = n * cyclesPerFrame
    var t = (c + magic) - magic
    if t > c { t -= 1 }
    return (c - t) * (2 * Double.pi)
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
