import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The engine's file worker: one thread that keeps the rings of every streaming file source
/// filled (decoding and converting off the render thread). Started with the first streaming
/// source, stopped (joined) with the engine.
///
/// Waking it: the render thread never signals it. It only moves ring counters and stores
/// atomics (a seek's request), and the worker looks at every ring at least every 2 ms (a
/// timed wait), which leaves a ring of about a second ~500 looks of margin. That keeps the
/// render path free of system calls (even a semaphore post is one). The offline driver, which
/// is not real time, wakes it at once and waits for it (`waitForProgress`).
///
/// Thread: its methods are called from control threads (under the engine's owner). The list
/// of streams and the pass count are in a `Mutex`, never held while decoding; the worker
/// sleeps on `wake` and posts `progress` after a pass while someone waits for one (a waiter
/// re-checks the count under the mutex, so an early or stale post only costs a look).
final class FileStreamWorker: Sendable {
    private struct State {
        var streams: [FileStream] = []
        /// Passes over the streams ended so far.
        var passes = 0
        var inPass = false
        /// Woken on purpose: the next pass starts without the 2 ms wait.
        var kicked = false
        var stopping = false
        /// Callers waiting for a pass to end (`remove`, `waitForProgress`).
        var waiters = 0
        var thread: pthread_t?
    }

    private let state = Mutex(State())
    /// The worker sleeps on it between passes (timed: 2 ms).
    private let wake = Semaphore()
    /// Posted after a pass while `waiters` > 0.
    private let progress = Semaphore()
    /// Frames one stream gets per pass before the next stream's turn.
    private let budget = 8_192

    deinit { stop() }

    /// Start filling `stream` (its first fill is done). Starts the thread the first time.
    func add(_ stream: FileStream) {
        state.withLock { s in
            s.streams.append(stream)
            if s.thread == nil, !s.stopping {
                // Unretained: the renderer owns the worker and stops (joins) it before letting go.
                let worker = Unmanaged.passUnretained(self)
                s.thread = try? startThread(name: "tutti-files") { worker.takeUnretainedValue().run() }
            }
            s.kicked = true
        }
        wake.post()
    }

    /// Stop filling `stream`; returns once the worker no longer touches it (at most the end of
    /// the pass in progress), so the caller frees it.
    func remove(_ stream: FileStream) {
        let pass: Int? = state.withLock { s in
            s.streams.removeAll { $0 === stream }
            guard s.inPass else { return nil }
            s.waiters += 1
            return s.passes
        }
        guard let pass else { return }
        while !passEnded(after: pass) { progress.wait(seconds: 0.005) }
        state.withLock { $0.waiters -= 1 }
    }

    /// Wake the worker and wait for one pass over the streams to end (at most ~20 ms).
    /// The offline driver's wait when a ring lacks the frames of the next block. False when
    /// there is no worker thread (it could not be started, or it stopped): nothing to wait for.
    func waitForProgress() -> Bool {
        let pass: Int? = state.withLock { s in
            guard s.thread != nil, !s.stopping else { return nil }
            s.kicked = true
            s.waiters += 1
            return s.passes
        }
        guard let pass else { return false }
        wake.post()
        let deadline = monotonicSeconds() + 0.020
        while !passEnded(after: pass, orStopped: true) {
            let left = deadline - monotonicSeconds()
            if left <= 0 { break }
            progress.wait(seconds: min(left, 0.005))
        }
        state.withLock { $0.waiters -= 1 }
        return true
    }

    /// Whether a pass ended since `pass` was the count (or none is running: `remove`'s case;
    /// `orStopped`: or the worker stops).
    private func passEnded(after pass: Int, orStopped: Bool = false) -> Bool {
        state.withLock { s in
            s.passes != pass || (orStopped ? (s.stopping || s.thread == nil) : !s.inPass)
        }
    }

    /// Stop the thread and join it.
    func stop() {
        let thread: pthread_t? = state.withLock { s in
            s.stopping = true
            defer { s.thread = nil }
            return s.thread
        }
        wake.post()
        if let thread { pthread_join(thread, nil) }
    }

    /// The worker's loop.
    fileprivate func run() {
        while true {
            guard
                var list = state.withLock({ s -> [FileStream]? in
                    guard !s.stopping else { return nil }
                    s.inPass = true
                    return s.streams
                })
            else { return }
            var work = 0
            for s in list { work += s.service(budget: budget) }
            // Let go of the streams before the pass ends: a stream removed meanwhile is then
            // released by its remover, not by this thread.
            list = []
            let (sleep, notify) = state.withLock { s -> (Bool, Bool) in
                s.inPass = false
                s.passes &+= 1
                let sleep = work == 0 && !s.kicked && !s.stopping
                s.kicked = false
                return (sleep, s.waiters > 0)
            }
            if notify { progress.post() }
            if sleep { wake.wait(seconds: 0.002) }
        }
    }
}
