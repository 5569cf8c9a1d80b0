/// The system-volume curve: volume 0…1 (what a slider or the volume buttons set) → linear gain.
/// Cubic, as PulseAudio's software volume: gain = v³. 0 is silence, 1 is exactly unity,
/// 0.5 is about −18 dB, one volume-button step (1/16) is about −72 dB.
public enum VolumeCurve {
    @inlinable public static func gain(forVolume volume: Double) -> Float {
        let v = min(max(volume, 0), 1)
        return Float(v * v * v)
    }

    @inlinable public static func volume(forGain gain: Float) -> Double {
        cbrt(Double(max(0, min(1, gain))))
    }
}

#if canImport(Glibc)
import Glibc
#endif
