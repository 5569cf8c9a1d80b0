import Foundation
import TuttiDSP

/// The plain C biquad `tutti bench effects` compares the engine's biquad with: transposed
/// direct form II over interleaved stereo floats, state and arithmetic in double like
/// `EffectUnit`'s biquad, both channels per frame, compiled with the system C compiler at
/// `-O3 -march=native` in the same run (`CLoopReference`'s mechanism: a temporary folder, a
/// shared object, `dlopen`). Control side: `compile` starts a process and blocks until it ends.
public enum CBiquadReference {
    /// How reports name this reference.
    public static let name = "C biquad (TDF-II, double state, stereo), cc -O3 -march=native"

    /// The C source.
    public static let source = #"""
        // A stereo biquad, transposed direct form II, double state: the reference of
        // `tutti bench effects` (see docs/performance.md).
        #include <stddef.h>

        void tutti_bench_c_biquad(float *restrict buf, size_t frames, const double *restrict c, double *restrict z) {
            const double b0 = c[0], b1 = c[1], b2 = c[2], a1 = c[3], a2 = c[4];
            double z1l = z[0], z2l = z[1], z1r = z[2], z2r = z[3];
            for (size_t i = 0; i < frames; i++) {
                double xl = buf[2 * i], xr = buf[2 * i + 1];
                double yl = b0 * xl + z1l;
                double yr = b0 * xr + z1r;
                z1l = b1 * xl - a1 * yl + z2l;
                z1r = b1 * xr - a1 * yr + z2r;
                z2l = b2 * xl - a2 * yl;
                z2r = b2 * xr - a2 * yr;
                buf[2 * i] = (float)yl;
                buf[2 * i + 1] = (float)yr;
            }
            z[0] = z1l; z[1] = z2l; z[2] = z1r; z[3] = z2r;
        }

        """#

    /// The exported function's name in the shared object.
    public static let symbol = "tutti_bench_c_biquad"

    /// The compiler flags (`-shared -fPIC` and the output are added).
    public static let flags = ["-O3", "-march=native"]

    /// The C function: `buf` (interleaved stereo, in place), `frames`, the coefficients b0, b1,
    /// b2, a1, a2 and the state z1 left, z2 left, z1 right, z2 right.
    public typealias Function =
        @convention(c) (UnsafeMutablePointer<Float>?, Int, UnsafePointer<Double>?, UnsafeMutablePointer<Double>?) -> Void

    /// A compiled and loaded C biquad.
    public struct Compiled: Sendable {
        /// The function (render-safe: no allocation, no call out).
        public let function: Function
        /// The compiler run: its path (from `$CC` or `cc` on `PATH`).
        public let compilerPath: String
        /// The first line of `compiler --version` (empty if it printed none).
        public let compilerVersion: String
        /// The command line that built the shared object (temporary paths left out).
        public var commandLine: String { ([compilerPath] + CBiquadReference.flags + ["-shared", "-fPIC"]).joined(separator: " ") }
    }

    /// Compiles and loads the C biquad (see `CLoopReference.compile`). Throws
    /// `CLoopReference.Unavailable` when there is no compiler or the compile or the load fails.
    public static func compile(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Compiled {
        let built = try CLoopReference.compileObject(
            source: source, flags: flags, symbol: symbol, what: "the C biquad", environment: environment)
        return Compiled(
            function: unsafeBitCast(built.address, to: Function.self), compilerPath: built.compilerPath,
            compilerVersion: built.compilerVersion)
    }

    /// `coefficients` as the C function's array: b0, b1, b2, a1, a2.
    public static func array(_ coefficients: BiquadCoefficients) -> [Double] {
        [coefficients.b0, coefficients.b1, coefficients.b2, coefficients.a1, coefficients.a2]
    }
}
