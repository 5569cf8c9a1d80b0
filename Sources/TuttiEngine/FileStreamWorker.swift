#if canImport(Glibc)
    import Glibc
#endif

/// The engine's file worker: one thread that keeps the rings of every streaming file source
/// filled (decoding and converting off the render thread). Started with the first streaming
/// source, stopped with the engine.
///
/// Waking it: the render thread never signals it. It only moves ring counters and stores
/// atomics (a seek's request), and the worker looks at every ring at least every 2 ms (a
/// timed wait), which leaves a ring of about a second ~500 looks of margin. That keeps the
/// render path free of system calls (even a semaphore post is one). The offline driver, which
/// is not real time, wakes it at once and waits for it (`waitForProgress`).
///
/// Thread: its methods are called from control threads (under the engine's owner); the list
/// of streams is guarded by its mutex, never held while decoding.
final class FileStreamWorker: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The worker sleeps on it between passes.
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    /// Broadcast after every pass.
    private let progress: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var streams: [FileStream] = []
    private var passes = 0
    private var inPass = false
    private var kicked = false
    private var stopping = false
    private var thread: pthread_t?
    /// Frames one stream gets per pass before the next stream's turn.
    private let budget = 8_192

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        wake = .allocate(capacity: 1)
        pthread_cond_init(wake, nil)
        progress = .allocate(capacity: 1)
        pthread_cond_init(progress, nil)
    }

    deinit {
        stop()
        pthread_cond_destroy(progress)
        progress.deallocate()
        pthread_cond_destroy(wake)
        wake.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Start filling `stream` (its first fill is done). Starts the thread the first time.
    func add(_ stream: FileStream) {
        pthread_mutex_lock(mutex)
        streams.append(stream)
        if thread == nil, !stopping {
            // Unretained: the renderer owns the worker and stops (joins) it before letting go.
            let worker = Unmanaged.passUnretained(self)
            thread = try? startThread(name: "tutti-files") { worker.takeUnretainedValue().run() }
        }
        kicked = true
        pthread_cond_signal(wake)
        pthread_mutex_unlock(mutex)
    }

    /// Stop filling `stream`; returns once the worker no longer touches it (at most the end of
    /// the pass in progress), so the caller frees it.
    func remove(_ stream: FileStream) {
        pthread_mutex_lock(mutex)
        streams.removeAll { $0 === stream }
        let pass = passes
        while inPass, passes == pass { pthread_cond_wait(progress, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Wake the worker and wait for one pass over the streams to end (at most ~20 ms).
    /// The offline driver's wait when a ring lacks the frames of the next block. False when
    /// there is no worker thread (it could not be started, or it stopped): nothing to wait for.
    func waitForProgress() -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard thread != nil, !stopping else { return false }
        let pass = passes
        kicked = true
        pthread_cond_signal(wake)
        var deadline = FileStreamWorker.deadline(afterNanoseconds: 20_000_000)
        while passes == pass, !stopping, thread != nil {
            if pthread_cond_timedwait(progress, mutex, &deadline) == ETIMEDOUT { break }
        }
        return true
    }

    /// Stop the thread and join it.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        let t = thread
        thread = nil
        pthread_cond_broadcast(wake)
        pthread_mutex_unlock(mutex)
        if let t { pthread_join(t, nil) }
    }

    /// The worker's loop.
    fileprivate func run() {
        pthread_mutex_lock(mutex)
        while !stopping {
            var list = streams
            inPass = true
            pthread_mutex_unlock(mutex)
            var work = 0
            for s in list { work += s.service(budget: budget) }
            list = []
            pthread_mutex_lock(mutex)
            inPass = false
            passes &+= 1
            pthread_cond_broadcast(progress)
            if work == 0, !kicked, !stopping {
                var deadline = FileStreamWorker.deadline(afterNanoseconds: 2_000_000)
                _ = pthread_cond_timedwait(wake, mutex, &deadline)
            }
            kicked = false
        }
        pthread_mutex_unlock(mutex)
    }

    private static func deadline(afterNanoseconds ns: Int) -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let total = Int(ts.tv_nsec) + ns
        ts.tv_sec += total / 1_000_000_000
        ts.tv_nsec = total % 1_000_000_000
        return ts
    }
}
