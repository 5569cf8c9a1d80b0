/// A JACK server as `tutti devices --backend jack` shows it. Value type: any thread.
public struct JACKServerInfo: Sendable, Equatable {
    /// As resolved: explicit, `JACK_DEFAULT_SERVER`, or `default`.
    public var serverName: String
    /// Hz.
    public var sampleRate: Int
    /// Frames per process cycle.
    public var bufferFrames: Int
    /// Physical ports that play (JACK inputs, e.g. `system:playback_1`), in the server's order.
    public var playbackPorts: [String]
    /// Physical ports that capture (JACK outputs, e.g. `system:capture_1`).
    public var capturePorts: [String]
}

/// Queries a JACK server for `tutti devices --backend jack`. Stateless.
public enum JACKDevices {
    /// Ask the server (named, else `JACK_DEFAULT_SERVER`, else `default`) for its rate,
    /// buffer size and physical ports through a short-lived client named `tutti-devices`.
    /// Throws `JACKError.noServer` when none runs. Any thread, not real-time.
    public static func query(serverName: String? = nil) throws -> JACKServerInfo {
        let client = try JACKClient(configuration: JACKOutputConfiguration(clientName: "tutti-devices", serverName: serverName))
        defer { client.close() }
        return JACKServerInfo(
            serverName: client.serverName, sampleRate: client.sampleRate, bufferFrames: client.bufferFrames,
            playbackPorts: client.physicalPorts(playback: true), capturePorts: client.physicalPorts(playback: false))
    }
}
