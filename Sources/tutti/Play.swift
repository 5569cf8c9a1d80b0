import ArgumentParser
import Foundation
import Tutti
import TuttiALSA
import TuttiOutput
import TuttiPipeWire
import TuttiScene

enum DeviceFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case f32, s32, s16
    var format: OutputSampleFormat {
        switch self {
        case .f32: .float32
        case .s32: .s32
        case .s16: .s16
        }
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a scene in real time on an ALSA device, as a JACK client or as a PipeWire stream.",
        discussion: """
            The device gets exactly the samples `tutti render` writes for the same scene: a \
            shadow render decides the scene a little ahead and its commands are queued for the \
            render thread, which applies each at its frame. Control lines on stdin change the \
            policy while it plays, heard about --control-lookahead (0.05 s) later: volume V, ringer V, volume up|down, \
            route R, silent on|off, lock, unlock, mic on|off, remote CMD, call begin|end, \
            play|pause|stop SOURCE, activate|deactivate SESSION (a bad line is one line on \
            stderr; playback goes on); MPRIS on the session bus (org.mpris.MediaPlayer2.tutti, \
            --no-mpris) sends the remote commands the same way, and --events FILE writes the \
            policy journal as it is decided. Integer device formats are TPDF-dithered \
            as `tutti render -f s16` is. At the end it prints the xruns, the negotiated latency and the output's peak in dBFS with the samples that clipped. \
            With --backend jack the scene renders at the JACK server's rate, inside JACK's \
            process callback (ports out_1 … out_N; docs/backends.md). \
            With --backend pipewire it plays main as one PipeWire stream at the scene's rate \
            (PipeWire resamples), rendered in the stream's process callback, to --target NODE \
            (default: the default sink), and each other output bus given --bus-output NAME=NODE as a \
            stream of its own to that sink (clock-corrected; a bus without one is not played); --streams per-session gives each \
            session with output a stream of its own (tutti-SESSION, its media.role; docs/backends.md); other apps' running PipeWire playback streams are \
            then applied as the `other` control line (journalled as otherAudioChanged), and the \
            sink it plays to going away, or the stream moving to another sink, as the `route` \
            control line (oldDeviceUnavailable pauses media sessions; the sound card's active \
            headphones port or a headset sink is the headphones route, bluetooth bluetooth, \
            HDMI / line / USB external); --no-watch-desktop turns both off. \
            A scene with an input source captures live into it: ALSA full duplex from \
            --capture-device (default: --device), JACK input ports in_1 … (--capture-from \
            connects them), or a PipeWire input stream from --capture-device NODE (default: \
            the default source). Sessions' recordTo WAVs are written while playing and moved into \
            place at the end; SIGINT / SIGTERM / SIGHUP stop playback and finish them (exit \
            130 / 143 / 129; a second signal removes them). A scene with several \
            engine.outputBuses plays each output bus on its own PCM (--bus-output NAME=PCM), JACK port \
            group (NAME_1 …, --bus-output NAME=PORTS) or PipeWire stream (--bus-output NAME=NODE); the report then gives xruns and latency per bus.
            """)

    @Argument(help: "The scene file (JSON; see docs/scene-format.md).")
    var scene: String

    @Option(
        name: .customLong("backend"),
        help: ArgumentHelp(
            "Output backend: auto (the default), alsa, jack or pipewire.",
            discussion:
                "auto: the backend the options name (--device, --capture-device, --periods, --mlock, --no-realtime: alsa; --jack-*, --connect, --no-connect, --capture-from: jack; --target: pipewire), else the first that works: pipewire if a daemon answers, jack if a server runs, else alsa. The report says which (backend: NAME (auto))."
        ))
    var backendArgument: OutputConfiguration.Backend?
    /// `--backend`, auto when not given (an optional, so that `--help` shows no raw value as
    /// the default).
    var backend: OutputConfiguration.Backend { backendArgument ?? .auto }

    @OptionGroup(title: "JACK (with --backend jack)")
    var jack: JACKPlayOptions

    @Option(help: "ALSA PCM name (see `tutti devices`).")
    var device = "default"

    @Option(
        name: .customLong("bus-output"),
        help: ArgumentHelp(
            "Play output bus NAME of the scene's engine.outputBuses on DEST (repeatable).",
            discussion:
                "ALSA: DEST is a PCM; main defaults to --device, every other bus needs one (all are opened with the same rate, format and period and written from the one render thread). JACK: DEST is a comma-separated list of ports for the bus's group NAME_1 … (one per channel); main defaults to the physical ports, another bus without --bus-output stays unconnected.",
            valueName: "NAME=DEST"))
    var busOutput: [String] = []

    @Option(
        name: .customLong("route"),
        help: ArgumentHelp("Deprecated: --bus-output (the same, for one release).", valueName: "NAME=DEST"))
    var route: [String] = []

    @Option(
        name: .customLong("capture-device"),
        help: ArgumentHelp(
            "ALSA: the capture PCM for the scene's input source (default: --device), opened at the output's rate, format and period. PipeWire: the source node (name or serial; SINK.monitor for a sink's monitor; default: the default source).",
            valueName: "PCM|NODE"))
    var captureDevice: String?

    @Option(
        help: ArgumentHelp(
            "Period size to ask for, in frames (the device may grant another; ALSA default 1024). PipeWire: node.latency PERIOD/RATE (default: the graph's).",
            valueName: "period"))
    var period: Int?

    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "With --backend pipewire: the node to play to (target.object: a node name or serial; default: the default sink).",
            valueName: "node"))
    var target: String?

    @Option(
        help: ArgumentHelp(
            "Periods of buffering (2…64). alsa: the device buffer's periods (default 4). pipewire: render on a thread of Tutti's own up to this many periods (--period, default 1024 frames) ahead of the graph, adding that latency (default: none, render in the graph's cycle). jack: not taken.",
            valueName: "count"))
    var periods: Int?

    @Option(help: "Device sample format: f32, s32 or s16 (default: the first of these the device takes).")
    var format: DeviceFormatArgument?

    @Option(help: "Play only the first SECONDS of the scene.")
    var seconds: Double?

    @Option(
        name: .customLong("reconnect-timeout"),
        help: ArgumentHelp(
            "When the device (ALSA), the server (JACK) or the daemon (PipeWire) is lost, give up after this many seconds without it: playback stops and tutti exits 1.",
            valueName: "S"))
    var reconnectTimeout = 30.0

    @Option(
        name: .customLong("control-lookahead"),
        help: ArgumentHelp(
            "How far ahead of the output the scene is decided while stdin is open: a control line is heard after about this much plus the device buffer. Smaller answers sooner; a control thread late by more than that delays the output (JACK: silence, counted) or starves the device (ALSA: an xrun). After stdin ends: at least 1 s.",
            valueName: "S"))
    var controlLookahead = 0.05

    @Option(
        help: ArgumentHelp(
            "Write the policy journal to FILE while playing: the JSON lines of `tutti render --events` (the same entries for the same scene), control lines' entries included.",
            discussion:
                "An entry is written when the policy decides it, at most --control-lookahead (after stdin ends: about a second) before it is heard; each play-loop step's entries go out in one write, so another process can tail the file.",
            valueName: "FILE"))
    var events: String?

    @Flag(
        name: .customLong("no-mpris"),
        help: ArgumentHelp(
            "Do not serve MPRIS on the session bus.",
            discussion:
                "By default tutti play takes org.mpris.MediaPlayer2.tutti (org.mpris.MediaPlayer2.tutti.instance<PID> when another process has it) on the session bus: Play, Pause, PlayPause, Next, Previous and Stop act as the control lines remote play|pause|togglePlayPause|nextTrack|previousTrack|stop; PlaybackStatus and Metadata follow the now-playing session. Without a session bus: one line on stderr, and playback goes on."
        ))
    var noMPRIS = false

    @Option(
        help: ArgumentHelp(
            "With --backend pipewire (or auto): single (default) or per-session streams.",
            discussion:
                "per-session: each session of the scene that has output plays through a PipeWire stream of its own, node.name NAME-SESSION (NAME: the client name), media.name the session's id, media.role its category's role from the table in docs/backends.md or its \"mediaRole\"; main's stream keeps the call audio and system sounds. The policy still decides everything rendered; the streams add up to the single-stream mix. A usage error with --backend alsa or jack; refused for a scene with engine effects or a limiter (they act on the sum)."
        ))
    var streams = StreamLayout.single

    @Flag(
        name: [.customLong("no-watch-desktop"), .customLong("no-watch-other-audio")],
        help: ArgumentHelp(
            "With --backend pipewire (or auto): do not follow other apps' playback streams nor the sink played to.",
            discussion:
                "By default other apps' running PipeWire playback streams are applied to the policy as the control line other would be (journalled as otherAudioChanged), and the sink the stream plays to as the control line route (journalled as routeChange); with this flag both change only by control lines. --no-watch-other-audio is its former name (deprecated, kept for one release). A usage error with --backend alsa or jack, which see no other apps."
        ))
    var noWatchDesktop = false

    @Flag(
        help:
            "Do not ask for SCHED_FIFO scheduling for the render thread (ALSA: the thread tutti starts; PipeWire: the data thread, when PipeWire left it at normal scheduling, and with --periods the thread rendering ahead)."
    )
    var noRealtime = false

    @Flag(help: "Lock the process memory (mlockall); a refusal is logged, not fatal.")
    var mlock = false

    @Flag(
        help: ArgumentHelp(
            "Bracket each render with the RealtimeSanitizer (a binary linked with its runtime: scripts/rtsan-check.sh).",
            visibility: .hidden))
    var rtsan = false

    @Flag(
        name: .customLong("allow-writes-anywhere"),
        help: ArgumentHelp(
            "Let the scene write its files (sessions' recordTo) outside its own folder (default: refused before anything is rendered, naming the JSON path)."
        ))
    var allowWritesAnywhere = false

    @Flag(help: "Only the final report.")
    var quiet = false

    /// Usage errors (exit 64, with the usage), before anything is loaded.
    func validate() throws {
        guard (period ?? 1) > 0, (2...64).contains(periods ?? 2) else {
            throw ValidationError("--period must be positive and --periods in 2…64")
        }
        guard controlLookahead.isFinite, controlLookahead > 0, controlLookahead <= 10 else {
            throw ValidationError("--control-lookahead must be a number of seconds above 0, at most 10")
        }
        guard reconnectTimeout.isFinite, reconnectTimeout >= 0 else {
            throw ValidationError("--reconnect-timeout must be a number of seconds, 0 or more")
        }
        // With auto, options of one backend are checked as that backend's (`namedBackend`).
        var named = self
        if backend == .auto, let backend = namedBackend { named.backendArgument = backend }
        try named.validateBackendOptions()
        // Checked against the backend asked for, not the one auto finds: with auto it is a wish.
        if noWatchDesktop, named.backend == .alsa || named.backend == .jack {
            throw ValidationError("--no-watch-desktop is for --backend pipewire (\(named.backend.name) sees no other apps)")
        }
        try named.validateBusOutputs()
    }

    func run() throws {
        do {
            // auto is decided here, before anything is loaded: the options' backend, else the
            // first sound server that answers.
            var resolved = self
            if backend == .auto {
                resolved.backendArgument = namedBackend ?? OutputConfiguration.Backend.detected(jackServer: jack.server)
                // What the backend found cannot take (--period with JACK, --format with
                // PipeWire …) is the usual usage error.
                try resolved.validateBackendOptions()
                try resolved.validateBusOutputs()
            }
            if !route.isEmpty { Warnings.deprecatedFlag("play", "--route", use: "--bus-output") }
            try resolved.play(auto: backend == .auto)
        } catch let e as ExitCode {
            throw e
        } catch let e as ValidationError {
            throw e
        } catch {
            throw fail(error)
        }
    }

    func say(_ line: String) {
        if !quiet { FileHandle.standardError.write(Data("tutti: \(line)\n".utf8)) }
    }

    /// Plays with `backend` resolved (never `.auto`); `auto`: it was, so the report names it.
    private func play(auto: Bool) throws {
        var scene = try OfflineRenderer.loadScene(path: self.scene)
        for line in scene.warnings { Warnings.print(line) }
        if !allowWritesAnywhere { try scene.checkWritesConfined(outputDirectory: nil) }
        // Before any other thread exists: a signal then finishes the recordings.
        let stop = scene.recordTo.isEmpty ? nil : PlayStopRequest()
        let backend = self.backend.implementation
        var settings = try outputSettings(buses: scene.engine.outputBuses)
        // PipeWire's main stream announces the role the scene's sessions share (docs/backends.md).
        settings.mediaRole = MediaRole.forMix(of: scene.sessions).rawValue
        // Settings and destinations are checked before the scene is prepared (that takes a
        // while); a server that sets the rate (JACK) has the scene rendered at its rate.
        if let rate = try probe(backend, settings, scene.engine), rate != scene.engine.sampleRate {
            say("the scene is at \(scene.engine.sampleRate) Hz, the \(backend.name) device runs at \(rate) Hz: rendering at \(rate) Hz")
            scene.engine.sampleRate = rate
        }
        let playback = try ScenePlayback(scene: scene)
        if settings.streams == .perSession {
            settings.sessionStreams = playback.sessionStreams.map {
                SessionStream(name: $0.name, bus: $0.bus, mediaRole: $0.mediaRole.rawValue)
            }
        }
        let journal = try events.map { try LiveJournal(path: $0, warn: { FileHandle.standardError.write(Data("tutti: \($0)\n".utf8)) }) }
        let rate = scene.engine.sampleRate
        let total = seconds.map { min(playback.totalFrames, Int64(($0 * Double(rate)).rounded())) } ?? playback.totalFrames
        let capture = try captureInput(playback)
        settings.capture = capture?.source
        if capture != nil { settings.captureSources = captureSources }
        let name = backend.name
        let output = try backend.init(
            renderer: playback.engine.renderer, settings: settings,
            log: { FileHandle.standardError.write(Data("tutti: \(name): \($0)\n".utf8)) }, onEvent: nil)
        let status = output.status
        say("playing \(self.scene) (\(String(format: "%.2f", Double(total) / Double(rate))) s) on \(status)")
        // The session streams (--streams per-session) come after the output buses.
        func label(_ bus: OutputBusStatus) -> String { bus.isSessionStream ? "session stream" : "output bus" }
        for bus in status.buses.dropFirst() {
            say(
                "\(label(bus)) \(bus.name) on \"\(bus.destination)\": \(status.sampleRate) Hz, \(status.channelCount) ch, latency \(bus.latencyFrames) frames"
            )
        }
        if let capture { say("capturing input \(capture.id) from \(captureDescription(output, channels: capture.source.channelCount))") }
        let recorder: LiveRecorder?
        do { recorder = try startRecorder(playback) } catch {
            output.stop(drain: false)
            throw error
        }

        // The scene is decided ahead of the render thread (--control-lookahead, 0.05 s by
        // default, while stdin may bring control lines, else at least 1 s) and its commands
        // queued; the render horizon stops the render thread (ALSA: it waits; JACK's callback
        // plays silence, reported) at the first frame not decided yet, so a late control
        // thread delays the output, never changes it.
        let control = ControlInput(lookaheadSeconds: controlLookahead)
        try playback.schedule(through: control.lookaheadFrames(sampleRate: rate))
        journal?.write(playback.journal)
        let mpris = noMPRIS ? nil : startMPRIS(control: control, warn: say)
        defer { mpris?.stop() }
        if let mpris { say("MPRIS: \(mpris.name) on the session bus") }
        mpris?.publish(playback.nowPlaying, positionMicroseconds: 0)
        output.renderHorizon = playback.renderHorizon
        let started = Date()
        do { try output.start(frameLimit: total) } catch {
            recorder?.discard()
            throw error
        }
        say("render thread: \(output.schedulingNote)")
        var startReported = false
        /// Where engine frame 0 sits on the device's clock, once known (JACK).
        func reportStart() {
            guard !startReported, let frame = output.status.startDeviceFrame else { return }
            startReported = true
            say("engine frame 0 at device frame \(frame)")
        }
        var interrupted: Int32?
        while !output.waitUntilFinished(timeoutSeconds: 0.005) {
            if let signal = stop?.requested {
                interrupted = signal
                break
            }
            try playback.schedule(through: output.framesRendered + control.lookaheadFrames(sampleRate: rate))
            control.applyPending(to: playback, say: say)
            journal?.write(playback.journal)
            mpris?.publish(playback.nowPlaying, positionMicroseconds: output.framesRendered * 1_000_000 / Int64(rate))
            output.renderHorizon = playback.renderHorizon
            playback.pollEvents()
            reportStart()
            for event in output.pollEvents() { try handle(event, playback: playback, journal: journal) }
        }
        reportStart()
        mpris?.stop()
        let failure = output.failure
        output.stop(drain: failure == nil && interrupted == nil)
        playback.pollEvents()
        journal?.write(playback.journal)
        // A failure is the error line; the other events are still worth a line.
        for event in output.pollEvents() {
            switch event {
            case .finished, .gaveUp: break
            default: say("\(event)")
            }
        }
        // What was recorded until then is kept, also after a lost device or a signal.
        try finishRecorder(recorder, sampleRate: rate)
        let end = output.status
        if let interrupted {
            say(String(format: "stopped by signal %d after %.2f s", interrupted, Double(end.framesWritten) / Double(rate)))
            throw ExitCode(128 + interrupted)
        }
        if let failure {
            throw PlaybackFailure(
                reason: failure.message, played: Double(end.framesWritten) / Double(rate), total: Double(total) / Double(rate))
        }
        let wall = Date().timeIntervalSince(started)
        if let alsa = output as? ALSAOutput, capture != nil {
            say(
                "capture: \(alsa.captureMissingFrames) missing frames, \(alsa.captureOverrunCount) overruns, "
                    + "slack \(alsa.captureSlackFrames) frames (+\(alsa.captureAddedLatencyFrames) frames of latency)")
        }
        if let pipewire = output as? PipeWireOutput, capture != nil {
            say(
                "capture: \(pipewire.capturedFrames) frames, \(pipewire.captureMissedCycles) cycles without a buffer, "
                    + "\(pipewire.captureLostCycles) cycles lost (\(pipewire.captureLostFrames) frames), "
                    + "\(pipewire.captureDroppedFrames) frames dropped")
        }
        if let pipewire = output as? PipeWireOutput, periods != nil {
            say(
                "rendering ahead: \(pipewire.renderAheadUnderruns) cycles found the ring short; "
                    + "\(pipewire.lostCycles) graph cycles lost (\(pipewire.lostFrames) frames)")
        }
        let streams = playback.fileStreamUnderruns
        if streams.sourceCount > 0 { say("\(streams.sourceCount) streaming file sources: \(streams.underrunFrames) underrun frames") }
        // Main first; then each other output bus on the same line.
        let others = end.buses.dropFirst().map { bus in
            String(
                format: "; %@ %@ on \"%@\": %d xruns, latency %.1f ms, %lld frames dropped", label(bus), bus.name,
                bus.destination.isEmpty ? "(unconnected)" : bus.destination, bus.xrunCount,
                Double(bus.latencyFrames) / Double(rate) * 1000, bus.framesDropped)
        }
        if auto { print("backend: \(self.backend.name) (auto)") }
        print(
            String(
                format: "played %.2f s in %.2f s: %d xruns, latency %.1f ms (%@)", Double(end.framesWritten) / Double(rate), wall,
                end.xrunCount, end.latencySeconds * 1000, "\(end)") + others.joined())
        // The main output as rendered, like `tutti render`'s report line.
        var levels = OutputLevels()
        (levels.peak, levels.clippedSampleCount) = playback.engine.renderer.outputLevels
        print("output: \(levels.summary)")
    }

    /// An output event while playing: other applications' audio and the sink's route changes
    /// (PipeWire's watcher) go to the policy at the first frame not decided yet, as the
    /// `other` and `route` control lines do (their journal entries written at once); every
    /// event is one line on stderr.
    private func handle(_ event: OutputEvent, playback: ScenePlayback, journal: LiveJournal?) throws {
        say("\(event)")
        let action: Scene.DeviceAction
        switch event {
        case .otherAudioChanged(let playing, let silence, let clients):
            action = .otherAudio(OtherAudio(playing: playing, silenceSecondary: silence, clients: clients))
        case .routeChanged(let route, let reason, _, _):
            action = .route(route, reason: reason)
        default:
            return
        }
        _ = try playback.apply(ControlLine(action: .device(action)))
        journal?.write(playback.journal)
    }

    /// The backend's probe; a PipeWire daemon that does not answer gets the way out added (a
    /// library that cannot be loaded already names its package), and a PipeWire target no sink
    /// has is an error listing the sinks.
    /// `tutti play`'s MPRIS server (the library's `MPRISServer`): its transport methods become
    /// the control lines `remote play|pause|togglePlayPause|nextTrack|previousTrack|stop`
    /// (`ControlInput.submit`, origin "MPRIS"), so they reach the now-playing session through
    /// the policy's remote rule exactly as a typed line does; the play loop publishes
    /// `ScenePlayback.nowPlaying` and the output's position. nil when it cannot start: `warn`
    /// gets the one line saying why, and playback goes on.
    private func startMPRIS(control: ControlInput, warn: (String) -> Void) -> MPRISServer? {
        do {
            return try MPRISServer(
                onCommand: { control.submit("remote \($0.rawValue)", origin: "MPRIS") },
                onFailure: { FileHandle.standardError.write(Data("tutti: MPRIS stopped: \($0)\n".utf8)) })
        } catch {
            warn("MPRIS is off: \(error.message) (--no-mpris turns it off without this line)")
            return nil
        }
    }

    private func probe(_ backend: any OutputBackend.Type, _ settings: OutputSettings, _ engine: Scene.EngineSettings) throws -> Int? {
        let rate: Int?
        do throws(TuttiError) {
            rate = try backend.probe(settings, channelCount: engine.channelCount, busNames: engine.outputBuses)
        } catch {
            // PipeWire's probe checks the daemon and the targets: its errors under the options'
            // names.
            guard self.backend == .pipewire else { throw error }
            throw PipeWireListing.inCLIWords(error, busFlag: busOutputFlag)
        }
        // The capture node (not in the probe's settings): the library's check, under
        // --capture-device.
        if self.backend == .pipewire, let node = captureSources.first {
            do throws(TuttiError) {
                try PipeWireOutput.checkCaptureSource(node)
            } catch {
                throw PipeWireListing.inCLIWords(error)
            }
        }
        return rate
    }

    /// Where the capture comes from, for the start line.
    private func captureDescription(_ output: any OutputBackend, channels: Int) -> String {
        if let alsa = output as? ALSAOutput, let pcm = alsa.captureDevice {
            let start = alsa.captureLinked ? " (linked)" : " (started with the playback)"
            return "\"\(pcm)\"\(start): \(alsa.captureNegotiated.map { "\($0)" } ?? "")"
        }
        if output is PipeWireOutput {
            return "PipeWire stream \"\(jack.name)-capture\" from \(captureDevice.map { "\"\($0)\"" } ?? "the default source")"
        }
        let from = jack.captureFrom.isEmpty ? "unconnected: connect them yourself" : "from \(jack.captureFrom.joined(separator: ", "))"
        return "ports in_1…in_\(channels) (\(from))"
    }
}

/// Playback that ended before the scene did (`tutti play` exits 1 with it).
struct PlaybackFailure: Error, CustomStringConvertible {
    var reason: String
    var played: Double
    var total: Double
    var description: String { String(format: "playback stopped after %.2f of %.2f s: ", played, total) + reason }
}
