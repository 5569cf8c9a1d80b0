import ArgumentParser
import Foundation
import Tutti
import TuttiOutput
import TuttiPipeWire

/// `--streams` of `tutti play`: "single" or "per-session".
extension StreamLayout: ExpressibleByArgument {}

/// `--backend` of `tutti play` and `tutti devices`: a backend's name as the library spells it
/// (an unknown one lists the known ones).
extension OutputConfiguration.Backend: ExpressibleByArgument {
    /// The backend a `--backend` value names; nil (a usage error listing the names) otherwise. Main thread.
    public init?(argument: String) { self.init(name: argument) }
    /// Every backend's name, for `--help` and the usage error.
    public static var allValueStrings: [String] { allCases.map(\.name) }
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

    func rejectWithoutJACK() throws {
        let given = [
            (name != "tutti", "--jack-name"), (server != nil, "--jack-server"), (noConnect, "--no-connect"),
            (!connect.isEmpty, "--connect"), (!captureFrom.isEmpty, "--capture-from"),
        ]
        if let hit = given.first(where: { $0.0 }) { throw ValidationError("\(hit.1) is for --backend jack") }
    }
}

extension Play {
    /// With `--backend auto`: the backend the options given name, if they name one (the first
    /// of pipewire, jack, alsa whose own options are given); nil: none does (auto then takes
    /// the first that works). Options of another backend are then usage errors naming it.
    var namedBackend: OutputConfiguration.Backend? {
        if target != nil || streams == .perSession { return .pipewire }
        if jack.name != "tutti" || jack.server != nil || jack.noConnect || !jack.connect.isEmpty || !jack.captureFrom.isEmpty {
            return .jack
        }
        if device != "default" || captureDevice != nil || periods != nil || mlock || noRealtime { return .alsa }
        return nil
    }

    /// Usage errors (exit 64): options of the other backend, contradictions.
    func validateBackendOptions() throws {
        if backend != .pipewire, target != nil { throw ValidationError("--target is for --backend pipewire") }
        if backend != .pipewire, streams == .perSession {
            throw ValidationError("--streams per-session is for --backend pipewire (\(backend.name) plays one mix, with no media role)")
        }
        if backend == .pipewire {
            try jack.rejectWithoutJACK()
            if mlock { throw ValidationError("--mlock is for --backend alsa") }
            if device != "default" { throw ValidationError("--device is for --backend alsa; name the PipeWire node with --target") }
            if format != nil && format?.format != .float32 { throw ValidationError("--format: the PipeWire stream is f32") }
            return
        }
        guard backend == .jack else {
            try jack.rejectWithoutJACK()
            return
        }
        if noRealtime { throw ValidationError("--no-realtime: with JACK the server decides (jackd --no-realtime)") }
        if mlock { throw ValidationError("--mlock is for --backend alsa") }
        if device != "default" { throw ValidationError("--device is for --backend alsa; name the JACK server with --jack-server") }
        if period != nil || periods != nil {
            throw ValidationError("--period / --periods: the JACK server sets the buffer size (jack_bufsize)")
        }
        if format != nil { throw ValidationError("--format: JACK ports are float32") }
        if captureDevice != nil { throw ValidationError("--capture-device is for --backend alsa; with JACK use --capture-from PORT") }
        if jack.noConnect && !jack.connect.isEmpty { throw ValidationError("--no-connect and --connect exclude each other") }
    }

    /// The flag the output buses' destinations were given with: `--bus-output`, or its
    /// deprecated old name `--route`.
    var busOutputFlag: String { route.isEmpty ? "--bus-output" : "--route" }

