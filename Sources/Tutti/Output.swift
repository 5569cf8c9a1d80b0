import Synchronization
import TuttiALSA
import TuttiEngine
import TuttiJACK
import TuttiOutput
import TuttiPipeWire

/// Where an `AudioEngine` plays when it drives a device itself. Value type: any thread.
public struct OutputConfiguration: Sendable, Equatable {
    /// The kind of device. The raw values are the C ABI's `TUTTI_BACKEND_*`.
    public enum Backend: Int32, Sendable, CaseIterable {
        /// An ALSA PCM (a sound card, or a sound server through its ALSA plugin); with several
        /// output buses, one PCM per bus (`busDestinations`).
        case alsa = 0
        /// A JACK client of a JACK server (ports `out_1 … out_N`, connected to the physical
        /// playback ports; with several output buses a group per bus, `main_1 …`, `cue_1 …`). The
        /// server sets the rate (the engine's must match) and the buffer size.
        case jack = 1
        /// One PipeWire stream (libpipewire-0.3, loaded at run time) playing main at the
        /// engine's rate (PipeWire resamples to its graph's), linked to `device` (a node name
        /// or serial; nil: the default sink); `periodFrames` asks for `node.latency`.
        case pipewire = 2
        /// The first that works, decided when the output starts (`detected()`): PipeWire when
        /// libpipewire loads and a daemon answers, else JACK when libjack loads and a server
        /// runs (`device` names it; nil: `JACK_DEFAULT_SERVER`, else "default"), else ALSA.
        /// The other settings then go to the backend it resolved to; `AudioEngine.outputBackend`
        /// says which.
        case auto = 3
    }

