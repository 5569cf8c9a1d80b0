import CTuttiKernels

/// One variant of the C kernels (scalar, SSE2, AVX2, AVX-512; all bit-identical), callable directly: for
/// tests (every variant against the Swift references) and benchmarks. The render path uses
/// `Kernels`, which calls the variant chosen at load time (`KernelVariant.active`).
/// Immutable; any thread.
public struct KernelVariant: Sendable, Equatable, CustomStringConvertible {
    /// The variant's level: 0 scalar, 1 SSE2, 2 AVX2, 3 AVX-512.
    public let level: Int
    /// The variant's C table, by value (function pointers only: Sendable).
    @usableFromInline let kernels: tk_kernels

    /// The names TUTTI_KERNELS accepts, lowest level first.
    public static let allNames = ["scalar", "sse2", "avx2", "avx512"]

    init?(level: Int) {
        guard level >= 0, level < Int(TK_VARIANT_COUNT.rawValue), let t = tk_kernels_for(tk_variant(rawValue: UInt32(level))) else {
            return nil
        }
        self.level = level
        kernels = t.pointee
    }

    /// The variant named `name` ("scalar", "sse2", "avx2", "avx512"), nil when unknown or
    /// when this CPU lacks it.
    public init?(named name: String) {
        guard let level = KernelVariant.allNames.firstIndex(of: name) else { return nil }
        self.init(level: level)
    }

    /// The variant the render path uses: the best this CPU supports, or the one the
    /// environment variable TUTTI_KERNELS named when the process started (never above the CPU).
    public static var active: KernelVariant { KernelVariant(level: Int(tk_active_variant().rawValue))! }

    /// The best variant this CPU supports.
    public static var best: KernelVariant { KernelVariant(level: Int(tk_best_variant().rawValue))! }

    /// Every variant this CPU supports, scalar first.
    public static var supported: [KernelVariant] { (0..<Int(TK_VARIANT_COUNT.rawValue)).compactMap { KernelVariant(level: $0) } }

    /// "scalar", "sse2", "avx2" or "avx512".
    public var name: String { KernelVariant.allNames[level] }
    /// The name.
    public var description: String { name }

    /// Same level, same variant.
    public static func == (a: KernelVariant, b: KernelVariant) -> Bool { a.level == b.level }

    /// dst[i] += src[i] over `count` samples.
    @inlinable public func add(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int) {
        kernels.add!(dst, src, count)
    }

    /// dst[i] += gain · src[i] over `count` samples.
    @inlinable public func mixAdd(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, count: Int, gain: Float) {
        kernels.mix_add!(dst, src, count, gain)
    }

    /// dst[f·ch + c] += gains[f] · src[f·ch + c] over `frameCount` interleaved frames.
    @inlinable public func mixAddGains(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, gains: UnsafePointer<Float>, frameCount: Int, channelCount: Int
    ) {
        kernels.mix_add_gains!(dst, src, gains, frameCount, channelCount)
    }

    /// Stereo: dst[2f] += gainLeft · src[2f], dst[2f+1] += gainRight · src[2f+1].
    @inlinable public func mixAddPair(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, frameCount: Int, gainLeft: Float, gainRight: Float
    ) {
        kernels.mix_add_pair!(dst, src, frameCount, gainLeft, gainRight)
    }

    /// dst[i] += gains[i] · src[i] over `count` samples.
    @inlinable public func mixAddSampleGains(
        _ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, gains: UnsafePointer<Float>, count: Int
    ) {
        kernels.mix_add_sample_gains!(dst, src, gains, count)
    }

