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

func errnoName(_ code: Int32) -> String {
    String(cString: Glibc.strerror(code))
}
