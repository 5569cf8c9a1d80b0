import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The plain C loop `tutti bench` compares the engine with: out = Σ gain·src, one pass per
/// source into a zeroed block, compiled with the system C compiler at `-O3 -march=native` in
/// the same run (written to a temporary folder, built as a shared object, loaded with
/// `dlopen`), and used as a `ReferenceFixture` kernel. The C source is the very file the
/// Benchmarks/ package's reference is built from (`Benchmarks/Sources/CReferenceKernel/
/// reference_kernel.c`, checked equal by a test), so both references agree. Control side:
/// `compile` starts a process and blocks until it ends.
public enum CLoopReference {
    /// How reports name this reference.
    public static let name = "C loop, cc -O3 -march=native"

    /// The C source: `Benchmarks/Sources/CReferenceKernel/reference_kernel.c`, byte for byte
    /// (the function is renamed through `BENCH_MIX_BLOCK` when it is compiled here).
    public static let source = #"""
        // The plain C limit Tutti's render path is compared against (see docs/performance.md).
        // Built with -O3 for the baseline x86-64 target (Package.swift); the loop is the whole kernel
        // on purpose.
        // CNativeKernel compiles this file again for -march=native under another name.
        #include <stddef.h>
        #include <string.h>

        #ifndef BENCH_MIX_BLOCK
        #include "CReferenceKernel.h"
        #define BENCH_MIX_BLOCK bench_ref_mix_block
        #endif

        static void mix_add(float *restrict out, const float *restrict in, size_t count, float g) {
            for (size_t i = 0; i < count; i++) out[i] += g * in[i];
        }

        void BENCH_MIX_BLOCK(float *restrict out, const float *const *sources, const float *gains, size_t source_count,
                                 size_t samples) {
            memset(out, 0, samples * sizeof(float));
            for (size_t k = 0; k < source_count; k++) mix_add(out, sources[k], samples, gains[k]);
        }

