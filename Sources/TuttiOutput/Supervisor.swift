import Glibc
import Synchronization
import TuttiEngine

/// An output's supervisor thread (it watches the device or server, reports events, reopens
/// or reconnects): one named thread, its stop flag and the semaphore that wakes it, joined by
/// `stop` — no supervisor outlives its output. A call in progress inside the system library
/// (opening a device, connecting to a server) is waited for; `stallNote`, when given, is
/// called once if that takes longer than 5 s.
///
/// Thread: `start` and `stop` on the control thread (`stop` also on the event-delivery
/// thread); `isStopping` and `sleep` on the supervisor thread; `wake` from any thread, a
/// real-time callback included (through `wake.raw`: `sem_post`).
public final class Supervisor: Sendable {
    /// Posted to wake the supervisor early (a lost device or server, a stop).
    package let wake = Semaphore()
    private let stopFlag = Atomic<Bool>(false)
    private let exited = Semaphore()
    private let thread = Mutex<pthread_t?>(nil)

    /// A supervisor not started yet. Control thread.
    public init() {}

    /// Starts the thread `name` running `body` (which returns once `isStopping`). Control thread.
    public func start(name: String, _ body: @escaping () -> Void) throws(TuttiError) {
        let exited = exited
        do throws(ThreadStartError) {
            let t = try startThread(name: name) {
                body()
                exited.post()
            }
            thread.withLock { $0 = t }
        } catch {
            throw error.tuttiError
        }
    }

    /// True once `stop` began: the supervisor returns. Supervisor thread.
    public var isStopping: Bool { stopFlag.load(ordering: .acquiring) }

    /// Waits `seconds` or until woken; false on timeout. Supervisor thread.
    @discardableResult public func sleep(seconds: Double) -> Bool { wake.wait(seconds: seconds) }

    /// Stops the thread and joins it; `stallNote` is called if it takes more than 5 s (a
    /// call inside the system library). Idempotent. Control thread.
    public func stop(stallNote: (() -> Void)? = nil) {
        guard
            let t = thread.withLock({ t in
                defer { t = nil }
                return t
            })
        else { return }
        stopFlag.store(true, ordering: .releasing)
        wake.post()
        if let stallNote, !exited.wait(seconds: 5) { stallNote() }
        pthread_join(t, nil)
    }
}
