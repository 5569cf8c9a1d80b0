import CTuttiKernels

/// Output sample formats of the master stage. Value type: any thread.
public enum SampleFormat: String, Sendable, CaseIterable {
    /// 32-bit float (no quantization), or signed 16-bit or 24-bit integer (quantized, TPDF dither
    /// unless turned off).
    case float32, s16, s24

    /// Bits per sample of the format.
    @inlinable public var bitsPerSample: Int {
        switch self {
        case .float32: 32
        case .s16: 16
        case .s24: 24
        }
    }
}

/// A small deterministic PRNG (xorshift32): the same seed gives the same dither, so
/// renders are byte-identical run after run. Value type, owned by its quantizer.
public struct XorShift32: Sendable {
    @usableFromInline var state: UInt32
    /// A generator starting from `seed` (0 is replaced by a fixed non-zero seed).
    @inlinable public init(seed: UInt32) { state = seed == 0 ? 0x9E37_79B9 : seed }
    /// The next 32 random bits.
    @inlinable @inline(__always) public mutating func next() -> UInt32 {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return state
    }
    /// Uniform in [0, 1).
    @inlinable @inline(__always) public mutating func nextUnit() -> Float {
        Float(next() >> 8) * (1.0 / 16_777_216.0)
    }
}

/// Float → integer PCM with TPDF dither (difference of two uniform variables, ±1 LSB
/// peak), rounding and clipping. Full scale is 2^(bits-1): 1.0 clips to the largest code.
/// Owned by the thread that writes output.
public struct TPDFQuantizer: Sendable {
    /// The integer format (s16 or s24).
    public let format: SampleFormat
    /// False: plain rounding, no dither.
    public var ditherEnabled: Bool
    @usableFromInline var rng: XorShift32
    @usableFromInline let scale: Float
    @usableFromInline let maxCode: Float
    @usableFromInline let minCode: Float

    /// A quantizer to `format` whose dither sequence starts from `seed`.
    public init(format: SampleFormat, seed: UInt32 = 0x7075_7474, dither: Bool = true) {
        precondition(format != .float32, "float32 output is not quantized")
        self.format = format
        self.ditherEnabled = dither
        self.rng = XorShift32(seed: seed)
        let full = Float(1 << (format.bitsPerSample - 1))
        scale = full
        maxCode = full - 1
        minCode = -full
    }

    /// Quantize `count` samples to integer codes (−2^(b−1) … 2^(b−1)−1) in `output`: the
    /// scalar reference the C kernels are tested against. Step by step: x = sample · 2^(b−1)
    /// (NaN counts as 0), plus the TPDF dither, plus ±0.5 (half away from zero), clamped,
    /// truncated.
    @inlinable @_noLocks
    public mutating func quantizeReference(_ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Int32>) {
        for i in 0..<count {
            var x = input[i] * scale
            if x.isNaN { x = 0 }
            if ditherEnabled { x += rng.nextUnit() - rng.nextUnit() }
            // Round half away from zero; clamp before converting so the conversion cannot trap.
            x += x >= 0 ? 0.5 : -0.5
            x = min(max(x, minCode), maxCode)
            output[i] = Int32(x)
        }
    }

    /// The next `count` dither values (code units), the ones `quantizeReference` would add
    /// to the next `count` samples; nothing is written when dither is off. Real-time safe.
    @inlinable @_noLocks
    public mutating func fillDither(_ dither: UnsafeMutablePointer<Float>, count: Int) {
        guard ditherEnabled else { return }
        for i in 0..<count { dither[i] = rng.nextUnit() - rng.nextUnit() }
    }

    /// Quantize `count` samples to 16-bit codes (the format must be s16) with the C kernels:
    /// the same codes as `quantizeReference`. `scratch` holds at least `count` floats (the
    /// dither values). Real-time safe (an ALSA backend calls it on its render thread).
    @inlinable @_noLocks
    public mutating func quantize(
        _ input: UnsafePointer<Float>, count: Int, scratch: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Int16>
    ) {
        fillDither(scratch, count: count)
        let dither: UnsafePointer<Float>? = ditherEnabled ? UnsafePointer(scratch) : nil
        _unsafePerformance { tk_quantize_s16(output, input, dither, count) }
    }

    /// Quantize `count` samples to this quantizer's codes (16 or 24 bits) left-justified in
    /// 32 bits (code << (32 − bits): ALSA S32 with 24-bit codes, libsndfile's int writes)
    /// with the C kernels: the same codes as `quantizeReference`, shifted. `scratch` holds
    /// at least `count` floats. Real-time safe.
    @inlinable @_noLocks
    public mutating func quantizeLeftJustified(
        _ input: UnsafePointer<Float>, count: Int, scratch: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Int32>
    ) {
        fillDither(scratch, count: count)
        let dither: UnsafePointer<Float>? = ditherEnabled ? UnsafePointer(scratch) : nil
        let bits = UInt32(format.bitsPerSample)
        _unsafePerformance { tk_quantize_s32(output, input, dither, count, bits) }
    }
}
