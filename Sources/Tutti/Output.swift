import Synchronization
import TuttiALSA
import TuttiEngine
import TuttiJACK

/// Where an `AudioEngine` plays when it drives a device itself. Value type: any thread.
public struct OutputConfiguration: Sendable, Equatable {
    /// The kind of device. The raw values are the C ABI's `TUTTI_BACKEND_*`.
    public enum Backend: Int32, Sendable, CaseIterable {
        /// An ALSA PCM (a sound card, or a sound server through its ALSA plugin); with several
        /// routes, one PCM per route (`routeDestinations`).
        case alsa = 0
        /// A JACK client of a JACK server (ports `out_1 … out_N`, connected to the physical
        /// playback ports; with several routes a group per route, `main_1 …`, `cue_1 …`). The
        /// server sets the rate (the engine's must match) and the buffer size.
        case jack = 1
    }

    /// The kind of device.
    public var backend = Backend.alsa
    /// ALSA PCM name or JACK server name; nil: the backend's default.
    public var device: String?
    /// Period size to ask for, frames; nil: the backend's default. ALSA only (JACK's server
    /// sets its buffer size: giving one with `.jack` is an `invalidArgument` error).
    public var periodFrames: Int?
    /// Periods in the device buffer to ask for; nil: the backend's default. ALSA only.
    public var periodCount: Int?
    /// An input source (`SessionHandle.makeInputSource`) the device's capture feeds, one
    /// captured frame per rendered frame, from the backend's real-time thread. JACK: input
    /// ports `in_1 … in_N`, N = its channel count. ALSA: full duplex on the capture PCM
    /// `captureDevice` (opened at the output's rate, format and period, with the input's
    /// channels). The host then does not `write` to it.
    public var capture: SourceHandle?
    /// JACK: ports connected to `in_1 …` in order (full names; default none). With `.alsa`:
    /// `invalidArgument` (use `captureDevice`).
    public var captureFrom: [String] = []
    /// Where the routes past main (`AudioEngineConfiguration.routes`) play, by route name;
    /// main plays on `device`. ALSA: one element, the route's PCM (`["cue": ["cuePCM"]]`);
    /// name every route past main, or none (then only main plays and the others are mixed and
    /// dropped). Each PCM is opened with main's rate, format and period and written from the
    /// output's one render thread; a lost route PCM is reopened while main plays on (its
    /// events are not host events: the policy follows main's device). JACK: the ports for the
    /// route's port group `NAME_1 … NAME_N`, one per channel; a route not listed stays
    /// unconnected. An unknown route, a missing ALSA route or a wrong count is
    /// `invalidArgument`; a JACK port that is not there is a `device` error naming it.
    public var routeDestinations: [String: [String]] = [:]
    /// ALSA: the capture PCM's name; nil: `device` (the output's PCM). With `.jack`:
    /// `invalidArgument` (use `captureFrom`).
    public var captureDevice: String?

    /// The default device of the default backend (ALSA "default").
    public init() {}
}

/// The running output of an engine. Thread: behind `AudioEngine.output`'s lock.
enum RunningOutput: @unchecked Sendable {
    case alsa(ALSAOutput)
    case jack(JACKOutput)
}

extension AudioEngine {
    /// Play on a device from a dedicated real-time thread (the backend's), instead of pull
    /// mode: while it runs, `render(into:frameCount:)` returns false. Device loss, xruns and
    /// the device's return come as events. Throws `invalidArgument` for a bad setting,
    /// `state` if an output already runs or a pull render is in progress, `device` when the
    /// device cannot be opened (the message says why). Any thread.
    public func startOutput(_ configuration: OutputConfiguration = OutputConfiguration()) throws(TuttiError) {
        if let p = configuration.periodFrames, !(16...65_536).contains(p) {
            throw TuttiError(.invalidArgument, "periodFrames must be in 16…65536, got \(p)")
        }
        if let n = configuration.periodCount, !(2...64).contains(n) {
            throw TuttiError(.invalidArgument, "periodCount must be in 2…64, got \(n)")
        }
        if configuration.backend == .jack, configuration.periodFrames != nil || configuration.periodCount != nil {
            throw TuttiError(.invalidArgument, "periodFrames / periodCount: the JACK server sets its buffer size")
        }
        let routeDevices = try checkRouteDestinations(configuration)
        // Resolved before the output lock: the engine's lock is never taken inside it.
        var captureInput: InputSource?
        if configuration.backend == .alsa, !configuration.captureFrom.isEmpty {
            throw TuttiError(.invalidArgument, "captureFrom names JACK ports: with ALSA, name the capture PCM in captureDevice")
        }
        if configuration.backend == .jack, configuration.captureDevice != nil {
            throw TuttiError(.invalidArgument, "captureDevice names an ALSA PCM: with JACK, connect ports with captureFrom")
        }
        if configuration.capture == nil, configuration.captureDevice != nil {
            throw TuttiError(.invalidArgument, "captureDevice without capture: give the input source to capture into")
        }
        if let capture = configuration.capture {
            guard capture.engine === self else { throw TuttiError(.invalidArgument, "capture: the source belongs to another engine") }
            captureInput = try withCore { (s) throws(TuttiError) in try s.input(capture.id) }
        }
        try output.withLock { (running: inout RunningOutput?) throws(TuttiError) in
            guard running == nil else { throw TuttiError(.state, "an output is already running") }
            guard renderOwner.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged else {
                throw TuttiError(.state, "a pull render is in progress on another thread")
            }
            do throws(TuttiError) {
                running =
                    try configuration.backend == .alsa
                    ? startALSA(configuration, routeDevices: routeDevices, capture: captureInput)
                    : startJACK(configuration, capture: captureInput)
            } catch {
                renderOwner.store(0, ordering: .releasing)
                throw error
            }
        }
    }