    /// The kind of device.
    public var backend = Backend.alsa
    /// ALSA PCM name, JACK server name or PipeWire target node; nil: the backend's default.
    /// With `.auto`: the device of the backend it resolves to.
    public var device: String?
    /// Period size to ask for, frames (16…65536); nil: the backend's default. ALSA: the
    /// period; PipeWire: `node.latency` = "PERIOD/RATE" (the graph may grant another). JACK's
    /// server sets its buffer size: giving one with `.jack` is an `invalidArgument` error.
    public var periodFrames: Int?
    /// Periods of buffering (2…64); nil: the backend's default. ALSA: the periods in the
    /// device buffer (default 4). PipeWire: render on a thread of Tutti's own up to this many
    /// periods (`periodFrames`, default 1024) ahead of the graph, which the stream's callback
    /// only copies from, adding that much latency (nil: render in the graph's cycle, the
    /// lowest latency); main's stream only: not with `capture`, output buses that play past
    /// main or `streams` `.perSession`. JACK: nil only.
    public var periodCount: Int?
    /// An input source (`SessionHandle.makeInputSource`) the device's capture feeds, one
    /// captured frame per rendered frame, from the backend's real-time thread. JACK: input
    /// ports `in_1 … in_N`, N = its channel count. ALSA: full duplex on the capture PCM
    /// (`captureSources`; opened at the output's rate, format and period, with the input's
    /// channels). PipeWire: an input stream ("CLIENT-capture") on the output's data thread, at
    /// the engine's rate with the input's channels. The host then does not `write` to it.
    public var capture: SourceHandle?
    /// Where the capture comes from. ALSA: one capture PCM (default: the output's PCM). JACK:
    /// the ports connected to `in_1 …` in order (full names; default none). PipeWire: one
    /// source node (name or serial; default: the default source), or "SINK.monitor" for a
    /// sink's monitor; a node the daemon does not have is a `device` error listing its sources
    /// (from `startOutput`, before anything plays). Given without `capture`: `invalidArgument`.
    public var captureSources: [String] = []
    /// Where each output bus (`AudioEngineConfiguration.routes`, main first) plays, by name;
    /// main defaults to `device` (ALSA) or the physical ports (JACK). ALSA: one element, the
    /// bus's PCM (`["cue": ["cuePCM"]]`); name every bus past main, or none (then only main
    /// plays and the others are mixed and dropped). Each PCM is opened with main's rate,
    /// format and period and written from the output's one render thread; a lost bus PCM is
    /// reopened while main plays on (its events are not host events: the policy follows
    /// main's device). JACK: the ports for the bus's port group `NAME_1 … NAME_N`, one per
    /// channel; a bus not listed stays unconnected. PipeWire: one element, the sink node (name
    /// or serial) the bus's own stream plays to (clock-corrected to main's); a bus past main not
    /// listed is mixed and dropped. An unknown bus, a missing ALSA bus or a
    /// wrong count is `invalidArgument`; a JACK port that is not there is a `device` error
    /// naming it.
    public var busDestinations: [String: [String]] = [:]
    /// What to do when the device (or server) is lost: reopen with backoff, give up after
    /// `reconnect.timeout` (default 30 s; the engine then gets `deviceLost` and stays without
    /// an output until `stopOutput`).
    public var reconnect = ReconnectPolicy()
    /// Serve MPRIS on the session bus while the output runs (off by default): an
    /// `MPRISServer` taking `org.mpris.MediaPlayer2.tutti` (`….tutti.instance<PID>` when
    /// another process has it). Its Play, Pause, PlayPause, Next, Previous and Stop go to
    /// `AudioEngine.sendRemoteCommand` (rule 8: the now-playing session, if it listed the
    /// command); PlaybackStatus, Metadata and Position follow the now-playing session and the
    /// frames rendered (read every 50 ms on the thread "tutti-mpris-state"). Without a
    /// session bus or libsystemd the output plays anyway: `AudioEngine.mprisError` says why,
    /// `AudioEngine.mprisName` stays nil.
    public var mpris = false
    /// The bus `mpris` serves on: nil, the session bus; else a D-Bus address (tests give a
    /// private bus's, without touching the process's environment).
    package var mprisBusAddress: String?
    /// With `.pipewire` (or `.auto` resolved to it), watch the desktop while playing: follow
    /// other applications' playback streams and hand every change to the policy as
    /// `setOtherAudio` does (playing, not mixable when a stream's `media.role` is Music, Movie,
    /// Communication or none, the applications' names), and follow the sink the stream plays
    /// to, handing its changes to the policy as `setRoute` does (the sink gone or its sound
    /// card's headphones pulled out: `oldDeviceUnavailable`, media sessions pause; moved to
    /// another sink: `newDeviceAvailable` or `override`; headphones plugged in:
    /// `newDeviceAvailable`; the route from the sink's bluetooth API, active port, form factor
    /// and bus), from the output's event thread. Default true; ALSA and JACK see no other
    /// applications and ignore it. See docs/backends.md.
    public var watchDesktop = true
    /// The former name of `watchDesktop` (it drives the route following too): reads and
    /// writes it. Deprecated: kept for one release. Any thread (a value).
    @available(*, deprecated, renamed: "watchDesktop")
    public var watchOtherAudio: Bool {
        get { watchDesktop }
        set { watchDesktop = newValue }
    }
    /// One stream for the whole mix (`.single`, the default), or one per session
    /// (`.perSession`, PipeWire only: ALSA and JACK refuse it with `invalidArgument`): each
    /// session with output plays through a stream of its own (those made while playing too,
    /// a feed from a pool that grows as needed; a removed session's stream closes and its feed is reused),
    /// `node.name` "tutti-SESSION", `media.name` the session's name, `media.role` its
    /// `SessionHandle.mediaRole` (its category's role from the table in docs/backends.md, or
    /// its override; announced again when it changes while playing), fed from main's cycle;
    /// main's stream keeps the call audio and system sounds. The policy still decides
    /// everything the engine renders; the streams only let the desktop see each session. An
    /// engine with master effects or a limiter refuses it (`invalidArgument`: they act on the
    /// sum).
    public var streams = StreamLayout.single

