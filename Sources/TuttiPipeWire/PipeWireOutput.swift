import CPipeWire
import Glibc
import Synchronization
import TuttiEngine
import TuttiOutput

/// Plays a `Renderer`'s main output bus through one PipeWire stream (`pw_stream`, libpipewire
/// 0.3 loaded at run time): float32 interleaved at the engine's rate and channel count
/// (PipeWire converts and resamples to the graph's rate when they differ), rendered inside the
/// stream's `process` callback on PipeWire's real-time data thread. The stream's node is
/// `node.name` = `application.name` = `OutputSettings.clientName`, `media.type` Audio,
/// `media.category` Playback, `media.role` Music; `target.object` is the device (a node name
/// or serial; nil: the session manager's default sink); a period asks for `node.latency` =
/// "PERIOD/RATE". Each output bus past main with a `busDestinations` entry plays through a
/// stream of its own on the same connection (`node.name` "CLIENT-BUS", the same role and
/// latency, `target.object` its destination), fed from main's callback through a ring with
/// clock correction (`BusFeed`, `busClocks`); a bus past main without one is rendered and
/// dropped. With `streams` `.perSession`, each of `sessionStreams` plays likewise through a
/// stream of its own (`node.name` "CLIENT-SESSION", `media.name` the session, its
/// `media.role`, main's target), fed with its engine bus's mix (main is rendered split by bus,
/// `Renderer.render(outputBuses:busCount:busMixes:busMixCount:joiningMain:frameCount:)`; main's
/// stream plays the rest); sessions made later get streams fed from a pool of session feeds
/// that grows as needed (`addSessionStream`, `spareSessionStreams`), a removed session's
/// stream is closed and its feed reused. With
/// `OutputSettings.capture`, an input stream ("CLIENT-capture", `media.category` Capture) on
/// the same connection feeds the input source from `captureSources[0]` (a source node, or
/// "SINK.monitor"; nil: the default source). With `OutputSettings.periodCount`, main's
/// callback renders nothing: a thread of Tutti's own ("tutti-pw-ahead") renders up to that many
/// periods ahead of the graph into a ring the callback copies from (`RenderAhead`; main's
/// stream alone, with the ring's frames of latency).
///
/// Threads: the control thread creates, starts, stops and polls it. PipeWire's data thread
/// renders and takes the captured frames (nothing else; rendering ahead, it copies from the
/// ring, and "tutti-pw-ahead", started by `start` and joined by `stop`, renders); PipeWire's loop thread ("tutti-pw-loop") runs the stream's state
/// callback. A supervisor thread (normal priority) turns counters into events and reads the
/// latency and, after a lost stream (the daemon gone), opens a new one with backoff until
/// `reconnect.timeout`. With `onEvent`, an event-delivery thread calls it. `stop()` joins them
/// all. With `OutputSettings.watchDesktop` (the default) an `OtherAudioWatcher` (its own
/// connection and loop thread, "tutti-pw-watch") follows the other applications' playback
/// streams from `start` to `stop` and reports each change as `otherAudioChanged`, and follows
/// the sink the stream is linked to (its node's links), reporting a sink that goes away, or a
/// move to another sink, as `routeChanged` (`RouteFollower`); it is reopened with the stream
/// after a reconnect.
public final class PipeWireOutput: OutputBackend, Sendable {
    /// "pipewire". Any thread.
    public static let name = "pipewire"
    /// The `media.role` main's stream announces when `OutputSettings.mediaRole` is not set by
    /// the engine ("Music", its default). Any thread.
    public static let mediaRole = "Music"
    /// Seconds `start` waits for the stream to be linked and running.
    static let startTimeoutSeconds = 10
    /// The period rendering ahead counts in when `periodFrames` is not given: PipeWire's
    /// default quantum (`default.clock.quantum`).
    static let defaultPeriodFrames = 1_024

    /// The render side it drives (its render calls belong to PipeWire's data thread once
    /// started; the reference may be read from any thread).
    public let renderer: Renderer
    /// What it was opened with.
    let settings: OutputSettings
    /// The daemon's socket (nil: the default).
    let remote: String?
    let core: StreamCore
    private let log: @Sendable (String) -> Void
    private let events: OutputEvents
    /// What the control and supervisor threads change (the lock is taken only to read or swap
    /// a value, never while calling PipeWire or waiting).
    private struct ControlState {
        /// The open stream, by its id in the C shim's table (`tpw_id`: an integer, so any thread
        /// may hold it; each shim call looks the stream up and keeps it alive while it runs, and
        /// finds none once it is closed): opened by the control thread, reopened by the
        /// supervisor (nil while reconnecting), closed by `stop` once it joined the supervisor.
        var stream: tpw_id?
        var started = false
        var schedulingNote = "not started"
        /// The thread rendering ahead (`settings.periodCount`), from `start` to `stop`, and how
        /// it is scheduled.
        var aheadThread: pthread_t?
        var aheadNote = ""
    }
    private let control = Mutex(ControlState())
    private var stream: tpw_id? { control.withLock { $0.stream } }
    private func setStream(_ s: tpw_id?) { control.withLock { $0.stream = s } }
    /// Watches the stream (lost daemon → reconnect with backoff), reports the finish.
    private let supervisor = Supervisor()
    /// Output latency in frames and the graph's rate, as last read (`pw_stream_get_time_n`).
    /// And each bus or session stream's, by its feed's index (0: none, or not read yet).
    private let timing = Mutex((latencyFrames: 0, graphRate: 0, busLatencyFrames: [Int]()))
    private let lost = Atomic<Bool>(false)
    /// Each session stream's `media.role` as last announced, by session name (a reopened
    /// stream announces it too).
    private let sessionRoles: Mutex<[String: String]>
    /// Other applications' streams, from `start` (with `settings.watchDesktop`) to `stop`.
    private let watcher = Mutex<OtherAudioWatcher?>(nil)
    /// How PipeWire schedules the data thread, once started (for reports); "not started"
    /// before `start`. Any thread.
    public var schedulingNote: String { control.withLock { $0.schedulingNote + $0.aheadNote } }

    /// Connects to the default PipeWire daemon (`$PIPEWIRE_REMOTE`, else `pipewire-0` in
    /// `$XDG_RUNTIME_DIR`) and creates the stream as `settings` say: see
    /// `init(renderer:settings:remote:log:onEvent:)`. Control thread.
    public convenience init(
        renderer: Renderer, settings: OutputSettings, log: (@Sendable (String) -> Void)?,
        onEvent: (@Sendable (OutputEvent) -> Void)?
    ) throws(TuttiError) {
        try self.init(renderer: renderer, settings: settings, remote: nil, log: log, onEvent: onEvent)
    }

