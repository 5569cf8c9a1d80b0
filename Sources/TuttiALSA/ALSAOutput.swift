import CALSA
import Glibc
import Synchronization
import TuttiEngine
import TuttiOutput

/// Plays an `Engine` on an ALSA PCM from a dedicated render thread.
///
/// Thread: the control thread (the engine's) creates, starts, stops and polls it. Inside
/// there are two threads: the render thread (SCHED_FIFO when allowed; renders, converts,
/// writes, never blocks on anything but the device and never logs) and a supervisor
/// (normal priority; watchdog, resume after ESTRPIPE, close and reopen with backoff after
/// a lost device, events and logs), and with `onEvent` the event-delivery thread
/// (`OutputEvents`). Both are joined by `stop()`.
public final class ALSAOutput: OutputBackend, Sendable {
    /// "alsa".
    public static let name = "alsa"
    /// The render side it drives (one output per renderer at a time).
    public let renderer: Renderer
    /// What the control and supervisor threads change (each takes the lock only to read or
    /// swap a value, never while calling alsa-lib or waiting).
    private struct ControlState: ~Copyable {
        /// Held by the thread that owns it (see `RenderCore`); nil while lost.
        var device: PCMDevice?
        var renderThread: pthread_t?
        var schedulingNote = "not started"
    }
    private let control = Mutex(ControlState())
    /// The engine it was made from, kept alive until the render thread has stopped. Never
    /// read (only released with the output), so no thread can race on it.
    nonisolated(unsafe) private let keptEngine: Engine?
    var sampleRate: Int { renderer.configuration.sampleRate }
    var channelCount: Int { renderer.configuration.channelCount }
    /// The configuration it was created with (what was asked; `negotiated` is what was granted).
    public let configuration: ALSAOutputConfiguration
    let functions: ALSAFunctions
    let core: RenderCore
    /// Full duplex: the capture PCM's control half (CaptureSide.swift); nil: playback only.
    let capture: CaptureSide?
    let wakeRender = Semaphore()
    /// Watches the device (xruns, a lost device → reopen with backoff), reports the finish.
    let supervisor = Supervisor()
    let renderStarted = Semaphore()
    let log: @Sendable (String) -> Void
    /// Events (polled and delivered to `onEvent` on their own thread), finish and failure.
    private let events: OutputEvents
    /// What the device granted (the supervisor updates it after a reopen).
    private let granted: Mutex<ALSANegotiated>
    /// How the render thread is scheduled, once started (for `tutti play`'s report). Any thread.
    public var schedulingNote: String { control.withLock { $0.schedulingNote } }
    private var device: PCMDevice? { control.withLock { $0.device } }
    private func setDevice(_ d: PCMDevice?) { control.withLock { $0.device = d } }

    /// Plays `engine`'s renderer: see `init(renderer:configuration:functions:log:onEvent:)`.
    public convenience init(
        engine: Engine, configuration: ALSAOutputConfiguration = ALSAOutputConfiguration(),
        functions: ALSAFunctions? = nil,
        log: (@Sendable (String) -> Void)? = nil,
        onEvent: (@Sendable (OutputEvent) -> Void)? = nil
    ) throws {
        try self.init(
            renderer: engine.renderer, configuration: configuration, functions: functions, log: log, onEvent: onEvent,
            keeping: engine)
    }

    /// Opens and negotiates at once (so configuration errors surface here), at the renderer's
    /// rate and channel count. `functions`: alsa-lib's (``ALSAFunctions/system``, loaded now if
    /// not yet: a `.device` `TuttiError` naming the package when it is not installed) unless
    /// given. `log` receives human-readable lines (default: stderr);
    /// `onEvent` gets each event, in order, on the output's event-delivery thread (it may call
    /// `stop()`), as well as `pollEvents()` on the control thread. Control thread.
    public convenience init(
        renderer: Renderer, configuration: ALSAOutputConfiguration = ALSAOutputConfiguration(),
        functions: ALSAFunctions? = nil,
        log: (@Sendable (String) -> Void)? = nil,
        onEvent: (@Sendable (OutputEvent) -> Void)? = nil
    ) throws {
        try self.init(renderer: renderer, configuration: configuration, functions: functions, log: log, onEvent: onEvent, keeping: nil)
    }

