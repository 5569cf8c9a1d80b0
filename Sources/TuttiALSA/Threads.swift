import Glibc

/// Monotonic clock, nanoseconds (vDSO: no syscall, real-time safe).
@inline(__always) @_noLocks
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    _ = _unsafePerformance { clock_gettime(CLOCK_MONOTONIC, &ts) }
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// A POSIX semaphore at a fixed address, so the render thread can post it through a raw
/// pointer (`sem_post` is async-signal-safe and does not block). Owned by `ALSAOutput`.
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

    func wait() {
        while sem_wait(raw) != 0 && errno == EINTR {}
    }

    /// false on timeout.
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

private final class ThreadBody {
    let name: String
    let run: () -> Void
    init(_ name: String, _ run: @escaping () -> Void) {
        self.name = name
        self.run = run
    }
}

/// Start a joinable pthread named `name` (≤ 15 bytes shown by `top -H`).
func startThread(name: String, _ body: @escaping () -> Void) throws -> pthread_t {
    let box = Unmanaged.passRetained(ThreadBody(String(name.prefix(15)), body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, nil,
        { arg in
            let body = Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue()
            // Named from inside, before any work (a new thread starts with its creator's name).
            setThreadName(pthread_self(), body.name)
            body.run()
            return nil
        }, box)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(box).release()
        throw ALSAError.thread("pthread_create (\(name))", code: rc)
    }
    return thread
}

func errnoName(_ code: Int32) -> String {
    String(cString: Glibc.strerror(code))
}

/// `pthread_setname_np` is a GNU extension the Glibc module does not export; look it up.
func setThreadName(_ thread: pthread_t, _ name: String) {
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return }
    _ = unsafeBitCast(symbol, to: SetName.self)(thread, name)
}
