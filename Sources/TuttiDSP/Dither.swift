/// Output sample formats of the master stage.
public enum SampleFormat: String, Sendable, CaseIterable {
    case float32, s16, s24

    public var bitsPerSample: Int {
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
    @inlinable public init(seed: UInt32) { state = seed == 0 ? 0x9E37_79B9 : seed }
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
    public let format: SampleFormat
    public var ditherEnabled: Bool
    @usableFromInline var rng: XorShift32
    @usableFromInline let scale: Float
    @usableFromInline let maxCode: Float
    @usableFromInline let minCode: Float

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

    /// Quantize `count` samples to integer codes (−2^(b−1) … 2^(b−1)−1) in `output`.
    /// Real-time safe (an ALSA backend calls it on its render thread).
    @inlinable @_noLocks
    public mutating func quantize(_ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Int32>) {
        for i in 0..<count {
            var x = input[i] * scale
            if ditherEnabled { x += rng.nextUnit() - rng.nextUnit() }
            // Round half away from zero; clamp before converting so the conversion cannot trap.
            x += x >= 0 ? 0.5 : -0.5
            x = min(max(x, minCode), maxCode)
            output[i] = Int32(x)
        }
    }
}