    /// Deprecated: `busDestinations` (the named output mixes are output buses now).
    @available(*, deprecated, renamed: "busDestinations")
    public var routeDestinations: [String: [String]] {
        get { busDestinations }
        set { busDestinations = newValue }
    }
    /// Deprecated: `captureSources` (JACK ports).
    @available(*, deprecated, renamed: "captureSources")
    public var captureFrom: [String] {
        get { captureSources }
        set { captureSources = newValue }
    }
    /// Deprecated: `captureSources` (ALSA: one PCM).
    @available(*, deprecated, renamed: "captureSources")
    public var captureDevice: String? {
        get { captureSources.first }
        set { captureSources = newValue.map { [$0] } ?? [] }
    }

    /// The default device of the default backend (ALSA "default").
    public init() {}
}

extension OutputConfiguration.Backend {
    /// The backend's implementation of the output interface (what `tutti play` drives).
    /// `.auto` has none of its own: this resolves it now (`resolved()`, which connects to the
    /// sound servers to see which answers). Control thread.
    public var implementation: any OutputBackend.Type {
        switch self {
        case .alsa: ALSAOutput.self
        case .jack: JACKOutput.self
        case .pipewire: PipeWireOutput.self
        case .auto: resolved().implementation
        }
    }

    /// The backend named `name` as the CLI and the docs spell it ("alsa", "jack",
    /// "pipewire", "auto"); nil for an unknown name. Any thread.
    public init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    /// Its name as the CLI and the docs spell it. Any thread.
    public var name: String {
        switch self {
        case .alsa: ALSAOutput.name
        case .jack: JACKOutput.name
        case .pipewire: PipeWireOutput.name
        case .auto: "auto"
        }
    }

    /// Itself, or for `.auto` the backend `detected(jackServer:)` finds now. Control thread.
    public func resolved(jackServer: String? = nil) -> Self {
        self == .auto ? Self.detected(jackServer: jackServer) : self
    }

    /// The first backend that works now: `.pipewire` when libpipewire loads and a daemon
    /// answers (one connection, opened and closed: nothing plays), else `.jack` when libjack
    /// loads and a server runs under `jackServer` (nil: `JACK_DEFAULT_SERVER`, else
    /// "default"; a client opened with `JackNoStartServer` and closed again), else `.alsa`.
    /// Never `.auto`. `pipeWire` false skips PipeWire (for a caller that has no PipeWire
    /// path: `tutti bench loopback`). Takes about as long as the connection
    /// attempts. Control thread.
    public static func detected(jackServer: String? = nil, pipeWire: Bool = true) -> Self {
        if pipeWire {
            do throws(TuttiError) {
                _ = try PipeWireOutput.probe(OutputSettings(), channelCount: 2, busNames: ["main"])
                return .pipewire
            } catch {}
        }
        if let client = try? JACKClient(configuration: JACKOutputConfiguration(clientName: "tutti-probe", serverName: jackServer)) {
            client.close()
            return .jack
        }
        return .alsa
    }
}

extension OutputConfiguration {
    /// In the output layer's vocabulary (`OutputSettings`), with `capture` resolved to its
    /// input.
    func settings(capture: InputSource?) throws(TuttiError) -> OutputSettings {
        // The host API's range (the C ABI's contract); the backends take any period from 1.
        if let p = periodFrames, !(16...65_536).contains(p) {
            throw TuttiError(.invalidArgument, "periodFrames must be in 16…65536, got \(p)")
        }
        var settings = OutputSettings(device: device)
        settings.periodFrames = periodFrames
        settings.periodCount = periodCount
        settings.capture = capture
        settings.captureSources = captureSources
        settings.busDestinations = busDestinations
        settings.reconnect = reconnect
        settings.watchDesktop = watchDesktop
        settings.streams = streams
        return settings
    }
}

extension AudioEngine {
    /// Play on a device from a dedicated real-time thread (the backend's), instead of pull
    /// mode: while it runs, `render(into:frameCount:)` returns false. Device loss, xruns and
    /// the device's return come as events. Throws `invalidArgument` for a bad setting,
    /// `state` if an output already runs or a pull render is in progress, `device` when the
    /// device cannot be opened (the message says why). Any thread.
    public func startOutput(_ configuration: OutputConfiguration = OutputConfiguration()) throws(TuttiError) {
        try startOutput(configuration, pipeWireRemote: nil)
    }

