import CJACK
import Glibc
import Synchronization
import TuttiEngine
import TuttiOutput

/// Plays a `Renderer` (an engine's render side) as a JACK client: output ports `out_1 … out_N`
/// (N = the engine's channels), rendered inside JACK's process callback. An engine with more
/// than one output bus (`EngineConfiguration.outputBuses`) gets a port group per bus instead,
/// `main_1 … main_N`, `cue_1 … cue_N`, …: main's group is connected as `out_*` would be, the
/// other groups as `JACKOutputConfiguration.busConnections` says, else left for the host or
/// the user to connect (`jack_connect`, a patchbay).
///
/// Threads: the control thread (the engine's) creates, starts, stops and polls it. JACK's
/// process thread (made by libjack, real-time when the server is) renders and de-interleaves,
/// nothing else. libjack's notification thread runs the xrun, buffer-size and shutdown
/// callbacks (atomics and a semaphore post only). A supervisor thread (normal priority)
/// turns counters into events and, after a lost server, closes the client and reconnects with
/// backoff until `reconnect.timeout`. With `onEvent`, an event-delivery thread
/// (`OutputEvents`) calls it. `stop()` joins both.
public final class JACKOutput: OutputBackend, Sendable {
    /// "jack".
    public static let name = "jack"
    /// The render side it drives (it belongs to JACK's process thread once started).
    public let renderer: Renderer
    /// The engine of `init(engine:…)`, kept alive as long as the output. Never read (only
    /// released with the output), so no thread can race on it.
    nonisolated(unsafe) private let keptEngine: Engine?
    private var channelCount: Int { renderer.configuration.channelCount }
    /// The client's configuration (`JACKClient.configuration`).
    public let configuration: JACKOutputConfiguration
    let core: ProcessCore
    /// The libjack functions of the client it was made with (every reconnect opens with them).
    let functions: JACKFunctions
    /// Watches the server (lost → reconnect with backoff), reports xruns and the finish.
    let supervisor = Supervisor()
    let log: @Sendable (String) -> Void
    /// Events (polled and delivered to `onEvent` on their own thread), finish and failure.
    private let events: OutputEvents
    /// What the server gave (updated on buffer-size changes and after a reconnect).
    private let granted: Mutex<JACKNegotiated>
    /// What the control and supervisor threads change (the lock is taken only to read or swap
    /// a value, never while calling libjack or waiting).
    private struct ControlState {
        /// The open client: the control thread's until `start`, then the supervisor's (nil
        /// while reconnecting), the control thread's again after `stop` joined the supervisor.
        var client: JACKClient?
        var started = false
        var schedulingNote = "not started"
    }
    private let control = Mutex(ControlState())
    private var client: JACKClient? { control.withLock { $0.client } }
    private func setClient(_ c: JACKClient?) { control.withLock { $0.client = c } }
    /// How JACK schedules the process thread, once started (for `tutti play`'s report). Any thread.
    public var schedulingNote: String { control.withLock { $0.schedulingNote } }

    /// Open a client with `configuration` and take it over. The engine must run at the
    /// server's rate: to learn it first, open a `JACKClient` and use `init(renderer:client:)`.
    /// `log` receives human-readable lines (default: stderr); `onEvent` gets each event on
    /// the output's event-delivery thread, as well as `pollEvents()` on the control thread.
    public convenience init(
        engine: Engine, configuration: JACKOutputConfiguration = JACKOutputConfiguration(),
        log: (@Sendable (String) -> Void)? = nil, onEvent: (@Sendable (OutputEvent) -> Void)? = nil
    ) throws {
        try self.init(
            renderer: engine.renderer, client: JACKClient(configuration: configuration), log: log, onEvent: onEvent, keeping: engine)
    }

    /// Take over an open client for `engine`'s render side: see `init(renderer:client:log:onEvent:)`.
    /// Control thread.
    public convenience init(
        engine: Engine, client: JACKClient,
        log: (@Sendable (String) -> Void)? = nil, onEvent: (@Sendable (OutputEvent) -> Void)? = nil
    ) throws {
        try self.init(renderer: engine.renderer, client: client, log: log, onEvent: onEvent, keeping: engine)
    }