    private init(
        renderer: Renderer, configuration: ALSAOutputConfiguration, functions: ALSAFunctions?,
        log: (@Sendable (String) -> Void)?, onEvent: (@Sendable (OutputEvent) -> Void)?, keeping engine: Engine?
    ) throws {
        keptEngine = engine
        let functions = try functions ?? ALSAFunctions.system
        self.renderer = renderer
        self.configuration = configuration
        self.functions = functions
        // Default log: one write(2) per line to stderr (no Foundation: the C library stays small).
        self.log = log ?? { message in _ = "tutti: alsa: \(message)\n".withCString { write(2, $0, strlen($0)) } }
        try configuration.reconnect.validate()
        events = try OutputEvents(onEvent: onEvent)
        let opened = try PCMDevice.open(
            configuration, sampleRate: renderer.configuration.sampleRate, channelCount: renderer.configuration.channelCount,
            functions: functions)
        control.withLock { $0.device = opened }
        granted = Mutex(opened.negotiated)
        var buses: BusSet?
        if !configuration.busDevices.isEmpty {
            do {
                buses = try BusSet(
                    configuration: configuration, busNames: renderer.configuration.outputBuses, main: opened.negotiated,
                    functions: functions, wakeSupervisor: supervisor.wake.raw)
            } catch {
                opened.close(functions)
                throw error
            }
        }
        core = RenderCore(
            renderer: renderer, channelCount: renderer.configuration.channelCount, functions: functions,
            configuration: configuration, wakeRender: wakeRender.raw, wakeSupervisor: supervisor.wake.raw, buses: buses)
        core.install(opened)
        capture = configuration.capture.map {
            CaptureSide(input: $0, device: configuration.captureDevice ?? configuration.device, functions: functions)
        }
        do { try capture?.open(configuration, playback: opened, core: core) } catch {
            setDevice(nil)
            buses?.close(drain: false, functions: functions)
            opened.close(functions)
            throw error
        }
    }

    deinit { stop() }

    // MARK: Control side

    /// What the device granted (updated when it was reopened).
    public var negotiated: ALSANegotiated { granted.withLock { $0 } }
    /// Underruns recovered so far (EPIPE). Any thread (an atomic).
    public var xrunCount: Int { core.xrunCount.load(ordering: .relaxed) }
    /// Frames the device has accepted so far (`snd_pcm_writei`). Any thread (an atomic).
    public var framesWritten: Int64 { core.framesWritten.load(ordering: .relaxed) }
    /// The engine clock: frames rendered so far. Commands for later frames are on time.
    public var framesRendered: Int64 { core.framesRendered.load(ordering: .acquiring) }
    /// Every output bus that plays, main first (`configuration.device`), then each of
    /// `configuration.busDevices`: its PCM, what it granted, xruns, frames written and
    /// dropped. Any thread.
    public var buses: [ALSABusStatus] {
        let main = ALSABusStatus(
            bus: renderer.configuration.outputBuses.first ?? "main", device: configuration.device, negotiated: negotiated,
            xrunCount: xrunCount, framesWritten: framesWritten, framesDropped: 0,
            isLost: [.parkedLost, .parkedStalled].contains(core.state.load(ordering: .acquiring)))
        return [main] + (core.buses?.status() ?? [])
    }
    /// Deprecated old name of `buses` (output buses, not the device route). Any thread.
    @available(*, deprecated, renamed: "buses")
    public var routes: [ALSABusStatus] { buses }
    /// What the main PCM granted and how every output bus plays (`OutputBackend`). Any thread.
    public var status: OutputStatus {
        let buses = self.buses.map { r in
            OutputBusStatus(
                name: r.bus, destination: r.device, xrunCount: r.xrunCount, latencyFrames: r.negotiated.bufferFrames,
                framesDropped: r.framesDropped, isLost: r.isLost)
        }
        return negotiated.status(
            device: configuration.device, xrunCount: xrunCount, framesRendered: framesRendered, framesWritten: framesWritten,
            buses: buses)
    }
    /// The frame limit given to `start` has been written (the `finished` event was sent), or
    /// the output gave up (`failure`).
    public var isFinished: Bool { events.isFinished }
    /// Why playback ended early: the device was lost and not back within
    /// `configuration.reconnect.timeout`. nil while playing or after a normal finish.
    public var failure: TuttiError? { events.failure }

    /// Frames before this one may be rendered; the render thread waits at it (default: no
    /// limit). A control thread that queues commands ahead sets it to the frame of the first
    /// command it has not queued yet, so a late control thread delays the output (an xrun at
    /// worst) instead of changing it.
    public var renderHorizon: Int64 {
        get { core.horizon.load(ordering: .acquiring) }
        set { core.horizon.store(newValue, ordering: .releasing) }
    }

    /// Events since the last call, in order. Control thread.
    public func pollEvents() -> [OutputEvent] { events.poll() }

