#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

/// dB → linear amplitude.
@inline(__always)
func decibelsToGain(_ dB: Double) -> Double { pow(10, dB / 20) }

/// The perceptual curve of the system and ringer volumes (§6): linear in
/// decibels over `rangeDB`, so each of the 16 button steps is 3 dB, and
/// 0 is silence, 1 is unity. Stateless: any thread.
public enum VolumeCurve {
    /// Attenuation at the lowest non-zero volume is `rangeDB * 15/16` below unity.
    public static let rangeDB: Double = 48
    /// One volume button step.
    public static let step: Double = 1.0 / 16.0

    /// Linear gain for a volume in 0…1 (clamped; NaN counts as 0).
    public static func gain(forVolume volume: Double) -> Double {
        guard volume > 0 else { return 0 }
        guard volume < 1 else { return 1 }
        return decibelsToGain(rangeDB * (volume - 1))
    }
}
