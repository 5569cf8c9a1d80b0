import Glibc
import Synchronization
import TuttiEngine

/// The control-side half every backend shares: the events it reports (queued for
/// `pollEvents`, and delivered in order to `onEvent` on a thread of their own, so a callback
/// that blocks or calls `stop()` never holds up the supervisor), whether it finished, and why
/// it gave up.
///
/// Threads: `emit`, `finish` and `giveUp` from the supervisor; `poll`, `waitUntilFinished`,
/// `close` from the control thread; the callback runs on the event-delivery thread
/// ("tutti-events"), which `close` joins (from any thread but that one).
package final class OutputEvents: Sendable {
    private struct State {
        var polled: [OutputEvent] = []
        var undelivered: [OutputEvent] = []
        var finished = false
        var failure: TuttiError?
        var closing = false
        var thread: pthread_t?
        var xrunsReported = 0
    }

    private let state = Mutex(State())
    private let wake = Semaphore()
    private let finishedSignal = Semaphore()
    private let onEvent: (@Sendable (OutputEvent) -> Void)?

    /// With `onEvent`, starts the delivery thread. Throws `TuttiError` (`device`) when the thread
    /// cannot be started. Control thread.
    package init(onEvent: (@Sendable (OutputEvent) -> Void)?) throws(TuttiError) {
        self.onEvent = onEvent
        guard onEvent != nil else { return }
        do throws(ThreadStartError) {
            let thread = try startThread(name: "tutti-events") { [self] in deliver() }
            state.withLock { $0.thread = thread }
        } catch {
            throw error.tuttiError
        }
    }

    deinit {
        // Released on the delivery thread itself (its last reference was the thread's own,
        // after a callback stopped the output): it cannot join itself, so it lets the
        // system reap it — the one case where a thread of the output is not joined.
        if let thread = state.withLock({ $0.thread }), pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            close()
        }
    }

    /// Report `event`: queued for `poll` and for the callback. Supervisor thread.
    package func emit(_ event: OutputEvent) {
        state.withLock {
            $0.polled.append(event)
            if onEvent != nil { $0.undelivered.append(event) }
        }
        if onEvent != nil { wake.post() }
    }

    /// One `xrun` event for each xrun the render side counted since the last call (`total`:
    /// its counter). Supervisor thread.
    package func reportXruns(total: Int) {
        let first = state.withLock { s in
            defer { s.xrunsReported = max(s.xrunsReported, total) }
            return s.xrunsReported
        }
        for n in stride(from: first + 1, through: total, by: 1) { emit(.xrun(total: n)) }
    }

    /// The frame limit was played: `finished(frames)`, and waiters wake. Supervisor thread.
    package func finish(frames: Int64) {
        state.withLock { $0.finished = true }
        emit(.finished(frames: frames))
        finishedSignal.post()
    }

    /// The output gave up for good: `failure` is set, `gaveUp` reported, waiters wake.
    /// Supervisor thread.
    package func giveUp(_ error: TuttiError) {
        state.withLock {
            $0.failure = error
            $0.finished = true
        }
        emit(.gaveUp(error))
        finishedSignal.post()
    }

    /// Finished or gave up. Any thread.
    package var isFinished: Bool { state.withLock { $0.finished } }
    /// Why it gave up. Any thread.
    package var failure: TuttiError? { state.withLock { $0.failure } }

    /// The events since the last call, in order. Control thread.
    package func poll() -> [OutputEvent] {
        state.withLock { s in
            defer { s.polled.removeAll(keepingCapacity: true) }
            return s.polled
        }
    }

    /// Blocks until finished or given up; false when `timeoutSeconds` passed first.
    package func waitUntilFinished(timeoutSeconds: Double?) -> Bool {
        if isFinished { return true }
        if let timeoutSeconds {
            guard finishedSignal.wait(seconds: timeoutSeconds) else { return isFinished }
        } else {
            finishedSignal.wait()
        }
        finishedSignal.post() // let other waiters through too
        return true
    }

    /// Delivers what is queued, then ends and joins the delivery thread. From the delivery
    /// thread itself (a callback that stops its output) it only asks it to end; the join
    /// happens at the next `close` from another thread, at the latest when the output is
    /// released. Idempotent.
    package func close() {
        let thread = state.withLock { s -> pthread_t? in
            s.closing = true
            return s.thread
        }
        guard let thread else { return }
        wake.post()
        guard pthread_equal(thread, pthread_self()) == 0 else { return }
        pthread_join(thread, nil)
        state.withLock { $0.thread = nil }
    }

    /// The delivery thread: each event in order, until closed and drained.
    private func deliver() {
        guard let onEvent else { return }
        while true {
            wake.wait()
            let (batch, closing) = state.withLock { s in
                defer { s.undelivered.removeAll(keepingCapacity: true) }
                return (s.undelivered, s.closing)
            }
            for event in batch { onEvent(event) }
            if closing { return }
        }
    }
}
