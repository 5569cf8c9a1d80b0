import CSampleRate
import CSoxr

/// Sample-rate converter qualities: libsamplerate's five (any use: the live stream path and
/// whole files) and libsoxr's two (whole files and file streaming, off the render thread:
/// `ChunkedResampler`, `resampleBuffer`). Value type; any thread.
public enum ResamplerQuality: String, Sendable, CaseIterable {
    /// libsamplerate's converters, best (slowest) to cheapest: three band-limited sinc
    /// interpolators, then linear and zero-order-hold interpolation (audible aliasing; tests).
    case sincBest, sincMedium, sincFastest, linear, zeroOrderHold
    /// libsoxr "high quality" (20-bit precision, single-threaded).
    case soxrHQ
    /// libsoxr "very high quality" (28-bit precision, single-threaded).
    case soxrVHQ

    /// The quality file sources are converted at when a scene or a caller does not say:
    /// the fastest one measured to keep ≥ 120 dB SNR on the 1 kHz and 20 kHz 44.1 → 48 kHz
    /// checks (see docs/performance.md).
    public static let fileDefault = ResamplerQuality.soxrHQ

    /// The library behind a quality.
    public enum Library: String, Sendable {
        /// libsamplerate (`SRC_*` converters) or libsoxr.
        case libsamplerate, soxr
    }

    /// Which library converts at this quality.
    public var library: Library {
        switch self {
        case .soxrHQ, .soxrVHQ: .soxr
        default: .libsamplerate
        }
    }

    /// libsamplerate's converter type, nil for the soxr qualities.
    public var libsamplerateConverter: Int32? {
        switch self {
        case .sincBest: Int32(SRC_SINC_BEST_QUALITY)
        case .sincMedium: Int32(SRC_SINC_MEDIUM_QUALITY)
        case .sincFastest: Int32(SRC_SINC_FASTEST)
        case .linear: Int32(SRC_LINEAR)
        case .zeroOrderHold: Int32(SRC_ZERO_ORDER_HOLD)
        case .soxrHQ, .soxrVHQ: nil
        }
    }

    /// libsoxr's quality recipe, nil for the libsamplerate qualities.
    public var soxrRecipe: UInt? {
        switch self {
        case .soxrHQ: UInt(SOXR_HQ)
        case .soxrVHQ: UInt(SOXR_VHQ)
        default: nil
        }
    }
}

/// A converter that could not be built or failed, with the library's reason.
public struct ResamplerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in the library's words.
    public let description: String

    /// An error with this text.
    public init(_ description: String) { self.description = description }

    /// libsamplerate's error `code`, in its words.
    public init(libsamplerateCode code: Int32) { description = String(cString: src_strerror(code)) }
}
