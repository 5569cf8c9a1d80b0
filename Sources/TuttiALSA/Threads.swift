import Glibc
import TuttiEngine
import TuttiOutput

/// Monotonic clock, nanoseconds (vDSO: no syscall, real-time safe).
@inline(__always) @_noLocks
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    _ = _unsafePerformance { clock_gettime(CLOCK_MONOTONIC, &ts) }
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Start a joinable pthread (see `TuttiEngine.startThread`), failures as `TuttiError` (`device`).
func startThread(name: String, _ body: @escaping () -> Void) throws(TuttiError) -> pthread_t {
    do {
        return try TuttiEngine.startThread(name: name, body)
    } catch {
        throw TuttiError(.device, "\(error)")
    }
}

func errnoName(_ code: Int32) -> String {
    String(cString: Glibc.strerror(code))
}