    /// `startOutput(_:)` with PipeWire's daemon at `pipeWireRemote` (its socket; nil: the
    /// default), for tests that run a private daemon. Any thread.
    package func startOutput(_ configuration: OutputConfiguration, pipeWireRemote: String?) throws(TuttiError) {
        // Resolved before the output lock: the engine's lock is never taken inside it.
        var captureInput: InputSource?
        if let capture = configuration.capture {
            guard capture.engine === self else { throw TuttiError(.invalidArgument, "capture: the source belongs to another engine") }
            captureInput = try withCore { (s) throws(TuttiError) in try s.input(capture.id) }
        }
        var settings = try configuration.settings(capture: captureInput)
        // Main's stream announces the role the sessions share, at start (docs/backends.md).
        let sessions = try withCore { (s) throws(TuttiError) in s.policy.sessions.map(\.configuration) }
        settings.mediaRole = MediaRole.forMix(of: sessions).rawValue
        if configuration.streams == .perSession {
            // A stream per session that has output, with its role (at start: docs/backends.md).
            let streams = try withCore { (s) throws(TuttiError) in s.sessionStreams() }
            settings.sessionStreams = streams.map { SessionStream(name: $0.name, bus: $0.bus, mediaRole: $0.mediaRole.rawValue) }
        }
        // `.auto` is decided here, before the output lock (it connects to the sound servers).
        let backend = configuration.backend.resolved(jackServer: configuration.device)
        try output.withLock { (running: inout (any OutputBackend)?) throws(TuttiError) in
            guard running == nil else { throw TuttiError(.state, "an output is already running") }
            guard renderOwner.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged else {
                throw TuttiError(.state, "a pull render is in progress on another thread")
            }
            do throws(TuttiError) {
                let onEvent: @Sendable (OutputEvent) -> Void = { [weak self] e in self?.deviceEvent(e, backend: backend.name) }
                let started: any OutputBackend =
                    if backend == .pipewire, let pipeWireRemote {
                        try PipeWireOutput(
                            renderer: renderer, settings: settings, remote: pipeWireRemote, log: { _ in }, onEvent: onEvent)
                    } else {
                        try backend.implementation.init(renderer: renderer, settings: settings, log: { _ in }, onEvent: onEvent)
                    }
                try started.start(frameLimit: nil)
                running = started
            } catch {
                renderOwner.store(0, ordering: .releasing)
                throw error
            }
        }
        guard configuration.mpris else { return }
        // After the output lock: the server's threads take the engine's lock.
        var started: EngineMPRIS?
        var failure: String?
        do throws(TuttiError) {
            started = try EngineMPRIS(engine: self, busAddress: configuration.mprisBusAddress)
        } catch {
            failure = error.message
        }
        let previous = mpris.withLock { m in
            defer { m = (started, failure) }
            return m.server
        }
        previous?.stop()
    }

    /// The MPRIS name this engine serves (`OutputConfiguration.mpris`) while its output runs;
    /// nil when it serves none. Any thread.
    public var mprisName: String? { mpris.withLock { $0.server?.server.name } }

    /// Why the running output serves no MPRIS though `OutputConfiguration.mpris` asked for it
    /// (no session bus, libsystemd missing, no name); nil otherwise. Any thread.
    public var mprisError: String? { mpris.withLock { $0.error } }

    /// Stop the output (if one runs): its threads end and the device closes; pull rendering
    /// works again. `drain`: first let the device play out what it already holds (nothing new
    /// is rendered; the call blocks for about the output's latency, at most a second with
    /// JACK), so the last frames rendered are heard (and reach a recording of the output);
    /// without it they are dropped. Either way rendering ends before the device closes, and
    /// the xruns counted until then are events. Never called from the output's own threads.
    /// Any thread.
    public func stopOutput(drain: Bool = false) {
        // The MPRIS server first (its threads take the engine's lock: joined outside it).
        mpris.withLock { m in
            defer { m = (nil, nil) }
            return m.server
        }?.stop()
        let stopped = output.withLock { (running: inout (any OutputBackend)?) -> (any OutputBackend)? in
            defer { running = nil }
            return running
        }
        guard let stopped else { return }
        stopped.stop(drain: drain)
        renderOwner.store(0, ordering: .releasing)
    }