    /// Connects to the PipeWire daemon at `remote` (its socket: a name in the runtime
    /// directory or an absolute path; nil: the default) and creates the stream as `settings`
    /// say (see `OutputBackend`); nothing plays before `start`. A library that cannot be
    /// loaded, a daemon that does not answer, a sink named for main or a bus that it does not
    /// have (`checkTargets`), a capture node it does not have (`checkCaptureSource`) or a
    /// setting PipeWire cannot honour throw `TuttiError` (`device`, `invalidArgument`).
    /// Control thread.
    public init(
        renderer: Renderer, settings: OutputSettings, remote: String?, log: (@Sendable (String) -> Void)?,
        onEvent: (@Sendable (OutputEvent) -> Void)?
    ) throws(TuttiError) {
        try Self.check(settings, busNames: renderer.configuration.outputBuses)
        try Self.checkSessionStreams(settings, renderer: renderer)
        try Self.checkNodes(settings, busNames: renderer.configuration.outputBuses, remote: remote)
        self.renderer = renderer
        self.settings = settings
        self.remote = remote
        sessionRoles = Mutex(Dictionary(settings.sessionStreams.map { ($0.name, $0.mediaRole) }, uniquingKeysWith: { a, _ in a }))
        self.log = log ?? { message in _ = "tutti: pipewire: \(message)\n".withCString { write(2, $0, strlen($0)) } }
        core = StreamCore(
            renderer: renderer, scope: settings.realtimeScope, capture: settings.capture,
            busDestinations: Self.busTargets(settings, busNames: renderer.configuration.outputBuses),
            busPeriodFrames: settings.periodFrames ?? 1_024, sessionStreams: Self.sessionStreams(settings),
            sessionTarget: Self.target(settings, busNames: renderer.configuration.outputBuses) ?? "default",
            spareSessionStreams: settings.streams == .perSession ? Self.spareSessionStreams : 0,
            perSession: settings.streams == .perSession,
            renderAhead: settings.periodCount.map { (settings.periodFrames ?? Self.defaultPeriodFrames, $0) })
        events = try OutputEvents(onEvent: onEvent)
        let opened = try Self.open(
            settings, busNames: renderer.configuration.outputBuses, rate: renderer.configuration.sampleRate,
            channels: renderer.configuration.channelCount, remote: remote, core: core)
        setStream(opened)
    }

    deinit { stop() }

    /// Where main plays: `busDestinations[main]`, else `device`; nil: the default sink.
    static func target(_ settings: OutputSettings, busNames: [String]) -> String? {
        settings.busDestinations[busNames.first ?? "main"]?.first ?? settings.device
    }

    /// The buses past main that play, in bus order: each with a `busDestinations` entry, its
    /// node. A bus past main without one is rendered and dropped (no stream). Any thread.
    static func busTargets(_ settings: OutputSettings, busNames: [String]) -> [(name: String, target: String)] {
        busNames.dropFirst().compactMap { name in settings.busDestinations[name]?.first.map { (name, $0) } }
    }

    /// The sessions that play through streams of their own: `sessionStreams` with `streams`
    /// `.perSession`, else none. Any thread.
    static func sessionStreams(_ settings: OutputSettings) -> [SessionStream] {
        settings.streams == .perSession ? settings.sessionStreams : []
    }

    /// Per-session streams need an engine whose main can be split by bus (no master effect
    /// chain, no limiter: `Renderer.supportsBusMixes`) and session streams on buses it has,
    /// each once: else `invalidArgument`.
    static func checkSessionStreams(_ settings: OutputSettings, renderer: Renderer) throws(TuttiError) {
        guard settings.streams == .perSession else { return }
        if !renderer.supportsBusMixes {
            throw TuttiError(
                .invalidArgument,
                "streams per-session: the engine has a master effect chain or a limiter, which act on the sum of the sessions "
                    + "(a stream per session cannot carry its share); remove them or play one stream")
        }
        var seen = Set<Int>()
        for session in settings.sessionStreams {
            guard session.busSlot >= 0, session.busSlot < renderer.configuration.maxBuses, seen.insert(session.busSlot).inserted else {
                throw TuttiError(
                    .invalidArgument, "sessionStreams: session \"\(session.name)\" has bus slot \(session.busSlot), not a bus of its own")
            }
        }
    }

    /// The checks before anything is opened: what PipeWire cannot honour is `invalidArgument`
    /// naming the setting.
    static func check(_ settings: OutputSettings, busNames: [String]) throws(TuttiError) {
        try settings.validate(busNames: busNames)
        if settings.periodCount != nil {
            // Rendering ahead feeds main's stream alone: the capture, bus and session streams are
            // fed in the graph's cycle, which a ring ahead of it would put out of step.
            if settings.capture != nil {
                throw TuttiError(.invalidArgument, "periodCount: rendering ahead plays main alone; with capture leave it unset")
            }
            if !busTargets(settings, busNames: busNames).isEmpty {
                throw TuttiError(
                    .invalidArgument, "periodCount: rendering ahead plays main alone; with buses that play (busDestinations) leave it unset"
                )
            }
            if settings.streams == .perSession {
                throw TuttiError(.invalidArgument, "periodCount: rendering ahead plays main alone; with per-session streams leave it unset")
            }
        }
        if let formats = settings.sampleFormats, formats != [.float32] {
            throw TuttiError(.invalidArgument, "sampleFormats: the PipeWire stream is float32 (PipeWire converts)")
        }
        if settings.lockMemory { throw TuttiError(.invalidArgument, "lockMemory is for a backend with its own render thread (ALSA)") }
        if settings.leaveUnconnected { throw TuttiError(.invalidArgument, "leaveUnconnected: not supported by PipeWire yet") }
        if let capture = settings.capture, !(1...2).contains(capture.channelCount) {
            throw TuttiError(.invalidArgument, "capture: \(capture.channelCount) channels; an input source has 1 or 2")
        }
        if settings.captureSources.count > 1 {
            throw TuttiError(.invalidArgument, "captureSources: one PipeWire node, got \(settings.captureSources.count)")
        }
        let main = busNames.first ?? "main"
        for (name, nodes) in settings.busDestinations.sorted(by: { $0.key < $1.key }) {
            guard nodes.count == 1 else {
                throw TuttiError(.invalidArgument, "busDestinations[\"\(name)\"]: one PipeWire node, got \(nodes.count)")
            }
            if name == main, settings.device != nil {
                throw TuttiError(.invalidArgument, "device and busDestinations[\"\(main)\"] both name main's target: give one")
            }
        }
    }

    /// Where the capture stream links: `captureSources[0]` (a source's node name or serial;
    /// none: the default source), and whether it names a sink's monitor ("NAME.monitor", as
    /// PulseAudio spells it: the capture then follows sink NAME's monitor ports). Any thread.
    static func captureTarget(_ settings: OutputSettings) -> (target: String?, monitor: Bool) {
        guard let node = settings.captureSources.first else { return (nil, false) }
        let (target, monitor) = captureTarget(node)
        return (target, monitor)
    }

    /// The node `node` names and whether it is a sink's monitor ("NAME.monitor"). Any thread.
    static func captureTarget(_ node: String) -> (target: String, monitor: Bool) {
        if node.hasSuffix(".monitor"), node.count > ".monitor".count { return (String(node.dropLast(".monitor".count)), true) }
        return (node, false)
    }

    /// Whether `node`, a capture source as `OutputSettings.captureSources` takes it, is one of
    /// the daemon's at `remote` (nil: the default daemon): a source (or duplex node) by its
    /// `node.name` or `object.serial`, or "SINK.monitor" for a sink's monitor. Else `device`,
    /// naming the node and listing what can be captured (the sources, then each sink's
    /// monitor) — WirePlumber would otherwise link the capture to the default source, or leave
    /// it unlinked. `init` and `probe` check `captureSources[0]` so. A daemon that does not
    /// answer is `device` too ("no PipeWire daemon answers at …"). Blocks for a round trip to
    /// the daemon (`PipeWireDevices.list`): any thread but a real-time one.
    public static func checkCaptureSource(_ node: String, remote: String? = nil) throws(TuttiError) {
        let nodes = try PipeWireDevices.list(remote: remote)
        let (target, monitor) = captureTarget(node)
        if nodes.contains(where: { (monitor ? $0.isSink : $0.isSource) && $0.isNamed(by: target) }) { return }
        let names = nodes.filter(\.isSource).map(\.name) + nodes.filter(\.isSink).map { $0.name + ".monitor" }
        let listed = names.isEmpty ? "the daemon has none" : "the sources: " + names.joined(separator: ", ")
        let what =
            monitor
            ? "no PipeWire sink has the node.name or object.serial \"\(target)\" (to capture its monitor)"
            : "no PipeWire source has that node.name or object.serial"
        throw TuttiError(.device, "captureSources \"\(node)\": \(what) (\(listed))")
    }