    /// Take over an open client: checks the rate, registers the output ports and checks the
    /// ports to connect to (errors name them). Nothing plays before `start`. Control thread.
    public convenience init(
        renderer: Renderer, client: JACKClient,
        log: (@Sendable (String) -> Void)? = nil, onEvent: (@Sendable (OutputEvent) -> Void)? = nil
    ) throws {
        try self.init(renderer: renderer, client: client, log: log, onEvent: onEvent, keeping: nil)
    }

    private init(
        renderer: Renderer, client: JACKClient, log: (@Sendable (String) -> Void)?,
        onEvent: (@Sendable (OutputEvent) -> Void)?, keeping engine: Engine?
    ) throws {
        keptEngine = engine
        let sampleRate = renderer.configuration.sampleRate
        guard client.sampleRate == sampleRate else {
            throw JACKError.rateMismatch(engine: sampleRate, server: client.sampleRate)
        }
        self.renderer = renderer
        configuration = client.configuration
        functions = client.functions
        // Default log: one write(2) per line to stderr (no Foundation: the C library stays small).
        self.log = log ?? { message in _ = "tutti: jack: \(message)\n".withCString { write(2, $0, strlen($0)) } }
        events = try OutputEvents(onEvent: onEvent)
        core = ProcessCore(
            renderer: renderer, channelCount: renderer.configuration.channelCount, functions: client.functions,
            scope: client.configuration.realtimeScope, wakeSupervisor: supervisor.wake.raw, capture: client.configuration.capture)
        granted = Mutex(
            JACKNegotiated(
                serverName: client.serverName, clientName: client.clientName, sampleRate: client.sampleRate,
                channelCount: renderer.configuration.channelCount, bufferFrames: client.bufferFrames, latencyFrames: 0))
        _ = try client.destinations(for: configuration.connection, channelCount: renderer.configuration.channelCount)
        let buses = renderer.configuration.outputBuses
        for (name, ports) in configuration.busConnections.sorted(by: { $0.key < $1.key }) {
            guard buses.dropFirst().contains(name) else {
                throw JACKError.invalidConfiguration(
                    "busConnections names output bus \"\(name)\"; the engine's output buses past main are: \(buses.dropFirst().joined(separator: ", "))"
                )
            }
            _ = try client.destinations(for: .ports(ports), channelCount: renderer.configuration.channelCount)
        }
        try registerPorts(on: client)
        control.withLock { $0.client = client }
    }

    deinit { stop() }

    // MARK: Control side