    /// Start the threads. With `frameLimit`, the render thread stops after that many frames
    /// (the last period is shortened) and `finished` is reported. Control thread.
    public func start(frameLimit: Int64? = nil) throws(TuttiError) {
        guard control.withLock({ $0.renderThread == nil }) else { throw TuttiError(.state, "the output is already started") }
        core.frameLimit = frameLimit ?? -1
        if configuration.lockMemory {
            let rc = functions.lock_memory()
            if rc != 0 { log("mlockall refused (\(errnoName(rc))); memory may be paged out") }
        }
        capture?.prepareForStart(core)
        let core = self.core
        let priority = configuration.realtimePriority
        let set = functions.set_fifo_priority
        let started = renderStarted
        do throws(ThreadStartError) {
            let thread = try startThread(name: "tutti-render") {
                if let priority { core.schedulingResult.store(set(priority), ordering: .releasing) }
                started.post()
                core.run()
            }
            control.withLock { $0.renderThread = thread }
        } catch {
            throw error.tuttiError
        }
        renderStarted.wait()
        // Logged here, on the control thread: the render loop never logs.
        let rc = core.schedulingResult.load(ordering: .acquiring)
        let note: String
        if let priority {
            if rc == 0 {
                note = "SCHED_FIFO priority \(priority)"
            } else {
                note = "normal scheduling (SCHED_FIFO refused: \(errnoName(rc)))"
                log("render thread: SCHED_FIFO priority \(priority) refused (\(errnoName(rc))); falling back to normal scheduling")
            }
        } else {
            note = "normal scheduling (real-time priority not requested)"
        }
        control.withLock { $0.schedulingNote = note }
        try supervisor.start(name: "tutti-alsa-sup") { [self] in supervise() }
    }

    /// Block until the frame limit has been written or playback failed (`failure`); false on
    /// timeout. Control thread.
    public func waitUntilFinished(timeoutSeconds: Double? = nil) -> Bool {
        events.waitUntilFinished(timeoutSeconds: timeoutSeconds)
    }

    /// Stop the threads (joined), report the xruns counted since the supervisor's last look,
    /// and close the device. `drain`: write what was rendered and
    /// play out what is buffered first (blocking; only when the device takes the writes). A
    /// supervisor inside a blocking
    /// alsa-lib call (a frozen sound server) is waited for: it is logged after 5 s, and no
    /// thread of the output outlives `stop`. Control thread or the event-delivery thread.
    public func stop(drain: Bool = false) {
        if let t = control.withLock({ $0.renderThread.take() }) {
            core.stopRequested.store(true, ordering: .releasing)
            wakeRender.post()
            pthread_join(t, nil)
        }
        supervisor.stop { [log] in log("supervisor did not stop within 5 s (inside alsa-lib); waiting for it") }
        // The render thread has ended: an xrun it counted after the supervisor's last look is
        // an event too.
        events.reportXruns(total: core.xrunCount.load(ordering: .relaxed))
        events.close()
        core.buses?.close(drain: drain, functions: functions)
        guard let d = device else { return }
        // The period the render thread had rendered but not yet written is heard too.
        let drain = drain && core.writePending(functions)
        setDevice(nil)
        core.releaseDevice()
        capture?.close(core)
        if drain {
            _ = functions.pcm_nonblock(d.handle, 0)
            _ = functions.drain(d.handle)
        } else {
            _ = functions.drop(d.handle)
        }
        d.close(functions)
    }

    // MARK: Supervisor thread

    private func emit(_ event: OutputEvent) { events.emit(event) }

    private var stopping: Bool { supervisor.isStopping }

