import Benchmark

#if canImport(Glibc)
    import Glibc
#endif

extension Benchmark {
    /// Marks the benchmark failed (`error(_:)`) and says so on standard error as one line,
    /// `benchmark failed: NAME: REASON`.
    ///
    /// Run directly, without the `swift package benchmark` plugin (as `scripts/bench-smoke.sh`
    /// does), the harness stops at a failed benchmark without a word and exits 0: this line is
    /// what the script looks for. Under the plugin the failure is reported as before.
    ///
    /// Thread: the benchmark's own closure (the harness runs one benchmark at a time).
    public func fail(_ reason: String) {
        fputs("benchmark failed: \(name): \(reason)\n", stderr)
        error(reason)
    }
}