    /// What the server gave (updated on buffer-size changes and after a reconnect).
    public var negotiated: JACKNegotiated { granted.withLock { $0 } }
    /// Xruns JACK reported since start (anywhere in its graph, this client or not).
    public var xrunCount: Int { core.xrunCount.load(ordering: .relaxed) }
    /// Engine frames handed to JACK (JACK takes every frame rendered: the same as `framesRendered`).
    public var framesWritten: Int64 { core.clock.framesRendered.load(ordering: .relaxed) }
    /// The engine clock: frames rendered so far. Commands for later frames are on time.
    public var framesRendered: Int64 { core.clock.framesRendered.load(ordering: .acquiring) }
    /// Frames of silence played because the control thread had not moved `renderHorizon` far
    /// enough (see there).
    public var lateFrameCount: Int64 { core.clock.lateFrames.load(ordering: .relaxed) }
    /// JACK's frame time (`jack_last_frame_time`) of the cycle whose first frame is engine frame
    /// 0: where the output starts on the server's timeline (nil before it). Frame times of a
    /// restarted server restart too.
    public var startFrameTime: UInt32? {
        let t = core.startFrameTime.load(ordering: .relaxed)
        return t < 0 ? nil : UInt32(truncatingIfNeeded: t)
    }
    /// True once the frame limit has been rendered, or the output gave up (`failure`).
    public var isFinished: Bool { events.isFinished }
    /// Why the output stopped for good (the server did not come back in time); nil otherwise.
    public var failure: TuttiError? { events.failure }
    /// What the server gave and how every port group plays (`OutputBackend`). Any thread.
    public var status: OutputStatus {
        let n = negotiated
        let names = renderer.configuration.outputBuses
        let latencies = n.busLatencyFrames.isEmpty ? [n.latencyFrames] : n.busLatencyFrames
        let buses = zip(names, latencies).enumerated().map { k, bus in
            let ports = k == 0 ? mainDestinations : configuration.busConnections[bus.0] ?? []
            return OutputBusStatus(
                name: bus.0, destination: ports.joined(separator: ","), xrunCount: xrunCount, latencyFrames: bus.1,
                framesDropped: 0, isLost: core.lost.load(ordering: .acquiring))
        }
        return OutputStatus(
            backend: Self.name, device: "\(n.serverName):\(n.clientName)", sampleRate: n.sampleRate, channelCount: n.channelCount,
            sampleFormat: .float32, periodFrames: n.bufferFrames, latencyFrames: n.latencyFrames, xrunCount: xrunCount,
            framesRendered: framesRendered, framesWritten: framesWritten, buses: buses, startDeviceFrame: startFrameTime.map(Int64.init))
    }
    /// Main's destinations as configured (the physical ports are "physical").
    private var mainDestinations: [String] {
        switch configuration.connection {
        case .physical: ["physical"]
        case .none: []
        case .ports(let ports): ports
        }
    }

    /// Frames before this one may be rendered (default: no limit). A control thread that
    /// queues commands ahead sets it to the frame of the first command it has not queued yet.
    /// JACK's process callback cannot wait: when it reaches the horizon it plays silence for
    /// the rest of the cycle (counted in `lateFrameCount`, reported as `commandsLate`) and
    /// carries on from the same engine frame next cycle — the output is delayed, never changed.
    public var renderHorizon: Int64 {
        get { core.clock.horizon.load(ordering: .acquiring) }
        set { core.clock.horizon.store(newValue, ordering: .releasing) }
    }

    /// Events since the last call, in order. Control thread.
    public func pollEvents() -> [OutputEvent] { events.poll() }

    /// Activate the client, connect the ports, and once the server has run two cycles with
    /// the connections in place, start rendering from engine frame 0 (so nothing rendered is
    /// lost to a connection not yet in effect). With `frameLimit`, rendering stops after that
    /// many frames (the last cycle is completed with silence) and `finished` is reported.
    /// Control thread.
    public func start(frameLimit: Int64? = nil) throws(TuttiError) {
        let client: JACKClient? = control.withLock { state in
            if state.started { return nil }
            state.started = true
            return state.client
        }
        guard let client else { throw TuttiError(.state, "the output is already started") }
        core.clock.frameLimit.store(frameLimit ?? -1, ordering: .relaxed)
        do {
            try activate(client, strict: true)
        } catch {
            client.close()
            setClient(nil)
            core.client = nil
            throw TuttiError(.device, "\(error)")
        }
        let note =
            if let h = client.handle, functions.is_realtime(h) != 0 {
                "JACK's process thread, SCHED_FIFO priority \(functions.client_real_time_priority(h))"
            } else {
                "JACK's process thread, normal scheduling (the server runs without real-time)"
            }
        control.withLock { $0.schedulingNote = note }
        // Joined by `stop`: no supervisor outlives its output (one left inside libjack would
        // hold libjack's process-wide lock against every other client of the process).
        try supervisor.start(name: "tutti-jack-sup") { [self] in supervise() }
    }

    /// Block until the frame limit has been rendered or the output gave up; false on timeout.
    /// Control thread.
    public func waitUntilFinished(timeoutSeconds: Double? = nil) -> Bool {
        events.waitUntilFinished(timeoutSeconds: timeoutSeconds)
    }

