import Synchronization
import TuttiEngine

#if canImport(Glibc)
    import Glibc
#endif

extension AudioEngine {
    /// Events whose frame rendering has passed, in frame order, each once; they leave the
    /// queue. While an `events()` stream is listening, events go to the streams instead.
    /// Any thread.
    public func pollEvents() -> [AudioEvent] {
        deliverEvents()
        return delivery.takePolled()
    }

    /// One event, or nil when none is deliverable (the C ABI's `tutti_engine_poll_event`).
    /// Any thread.
    public func pollEvent() -> AudioEvent? {
        deliverEvents()
        return delivery.takeOnePolled()
    }

    /// A stream of every event from now on, in frame order, delivered once rendering has
    /// passed each one (checked every few milliseconds by a library thread, and at once after
    /// each call that changes something). Each call gets its own stream; while at least one
    /// is listening, events are not kept for `pollEvents()`. Any thread.
    public func events() -> AsyncStream<AudioEvent> {
        let (stream, continuation) = AsyncStream<AudioEvent>.makeStream(bufferingPolicy: .unbounded)
        let key = delivery.add(continuation)
        continuation.onTermination = { [weak delivery] _ in delivery?.remove(key) }
        delivery.startPump(for: self)
        return stream
    }

    /// A file descriptor that polls readable while events wait for `pollEvents()` (for hosts
    /// with an event loop; the read end of a pipe — do not read it). The engine owns it; it
    /// stays valid until the engine is gone. Throws `device` if the system refuses a pipe.
    /// Any thread.
    public func eventFileDescriptor() throws(TuttiError) -> Int32 {
        let fd = try delivery.fileDescriptor()
        delivery.startPump(for: self)
        return fd
    }

    /// Move deliverable events from the core to the streams or the poll queue, in order.
    func deliverEvents() {
        delivery.withDeliveryLock {
            let events = (try? withCore { (s) throws(TuttiError) in s.takeDeliverableEvents() }) ?? []
            delivery.distribute(events)
        }
    }

    /// An event from a backend (xrun, device lost or restored): queued at the current frame.
    func reportDeviceEvent(_ kind: AudioEvent.Kind) {
        try? withCore { (s) throws(TuttiError) in s.enqueue(AudioEvent(frame: s.engine.framesRendered, kind: kind)) }
        delivery.wake()
    }
}

/// Hands events to their consumers: the poll queue (with its eventfd) or the `events()`
/// streams, and the library thread that delivers them when nobody polls.
///
/// Thread: any; its state is behind its own lock, always taken before the engine's.
final class EventDelivery: Sendable {
    private struct State {
        var polled: [AudioEvent] = []
        var streams: [Int: AsyncStream<AudioEvent>.Continuation] = [:]
        var nextKey = 0
        /// The pipe: [0] is handed out, [1] written while events wait.
        var fd: Int32 = -1
        var writeFD: Int32 = -1
        /// A byte is in the pipe.
        var signalled = false
        var pump: pthread_t?
    }
    private let state = Mutex(State())
    /// Serialises whole deliveries, so two threads cannot reorder events between them.
    private let order = Mutex(())
    private let wakeSignal = Semaphore()
    private let stopping = Atomic<Bool>(false)

    func withDeliveryLock(_ body: () -> Void) { order.withLock { _ in body() } }

    func distribute(_ events: [AudioEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { s in
            if s.streams.isEmpty {
                s.polled += events
                signal(&s)
            } else {
                for c in s.streams.values {
                    for e in events { c.yield(e) }
                }
            }
        }
    }

    func takePolled() -> [AudioEvent] {
        state.withLock { s in
            defer {
                s.polled.removeAll()
                resetSignal(&s)
            }
            return s.polled
        }
    }

    func takeOnePolled() -> AudioEvent? {
        state.withLock { s in
            guard !s.polled.isEmpty else { return nil }
            let e = s.polled.removeFirst()
            if s.polled.isEmpty { resetSignal(&s) }
            return e
        }
    }

    /// Make the pipe readable (once) while events wait.
    private func signal(_ s: inout State) {
        guard s.fd >= 0, !s.signalled, !s.polled.isEmpty else { return }
        var one: UInt8 = 1
        if write(s.writeFD, &one, 1) == 1 { s.signalled = true }
    }

    private func resetSignal(_ s: inout State) {
        guard s.fd >= 0, s.signalled else { return }
        var byte: UInt8 = 0
        if read(s.fd, &byte, 1) == 1 { s.signalled = false }
    }

    func add(_ continuation: AsyncStream<AudioEvent>.Continuation) -> Int {
        state.withLock { s in
            let key = s.nextKey
            s.nextKey += 1
            s.streams[key] = continuation
            return key
        }
    }

    func remove(_ key: Int) { _ = state.withLock { $0.streams.removeValue(forKey: key) } }

    func fileDescriptor() throws(TuttiError) -> Int32 {
        let fd = state.withLock { s -> Int32 in
            if s.fd < 0 {
                var fds: [Int32] = [-1, -1]
                guard pipe(&fds) == 0 else { return -1 }
                for fd in fds {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                (s.fd, s.writeFD) = (fds[0], fds[1])
            }
            signal(&s)
            return s.fd
        }
        guard fd >= 0 else { throw TuttiError(.device, "pipe2 failed: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Deliver promptly after a change (the pump, if running, looks at once).
    func wake() { wakeSignal.post() }

    /// Start the library thread that delivers events every few milliseconds (once).
    func startPump(for engine: AudioEngine) {
        state.withLock { s in
            guard s.pump == nil else { return }
            let weakEngine = WeakEngine(engine)
            s.pump = try? startThread(name: "tutti-deliver") { [self] in
                while !stopping.load(ordering: .acquiring) {
                    _ = wakeSignal.wait(seconds: 0.005)
                    guard let engine = weakEngine.engine else { break }
                    engine.deliverEvents()
                }
            }
        }
    }

    /// Stop the pump and close the eventfd (engine teardown).
    func stop() {
        stopping.store(true, ordering: .releasing)
        wakeSignal.post()
        let (thread, fd, writeFD) = state.withLock { s in
            defer {
                s.pump = nil
                s.fd = -1
                s.writeFD = -1
                for c in s.streams.values { c.finish() }
                s.streams = [:]
            }
            return (s.pump, s.fd, s.writeFD)
        }
        if let thread {
            // The engine may die on the pump thread itself (its last reference): no self-join.
            if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
        }
        if fd >= 0 {
            close(fd)
            close(writeFD)
        }
    }
}

/// The pump thread's reference to its engine: weak, so the engine can go while the pump runs.
private final class WeakEngine: Sendable {
    weak let engine: AudioEngine?
    init(_ engine: AudioEngine) { self.engine = engine }
}
