import CJACK
import Glibc
import Synchronization

/// An open, not yet activated connection to a JACK server (a `jack_client_t`). Open it before
/// building the engine: it tells the server's rate and buffer size, and the engine must run
/// at that rate. `JACKOutput(engine:client:)` then takes it over.
///
/// Thread: the control thread opens and queries it. Once a `JACKOutput` owns it, the output's
/// threads use it (the supervisor closes it after a lost server and opens a new one). The
/// handle is an atomic (its address's bit pattern), so closing it from one thread while
/// another reads it is defined: a reader gets the client or nil, never a freed one that
/// `close` already handed to libjack (callers serialise `close` with their own calls).
public final class JACKClient: Sendable {
    /// What it was opened with (client and server names, connections, reconnect settings).
    public let configuration: JACKOutputConfiguration
    /// The server name as resolved (explicit, `JACK_DEFAULT_SERVER`, or `default`).
    public let serverName: String
    /// The name JACK granted (the configured one, or with a suffix when that was taken).
    public let clientName: String
    /// The server's rate: the engine must run at it.
    public let sampleRate: Int
    /// Frames per process cycle when the client was opened.
    public let bufferFrames: Int
    /// The libjack functions it calls (its output's too).
    public let functions: JACKFunctions
    /// The `jack_client_t`'s address; 0 once closed.
    private let address: Atomic<Int>

    /// The `jack_client_t`; nil once closed.
    var handle: OpaquePointer? { OpaquePointer(bitPattern: address.load(ordering: .acquiring)) }

    /// Open a client (never starts a server) through `functions` (default:
    /// ``JACKFunctions/system``, libjack loaded now if not yet: not installed is a `.device`
    /// `TuttiError` naming the package). Throws `JACKError.noServer` when no server runs under
    /// that name.
    public init(configuration: JACKOutputConfiguration = JACKOutputConfiguration(), functions: JACKFunctions? = nil) throws {
        try configuration.validate()
        let functions = try functions ?? JACKFunctions.system
        self.functions = functions
        self.configuration = configuration
        serverName = configuration.resolvedServerName
        if !configuration.libjackMessages { functions.silenceMessages() }
        var status = jack_status_t(0)
        let opened = functions.openClient(
            configuration.clientName, options: JackNoStartServer.rawValue, status: &status, serverName: configuration.serverName)
        guard let opened else {
            // With JackNoStartServer, "no server" is JackServerFailed (the socket connect failed).
            if status.rawValue & JackServerFailed.rawValue != 0 { throw JACKError.noServer(serverName: serverName) }
            throw JACKError.openFailed(serverName: serverName, status: status.rawValue)
        }
        address = Atomic(Int(bitPattern: UnsafeRawPointer(opened)))
        clientName = functions.get_client_name(opened).map { String(cString: $0) } ?? configuration.clientName
        sampleRate = Int(functions.get_sample_rate(opened))
        bufferFrames = Int(functions.get_buffer_size(opened))
    }

    deinit { close() }

    /// Close the client (deactivating it if active). Idempotent. Not on a JACK callback thread.
    public func close() {
        guard let h = OpaquePointer(bitPattern: address.exchange(0, ordering: .acquiringAndReleasing)) else { return }
        _ = functions.client_close(h)
    }

    /// Full names of the server's physical audio ports: `playback` true for the ones that
    /// play (JACK inputs, e.g. `system:playback_1`), false for capture (`system:capture_1`).
    /// Control thread.
    public func physicalPorts(playback: Bool) -> [String] {
        let direction = playback ? JackPortIsInput.rawValue : JackPortIsOutput.rawValue
        return ports(flags: UInt(JackPortIsPhysical.rawValue | direction))
    }

    func ports(flags: UInt) -> [String] {
        guard let handle, let list = functions.get_ports(handle, nil, JACK_DEFAULT_AUDIO_TYPE, flags) else { return [] }
        defer { functions.free(UnsafeMutableRawPointer(list)) }
        var names: [String] = []
        var i = 0
        while let p = list[i] {
            names.append(String(cString: p))
            i += 1
        }
        return names
    }

    /// Destination ports per output channel for `connection`, checked against the server
    /// (unknown or non-input ports throw, naming the port). Control or supervisor thread.
    public func destinations(for connection: JACKConnection, channelCount: Int) throws -> [[String]] {
        switch connection {
        case .none:
            return Array(repeating: [], count: channelCount)
        case .physical:
            let physical = physicalPorts(playback: true)
            if channelCount == 1 { return [Array(physical.prefix(2))] }
            return (0..<channelCount).map { $0 < physical.count ? [physical[$0]] : [] }
        case .ports(let names):
            guard names.count == channelCount else { throw JACKError.connectionCount(ports: names.count, channels: channelCount) }
            for name in names {
                guard let handle, let port = functions.port_by_name(handle, name) else { throw JACKError.unknownPort(name) }
                guard UInt32(bitPattern: functions.port_flags(port)) & JackPortIsInput.rawValue != 0 else {
                    throw JACKError.notAnInputPort(name)
                }
            }
            return names.map { [$0] }
        }
    }
}