    /// Stop the supervisor (joined: it ends at once, or when a libjack call of a reconnect in
    /// progress returns), stop rendering (silence from the next cycle, waiting for the cycle in
    /// progress to end: at most a second) and close the client; then report the xruns counted
    /// since the supervisor's last look. `drain`: let JACK play out what was rendered first
    /// (the ports' playback latency plus a cycle; at most a second). Control thread.
    public func stop(drain: Bool = false) {
        // The supervisor's own waits end at once; a libjack call in progress (opening or
        // closing a client during a reconnect) is waited for.
        supervisor.stop()
        // Last, once the client is closed (its notification thread has ended): an xrun of the
        // last cycles is an event too.
        defer {
            events.reportXruns(total: core.xrunCount.load(ordering: .relaxed))
            events.close()
        }
        guard let c = client else { return }
        // Rendering ends before the client closes: the server disconnects a closing client's
        // ports one by one before it takes the client out of the graph, and a cycle in between
        // would render the engine with the input ports already cut off (a period of silence
        // captured, with no xrun). One cycle, or the play-out when draining.
        let n = negotiated
        core.clock.finishAndPlayOut(
            playOutCycles: drain ? CallbackClock.playOutCycles(latencyFrames: n.latencyFrames, cycleFrames: n.bufferFrames) : 1,
            serverLost: core.lost.load(ordering: .acquiring))
        setClient(nil)
        if c.close(serverLost: core.lost.load(ordering: .acquiring)) == .timedOut {
            log("libjack's notification thread was still busy when the client was closed")
        }
        core.client = nil
    }

    // MARK: Activation (control thread at start, supervisor after a reconnect)

    private func registerPorts(on client: JACKClient) throws {
        guard let h = client.handle else { throw JACKError.call("jack_port_register (closed client)", code: -1) }
        let buses = renderer.configuration.outputBuses
        for r in 0..<core.busCount {
            // One bus: the configured prefix (`out`); several: a group named after each bus.
            let prefix = core.busCount == 1 ? configuration.outputPortPrefix : buses[r]
            for c in 0..<channelCount {
                let name = "\(prefix)_\(c + 1)"
                guard let port = functions.port_register(h, name, JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0) else {
                    throw JACKError.call("jack_port_register \(name)", code: -1)
                }
                core.outputPorts[r * channelCount + c] = port
            }
        }
        for c in 0..<core.captureChannels {
            let name = "\(configuration.inputPortPrefix)_\(c + 1)"
            guard let port = functions.port_register(h, name, JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0) else {
                throw JACKError.call("jack_port_register \(name)", code: -1)
            }
            core.inputPorts[c] = port
        }
    }

    /// The groups of the output buses past main → `busConnections` (after a reconnect: the
    /// ports that exist now).
    private func connectBuses(_ client: JACKClient, strict: Bool) throws {
        guard let h = client.handle, core.busCount > 1 else { return }
        let buses = renderer.configuration.outputBuses
        for r in 1..<core.busCount {
            guard let ports = configuration.busConnections[buses[r]] else { continue }
            for (c, destination) in ports.prefix(channelCount).enumerated() {
                guard let own = functions.port_name(core.outputPorts[r * channelCount + c]) else { continue }
                if !strict, functions.port_by_name(h, destination) == nil {
                    log("port \"\(destination)\" is not on the server now; \(String(cString: own)) left unconnected")
                    continue
                }
                let rc = functions.connect(h, own, destination)
                if rc != 0 && rc != EEXIST {
                    let error = JACKError.call("jack_connect \(String(cString: own)) → \(destination)", code: rc)
                    if strict { throw error }
                    log("\(error)")
                }
            }
        }
    }

    /// `captureFrom[k]` → `in_(k+1)`, and `out_k` → `in_k` for a loopback.
    private func connectCapture(_ h: OpaquePointer, strict: Bool) throws {
        var pairs: [(String, String)] = []
        for c in 0..<core.captureChannels {
            guard let own = functions.port_name(core.inputPorts[c]) else { continue }
            if c < configuration.captureFrom.count { pairs.append((configuration.captureFrom[c], String(cString: own))) }
            if configuration.loopback, c < channelCount, let out = functions.port_name(core.outputPorts[c]) {
                pairs.append((String(cString: out), String(cString: own)))
            }
        }
        for (source, destination) in pairs {
            let r = functions.connect(h, source, destination)
            if r != 0 && r != EEXIST {
                let error = JACKError.call("jack_connect \(source) → \(destination)", code: r)
                if strict { throw error }
                log("\(error)")
            }
        }
    }