    /// With a PipeWire output playing a stream per session (`OutputConfiguration.streams`):
    /// each session with output that has no stream yet gets one (`PipeWireOutput.addSessionStream`),
    /// and each stream announces its session's role now
    /// (`SessionHandle.mediaRole`), e.g. after `makeSession`, `setMediaRole` or `setCategory`.
    /// Nothing otherwise. Any thread but a real-time one.
    func announceSessionStreams() {
        let streams: [(name: String, bus: BusID, mediaRole: MediaRole)]
        do { streams = try withCore { (s) throws(TuttiError) in s.sessionStreams() } } catch { return }
        output.withLock { running in
            guard let pipeWire = running as? PipeWireOutput else { return }
            for stream in streams where !pipeWire.setSessionMediaRole(stream.mediaRole.rawValue, session: stream.name) {
                pipeWire.addSessionStream(stream.name, bus: stream.bus, role: stream.mediaRole.rawValue)
            }
        }
    }

    /// Whether an output runs. Any thread but a real-time one (takes the output's lock).
    public var isOutputRunning: Bool { output.withLock { $0 != nil } }

    /// The backend the running output plays through (never `.auto`: what `.auto` resolved
    /// to); nil while none runs. Any thread.
    public var outputBackend: OutputConfiguration.Backend? {
        output.withLock { running in running.flatMap { OutputConfiguration.Backend(name: type(of: $0).name) } }
    }

    /// What a running output reports: xruns and latency (frames: the device buffer, or the
    /// server's port latency).
    var outputStatus: (xruns: Int, latencyFrames: Int) {
        output.withLock { running in
            guard let status = running?.status else { return (0, 0) }
            return (status.xrunCount, status.latencyFrames)
        }
    }

    /// An output event, on the output's event-delivery thread: the policy hears about the
    /// device (and, from PipeWire, about other applications' audio and the sink the stream
    /// plays to), the host gets an event.
    private func deviceEvent(_ event: OutputEvent, backend: String) {
        switch event {
        case .xrun(let total): reportDeviceEvent(.xrun(count: total))
        case .deviceLost(let reason, _): deviceLost(device: backend, reason: reason)
        case .deviceRestored: deviceRestored(device: backend)
        case .otherAudioChanged(let playing, let silenceSecondary, let clients):
            try? setOtherAudio(playing: playing, silenceSecondary: silenceSecondary, clients: clients)
        case .routeChanged(let route, let reason, _, _):
            // Rule 7 at the first block rendered from now (`oldDeviceUnavailable`: media
            // sessions pause); the host gets `routeChanged` from the policy's journal.
            try? withCore { (s) throws(TuttiError) in _ = try s.perform(.route(route, reason: reason), at: .now) }
        default: break
        }
    }

    /// The output went away: the policy sees the route's device go (rule 7: media sessions
    /// pause, at the first block rendered from now, so nothing resumes by itself when the
    /// device comes back), then the host gets `deviceLost` after the `routeChanged`.
    private func deviceLost(device: String, reason: String) {
        try? withCore { (s) throws(TuttiError) in _ = try s.perform(.route(.speaker, reason: .oldDeviceUnavailable), at: .now) }
        reportDeviceEvent(.deviceLost(device: device, reason: reason))
    }

    /// The output is back: a route change with `newDeviceAvailable` (nothing resumes by
    /// itself), then `deviceRestored`.
    private func deviceRestored(device: String) {
        try? withCore { (s) throws(TuttiError) in
            _ = try s.perform(.route(s.policy.device.route, reason: .newDeviceAvailable), at: .now)
        }
        reportDeviceEvent(.deviceRestored(device: device))
    }
}