    /// Whether every sink `settings` name is one of the daemon's at `remote` (nil: the default
    /// daemon), by its `node.name` or `object.serial`: main's target (`device`, or
    /// `busDestinations` of the first of `busNames`) and each bus past main's
    /// (`busDestinations`). Else `device`, naming the setting and the node and listing the
    /// sinks — WirePlumber would otherwise play that stream to the default sink, or leave it
    /// unlinked. No target named: nothing to check (no round trip). A daemon that does not
    /// answer is `device` too. `init` and `probe` check so (a reconnect does not: a sink may
    /// come back later than the daemon). Blocks for a round trip to the daemon: any thread but
    /// a real-time one.
    public static func checkTargets(_ settings: OutputSettings, busNames: [String], remote: String? = nil) throws(TuttiError) {
        let named = namedSinks(settings, busNames: busNames)
        guard !named.isEmpty else { return }
        try checkTargets(named, sinks: PipeWireDevices.list(remote: remote).filter(\.isSink))
    }

    /// The sinks `settings` name, each with the setting that names it.
    private static func namedSinks(_ settings: OutputSettings, busNames: [String]) -> [(setting: String, node: String)] {
        let main = busNames.first ?? "main"
        var named: [(setting: String, node: String)] = []
        if let node = settings.busDestinations[main]?.first {
            named.append(("busDestinations[\"\(main)\"]", node))
        } else if let device = settings.device {
            named.append(("device", device))
        }
        for bus in busTargets(settings, busNames: busNames) { named.append(("busDestinations[\"\(bus.name)\"]", bus.target)) }
        return named
    }

    private static func checkTargets(_ named: [(setting: String, node: String)], sinks: [PipeWireNodeInfo]) throws(TuttiError) {
        for (setting, node) in named where !sinks.contains(where: { $0.isNamed(by: node) }) {
            let listed = sinks.isEmpty ? "the daemon has none" : "the sinks: " + sinks.map(\.name).joined(separator: ", ")
            throw TuttiError(.device, "\(setting) \"\(node)\": no PipeWire sink has that node.name or object.serial (\(listed))")
        }
    }

    /// `checkTargets`, then `checkCaptureSource(_:remote:)` for `captureSources[0]` (none: the
    /// default source, nothing to check). Control thread.
    static func checkNodes(_ settings: OutputSettings, busNames: [String], remote: String?) throws(TuttiError) {
        try checkTargets(settings, busNames: busNames, remote: remote)
        if let node = settings.captureSources.first { try checkCaptureSource(node, remote: remote) }
    }

    /// Session feeds built ahead at open for sessions made while playing (`addSessionStream`),
    /// past those of the sessions' streams made at start: their rings, clock corrections and
    /// mix buffers are ready, so the first sessions made while playing build nothing. More are
    /// built on the control thread when these are in use, up to one per engine bus slot
    /// (`EngineConfiguration.maxBuses`, at most 256); a removed session's feed is reused once
    /// its stream is closed. Any thread.
    public static let spareSessionStreams = 8

    /// Loads the library, connects to the daemon, creates the (unconnected) stream, with a
    /// session stream for each of `sessions` (nil: `sessionStreams(settings)`; a nil entry: an
    /// empty slot, for a feed index without a stream now) and room for every feed `core` may
    /// build.
    private static func open(
        _ settings: OutputSettings, busNames: [String], rate: Int, channels: Int, remote: String?, core: StreamCore?,
        sessions given: [SessionStream?]? = nil
    ) throws(TuttiError) -> tpw_id {
        let target = target(settings, busNames: busNames)
        let latency = settings.periodFrames.map { "\($0)/\(rate)" }
        let (captureTarget, monitor) = captureTarget(settings)
        var message = [CChar](repeating: 0, count: 512)
        // Each bus stream's node.name ("CLIENT-BUS") and target, as C strings for tpw_open
        // (which copies them).
        // Then each session's stream (`streams` .perSession): node.name "CLIENT-SESSION",
        // media.name the session, its role, main's target.
        let busList = busTargets(settings, busNames: busNames)
        let sessions = given ?? sessionStreams(settings)
        var texts: [String?] = []
        for bus in busList { texts += ["\(settings.clientName)-\(bus.name)", bus.target, nil, nil] }
        for session in sessions {
            if let session {
                texts += ["\(settings.clientName)-\(session.name)", target, session.mediaRole, session.name]
            } else {
                texts += [nil, nil, nil, nil]
            }
        }
        let cStrings: [UnsafeMutablePointer<CChar>?] = texts.map { $0.flatMap { strdup($0) } }
        defer { for p in cStrings { free(p) } }
        var busConfigs: [tpw_bus_config] = []
        for k in 0..<(busList.count + sessions.count) {
            busConfigs.append(
                tpw_bus_config(
                    node_name: UnsafePointer(cStrings[4 * k]), target: UnsafePointer(cStrings[4 * k + 1]),
                    media_role: UnsafePointer(cStrings[4 * k + 2]), media_name: UnsafePointer(cStrings[4 * k + 3])))
        }
        let buses = busConfigs
        let opened: tpw_id = settings.clientName.withCString { name in
            settings.mediaRole.withCString { role in
                withOptionalCString(target) { target in
                    withOptionalCString(latency) { latency in
                        withOptionalCString(remote) { remote in
                            withOptionalCString(captureTarget) { captureTarget in
                                var config = tpw_config(
                                    node_name: name, media_role: role, target: target, latency: latency, remote: remote,
                                    rate: UInt32(rate), channels: UInt32(channels), render: pipeWireRender,
                                    user: core.map { Unmanaged.passUnretained($0).toOpaque() },
                                    capture_channels: UInt32(settings.capture?.channelCount ?? 0), capture_target: captureTarget,
                                    capture_monitor: monitor ? 1 : 0, capture: pipeWireCapture, bus_count: UInt32(buses.count),
                                    buses: nil, bus_render: pipeWireBusRender, gap: pipeWireGap,
                                    bus_capacity: UInt32(max(busConfigs.count, core?.feedCapacity ?? 0)))
                                return busConfigs.withUnsafeBufferPointer { list in
                                    config.buses = list.baseAddress
                                    return tpw_open(&config, &message, message.count)
                                }
                            }
                        }
                    }
                }
            }
        }
        guard opened != 0 else { throw TuttiError(.device, text(message)) }
        return opened
    }

    // MARK: OutputBackend

    /// PipeWire plays at the engine's rate (the stream converts to the graph's): nil. Checks
    /// the settings, loads the library and connects to the daemon once (a daemon that does not
    /// answer, a sink it does not have (`checkTargets`) or a capture node it does not have is a
    /// `device` error). Control thread.
    public static func probe(_ settings: OutputSettings, channelCount: Int, busNames: [String]) throws(TuttiError) -> Int? {
        try probe(settings, channelCount: channelCount, busNames: busNames, remote: nil)
    }