    /// Callbacks, activate, connect, wait two cycles, render. `strict`: a port that cannot be
    /// connected is an error (at start); otherwise it is logged (after a reconnect, the ports
    /// named may not exist on the new server yet).
    private func activate(_ client: JACKClient, strict: Bool) throws {
        guard let h = client.handle else { throw JACKError.call("jack_activate (closed client)", code: -1) }
        try core.install(on: h)
        core.client = h
        core.bufferFrames.store(Int(functions.get_buffer_size(h)), ordering: .relaxed)
        let rc = functions.activate(h)
        guard rc == 0 else { throw JACKError.call("jack_activate", code: rc) }

        let destinations: [[String]]
        if strict {
            destinations = try client.destinations(for: configuration.connection, channelCount: channelCount)
        } else {
            destinations = lenientDestinations(client)
        }
        for (c, ports) in destinations.enumerated() {
            guard let own = functions.port_name(core.outputPorts[c]) else { continue }
            if ports.isEmpty, configuration.connection == .physical {
                log("the server has no physical playback port for \(String(cString: own)); left unconnected")
            }
            for destination in ports {
                let r = functions.connect(h, own, destination)
                if r != 0 && r != EEXIST {
                    let error = JACKError.call("jack_connect \(String(cString: own)) → \(destination)", code: r)
                    if strict { throw error }
                    log("\(error)")
                }
            }
        }

        try connectBuses(client, strict: strict)
        try connectCapture(h, strict: strict)

        // Two full cycles after the connections were made: they are in the graph by then.
        let first = core.clock.cycleCount.load(ordering: .acquiring)
        let deadline = monotonicSeconds() + configuration.startTimeoutSeconds
        while core.clock.cycleCount.load(ordering: .acquiring) < first + 2 {
            if core.lost.load(ordering: .acquiring) { throw JACKError.call("activation (the server went away)", code: -1) }
            if stopping { throw JACKError.call("activation (stopped)", code: -1) }
            if monotonicSeconds() > deadline { throw JACKError.noCycles(seconds: configuration.startTimeoutSeconds) }
            usleep(500)
        }
        _ = core.clock.phase.compareExchange(expected: .idle, desired: .rendering, ordering: .acquiringAndReleasing)

        var range = jack_latency_range_t()
        var latencies = [Int](repeating: 0, count: core.busCount)
        for r in 0..<core.busCount {
            for c in 0..<channelCount {
                functions.port_get_latency_range(core.outputPorts[r * channelCount + c], JackPlaybackLatency, &range)
                latencies[r] = max(latencies[r], Int(range.max))
            }
        }
        let negotiated = JACKNegotiated(
            serverName: client.serverName, clientName: client.clientName, sampleRate: Int(functions.get_sample_rate(h)),
            channelCount: channelCount, bufferFrames: core.bufferFrames.load(ordering: .relaxed), latencyFrames: latencies[0],
            busLatencyFrames: core.busCount > 1 ? latencies : [])
        granted.withLock { $0 = negotiated }
    }

    /// The ports to connect to after a reconnect: those that exist now.
    private func lenientDestinations(_ client: JACKClient) -> [[String]] {
        guard case .ports(let names) = configuration.connection else {
            return (try? client.destinations(for: configuration.connection, channelCount: channelCount))
                ?? Array(repeating: [], count: channelCount)
        }
        return names.prefix(channelCount).map { name in
            guard let h = client.handle, functions.port_by_name(h, name) != nil else {
                log("port \"\(name)\" is not on the server now; \(configuration.outputPortPrefix) port left unconnected")
                return []
            }
            return [name]
        }
    }

    // MARK: Supervisor thread

    private func emit(_ event: OutputEvent) { events.emit(event) }

    private var stopping: Bool { supervisor.isStopping }