    /// `routeDestinations` checked against the engine's routes; for ALSA, the PCM of each
    /// route past main in route order (empty: main only).
    private func checkRouteDestinations(_ configuration: OutputConfiguration) throws(TuttiError) -> [String] {
        let routes = renderer.configuration.routes
        let destinations = configuration.routeDestinations
        for (name, ports) in destinations.sorted(by: { $0.key < $1.key }) {
            guard routes.dropFirst().contains(name) else {
                throw TuttiError(
                    .invalidArgument,
                    "routeDestinations: no route \"\(name)\" past main (routes: \(routes.joined(separator: ", ")))")
            }
            if configuration.backend == .alsa, ports.count != 1 {
                throw TuttiError(.invalidArgument, "routeDestinations[\"\(name)\"]: ALSA takes one PCM per route, got \(ports.count)")
            }
        }
        guard configuration.backend == .alsa, !destinations.isEmpty else { return [] }
        var pcms: [String] = []
        for name in routes.dropFirst() {
            guard let pcm = destinations[name]?.first else {
                throw TuttiError(
                    .invalidArgument, "routeDestinations: route \"\(name)\" has no ALSA PCM (name every route past main, or none)")
            }
            pcms.append(pcm)
        }
        return pcms
    }

    private func startALSA(_ configuration: OutputConfiguration, routeDevices: [String], capture: InputSource?) throws(TuttiError)
        -> RunningOutput
    {
        var alsaConfiguration = ALSAOutputConfiguration(device: configuration.device ?? "default")
        alsaConfiguration.routeDevices = routeDevices
        if let p = configuration.periodFrames { alsaConfiguration.periodFrames = p }
        if let n = configuration.periodCount { alsaConfiguration.periodCount = n }
        alsaConfiguration.capture = capture
        alsaConfiguration.captureDevice = configuration.captureDevice
        do {
            let alsa = try ALSAOutput(
                renderer: renderer, configuration: alsaConfiguration, log: { _ in },
                onEvent: { [weak self] e in self?.deviceEvent(e) })
            try alsa.start()
            return .alsa(alsa)
        } catch {
            throw TuttiError(.device, "ALSA device \"\(alsaConfiguration.device)\": \(error)")
        }
    }

    private func startJACK(_ configuration: OutputConfiguration, capture: InputSource?) throws(TuttiError) -> RunningOutput {
        var jackConfiguration = JACKOutputConfiguration(serverName: configuration.device)
        jackConfiguration.capture = capture
        jackConfiguration.captureFrom = configuration.captureFrom
        jackConfiguration.routeConnections = configuration.routeDestinations
        let server = configuration.device ?? "the default JACK server"
        do {
            let jack = try JACKOutput(
                renderer: renderer, client: JACKClient(configuration: jackConfiguration), log: { _ in },
                onEvent: { [weak self] e in self?.deviceEvent(e) })
            try jack.start()
            return .jack(jack)
        } catch {
            throw TuttiError(.device, "\(server): \(error)")
        }
    }

    /// Stop the output (if one runs): its thread ends and the device closes; pull rendering
    /// works again. Never called from the output's own threads. Any thread.
    public func stopOutput() {
        let stopped = output.withLock { (running: inout RunningOutput?) -> RunningOutput? in
            defer { running = nil }
            return running
        }
        switch stopped {
        case .alsa(let alsa): alsa.stop()
        case .jack(let jack): jack.stop()
        case nil: return
        }
        renderOwner.store(0, ordering: .releasing)
    }

    /// Whether an output runs.
    public var isOutputRunning: Bool { output.withLock { $0 != nil } }

    /// What a running output reports: xruns and latency (frames of the device buffer).
    var outputStatus: (xruns: Int, latencyFrames: Int) {
        output.withLock { running in
            switch running {
            case .alsa(let alsa): (alsa.xrunCount, alsa.negotiated.bufferFrames)
            case .jack(let jack): (jack.xrunCount, jack.negotiated.latencyFrames)
            case nil: (0, 0)
            }
        }
    }

    /// An ALSA event, on the output's event queue: the policy hears about the device, the host
    /// gets an event.
    private func deviceEvent(_ event: ALSAEvent) {
        switch event {
        case .xrun(let total): reportDeviceEvent(.xrun(count: total))
        case .deviceLost(_, let message): deviceLost(device: "alsa", reason: message)
        case .deviceRestored: deviceRestored(device: "alsa")
        default: break
        }
    }

    /// A JACK event, on the output's supervisor thread: as for ALSA.
    private func deviceEvent(_ event: JACKEvent) {
        switch event {
        case .xrun(let total): reportDeviceEvent(.xrun(count: total))
        case .deviceLost(let message): deviceLost(device: "jack", reason: message)
        case .deviceRestored: deviceRestored(device: "jack")
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
