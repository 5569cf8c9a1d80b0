#if canImport(Glibc)
    import Glibc
#endif

/// The pan law: the gain of each output channel for a source at pan position `pan`
/// (−1 left … 0 centre … +1 right). Stateless; any thread.
///
/// - Mono material (a mono file or buffer, a tone, a mono stream or input, spread on both
///   channels): constant power, left = sin((1 − pan)·π/4), right = sin((1 + pan)·π/4); at 0
///   both are √½ (−3.01 dB), at ±1 the far channel is exactly 0 and the near one exactly 1.
/// - Stereo material: balance; the near channel keeps gain 1, the far one follows the same
///   curve relative to the centre, √2·sin((1 − |pan|)·π/4): 1 at 0, exactly 0 at ±1.
public enum PanLaw {
    /// The (left, right) linear gains at `pan` (clamped to −1…1) for mono (`stereo` false) or
    /// stereo material. Real-time safe.
    @inlinable @_noLocks
    public static func gains(pan: Float, stereo: Bool) -> (left: Float, right: Float) {
        let p = Double(min(max(pan, -1), 1))
        let quarter = Double.pi / 4
        if stereo {
            if p == 0 { return (1, 1) }
            let far = Float(1.414_213_562_373_095_1 * _unsafePerformance { sin((1 - abs(p)) * quarter) }) // √2
            return p < 0 ? (1, far) : (far, 1)
        }
        let left = _unsafePerformance { sin((1 - p) * quarter) }
        let right = _unsafePerformance { sin((1 + p) * quarter) }
        return (Float(left), Float(right))
    }
}