    private func supervise() {
        var stallSince: UInt64 = 0
        var finishedReported = false
        var slackReported = 0
        var missingReported: Int64 = 0
        while !stopping {
            let period = negotiated.periodSeconds
            supervisor.sleep(seconds: min(0.005, period / 2))
            if stopping { break }

            events.reportXruns(total: core.xrunCount.load(ordering: .relaxed))
            if let capture {
                // A reopened capture starts at two periods again: only growth is an event.
                let slack = capture.counters.pointee.slackFrames.load(ordering: .relaxed)
                let start = 2 * (capture.info.withLock { $0.negotiated?.periodFrames } ?? 0)
                if slack > max(slackReported, start) {
                    emit(.captureSlackGrown(slackFrames: slack, addedLatencyFrames: slack - start))
                }
                slackReported = slack
                let missing = capture.counters.pointee.missingFrames.load(ordering: .relaxed)
                if missing > missingReported {
                    missingReported = missing
                    emit(.captureFramesMissing(total: missing))
                }
            }
            let state = core.state.load(ordering: .acquiring)
            core.buses?.supervise(
                mainRunning: state == .running, main: negotiated, configuration: configuration, functions: functions,
                emit: emit, log: log)
            if state == .parkedSuspended {
                if !resumeSuspended() { return }
                stallSince = 0
                continue
            }
            if state == .parkedLost || state == .parkedStalled {
                if !reopen(stalled: state == .parkedStalled) { return }
                stallSince = 0
                continue
            }
            // A stall that ended (the device took frames again) is reported first: the render
            // may have finished since, and its end is the stall's end too.
            let since = core.blockedSince.load(ordering: .relaxed)
            let now = monotonicNanoseconds()
            if stallSince != 0, since != stallSince {
                emit(.stallEnded(seconds: Double(now &- stallSince) / 1e9))
                stallSince = 0
            }
            if state == .finished {
                if !finishedReported {
                    finishedReported = true
                    events.finish(frames: core.framesWritten.load(ordering: .relaxed))
                }
                continue
            }
            if state != .running { continue }

            // Watchdog: a write waiting for room for more than the threshold.
            if since != 0, now > since {
                let age = Double(now - since) / 1e9
                let threshold = max(Double(configuration.watchdogPeriods) * period, configuration.watchdogMinimumSeconds)
                if age > threshold, stallSince != since {
                    stallSince = since
                    emit(.stalled(seconds: age))
                    log("watchdog: the device has taken nothing for \(Int((age * 1000).rounded())) ms")
                }
                if stallSince == since, let restart = configuration.stallRestartSeconds, age > restart {
                    core.handOverRequested.store(true, ordering: .releasing)
                }
            }
        }
    }

    /// ESTRPIPE (system suspend): resume with retries here, where sleeping is harmless.
    /// False when it ended in a reopen that gave up.
    private func resumeSuspended() -> Bool {
        guard let d = device else { return reopen(stalled: false) }
        emit(.suspended)
        var rc = functions.resume(d.handle)
        var tries = 0
        while rc == -EAGAIN, tries < 50, !stopping {
            supervisor.sleep(seconds: 0.1)
            rc = functions.resume(d.handle)
            tries += 1
        }
        if rc < 0 { rc = functions.prepare(d.handle) } // cannot resume (-ENOSYS): start afresh
        if rc < 0 {
            core.lastError.store(rc, ordering: .relaxed)
            return reopen(stalled: false)
        }
        emit(.resumed)
        handBack()
        return true
    }

    /// A lost device: report it (and the route change), close, reopen with backoff. False
    /// when it gave up after the reconnect timeout (the render thread stays parked).
    private func reopen(stalled: Bool) -> Bool {
        let code = stalled ? -ETIMEDOUT : core.lastError.load(ordering: .relaxed)
        let message = stalled ? "the device stopped consuming" : functions.message(code)
        emit(.deviceLost(reason: message, code: code))
        log("device \"\(configuration.device)\" lost: \(message); reopening")
        core.releaseDevice()
        capture?.close(core)
        if let d = device {
            _ = functions.drop(d.handle)
            d.close(functions)
            setDevice(nil)
        }
        var backoff = ReconnectBackoff(configuration.reconnect)
        var lastFailure = ""
        while !stopping {
            do {
                let d = try openMain()
                do { try capture?.open(configuration, playback: d, core: core) } catch {
                    d.close(functions)
                    throw error
                }
                setDevice(d)
                core.install(d)
                granted.withLock { $0 = d.negotiated }
                emit(.deviceRestored(status))
                log("device \"\(configuration.device)\" reopened: \(d.negotiated)")
                handBack()
                return true
            } catch {
                let text = "\(error)"
                if backoff.expired, let limit = configuration.reconnect.timeout {
                    let reason =
                        "device \"\(configuration.device)\" lost (\(message)) and not back within \(limit.inSeconds) s: \(text)"
                    log("giving up: \(reason)")
                    events.giveUp(TuttiError(.device, reason))
                    return false
                }
                if text != lastFailure {
                    log("reopen failed: \(text); retrying")
                    lastFailure = text
                }
                supervisor.sleep(seconds: backoff.nextWait())
            }
        }
        return true
    }

    /// Reopen main's PCM; with output bus PCMs, asking for (and requiring) the format and period
    /// they run with. Supervisor thread.
    private func openMain() throws -> PCMDevice {
        guard core.buses != nil else {
            return try PCMDevice.open(configuration, sampleRate: sampleRate, channelCount: channelCount, functions: functions)
        }
        let before = negotiated
        return try BusSet.open(
            device: configuration.device, configuration: configuration, main: before, mainDevice: configuration.device,
            functions: functions, waitedOn: true)
    }

    private func handBack() {
        core.state.store(.running, ordering: .releasing)
        wakeRender.post()
    }
}
