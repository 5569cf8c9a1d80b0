import ArgumentParser
import Foundation
import Tutti
import TuttiJACK
import TuttiScene

/// `--backend` of `tutti play` and `tutti devices`.
enum BackendArgument: String, ExpressibleByArgument, CaseIterable {
    case alsa, jack
}

/// The JACK options of `tutti play`.
struct JACKPlayOptions: ParsableArguments {
    @Option(name: .customLong("jack-name"), help: "JACK client name (JACK adds a suffix when it is taken).")
    var name = "tutti"

    @Option(name: .customLong("jack-server"), help: "JACK server name (default: $JACK_DEFAULT_SERVER, else \"default\").")
    var server: String?

    @Flag(name: .customLong("no-connect"), help: "Leave the output ports unconnected.")
    var noConnect = false

    @Option(
        name: .customLong("connect"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Connect out_1, out_2, … to these ports in order, one per channel (default: the physical playback ports); put them after the scene, or repeat --connect.",
            valueName: "port"))
    var connect: [String] = []

    @Option(
        name: .customLong("capture-from"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Connect these ports to in_1, in_2, … in order (the scene's input source captures from them; default: none).",
            valueName: "port"))
    var captureFrom: [String] = []

    var connection: JACKConnection {
        if noConnect { return .none }
        return connect.isEmpty ? .physical : .ports(connect)
    }

    func rejectWithoutJACK() throws {
        let given = [
            (name != "tutti", "--jack-name"), (server != nil, "--jack-server"), (noConnect, "--no-connect"),
            (!connect.isEmpty, "--connect"), (!captureFrom.isEmpty, "--capture-from"),
        ]
        if let hit = given.first(where: { $0.0 }) { throw ValidationError("\(hit.1) is for --backend jack") }
    }
}

extension Play {
    /// Usage errors (exit 64): options of the other backend, contradictions.
    func validateBackendOptions() throws {
        guard backend == .jack else {
            try jack.rejectWithoutJACK()
            return
        }
        if noRealtime { throw ValidationError("--no-realtime: with JACK the server decides (jackd --no-realtime)") }
        if mlock { throw ValidationError("--mlock is for --backend alsa") }
        if device != "default" { throw ValidationError("--device is for --backend alsa; name the JACK server with --jack-server") }
        if period != 1024 || periods != 4 {
            throw ValidationError("--period / --periods: the JACK server sets the buffer size (jack_bufsize)")
        }
        if format != nil { throw ValidationError("--format: JACK ports are float32") }
        if captureDevice != nil { throw ValidationError("--capture-device is for --backend alsa; with JACK use --capture-from PORT") }
        if jack.noConnect && !jack.connect.isEmpty { throw ValidationError("--no-connect and --connect exclude each other") }
    }

    /// `tutti play --backend jack`: open the client first (the engine runs at the server's
    /// rate), prepare the scene at that rate, then play it from JACK's process callback with
    /// the scene's commands queued a second ahead.
    func playJACK(_ loaded: Scene, stop: PlayStopRequest?) throws {
        var scene = loaded
        let routes = try jackRoutes(scene.engine.routes)
        var config = JACKOutputConfiguration(
            clientName: jack.name, serverName: jack.server, connection: routes.main ?? jack.connection)
        config.routeConnections = routes.others
        config.reconnectTimeoutSeconds = reconnectTimeout
        if rtsan {
            guard let scope = JACKRealtimeScope.sanitizer() else {
                throw ValidationError(
                    "--rtsan: this binary is not linked with the RealtimeSanitizer runtime (build it with scripts/rtsan-check.sh)")
            }
            config.realtimeScope = scope
        }
        let client = try JACKClient(configuration: config)
        // Fail on bad ports before the scene is prepared (that takes a while).
        _ = try client.destinations(for: config.connection, channelCount: scene.engine.channelCount)
        for (name, ports) in config.routeConnections.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try client.destinations(for: .ports(ports), channelCount: scene.engine.channelCount)
            } catch {
                throw RouteDestinationError(description: "--route \(name)=\(ports.joined(separator: ",")): \(error)")
            }
        }
        if scene.engine.sampleRate != client.sampleRate {
            FileHandle.standardError.write(
                Data(
                    "tutti: the scene is at \(scene.engine.sampleRate) Hz, the JACK server at \(client.sampleRate) Hz: rendering at \(client.sampleRate) Hz\n"
                        .utf8))
            scene.engine.sampleRate = client.sampleRate
        }
        let playback = try ScenePlayback(scene: scene)
        let rate = scene.engine.sampleRate
        let total = seconds.map { min(playback.totalFrames, Int64(($0 * Double(rate)).rounded())) } ?? playback.totalFrames
        let capture = try captureInput(playback)
        let output: JACKOutput
        if let capture {
            // Capture ports are registered with the client: open it again with them.
            client.close()
            config.capture = capture.source
            config.captureFrom = jack.captureFrom
            output = try JACKOutput(
                engine: playback.engine, configuration: config,
                log: { FileHandle.standardError.write(Data("tutti: jack: \($0)\n".utf8)) })
        } else {
            output = try JACKOutput(
                engine: playback.engine, client: client, log: { FileHandle.standardError.write(Data("tutti: jack: \($0)\n".utf8)) })
        }
        let granted = output.negotiated
        say(
            "playing \(self.scene) (\(String(format: "%.2f", Double(total) / Double(rate))) s) as JACK client \"\(granted.clientName)\" of server \"\(granted.serverName)\" (\(rate) Hz, \(scene.engine.channelCount) ch, buffer \(granted.bufferFrames) frames)"
        )
        if let capture {
            let from = jack.captureFrom.isEmpty ? "unconnected: connect them yourself" : "from \(jack.captureFrom.joined(separator: ", "))"
            say("capturing input \(capture.id) from ports in_1…in_\(capture.source.channelCount) (\(from))")
        }
        let recorder: LiveRecorder?
        do { recorder = try startRecorder(playback) } catch {
            output.stop()
            throw error
        }