    /// The dense settled list's chunk (`Kernels.mixSettled`) with this variant: returns the
    /// index of the first entry not mixed, `count` when none.
    @inlinable public func mixSettled(
        _ entries: UnsafeMutablePointer<Kernels.SettledEntry>, from first: Int, count: Int,
        targets: UnsafePointer<UnsafeMutablePointer<Float>>, frameCount: Int, channelCount: Int, frame: Int64, wrappedAt: inout Int64
    ) -> Int {
        let t = UnsafeRawPointer(targets).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self)
        return kernels.mix_settled!(entries, first, count, t, frameCount, channelCount, frame, &wrappedAt)
    }

    /// The output meter (`Kernels.meter`) with this variant.
    @inlinable public func meter(_ samples: UnsafePointer<Float>, count: Int, peakBits: UInt32, clipped: inout Int) -> UInt32 {
        kernels.meter!(samples, count, peakBits, &clipped)
    }

    /// `count` samples to 16-bit codes, adding `dither[i]` (code units; nil: none).
    @inlinable public func quantizeS16(
        _ dst: UnsafeMutablePointer<Int16>, _ src: UnsafePointer<Float>, dither: UnsafePointer<Float>?, count: Int
    ) {
        kernels.quantize_s16!(dst, src, dither, count)
    }

    /// `count` samples to 24-bit codes, right-justified in Int32.
    @inlinable public func quantizeS24(
        _ dst: UnsafeMutablePointer<Int32>, _ src: UnsafePointer<Float>, dither: UnsafePointer<Float>?, count: Int
    ) {
        kernels.quantize_s24!(dst, src, dither, count)
    }

    /// `count` samples to `bits`-bit codes (16 or 24) left-justified in Int32.
    @inlinable public func quantizeS32(
        _ dst: UnsafeMutablePointer<Int32>, _ src: UnsafePointer<Float>, dither: UnsafePointer<Float>?, count: Int, bits: Int
    ) {
        kernels.quantize_s32!(dst, src, dither, count, UInt32(bits))
    }

    /// The variant whose table is `table` (one this CPU supports). Any thread.
    init(table: UnsafePointer<tk_kernels>) {
        self = KernelVariant.supported.first { $0.table == table } ?? KernelVariant(level: 0)!
    }

    /// The variant's static C table (for a render-side holder such as the limiter, which keeps
    /// the pointer). Any thread.
    var table: UnsafePointer<tk_kernels> { tk_kernels_for(tk_variant(rawValue: UInt32(level))).unsafelyUnwrapped }

    /// The limiter's needed gains of `frameCount` stereo frames of `x` into `gains` (see
    /// `tk_kernels.limiter_needed_stereo`). Tests; any thread.
    @inlinable package func limiterNeededStereo(
        _ gains: UnsafeMutablePointer<Float>, _ x: UnsafePointer<Float>, frameCount: Int, ceiling: Float
    ) {
        kernels.limiter_needed_stereo!(gains, x, frameCount, ceiling)
    }

    /// A segment of the limiter's window minima (see `tk_kernels.limiter_window_minima`);
    /// returns the last running minimum. Tests; any thread.
    @inlinable package func limiterWindowMinima(
        _ minima: UnsafeMutablePointer<Float>, complement: UnsafeMutablePointer<Float>, stored: UnsafeMutablePointer<Float>,
        needed: UnsafePointer<Float>, after: UnsafePointer<Float>, count: Int, prefix: Float
    ) -> Float {
        kernels.limiter_window_minima!(minima, complement, stored, needed, after, count, prefix)
    }

    /// The suffix minima of `span` gains (see `tk_kernels.limiter_suffix_minima`). Tests; any
    /// thread.
    @inlinable package func limiterSuffixMinima(_ suffix: UnsafeMutablePointer<Float>, _ gains: UnsafePointer<Float>, span: Int) {
        kernels.limiter_suffix_minima!(suffix, gains, span)
    }

    /// The limiter's delay line and gains over `frameCount` stereo frames (see
    /// `tk_kernels.limiter_apply_stereo`). Tests; any thread.
    @inlinable package func limiterApplyStereo(
        _ x: UnsafeMutablePointer<Float>, held: UnsafeMutablePointer<Float>, gains: UnsafePointer<Float>, frameCount: Int, ceiling: Float
    ) {
        kernels.limiter_apply_stereo!(x, held, gains, frameCount, ceiling)
    }

    /// The limiter's window sums and averages (see `tk_kernels.limiter_window_averages`:
    /// the vector variants need sums that no addition rounds); returns the smallest of 1 and
    /// the gains. Tests; any thread.
    @inlinable package func limiterWindowAverages(
        _ gains: UnsafeMutablePointer<Float>, entering: UnsafePointer<Float>, leaving: UnsafePointer<Float>, count: Int,
        sum: UnsafeMutablePointer<Double>, span: Double
    ) -> Float {
        kernels.limiter_window_averages!(gains, entering, leaving, count, sum, span)
    }

    /// A tone's frames with this variant (see `SineOscillator` and `tk_kernels.sine`): every
    /// channel of frame f gets amplitude · sin(2π · frac((firstFrame + f) · cyclesPerFrame)).
    /// Tests and benchmarks; any thread.
    @inlinable public func sine(
        _ dst: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int, firstFrame: Int64, cyclesPerFrame: Double, amplitude: Float
    ) {
        kernels.sine!(dst, frameCount, channelCount, firstFrame, cyclesPerFrame, amplitude)
    }
}
