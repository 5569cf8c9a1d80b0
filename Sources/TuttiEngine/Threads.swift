import Glibc

// Thread primitives for the layers above (backends, event delivery): control and supervisor
// threads only, except `Semaphore.post`, which a real-time thread may call through `raw`.

/// A POSIX semaphore at a fixed address, so a real-time thread or a JACK callback can post it
/// through `raw` (`sem_post` is async-signal-safe and never blocks). Any thread posts; one
/// waits at a time.
package final class Semaphore: @unchecked Sendable { // render-side memory: a sem_t the render thread posts (thread-safe)
    /// The semaphore itself, for a real-time thread's `sem_post` (never moves, freed in deinit).
    package let raw: UnsafeMutablePointer<sem_t>

    /// A semaphore at 0. Control thread.
    package init() {
        raw = .allocate(capacity: 1)
        sem_init(raw, 0, 0)
    }

    deinit {
        sem_destroy(raw)
        raw.deallocate()
    }

    /// One more count, waking one waiter. Any thread (no lock, no allocation).
    package func post() { sem_post(raw) }

    /// Waits for a count (retried on EINTR). Not on a real-time thread.
    package func wait() {
        while sem_wait(raw) != 0 && errno == EINTR {}
    }

    /// Waits for a count at most `seconds`; false on timeout. Not on a real-time thread.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
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

/// The project's one monotonic clock: CLOCK_MONOTONIC in nanoseconds (through the vDSO: no
/// system call, no allocation, no lock). Any thread, the render threads included.
@inline(__always) @_noLocks
package func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    _ = _unsafePerformance { clock_gettime(CLOCK_MONOTONIC, &ts) }
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// `monotonicNanoseconds()` in seconds (timeouts and backoff on control and supervisor
/// threads). Any thread.
package func monotonicSeconds() -> Double { Double(monotonicNanoseconds()) / 1e9 }

private final class ThreadBody {
    let name: String
    let run: () -> Void
    init(_ name: String, _ run: @escaping () -> Void) {
        self.name = name
        self.run = run
    }
}

/// `pthread_create` failed; `code` is its error number.
package struct ThreadStartError: Error, CustomStringConvertible {
    /// The thread's name.
    package let name: String
    /// pthread_create's error number.
    package let code: Int32
    /// "pthread_create (NAME): its strerror".
    package var description: String { "pthread_create (\(name)): \(String(cString: strerror(code)))" }
    /// The same failure as the project's one error (`device`), for the layers that throw `TuttiError`.
    package var tuttiError: TuttiError { TuttiError(.device, description) }
}

/// Start a joinable pthread named `name` (≤ 15 bytes shown by `top -H`).
package func startThread(name: String, _ body: @escaping () -> Void) throws(ThreadStartError) -> pthread_t {
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
        throw ThreadStartError(name: name, code: rc)
    }
    return thread
}

/// `pthread_setname_np` is a GNU extension the Glibc module does not export; look it up.
package func setThreadName(_ thread: pthread_t, _ name: String) {
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return }
    _ = unsafeBitCast(symbol, to: SetName.self)(thread, name)
}