    /// `probe(_:channelCount:busNames:)` against the daemon at `remote` (nil: the default).
    /// Control thread.
    public static func probe(_ settings: OutputSettings, channelCount: Int, busNames: [String], remote: String?) throws(TuttiError) -> Int?
    {
        try check(settings, busNames: busNames)
        try checkNodes(settings, busNames: busNames, remote: remote)
        let stream = try open(settings, busNames: busNames, rate: 48_000, channels: channelCount, remote: remote, core: nil)
        tpw_close(stream)
        return nil
    }

    /// One node (name or serial): the whole text. Any thread.
    public static func destinations(parsing text: String) -> [String] { [text] }

    /// Xruns: main's process cycles that found no free buffer to fill (the stream's
    /// underruns), graph cycles main's stream lost (`lostCycles`), capture cycles that brought
    /// no buffer (`captureMissedCycles`) and graph cycles the capture stream lost
    /// (`captureLostCycles`). Each is an `xrun` event too. Any thread.
    public var xrunCount: Int {
        core.missedCycles.load(ordering: .relaxed) + core.lostCycles.load(ordering: .relaxed)
            + core.captureCounts.missedCycles.load(ordering: .relaxed) + core.captureCounts.lostCycles.load(ordering: .relaxed)
            + renderAheadUnderruns
    }

    /// Rendering ahead (`OutputSettings.periodCount`): main's cycles that found the ring short
    /// (the thread rendering ahead had fallen behind; silence played for the rest), counted in
    /// `xrunCount`; 0 otherwise. Any thread.
    public var renderAheadUnderruns: Int { core.ahead?.underruns.load(ordering: .relaxed) ?? 0 }

    /// Rendering ahead: the frames rendered and not yet handed to PipeWire (part of the
    /// latency `status` reports; at most `periodCount` periods, of the graph's quantum when it
    /// runs larger cycles than `periodFrames`); 0 otherwise. Any thread.
    public var renderAheadFrames: Int { core.ahead?.fill ?? 0 }

    /// Graph cycles main's stream gave nothing to since `start`: cycles the graph ran without
    /// calling its process callback (the stream's graph position, `pw_time.ticks`, moved by
    /// more than the last cycle's length: the callback was late and PipeWire coalesced its
    /// wake-ups) and cycles whose callback ended after the next cycle's start (too late for the
    /// graph). The sink played no frame of Tutti's then (a gap); the engine does not skip, so
    /// the output runs that much later. Counted in `xrunCount`. Any thread.
    public var lostCycles: Int { core.lostCycles.load(ordering: .relaxed) }

    /// The frames of `lostCycles` (at the engine's rate). Any thread.
    public var lostFrames: Int64 { core.lostFrames.load(ordering: .relaxed) }

    /// Graph cycles the capture stream lost likewise (the input got silence for them). Counted
    /// in `xrunCount`. Any thread.
    public var captureLostCycles: Int { core.captureCounts.lostCycles.load(ordering: .relaxed) }

    /// The frames of `captureLostCycles` (at the engine's rate). Any thread.
    public var captureLostFrames: Int64 { core.captureCounts.lostFrames.load(ordering: .relaxed) }

    /// Capture cycles that brought no buffer (the capture stream's underruns: the input got
    /// nothing for that cycle and its render side filled the gap with silence). Any thread.
    public var captureMissedCycles: Int { core.captureCounts.missedCycles.load(ordering: .relaxed) }

    /// Captured frames lost because the input's ring was full (the render side had not taken
    /// them). Any thread.
    public var captureDroppedFrames: Int64 { core.captureCounts.droppedFrames.load(ordering: .relaxed) }

    /// Captured frames given to the input since `start`. Any thread.
    public var capturedFrames: Int64 { core.captureCounts.capturedFrames.load(ordering: .relaxed) }
    /// The engine clock: frames rendered so far. Any thread.
    public var framesRendered: Int64 { core.clock.framesRendered.load(ordering: .acquiring) }
    /// Frames of silence played because the control thread had not moved `renderHorizon` far
    /// enough. Any thread.
    public var lateFrameCount: Int64 { core.clock.lateFrames.load(ordering: .relaxed) }
    /// True once the frame limit has been played, or the output gave up. Any thread.
    public var isFinished: Bool { events.isFinished }
    /// Why the output stopped for good (the stream did not come back within
    /// `reconnect.timeout`); nil otherwise. Any thread.
    public var failure: TuttiError? { events.failure }

    /// Frames before this one may be rendered (default: no limit). The process callback cannot
    /// wait: at the horizon it plays silence for the rest of the cycle (`commandsLate`) and
    /// carries on from the same engine frame next cycle. Any thread.
    public var renderHorizon: Int64 {
        get { core.clock.horizon.load(ordering: .acquiring) }
        set { core.clock.horizon.store(newValue, ordering: .releasing) }
    }

    /// The stream as it plays: rate (Hz) and channels (the engine's), the last cycle's frames
    /// as the period (else the period asked for), the latency in frames at the engine's rate
    /// as `pw_stream_get_time_n` gave it. Each bus or session stream in `buses` (after main)
    /// reports its ring's fill plus its sink's part (`sinkLatency`), computed the same way for
    /// both. Any thread.
    public var status: OutputStatus {
        let t = timing.withLock { $0 }
        let ahead = renderAheadFrames
        let xruns = xrunCount
        let cycle = core.cycleFrames.load(ordering: .relaxed)
        let period = cycle > 0 ? cycle : settings.periodFrames ?? 0
        let target = Self.target(settings, busNames: renderer.configuration.outputBuses) ?? "default"
        let isLost = lost.load(ordering: .acquiring)
        let main = OutputBusStatus(
            name: renderer.configuration.outputBuses.first ?? "main", destination: target, xrunCount: xruns,
            latencyFrames: t.latencyFrames + ahead, framesDropped: 0, isLost: isLost)
        let busLatency = timing.withLock { $0.busLatencyFrames }
        let others = core.streamFeeds.map { k, feed in
            OutputBusStatus(
                name: feed.name, destination: feed.destination,
                xrunCount: feed.xrunCount,
                latencyFrames: Self.sinkLatency(feed, read: k < busLatency.count ? busLatency[k] : 0) + feed.fill,
                framesDropped: feed.correction.framesDropped.load(ordering: .relaxed), isLost: isLost,
                isSessionStream: feed.sessionSlot >= 0)
        }
        return OutputStatus(
            backend: Self.name, device: "\(settings.clientName) → \(target)", sampleRate: renderer.configuration.sampleRate,
            channelCount: renderer.configuration.channelCount, sampleFormat: .float32, periodFrames: period,
            latencyFrames: t.latencyFrames + ahead, xrunCount: xruns, framesRendered: framesRendered, framesWritten: framesRendered,
            buses: [main] + others)
    }

    /// The clock correction of each bus past main that plays through its own stream, in bus
    /// order (empty without one). Any thread.
    public var busClocks: [PipeWireBusClock] {
        core.streamFeeds.map { _, feed in
            PipeWireBusClock(
                name: feed.name, clockRatio: feed.clockRatio, framesCorrected: feed.correction.framesCorrected.load(ordering: .relaxed),
                framesPlayed: feed.framesPlayed.load(ordering: .relaxed), framesInserted: feed.framesInserted.load(ordering: .relaxed),
                framesDropped: feed.correction.framesDropped.load(ordering: .relaxed), underruns: feed.underruns.load(ordering: .relaxed),
                missedCycles: feed.missedCycles.load(ordering: .relaxed), ringFrames: feed.fill,
                lostCycles: feed.lostCycles.load(ordering: .relaxed), lostFrames: feed.lostFrames.load(ordering: .relaxed))
        }
    }

