// Flat mixing kernels over interleaved float samples. Each has a scalar reference
// (`…Reference`) and a fast variant; tests run both on the same vectors.
// Swift does not vectorize plain pointer loops (the pointers may alias), so the fast
// variants use explicit SIMD8 with `*` and `+` (never `addingProduct`, which calls fmaf per lane).

public enum Kernels {
    /// dst[i] += gain · src[i], scalar reference.
    @inlinable public static func mixAddReference(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int, gain: Float)
    {
        for i in 0..<count { dst[i] += gain * src[i] }
    }

    /// dst[i] += gain · src[i].
    @inlinable @inline(__always)
    public static func mixAdd(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int, gain: Float) {
        var i = 0
        let g = SIMD8<Float>(repeating: gain)
        let d8 = UnsafeMutableRawPointer(dst)
        let s8 = UnsafeRawPointer(src)
        let vectorEnd = count & ~7
        while i < vectorEnd {
            let off = i &* 4
            let s = s8.loadUnaligned(fromByteOffset: off, as: SIMD8<Float>.self)
            let d = d8.loadUnaligned(fromByteOffset: off, as: SIMD8<Float>.self)
            d8.storeBytes(of: d + g * s, toByteOffset: off, as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < count {
            dst[i] += gain * src[i]
            i &+= 1
        }
    }

    /// dst[i] += src[i]: unity gain as a plain add, so 1.0 stays exact and cheap.
    @inlinable @inline(__always)
    public static func add(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int) {
        var i = 0
        let d8 = UnsafeMutableRawPointer(dst)
        let s8 = UnsafeRawPointer(src)
        let vectorEnd = count & ~7
        while i < vectorEnd {
            let off = i &* 4
            let s = s8.loadUnaligned(fromByteOffset: off, as: SIMD8<Float>.self)
            let d = d8.loadUnaligned(fromByteOffset: off, as: SIMD8<Float>.self)
            d8.storeBytes(of: d + s, toByteOffset: off, as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < count {
            dst[i] += src[i]
            i &+= 1
        }
    }

    /// dst[f·ch + c] += gains[f] · src[f·ch + c], scalar reference.
    @inlinable public static func mixAddGainsReference(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>,
        gains: UnsafePointer<Float>, frameCount: Int, channelCount: Int
    ) {
        for f in 0..<frameCount {
            for c in 0..<channelCount { dst[f * channelCount + c] += gains[f] * src[f * channelCount + c] }
        }
    }

    /// dst[f·ch + c] += gains[f] · src[f·ch + c]: a per-frame gain over interleaved frames.
    @inlinable @inline(__always)
    public static func mixAddGains(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>,
        gains: UnsafePointer<Float>, frameCount: Int, channelCount: Int
    ) {
        if channelCount == 2 {
            for f in 0..<frameCount {
                let g = gains[f]
                dst[2 &* f] += g * src[2 &* f]
                dst[2 &* f &+ 1] += g * src[2 &* f &+ 1]
            }
        } else {
            for f in 0..<frameCount {
                let g = gains[f]
                for c in 0..<channelCount { dst[f &* channelCount &+ c] += g * src[f &* channelCount &+ c] }
            }
        }
    }
}
