import Glibc

/// A POSIX semaphore at a fixed address, so JACK's callbacks can post it through a raw
/// pointer (`sem_post` is async-signal-safe and never blocks, as JACK's shutdown callback
/// requires). Owned by `JACKOutput`; any thread posts, the supervisor waits.
final class Semaphore: @unchecked Sendable {
    let raw: UnsafeMutablePointer<sem_t>

    init() {
        raw = .allocate(capacity: 1)
        sem_init(raw, 0, 0)
    }

    deinit {
        sem_destroy(raw)
        raw.deallocate()
    }

    func post() { sem_post(raw) }

    /// false on timeout.
    @discardableResult
    func wait(seconds: Double) -> Bool {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let ns = Int(ts.tv_nsec) + Int(max(seconds, 0) * 1e9)
        ts.tv_sec += ns / 1_000_000_000
        ts.tv_nsec = ns % 1_000_000_000
        while true {
            if sem_timedwait(raw, &ts) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}

/// Monotonic clock in seconds (control and supervisor threads).
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