    /// Gives session `session`, on engine bus `bus`, a stream of its own while playing: a free
    /// session feed (a spare built at open, a removed session's once its stream is closed, or
    /// one built now: `spareSessionStreams`), its stream made by `tpw_bus_add` on PipeWire's
    /// loop, connected at once (`node.name` "CLIENT-SESSION", `media.role` `role`). False when
    /// the layout is `.single`, the session has one, no feed can be had (every engine bus slot's
    /// feed in use, or the bus's slot past 256: logged) or PipeWire refuses (logged): the
    /// session then plays in main's stream. Control thread.
    @discardableResult
    public func addSessionStream(_ session: String, bus: BusID, role: String) -> Bool {
        guard settings.streams == .perSession else { return false }
        if core.liveFeeds.contains(where: { $0.feed.sessionSlot >= 0 && $0.feed.sessionBus == bus.rawValue }) { return false }
        return control.withLock { state -> Bool in
            // Under the control lock: the supervisor neither closes nor reopens the stream meanwhile.
            guard let k = core.prepareSessionFeed(name: session, bus: bus) else {
                let room = core.feedCapacity - core.busFeedCount
                log(
                    "session \(session): no session stream left (its bus slot \(bus.slot) is past \(room), or all \(room) are in use); "
                        + "it plays in main's stream")
                return false
            }
            if let stream = state.stream {
                var message = [CChar](repeating: 0, count: 256)
                guard addStream(stream, index: k, session: session, role: role, message: &message) else {
                    core.release(k)
                    log("session \(session): its stream could not be added (\(text(message))); it plays in main's stream")
                    return false
                }
            }
            sessionRoles.withLock { $0[session] = role }
            core.makeLive(k)
            return true
        }
    }

    /// Makes session `session`'s stream (role `role`) at feed index `index` of `stream`
    /// (`tpw_bus_add`). Under the control lock: control thread or supervisor.
    private func addStream(_ stream: tpw_id, index k: Int, session: String, role: String, message: inout [CChar]) -> Bool {
        let target = Self.target(settings, busNames: renderer.configuration.outputBuses)
        let size = message.count
        let added = "\(settings.clientName)-\(session)".withCString { node in
            withOptionalCString(target) { target in
                role.withCString { role in
                    session.withCString { name in
                        var config = tpw_bus_config(node_name: node, target: target, media_role: role, media_name: name)
                        return tpw_bus_add(stream, UInt32(k), &config, &message, size)
                    }
                }
            }
        }
        return added == Int32(k)
    }

    /// Seconds a retired session's ring must have stayed empty before its stream is closed
    /// (its last buffer, taken in the cycle that emptied it, reaches the sink in that cycle), and
    /// the longest its stream plays out after the session's bus has gone.
    static let drainedSeconds = 0.01
    static let drainLimitSeconds = 1.0

    /// Closes the stream of each session whose bus has left the engine (the data thread saw it
    /// go and retired its feed: `BusFeed.Use.ending`) once its ring has played out (its
    /// fade-out heard, not cut: empty for `drainedSeconds`, or `drainLimitSeconds` after it
    /// was seen retired), then frees the feed for another session; one log line each.
    /// `draining`: when each retired feed was seen retired and its ring empty (the caller's
    /// memory). The feeds freed. Supervisor thread.
    private func closeEndedSessionStreams(now: Double, draining: inout [Int: (since: Double, emptySince: Double?)]) -> [Int] {
        var freed: [Int] = []
        for (k, feed) in core.streamFeeds where feed.sessionSlot >= 0 && feed.isEnding {
            var seen = draining[k] ?? (now, nil)
            if feed.fill > 0 {
                seen.emptySince = nil
            } else if seen.emptySince == nil {
                seen.emptySince = now
            }
            draining[k] = seen
            let drained = seen.emptySince.map { now - $0 >= Self.drainedSeconds } ?? false
            guard drained || now - seen.since >= Self.drainLimitSeconds else { continue }
            let closed = control.withLock { state -> Bool in
                guard let stream = state.stream else { return false }
                // Under the control lock (as `setSessionMediaRole`): PipeWire's loop lock never waits for it.
                // After it no callback of that stream runs: the feed is no one's.
                _ = tpw_bus_close(stream, UInt32(k))
                core.release(k)
                return true
            }
            if closed {
                freed.append(k)
                draining[k] = nil
                log("session \(feed.name) was removed: its stream is closed")
            }
        }
        return freed
    }

    /// Announces `role` as the `media.role` of session `session`'s stream
    /// (`pw_stream_update_properties`: the node's properties change where the session manager
    /// and `pw-dump` see them; a stream reopened after a lost daemon announces it too). False
    /// when that session has no stream of its own (`streams` `.single`, none could be had when
    /// it was made, or it was removed). Control thread (any thread but PipeWire's).
    @discardableResult
    public func setSessionMediaRole(_ role: String, session: String) -> Bool {
        guard let k = core.liveFeeds.first(where: { $0.feed.sessionSlot >= 0 && $0.feed.name == session })?.index else { return false }
        let changed = sessionRoles.withLock { roles -> Bool in
            guard roles[session] != role else { return false }
            roles[session] = role
            return true
        }
        guard changed else { return true }
        // Under the control lock, so the supervisor cannot close the stream meanwhile: the call
        // takes only PipeWire's loop lock, which never waits for this one.
        control.withLock { state in
            guard let stream = state.stream else { return }
            _ = role.withCString { tpw_bus_set_role(stream, UInt32(k), $0) }
        }
        return true
    }

    /// The sink's part of a bus or session stream's latency, everything after its ring: what
    /// PipeWire reads for the stream (`read`: `pw_stream_get_time_n`'s delay to the device
    /// plus the frames in its converter, `tpw_bus_latency`) plus the buffer it handed the graph
    /// in its last cycle (`BusFeed.streamCycleFrames`: a frame entering the ring plays after
    /// it). The same for an output bus past main and a session. Any thread.
    static func sinkLatency(_ feed: BusFeed, read: Int) -> Int { read + feed.streamCycleFrames.load(ordering: .relaxed) }

    /// The sink's part of the latency of bus or session stream `name` (`sinkLatency`) as last
    /// read: nil when it has no stream or it has not run yet. Any thread.
    func busSinkLatency(of name: String) -> Int? {
        guard let (k, feed) = core.streamFeeds.first(where: { $0.feed.name == name }),
            feed.streamCycleFrames.load(ordering: .relaxed) > 0
        else { return nil }
        let latency = timing.withLock { $0.busLatencyFrames }
        return Self.sinkLatency(feed, read: k < latency.count ? latency[k] : 0)
    }

    /// The graph's rate in frames per second as the stream last reported it (0 before it
    /// runs; the stream converts from the engine's rate when they differ). Any thread.
    public var graphRate: Int { timing.withLock { $0.graphRate } }

    /// Tests only: main's next process cycle sleeps `microseconds` before rendering (a callback
    /// late on purpose: `lostCycles` counts what it cost). Any thread.
    func stallNextCycle(microseconds: UInt32) {
        guard let stream else { return }
        tpw_test_stall(stream, microseconds)
    }