        """#

    /// The exported function's name in the shared object.
    public static let symbol = "tutti_bench_c_loop_mix_block"

    /// The compiler flags (`-shared -fPIC` and the output are added).
    public static let flags = ["-O3", "-march=native", "-DBENCH_MIX_BLOCK=\(symbol)"]

    /// The flags that keep `-march=native` to the instruction set of the kernel variant named
    /// `variant` ("scalar", "sse2", "avx2", "avx512") when the engine runs a variant below the
    /// CPU's best (`TUTTI_KERNELS`): the machine kind that variant stands for, compared like
    /// with like (on an AVX-512 CPU, `avx2` compares with a C loop built without AVX-512, as
    /// `-march=native` builds it on an AVX2 machine). Empty for the CPU's best. Pure: any thread.
    public static func capFlags(variant: String, best: String) -> [String] {
        guard variant != best else { return [] }
        switch variant {
        case "avx2": return ["-mno-avx512f"]
        case "sse2": return ["-mno-avx", "-mno-avx512f"]
        case "scalar": return ["-mno-avx", "-mno-avx512f", "-fno-tree-vectorize"]
        default: return []
        }
    }

    /// A compiled and loaded C loop.
    public struct Compiled: Sendable {
        /// The loop as a `ReferenceFixture` kernel (it zeroes `out` itself).
        public let kernel: ReferenceFixture.MixBlock
        /// The compiler run: its path (from `$CC` or `cc` on `PATH`).
        public let compilerPath: String
        /// The first line of `compiler --version` (empty if it printed none).
        public let compilerVersion: String
        /// The flags beyond `flags` it was built with (`capFlags`).
        public let extraFlags: [String]
        /// The command line that built the shared object (temporary paths shortened).
        public var commandLine: String {
            ([compilerPath] + CLoopReference.flags + extraFlags + ["-shared", "-fPIC"]).joined(separator: " ")
        }
    }

    /// Why the C loop is not available (no compiler, the compile failed, the object did not
    /// load): a sentence for reports.
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        /// What went wrong.
        public let description: String
    }

    private typealias CFunction =
        @convention(c) (
            UnsafeMutablePointer<Float>?, UnsafePointer<UnsafePointer<Float>?>?, UnsafePointer<Float>?, Int, Int
        ) -> Void

    /// The compiler `compile` runs: `$CC` (its first word; further words are passed as flags
    /// first) when set and not empty, else `cc`, looked up on `PATH` unless it names a path.
    /// nil when none is found.
    static func compiler(environment: [String: String]) -> (path: String, extraFlags: [String])? {
        let words = (environment["CC"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let program = words.first ?? "cc"
        let extra = Array(words.dropFirst())
        if program.contains("/") { return access(program, X_OK) == 0 ? (program, extra) : nil }
        for dir in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(program)"
            if access(path, X_OK) == 0 { return (path, extra) }
        }
        return nil
    }

    /// Runs `path` with `arguments`; returns its exit status and what it printed (stdout and
    /// stderr together).
    private static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Writes `source` to a temporary folder, compiles it to a shared object with the system
    /// C compiler (`$CC`, else `cc`) at `flags`, loads it and returns its function as a kernel.
    /// The shared object stays loaded for the rest of the process (its file is deleted).
    /// Throws `Unavailable` when there is no compiler or the compile or the load fails.
    /// `extraFlags` follow `flags` (`capFlags`).
    public static func compile(
        extraFlags: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Compiled {
        let built = try compileObject(
            source: source, flags: flags + extraFlags, symbol: symbol, what: "the C loop", environment: environment)
        let function = unsafeBitCast(built.address, to: CFunction.self)
        return Compiled(
            kernel: { out, sources, gains, count, samples in function(out, sources, gains, count, samples) },
            compilerPath: built.compilerPath, compilerVersion: built.compilerVersion, extraFlags: extraFlags)
    }

    /// Writes `source` to a temporary folder, compiles it to a shared object with the system
    /// C compiler (`$CC`, else `cc`) at `flags` (plus `-shared -fPIC`), loads it and returns
    /// the address of `symbol`, the compiler's path and the first line of its `--version`.
    /// The object stays loaded for the rest of the process (its file is deleted). `what` names
    /// the code in the errors ("the C loop"). Throws `Unavailable`. Control side: blocks while
    /// the compiler runs.
    static func compileObject(
        source: String, flags: [String], symbol: String, what: String, environment: [String: String]
    ) throws -> (address: UnsafeMutableRawPointer, compilerPath: String, compilerVersion: String) {
        guard let (cc, extra) = compiler(environment: environment) else {
            let asked = environment["CC"].flatMap { $0.isEmpty ? nil : $0 }
            let what =
                asked.map { $0.contains("/") ? "$CC=\($0) is not an executable file" : "$CC=\($0) is not on PATH" }
                ?? "cc is not on PATH"
            throw Unavailable(description: "no C compiler found (\(what))")
        }
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("tutti-bench-cloop-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        do {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw Unavailable(description: "cannot create a temporary folder for \(what): \(error)")
        }
        defer { try? fm.removeItem(at: dir) }
        let cFile = dir.appendingPathComponent("cloop.c").path
        let soFile = dir.appendingPathComponent("libcloop.so").path
        do {
            try Data(source.utf8).write(to: URL(fileURLWithPath: cFile))
        } catch {
            throw Unavailable(description: "cannot write \(what)'s source: \(error)")
        }
        let built: (status: Int32, output: String)
        do {
            built = try run(cc, extra + flags + ["-shared", "-fPIC", "-o", soFile, cFile])
        } catch {
            throw Unavailable(description: "cannot run \(cc): \(error)")
        }
        guard built.status == 0 else {
            let first = built.output.split(separator: "\n").prefix(3).joined(separator: "; ")
            throw Unavailable(description: "\(cc) failed (exit \(built.status)): \(first)")
        }
        guard let handle = dlopen(soFile, RTLD_NOW | RTLD_LOCAL) else {
            throw Unavailable(description: "cannot load \(what): \(dlerror().map { String(cString: $0) } ?? "dlopen failed")")
        }
        guard let address = dlsym(handle, symbol) else {
            throw Unavailable(description: "\(what)'s object has no \(symbol)")
        }
        let version = (try? run(cc, ["--version"]))?.output.split(separator: "\n").first.map(String.init) ?? ""
        return (address, cc, version)
    }
}
