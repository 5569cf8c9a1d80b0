/// 4-point, 3rd-order Hermite interpolation (Catmull-Rom): the playback-rate ("varispeed")
/// interpolator of buffer sources. Stateless; any thread; real-time safe.
///
/// Between `x0` (t = 0) and `x1` (t = 1), with the neighbours `xm1` before and `x2` after:
/// the cubic through `x0` and `x1` whose slopes there are the central differences
/// (x1 − xm1)/2 and (x2 − x0)/2. It passes through the samples exactly (t = 0 gives `x0`
/// bit for bit) and is continuous with a continuous first derivative from one interval to the
/// next. It does no band-limiting: a rate above 1 folds content above the new Nyquist
/// frequency (sampleRate / (2 · rate)) back down, as any interpolator without a low-pass does.
public enum Hermite {
    /// The value at `t` (0 ≤ t < 1) between `x0` and `x1`.
    @inlinable @inline(__always) @_noLocks public static func interpolate(_ xm1: Float, _ x0: Float, _ x1: Float, _ x2: Float, t: Float)
        -> Float
    {
        let c1 = 0.5 * (x1 - xm1)
        let c2 = xm1 - 2.5 * x0 + 2 * x1 - 0.5 * x2
        let c3 = 0.5 * (x2 - xm1) + 1.5 * (x0 - x1)
        return ((c3 * t + c2) * t + c1) * t + x0
    }
}