    /// Events since the last call, in order. Control thread.
    public func pollEvents() -> [OutputEvent] { events.poll() }

    /// Connects the stream (PipeWire links it to the target), waits until it streams and has
    /// run two cycles, then renders from engine frame 0. With `frameLimit`, rendering stops
    /// after that many frames (the cycle is completed with silence) and `finished` is
    /// reported. Throws `TuttiError` (`device`) when the stream fails or does not run within
    /// 10 s. Control thread.
    public func start(frameLimit: Int64? = nil) throws(TuttiError) {
        let stream: tpw_id? = control.withLock { state in
            if state.started { return nil }
            state.started = true
            return state.stream
        }
        guard let stream else { throw TuttiError(.state, "the output is already started") }
        core.clock.frameLimit.store(frameLimit ?? -1, ordering: .relaxed)
        try startRenderingAhead()
        try connect(stream)
        _ = core.clock.phase.compareExchange(expected: .idle, desired: .rendering, ordering: .acquiringAndReleasing)
        updateTiming()
        scheduleDataThread()
        watchOtherAudio()
        try supervisor.start(name: "tutti-pw-sup") { [self] in supervise() }
    }

    /// Makes the data thread the render callback ran on real-time, once the stream runs
    /// (after `start`'s and each reconnect's first cycles), and says so in `schedulingNote`.
    /// The stream's context is made with `client-rt.conf`, whose module-rt gives the data
    /// thread SCHED_FIFO (PipeWire's `rt.prio`, 88 by default) through RTKit or
    /// RLIMIT_RTPRIO (read back with `SCHED_RESET_ON_FORK` masked off: module-rt sets it).
    /// Where it has not (neither RTKit nor an RLIMIT_RTPRIO allowed it), the thread is set to
    /// SCHED_FIFO `settings.realtimePriority` here, from the control thread or the supervisor
    /// (never from the thread itself: the render path makes no such call); nil leaves it as
    /// PipeWire made it. Control thread in `start`, the supervisor after a reconnect: while
    /// the stream exists (its data thread lives as long as its context).
    private func scheduleDataThread() {
        let thread = core.dataThread.load(ordering: .acquiring)
        let note: String
        if thread == 0 {
            note = "PipeWire's data thread (no cycle yet)"
        } else {
            var policy: Int32 = 0
            var parameters = sched_param()
            if pthread_getschedparam(pthread_t(thread), &policy, &parameters) != 0 {
                note = "PipeWire's data thread"
            } else if let name = Self.realTimePolicyName(policy) {
                note = "PipeWire's data thread, \(name) priority \(parameters.sched_priority) (PipeWire's module-rt)"
            } else if let priority = settings.realtimePriority {
                parameters.sched_priority = priority
                let rc = pthread_setschedparam(pthread_t(thread), SCHED_FIFO, &parameters)
                if rc == 0 {
                    note = "PipeWire's data thread, SCHED_FIFO priority \(priority) (set by Tutti: PipeWire left it at normal scheduling)"
                } else {
                    let reason = String(cString: strerror(rc))
                    note = "PipeWire's data thread, normal scheduling (SCHED_FIFO priority \(priority) refused: \(reason))"
                    log(
                        "render thread: SCHED_FIFO priority \(priority) refused (\(reason)); PipeWire's data thread stays at normal scheduling"
                    )
                }
            } else {
                note = "PipeWire's data thread, normal scheduling (real-time priority not requested)"
            }
        }
        control.withLock { $0.schedulingNote = note }
    }

    /// The name of a real-time scheduling policy as `pthread_getschedparam` reports it
    /// ("SCHED_FIFO", "SCHED_RR"), nil for any other. The kernel reports a thread set with
    /// `SCHED_RESET_ON_FORK` (module-rt sets `SCHED_FIFO | SCHED_RESET_ON_FORK`) with that flag
    /// in the policy (0x40000000; Glibc's `<sched.h>` does not give it to Swift): it is
    /// masked off, so such a thread reads as the real-time thread it is. Any thread.
    static func realTimePolicyName(_ policy: Int32) -> String? {
        switch policy & ~0x4000_0000 {
        case SCHED_FIFO: "SCHED_FIFO"
        case SCHED_RR: "SCHED_RR"
        default: nil
        }
    }

    /// The watcher, taken out (closed by the caller, outside the lock).
    private func takeWatcher() -> OtherAudioWatcher? {
        watcher.withLock { w -> OtherAudioWatcher? in
            defer { w = nil }
            return w
        }
    }

    /// With `settings.watchDesktop`: (re)opens the watcher of other applications' streams,
    /// whose changes become `otherAudioChanged` events, and of the sinks, whose changes for the
    /// stream's node (`tpw_node_id`, known once connected) become `routeChanged` events. A
    /// watcher that cannot be opened is one log line (playback goes on without it). Control
    /// thread at start, the supervisor after a reconnect.
    private func watchOtherAudio() {
        guard settings.watchDesktop else { return }
        takeWatcher()?.close()
        let node = stream.map { tpw_node_id($0) }
        do throws(TuttiError) {
            let opened = try OtherAudioWatcher(
                remote: remote, streamNode: node == UInt32.max ? nil : node, onRouteChange: { [events] in events.emit($0) },
                onChange: { [events] snapshot in
                    events.emit(
                        .otherAudioChanged(
                            playing: snapshot.playing, silenceSecondary: snapshot.silenceSecondary, clients: snapshot.clients))
                })
            watcher.withLock { $0 = opened }
        } catch {
            log("other applications' audio and the sinks are not watched: \(error.message)")
        }
    }

    /// Connects `stream` and waits until it streams and has run two cycles (linked: nothing
    /// rendered is lost to a link not yet made). Control thread at start, the supervisor
    /// after a reconnect (which `stop` ends: `state` error).
    private func connect(_ stream: tpw_id) throws(TuttiError) {
        var message = [CChar](repeating: 0, count: 512)
        guard tpw_connect(stream, &message, message.count) == 0 else {
            throw TuttiError(.device, "PipeWire: \(text(message))")
        }
        let deadline = monotonicSeconds() + Double(Self.startTimeoutSeconds)
        var firstCycle: Int64?
        while true {
            let state = tpw_state(stream, &message, message.count)
            if state < 0 { throw TuttiError(.device, "PipeWire stream failed: \(text(message))") }
            var busesRunning = true
            for (k, feed) in core.liveFeeds {
                let busState = tpw_bus_state(stream, UInt32(k), &message, message.count)
                if busState < 0 {
                    throw TuttiError(.device, "PipeWire stream of bus \(feed.name) failed: \(text(message))")
                }
                if busState != 3 { busesRunning = false }
            }
            if state == 3, busesRunning {
                let now = core.clock.cycleCount.load(ordering: .acquiring)
                if let first = firstCycle {
                    if now >= first + 2 { return }
                } else {
                    firstCycle = now
                }
            }
            if stopping { throw TuttiError(.state, "stopped") }
            if monotonicSeconds() > deadline {
                let target = Self.target(settings, busNames: renderer.configuration.outputBuses) ?? "the default sink"
                throw TuttiError(
                    .device, "the PipeWire stream to \(target) did not start within \(Self.startTimeoutSeconds) s (state \(state))")
            }
            usleep(1000)
        }
    }

