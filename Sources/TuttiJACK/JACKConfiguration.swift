import Glibc
import TuttiEngine
import TuttiOutput

/// Where the output ports are connected once the client is active. Value type: any thread.
public enum JACKConnection: Sendable, Equatable {
    /// The server's physical playback ports in order: `out_k` → the k-th one. A mono engine's
    /// `out_1` goes to the first two (both speakers). Fewer physical ports than channels leave
    /// the last channels unconnected.
    case physical
    /// Leave the ports unconnected (a patchbay or session manager connects them).
    case none
    /// `out_k` → the k-th port given (full names, `client:port`); one per channel.
    case ports([String])
}

/// How to open the JACK client and drive it. Value type: any thread.
public struct JACKOutputConfiguration: Sendable {
    /// The client name; JACK appends a suffix (`tutti-01`) when another client has it.
    public var clientName = "tutti"
    /// The server to connect to. nil: as libjack decides — `JACK_DEFAULT_SERVER` when set,
    /// else `default`.
    public var serverName: String?
    /// Output ports are `<outputPortPrefix>_1 … _N`, N = the engine's channel count.
    public var outputPortPrefix = "out"
    /// Where the output ports go once active (default: the physical playback ports).
    public var connection = JACKConnection.physical
    /// Where the port groups of the output buses past main go, by bus name
    /// (`EngineConfiguration.outputBuses`): `NAME_k` → the k-th port given (full names, one per
    /// channel; checked like `JACKConnection.ports` when the output is made: an unknown bus,
    /// an unknown or non-input port, or a wrong count throws). A bus not listed is left
    /// unconnected. Main's group follows `connection`. Ignored with a one-bus engine's `out_*`.
    public var busConnections: [String: [String]] = [:]
    /// Deprecated old name of `busConnections` (output buses, not the device route). Any thread.
    @available(*, deprecated, renamed: "busConnections")
    public var routeConnections: [String: [String]] {
        get { busConnections }
        set { busConnections = newValue }
    }
    /// Capture: with an input source, input ports `<inputPortPrefix>_1 … _N` (N = its channel
    /// count) are registered and the process callback copies each cycle's frames into its
    /// ring, exactly the frames rendered in that cycle (so the input neither lags nor drifts).
    public var capture: InputSource?
    /// Input ports are `<inputPortPrefix>_1 … _N`.
    public var inputPortPrefix = "in"
    /// Ports connected to the input ports once active: `captureFrom[k]` → `in_(k+1)`
    /// (default: none — connect them yourself, e.g. `jack_connect system:capture_1 tutti:in_1`).
    public var captureFrom: [String] = []
    /// Connect `out_k` → `in_k` (a loopback: what is played comes back one period later).
    public var loopback = false
    /// After a lost server: reconnect with backoff, give up after `reconnect.timeout`
    /// (`OutputEvent.gaveUp`, `JACKOutput.failure`; nil: never).
    public var reconnect = ReconnectPolicy()
    /// How long activation may wait for the server's first process cycles (seconds).
    public var startTimeoutSeconds = 5.0
    /// Pass libjack's own diagnostic lines through to stderr (default: dropped; Tutti reports
    /// its own errors).
    public var libjackMessages = false
    /// Called inside the process callback right before and after the render and
    /// de-interleave (e.g. `__rtsan_realtime_enter` / `__rtsan_realtime_exit`). Must be
    /// real-time safe.
    public var realtimeScope: RealtimeScope?

    /// Defaults for the rest; see each property.
    public init(clientName: String = "tutti", serverName: String? = nil, connection: JACKConnection = .physical) {
        self.clientName = clientName
        self.serverName = serverName
        self.connection = connection
    }

    /// The server name libjack will use: the explicit one, else `JACK_DEFAULT_SERVER`, else
    /// `default`.
    public var resolvedServerName: String {
        if let serverName { return serverName }
        if let env = getenv("JACK_DEFAULT_SERVER"), env.pointee != 0 { return String(cString: env) }
        return "default"
    }

    func validate() throws {
        guard !clientName.isEmpty else { throw JACKError.invalidConfiguration("the client name is empty") }
        guard !outputPortPrefix.isEmpty, !outputPortPrefix.contains(":") else {
            throw JACKError.invalidConfiguration("the port prefix \"\(outputPortPrefix)\" must be non-empty and without ':'")
        }
        do { try reconnect.validate() } catch { throw JACKError.invalidConfiguration(error.message) }
    }
}

/// What the server gave the client. Value type: any thread.
public struct JACKNegotiated: Sendable, Equatable, CustomStringConvertible {
    /// The server name as resolved (`JACKOutputConfiguration.resolvedServerName`).
    public var serverName: String
    /// The client name JACK granted (may carry a suffix).
    public var clientName: String
    /// The server's rate (Hz), which the engine runs at.
    public var sampleRate: Int
    /// Output ports (the engine's channels).
    public var channelCount: Int
    /// Frames per process cycle (changes with `jack_bufsize`).
    public var bufferFrames: Int
    /// Playback latency of the output ports (JACK's latency range, maximum), in frames; 0
    /// when unconnected.
    public var latencyFrames: Int
    /// With more than one output bus: the playback latency of each bus's port group, in bus
    /// order (`busLatencyFrames[0]` is main's, = `latencyFrames`), frames; 0 for a group
    /// left unconnected. Empty with one bus.
    public var busLatencyFrames: [Int] = []
    /// Deprecated old name of `busLatencyFrames` (output buses, not the device route). Any thread.
    @available(*, deprecated, renamed: "busLatencyFrames")
    public var routeLatencyFrames: [Int] {
        get { busLatencyFrames }
        set { busLatencyFrames = newValue }
    }

    /// `latencyFrames` in seconds.
    public var latencySeconds: Double { Double(latencyFrames) / Double(sampleRate) }
    /// One process cycle in seconds.
    public var bufferSeconds: Double { Double(bufferFrames) / Double(sampleRate) }

    /// One line: server, client, rate, channels, buffer, latency.
    public var description: String {
        func ms(_ seconds: Double) -> String { "\((seconds * 10_000).rounded() / 10) ms" }
        return "server \"\(serverName)\", client \"\(clientName)\", \(sampleRate) Hz, \(channelCount) ch, "
            + "buffer \(bufferFrames) frames (\(ms(bufferSeconds))), latency \(latencyFrames) frames (\(ms(latencySeconds)))"
    }
}
