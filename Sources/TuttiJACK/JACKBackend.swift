import TuttiEngine
import TuttiOutput

// `JACKOutput` as an `OutputBackend`: `OutputSettings` in JACK's terms.

extension JACKOutput {
    /// The server's rate, which the engine must run at; checks the settings and every port
    /// they name on the server (a client is opened and closed). Control thread.
    public static func probe(_ settings: OutputSettings, channelCount: Int, busNames: [String]) throws(TuttiError) -> Int? {
        let configuration = try configuration(settings, busNames: busNames)
        let client = try open(configuration)
        defer { client.close() }
        try check(configuration, on: client, channelCount: channelCount)
        return client.sampleRate
    }

    /// Ports separated by commas, one per channel. Any thread.
    public static func destinations(parsing text: String) -> [String] { text.split(separator: ",").map(String.init) }

    /// Opens a client as `settings` say and takes it over for `renderer` (see
    /// `OutputBackend`): no server, a rate other than the engine's, a port that is not there
    /// are errors naming the server or the port. Control thread.
    public convenience init(
        renderer: Renderer, settings: OutputSettings, log: (@Sendable (String) -> Void)?,
        onEvent: (@Sendable (OutputEvent) -> Void)?
    ) throws(TuttiError) {
        let configuration = try Self.configuration(settings, busNames: renderer.configuration.outputBuses)
        let client = try Self.open(configuration)
        do {
            try self.init(renderer: renderer, client: client, log: log, onEvent: onEvent)
        } catch {
            client.close()
            throw Self.outputError(error, configuration)
        }
    }

    /// `settings` as a `JACKOutputConfiguration`: the server is `device`, main's ports are
    /// `busDestinations[main]` (else physical, or none with `leaveUnconnected`).
    static func configuration(_ settings: OutputSettings, busNames: [String]) throws(TuttiError) -> JACKOutputConfiguration {
        try settings.validate(busNames: busNames)
        if settings.periodFrames != nil || settings.periodCount != nil {
            throw TuttiError(.invalidArgument, "periodFrames / periodCount: the JACK server sets its buffer size")
        }
        if let formats = settings.sampleFormats, formats != [.float32] {
            throw TuttiError(.invalidArgument, "sampleFormats: JACK ports are float32")
        }
        if settings.realtimePriority != OutputSettings().realtimePriority {
            throw TuttiError(.invalidArgument, "realtimePriority: the JACK server schedules its process thread")
        }
        if settings.lockMemory { throw TuttiError(.invalidArgument, "lockMemory is for a backend with its own render thread (ALSA)") }
        if settings.streams != .single {
            throw TuttiError(.invalidArgument, "streams per-session: PipeWire only (JACK's ports carry no media role)")
        }
        let main = busNames.first ?? "main"
        if settings.leaveUnconnected, settings.busDestinations[main] != nil {
            throw TuttiError(.invalidArgument, "leaveUnconnected and busDestinations[\"\(main)\"] exclude each other")
        }
        let connection: JACKConnection =
            if let ports = settings.busDestinations[main] { .ports(ports) } else if settings.leaveUnconnected { .none } else { .physical }
        var c = JACKOutputConfiguration(clientName: settings.clientName, serverName: settings.device, connection: connection)
        c.busConnections = settings.busDestinations.filter { $0.key != main }
        c.capture = settings.capture
        c.captureFrom = settings.captureSources
        c.reconnect = settings.reconnect
        c.realtimeScope = settings.realtimeScope
        return c
    }

    /// A client for `configuration`; no server is a `.noDevice` error.
    private static func open(_ configuration: JACKOutputConfiguration) throws(TuttiError) -> JACKClient {
        do {
            return try JACKClient(configuration: configuration)
        } catch {
            throw outputError(error, configuration)
        }
    }

    /// Every port `configuration` names exists and takes audio; a bus's ports are named in
    /// the error.
    private static func check(_ configuration: JACKOutputConfiguration, on client: JACKClient, channelCount: Int) throws(TuttiError) {
        do {
            _ = try client.destinations(for: configuration.connection, channelCount: channelCount)
        } catch {
            throw outputError(error, configuration)
        }
        for (name, ports) in configuration.busConnections.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try client.destinations(for: .ports(ports), channelCount: channelCount)
            } catch {
                throw TuttiError(.device, "output bus \(name) (\(ports.joined(separator: ","))): \(error)")
            }
        }
    }

    /// A JACK error in the output layer's terms, naming the server.
    static func outputError(_ error: any Error, _ configuration: JACKOutputConfiguration) -> TuttiError {
        if let error = error as? TuttiError { return error }
        let server = configuration.serverName ?? "the default JACK server"
        switch error as? JACKError {
        case .noServer, .unknownPort, .notAnInputPort, .connectionCount: return TuttiError(.device, "\(error)")
        case .invalidConfiguration: return TuttiError(.invalidArgument, "\(error)")
        default: return TuttiError(.device, "\(server): \(error)")
        }
    }
}