    /// Blocks until the frame limit has been played or the output gave up; false on timeout.
    /// Control thread.
    public func waitUntilFinished(timeoutSeconds: Double? = nil) -> Bool {
        events.waitUntilFinished(timeoutSeconds: timeoutSeconds)
    }

    /// Stops the supervisor (joined), stops rendering (silence from the next cycle, once the
    /// cycle in progress ended: at most a second) and destroys the stream (PipeWire's threads
    /// end); then reports the cycles lost since the supervisor's last look. `drain`: let
    /// PipeWire play out what was rendered first (the latency plus a cycle; at most a second,
    /// or the latency and half a second when that is longer, as a long ring ahead makes it).
    /// Idempotent. Control thread, or the event-delivery thread.
    public func stop(drain: Bool = false) {
        // Last, after the drain (the ring plays out first), on every path.
        defer { stopRenderingAhead() }
        supervisor.stop()
        takeWatcher()?.close()
        // Once the streams are closed (before the thread rendering ahead ends): a cycle lost
        // in the last moments is an event too.
        defer {
            events.reportXruns(total: xrunCount)
            events.close()
        }
        let (s, started) = control.withLock { ($0.stream, $0.started) }
        guard let s else { return }
        if !drain, started {
            // Rendering ends before the streams close (the capture stream may go first: the
            // engine would render on with its input cut off). One cycle at most.
            core.clock.finishAndPlayOut(playOutCycles: 1, serverLost: lost.load(ordering: .acquiring))
        }
        if drain, started {
            let t = timing.withLock { $0 }
            // The slowest of main and the buses (each bus: its stream's latency, its ring, and
            // the buffer its stream took last cycle, which its driver may not have played yet).
            // Rendering ahead: what the ring holds plays out first.
            var latency = t.latencyFrames + renderAheadFrames
            let cycle = core.cycleFrames.load(ordering: .relaxed)
            for (k, feed) in core.liveFeeds {
                latency = max(latency, (k < t.busLatencyFrames.count ? t.busLatencyFrames[k] : 0) + feed.fill + cycle)
            }
            // At most a second, or the latency and half a second when longer (a long ring ahead).
            let rate = Double(max(renderer.configuration.sampleRate, 1))
            core.clock.finishAndPlayOut(
                playOutCycles: CallbackClock.playOutCycles(latencyFrames: latency, cycleFrames: core.cycleFrames.load(ordering: .relaxed)),
                serverLost: lost.load(ordering: .acquiring), timeoutSeconds: max(1, Double(latency) / rate + 0.5))
        }
        setStream(nil)
        tpw_close(s)
        core.dataThread.store(0, ordering: .releasing)
    }

    /// With `settings.periodCount`: starts the thread that renders ahead of the graph
    /// ("tutti-pw-ahead", SCHED_FIFO `settings.realtimePriority` where allowed, set from the
    /// thread before its loop) and says how it is scheduled in `schedulingNote`. It fills the
    /// ring with silence until `start` makes the clock render. Control thread.
    private func startRenderingAhead() throws(TuttiError) {
        guard let ahead = core.ahead else { return }
        let core = self.core
        let priority = settings.realtimePriority
        let started = Semaphore()
        do throws(ThreadStartError) {
            let thread = try startThread(name: "tutti-pw-ahead") {
                if let priority {
                    var parameters = sched_param()
                    parameters.sched_priority = priority
                    ahead.schedulingResult.store(pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters), ordering: .releasing)
                }
                started.post()
                let renderer = core.renderer
                ahead.run { output, frames in
                    // Unlike the callback, this thread can wait for the control thread: a chunk
                    // past the render horizon waits for it to move (no silence rendered for a
                    // late control thread while the ring still plays).
                    guard core.clock.mayRender(frameCount: frames) else { return false }
                    core.render(into: output, frameCount: frames, renderer: renderer)
                    return true
                }
            }
            control.withLock { $0.aheadThread = thread }
        } catch {
            throw error.tuttiError
        }
        started.wait()
        let rc = ahead.schedulingResult.load(ordering: .acquiring)
        let frames = "\(ahead.targetFrames) frames ahead"
        let note: String
        if let priority {
            if rc == 0 {
                note = "; rendering \(frames) on tutti-pw-ahead, SCHED_FIFO priority \(priority)"
            } else {
                let reason = String(cString: strerror(rc))
                note = "; rendering \(frames) on tutti-pw-ahead, normal scheduling (SCHED_FIFO refused: \(reason))"
                log("render-ahead thread: SCHED_FIFO priority \(priority) refused (\(reason)); falling back to normal scheduling")
            }
        } else {
            note = "; rendering \(frames) on tutti-pw-ahead, normal scheduling (real-time priority not requested)"
        }
        control.withLock { $0.aheadNote = note }
    }

    /// Ends and joins the thread rendering ahead, if it runs. Control thread (`stop`).
    private func stopRenderingAhead() {
        guard let thread = control.withLock({ $0.aheadThread.take() }), let ahead = core.ahead else { return }
        ahead.stopRequested.store(true, ordering: .releasing)
        pthread_join(thread, nil)
    }

    // MARK: Supervisor thread

    private var stopping: Bool { supervisor.isStopping }

    private func updateTiming() {
        guard let stream else { return }
        var frames: Int64 = 0
        var rate: UInt32 = 0
        guard tpw_latency(stream, &frames, &rate) == 0 else { return }
        var buses = [Int](repeating: 0, count: core.feedCount.load(ordering: .acquiring))
        for (k, _) in core.streamFeeds where k < buses.count {
            var busFrames: Int64 = 0
            var busRate: UInt32 = 0
            buses[k] = tpw_bus_latency(stream, UInt32(k), &busFrames, &busRate) == 0 ? Int(busFrames) : 0
        }
        timing.withLock { $0 = (Int(frames), Int(rate), buses) }
    }

    private func supervise() {
        var seenLate: Int64 = 0
        var lastLate: Int64 = 0
        var lateSince = 0.0
        var finishedReported = false
        var lastTiming = 0.0
        var message = [CChar](repeating: 0, count: 256)
        // Each feed's xruns reported (and the feed's generation they count: a reused feed starts
        // again from 0), by index.
        var busXruns = [(generation: Int, count: Int)](repeating: (0, 0), count: core.feedCapacity)
        // The live feeds whose streams have streamed: one that then stops is lost (one just added
        // is still connecting). A feed freed leaves it (its index's next stream is new).
        var streamed = Set<Int>()
        var draining: [Int: (since: Double, emptySince: Double?)] = [:]
        while !stopping {
            supervisor.sleep(seconds: 0.005)
            if stopping { break }
            let now = monotonicSeconds()
            for k in closeEndedSessionStreams(now: now, draining: &draining) { streamed.remove(k) }
            events.reportXruns(total: xrunCount)
            // A bus's xruns (its stream's cycles without a buffer, its ring's underruns, the
            // graph cycles its stream lost), as ALSA reports a route's: `bus(NAME, xrun(total:))`.
            for (k, feed) in core.streamFeeds where k < busXruns.count {
                let generation = feed.generation.load(ordering: .acquiring)
                if busXruns[k].generation != generation { busXruns[k] = (generation, 0) }
                let total = feed.xrunCount
                while busXruns[k].count < total {
                    busXruns[k].count += 1
                    events.emit(.bus(feed.name, .xrun(total: busXruns[k].count)))
                }
            }
            if now - lastTiming >= 0.1 {
                updateTiming()
                lastTiming = now
            }
            let late = core.clock.lateFrames.load(ordering: .relaxed)
            if late != seenLate {
                if lateSince == 0 { lateSince = now }
                if late == lastLate || now - lateSince >= 1 {
                    events.emit(.commandsLate(frames: late - seenLate))
                    seenLate = late
                    lateSince = 0
                }
            }
            lastLate = late
            if let stream, tpw_state(stream, &message, message.count) < 2 {
                let reason = text(message)
                reconnect(reason: reason.isEmpty ? "the stream was disconnected" : reason)
                continue
            }
            // A session stream added while playing is not lost while it is still connecting:
            // only once it has streamed (or failed).
            let live = core.liveFeeds
            if let stream {
                for (k, _) in live where tpw_bus_state(stream, UInt32(k), nil, 0) >= 2 { streamed.insert(k) }
            }
            if let stream,
                let (k, feed) = live.first(where: { k, _ in
                    let state = tpw_bus_state(stream, UInt32(k), nil, 0)
                    return state < 0 || (state < 2 && streamed.contains(k))
                })
            {
                _ = tpw_bus_state(stream, UInt32(k), &message, message.count)
                let said = text(message)
                let reason = said.isEmpty ? "its stream was disconnected" : said
                reconnect(reason: "bus \(feed.name): \(reason)")
                continue
            }
            if !finishedReported, core.clock.phase.load(ordering: .acquiring) == .finished {
                finishedReported = true
                events.finish(frames: core.clock.framesRendered.load(ordering: .relaxed))
            }
        }
    }
}