        // A JACK process callback cannot wait for a late control thread: the scene is decided
        // ahead (--control-lookahead, 0.05 s by default, while stdin may bring control lines, else at
        // least 1 s), and should this thread
        // still fall behind, the callback plays silence at the horizon (reported) rather than
        // rendering without the commands.
        let control = ControlInput(lookaheadSeconds: controlLookahead)
        try playback.schedule(through: control.lookaheadFrames(sampleRate: rate))
        output.renderHorizon = playback.renderHorizon
        let started = Date()
        do { try output.start(frameLimit: total) } catch {
            recorder?.discard()
            throw error
        }
        say("process callback: \(output.schedulingNote)")
        var startReported = false
        var interrupted: Int32?
        while !output.waitUntilFinished(timeout: 0.005) {
            if let signal = stop?.requested {
                interrupted = signal
                break
            }
            try playback.schedule(through: output.framesRendered + control.lookaheadFrames(sampleRate: rate))
            control.applyPending(to: playback, say: say)
            output.renderHorizon = playback.renderHorizon
            playback.pollEvents()
            if !startReported, let t = output.startFrameTime {
                startReported = true
                say("engine frame 0 at JACK frame \(t)")
            }
            for event in output.pollEvents() { say("\(event)") }
        }
        let failure = output.failure
        output.stop(drain: failure == nil && interrupted == nil)
        playback.pollEvents()
        for event in output.pollEvents() { if case .finished = event {} else { say("\(event)") } }
        if !startReported, let t = output.startFrameTime { say("engine frame 0 at JACK frame \(t)") }
        // What was recorded until then is kept, also after a lost server or a signal.
        try finishRecorder(recorder, sampleRate: rate)
        if let interrupted {
            say(String(format: "stopped by signal %d after %.2f s", interrupted, Double(output.framesWritten) / Double(rate)))
            throw ExitCode(128 + interrupted)
        }
        if let failure { throw failure }
        let wall = Date().timeIntervalSince(started)
        let n = output.negotiated
        // JACK counts xruns per client: every route shares them; latency is per port group.
        let others = zip(scene.engine.routes, n.routeLatencyFrames).dropFirst().map { name, frames in
            String(
                format: "; route %@: latency %.1f ms%@", name, Double(frames) / Double(n.sampleRate) * 1000,
                config.routeConnections[name] == nil ? " (unconnected)" : "")
        }
        print(
            String(
                format:
                    "played %.2f s in %.2f s: %d xruns, latency %.1f ms (JACK server \"%@\", client \"%@\", buffer %d frames, %d Hz, %d ch)",
                Double(output.framesWritten) / Double(rate), wall, output.xrunCount, n.latencySeconds * 1000, n.serverName,
                n.clientName, n.bufferFrames, n.sampleRate, n.channelCount) + others.joined())
    }
}