    /// The `--bus-output` values (or the deprecated `--route`'s) as the library reads them
    /// (`OutputSettings.addBusDestination`): a malformed one, a bus given twice, or both flags
    /// at once is a usage error (exit 64).
    func busDestinations() throws -> [String: [String]] {
        if !busOutput.isEmpty && !route.isEmpty {
            throw ValidationError("--bus-output and --route: give one (--route is the deprecated name of --bus-output)")
        }
        var settings = OutputSettings()
        for value in busOutput + route {
            do {
                // auto (before it is decided): the syntax only, read as ALSA reads it.
                try settings.addBusDestination(
                    value, backend: backend == .auto ? OutputConfiguration.Backend.alsa.implementation : backend.implementation)
            } catch {
                throw ValidationError("\(busOutputFlag): \(error.message) (NAME=DEST: an ALSA PCM, or JACK ports with --backend jack)")
            }
        }
        return settings.busDestinations
    }

    /// Usage checks that need no scene: syntax, and `main` named twice (`--device` /
    /// `--connect` / `--no-connect` name it too).
    func validateBusOutputs() throws {
        guard let main = try busDestinations()["main"] else { return }
        let destination = main.joined(separator: ",")
        let flag = busOutputFlag
        if backend == .alsa, device != "default" {
            throw ValidationError("\(flag) main=\(destination) and --device \(device) both name main's PCM: give one")
        }
        if backend == .jack, jack.noConnect || !jack.connect.isEmpty {
            throw ValidationError("\(flag) main=\(destination) and --connect / --no-connect both say where main goes: give one")
        }
        if backend == .pipewire, let target {
            throw ValidationError("\(flag) main=\(destination) and --target \(target) both name main's node: give one")
        }
    }

    /// What the options ask of the output, for a scene with output buses `buses` (main
    /// first); the capture (`--capture-device`, `--capture-from`) is added with the scene's
    /// input (`captureSources`). A `--bus-output` the scene does not have, or (ALSA) a bus past
    /// main without one, is a usage error naming it (exit 64).
    func outputSettings(buses: [String]) throws -> OutputSettings {
        let destinations = try busDestinations()
        for (name, ports) in destinations.sorted(by: { $0.key < $1.key }) where !buses.contains(name) {
            throw ValidationError(
                "\(busOutputFlag) \(name)=\(ports.joined(separator: ",")): the scene has no output bus \"\(name)\" (engine.outputBuses: \(buses.joined(separator: ", ")))"
            )
        }
        var settings = OutputSettings(device: backend == .alsa ? device : backend == .jack ? jack.server : target)
        settings.busDestinations = destinations
        let main = buses.first ?? "main"
        switch backend {
        case .alsa:
            if !destinations.isEmpty || buses.count > 1 {
                for name in buses.dropFirst() where destinations[name] == nil {
                    throw ValidationError(
                        "output bus \"\(name)\" of \(scene) has no PCM: add --bus-output \(name)=PCM (every output bus plays on its own ALSA PCM)"
                    )
                }
            }
            settings.periodFrames = period ?? 1024
            settings.periodCount = periods ?? 4
            settings.sampleFormats = format.map { [$0.format] }
            settings.realtimePriority = noRealtime ? nil : 50
            settings.lockMemory = mlock
        case .jack:
            settings.clientName = jack.name
            settings.leaveUnconnected = jack.noConnect
            if !jack.connect.isEmpty { settings.busDestinations[main] = jack.connect }
        case .pipewire:
            settings.periodFrames = period
            settings.periodCount = periods
            settings.realtimePriority = noRealtime ? nil : 50
            settings.streams = streams
        case .auto:
            preconditionFailure("auto is resolved before the output settings are made")
        }
        settings.reconnect = ReconnectPolicy(timeout: .seconds(reconnectTimeout))
        settings.watchDesktop = !noWatchDesktop
        if rtsan {
            guard let scope = RealtimeScope.sanitizer() else {
                throw ValidationError(
                    "--rtsan: this binary is not linked with the RealtimeSanitizer runtime (build it with scripts/rtsan-check.sh)")
            }
            settings.realtimeScope = scope
        }
        return settings
    }

    /// Where the capture comes from: ALSA `--capture-device` (none: the output's PCM), JACK
    /// the `--capture-from` ports, PipeWire `--capture-device` (a source node; none: the
    /// default source).
    var captureSources: [String] { backend == .jack ? jack.captureFrom : captureDevice.map { [$0] } ?? [] }
}