extension PipeWireOutput {
    /// The stream left the graph (the daemon went away, the stream was removed): report it,
    /// destroy the stream, then open and connect a new one with backoff until
    /// `reconnect.timeout`. The engine stays where it was (nothing is rendered meanwhile), so
    /// playback resumes from the same frame. Supervisor thread.
    fileprivate func reconnect(reason: String) {
        lost.store(true, ordering: .releasing)
        events.emit(.deviceLost(reason: "PipeWire: \(reason)", code: 0))
        let giveUp = settings.reconnect.timeout.map { "giving up after \($0.inSeconds) s" } ?? "never giving up"
        log("stream lost: \(reason); reconnecting (\(giveUp))")
        _ = core.clock.phase.compareExchange(expected: .rendering, desired: .idle, ordering: .acquiringAndReleasing)
        if let old = stream {
            setStream(nil)
            tpw_close(old) // destroys the streams: no process callback runs after this
            core.dataThread.store(0, ordering: .releasing) // that thread has ended
        }
        // The buses' rings start empty with the new streams (what they held is dropped, counted).
        for (_, feed) in core.streamFeeds { feed.reset() }
        var backoff = ReconnectBackoff(settings.reconnect)
        var lastFailure = ""
        while !stopping {
            do throws(TuttiError) {
                // The session streams live now (those added while playing included), each with
                // the role it announced last. Each session feed's index gets its slot: a stream for a live one, an empty slot
                // for the others (free, being prepared, or retired: the supervisor frees it).
                let roles = sessionRoles.withLock { $0 }
                let feeds = core.feeds
                let sessions: [SessionStream?] = feeds.dropFirst(core.busFeedCount).map { feed in
                    guard feed.use.load(ordering: .acquiring) == BusFeed.Use.live else { return nil }
                    return SessionStream(name: feed.name, bus: BusID(rawValue: feed.sessionBus), mediaRole: roles[feed.name] ?? "Music")
                }
                let s = try Self.open(
                    settings, busNames: renderer.configuration.outputBuses, rate: renderer.configuration.sampleRate,
                    channels: renderer.configuration.channelCount, remote: remote, core: core, sessions: sessions)
                do throws(TuttiError) {
                    try connect(s)
                } catch {
                    tpw_close(s)
                    throw error
                }
                // Sessions given a feed while the stream was being opened get their streams now.
                control.withLock { state in
                    state.stream = s
                    let roles = sessionRoles.withLock { $0 }
                    var message = [CChar](repeating: 0, count: 256)
                    let first = core.busFeedCount
                    for (k, feed) in core.liveFeeds where k >= first && (k - first >= sessions.count || sessions[k - first] == nil) {
                        if !addStream(s, index: k, session: feed.name, role: roles[feed.name] ?? "Music", message: &message) {
                            log("session \(feed.name): its stream could not be made again (\(text(message)))")
                        }
                    }
                }
                lost.store(false, ordering: .releasing)
                _ = core.clock.phase.compareExchange(expected: .idle, desired: .rendering, ordering: .acquiringAndReleasing)
                updateTiming()
                scheduleDataThread()
                events.emit(.deviceRestored(status))
                watchOtherAudio()
                log("stream back: \(status)")
                return
            } catch {
                if stopping { return }
                if error.message != lastFailure {
                    log("reconnect failed: \(error.message); retrying")
                    lastFailure = error.message
                }
                if backoff.expired, let timeout = settings.reconnect.timeout {
                    let failure = TuttiError(
                        .device, "the PipeWire stream did not come back within \(timeout.inSeconds) s (last attempt: \(error.message))")
                    log("\(failure)")
                    events.giveUp(failure)
                    while !stopping { supervisor.sleep(seconds: 1) }
                    return
                }
                supervisor.sleep(seconds: backoff.nextWait())
            }
        }
    }
}

/// The clock correction of one output bus past main playing through its own PipeWire stream
/// (`PipeWireOutput.busClocks`). Any thread.
public struct PipeWireBusClock: Sendable, Equatable {
    /// The bus's name.
    public var name: String
    /// The resampling ratio now (output frames per rendered frame; 1 while the bus stream keeps
    /// main's pace, as on main's driver).
    public var clockRatio: Double
    /// Frames the correction added (negative: removed) since start.
    public var framesCorrected: Int64
    /// Frames the bus stream played from its ring.
    public var framesPlayed: Int64
    /// Silent frames played because the ring ran dry (an underrun of the bus).
    public var framesInserted: Int64
    /// Frames the ring dropped when it overflowed (its older frames, or new ones that found no
    /// room: lost), or held when the streams were reopened.
    public var framesDropped: Int64
    /// Bus cycles the ring could not fill.
    public var underruns: Int
    /// Bus cycles that found no free buffer to fill.
    public var missedCycles: Int
    /// Frames waiting in the ring now.
    public var ringFrames: Int
    /// Graph cycles the bus stream gave nothing to (the graph ran without calling it, or its
    /// callback ended too late), as `PipeWireOutput.lostCycles` for main.
    public var lostCycles: Int
    /// The frames of `lostCycles`.
    public var lostFrames: Int64

    /// A bus clock of these values.
    public init(
        name: String, clockRatio: Double, framesCorrected: Int64, framesPlayed: Int64, framesInserted: Int64, framesDropped: Int64,
        underruns: Int, missedCycles: Int, ringFrames: Int, lostCycles: Int = 0, lostFrames: Int64 = 0
    ) {
        self.name = name
        self.clockRatio = clockRatio
        self.framesCorrected = framesCorrected
        self.framesPlayed = framesPlayed
        self.framesInserted = framesInserted
        self.framesDropped = framesDropped
        self.underruns = underruns
        self.missedCycles = missedCycles
        self.ringFrames = ringFrames
        self.lostCycles = lostCycles
        self.lostFrames = lostFrames
    }
}

/// A NUL-terminated message buffer as a String.
func text(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// `body` with `text` as a C string, or NULL for nil.
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