    private func supervise() {
        var seenBufferFrames = core.bufferFrames.load(ordering: .relaxed)
        var seenLate: Int64 = 0
        var lastLate: Int64 = 0
        var lateSince = 0.0
        var finishedReported = false
        while !stopping {
            supervisor.sleep(seconds: 0.005)
            if stopping { break }

            events.reportXruns(total: core.xrunCount.load(ordering: .relaxed))
            let b = core.bufferFrames.load(ordering: .relaxed)
            if b != seenBufferFrames {
                seenBufferFrames = b
                granted.withLock { $0.bufferFrames = b }
                emit(.periodChanged(frames: b))
            }
            // One event per stretch of silence (once it ends, or each second while it lasts),
            // not one per poll.
            let late = core.clock.lateFrames.load(ordering: .relaxed)
            if late != seenLate {
                let now = monotonicSeconds()
                if lateSince == 0 { lateSince = now }
                if late == lastLate || now - lateSince >= 1 {
                    emit(.commandsLate(frames: late - seenLate))
                    seenLate = late
                    lateSince = 0
                }
            }
            lastLate = late
            if core.lost.load(ordering: .acquiring) {
                reconnect()
                seenBufferFrames = core.bufferFrames.load(ordering: .relaxed)
                continue
            }
            if !finishedReported, core.clock.phase.load(ordering: .acquiring) == .finished {
                finishedReported = true
                events.finish(frames: core.clock.framesRendered.load(ordering: .relaxed))
            }
        }
    }

    /// The server is gone: report it, close the client, open a new one with backoff until
    /// the timeout. The engine stays where it was: nothing is rendered while no server runs,
    /// so playback resumes from the same frame.
    private func reconnect() {
        let reason = core.reason
        let server = configuration.resolvedServerName
        emit(.deviceLost(reason: reason.isEmpty ? "the server shut down" : reason, code: 0))
        let giveUp = configuration.reconnect.timeout.map { "giving up after \(shortSeconds($0.inSeconds)) s" } ?? "never giving up"
        log("server \"\(server)\" lost\(reason.isEmpty ? "" : ": \(reason)"); reconnecting (\(giveUp))")
        _ = core.clock.phase.compareExchange(expected: .rendering, desired: .idle, ordering: .acquiringAndReleasing)
        // Joins libjack's threads: no process callback runs after this. It waits first for
        // libjack's notification thread to end (`JACKClient.close`): the server sends its
        // last notifications after the shutdown one that woke this thread.
        if client?.close(serverLost: true) == .timedOut {
            log("libjack's notification thread still ran 2 s after the loss; the lost client was closed anyway")
        }
        setClient(nil)
        core.client = nil

        var backoff = ReconnectBackoff(configuration.reconnect)
        var lastFailure = ""
        while !stopping {
            do {
                let c = try JACKClient(configuration: configuration, functions: functions)
                do {
                    guard c.sampleRate == renderer.configuration.sampleRate else {
                        throw JACKError.rateMismatch(engine: renderer.configuration.sampleRate, server: c.sampleRate)
                    }
                    try registerPorts(on: c)
                    core.lost.store(false, ordering: .releasing)
                    try activate(c, strict: false)
                } catch {
                    c.close()
                    core.client = nil
                    throw error
                }
                setClient(c)
                emit(.deviceRestored(status))
                log("server \"\(server)\" back: \(negotiated)")
                return
            } catch {
                let text = "\(error)"
                if text != lastFailure {
                    log("reconnect failed: \(text); retrying")
                    lastFailure = text
                }
                if backoff.expired, let timeout = configuration.reconnect.timeout {
                    let failure = TuttiError(
                        .device,
                        "the JACK server did not come back within \(shortSeconds(timeout.inSeconds)) s (last attempt: \(text))")
                    log("\(failure)")
                    events.giveUp(failure)
                    // Park until stopped: there is nothing left to supervise.
                    while !stopping { supervisor.sleep(seconds: 1) }
                    return
                }
                supervisor.sleep(seconds: backoff.nextWait())
            }
        }
    }
}
