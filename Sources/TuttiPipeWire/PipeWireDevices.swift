import CPipeWire
import TuttiEngine

/// One audio device node of a PipeWire daemon: a sink, a source or a duplex node (`media.class`
/// `Audio/Sink`, `Audio/Source`, `Audio/Duplex`, and their `/Virtual` kinds). Value type: any
/// thread.
public struct PipeWireNodeInfo: Sendable, Equatable {
    /// The node's global id in the graph (changes when the daemon restarts).
    public var id: Int
    /// `object.serial` (a `target.object` may name it); nil when the node has none.
    public var serial: Int?
    /// `node.name`: what `target.object` takes (`OutputSettings.device`, `tutti play --target`).
    public var name: String
    /// `node.description`, else `node.nick`; nil when it has neither.
    public var description: String?
    /// `media.class` ("Audio/Sink", "Audio/Source", "Audio/Duplex", "Audio/Source/Virtual"…).
    public var mediaClass: String
    /// Frames per second: the node's `audio.rate` property, else the rate of its first
    /// `EnumFormat` (a range's default); nil when neither says.
    public var sampleRate: Int?
    /// Channels per frame: `audio.channels`, else its first `EnumFormat`'s; nil when neither
    /// says.
    public var channelCount: Int?

    /// Whether a playback stream can target it: a sink or a duplex node.
    public var isSink: Bool { mediaClass.hasPrefix("Audio/Sink") || mediaClass.hasPrefix("Audio/Duplex") }
    /// Whether it can be recorded from: a source or a duplex node.
    public var isSource: Bool { mediaClass.hasPrefix("Audio/Source") || mediaClass.hasPrefix("Audio/Duplex") }

    /// Whether `target` (a `target.object`: a node name or an `object.serial`) names this node.
    /// Any thread.
    public func isNamed(by target: String) -> Bool { target == name || (serial.map { String($0) } == target) }
}

/// Lists a PipeWire daemon's audio device nodes. A namespace (no instances).
public enum PipeWireDevices {
    /// The audio device nodes of the daemon at `remote` (its socket: a name in the runtime
    /// directory or an absolute path; nil: `$PIPEWIRE_REMOTE`, else `pipewire-0` in
    /// `$PIPEWIRE_RUNTIME_DIR` / `$XDG_RUNTIME_DIR`), in the registry's order, through one short
    /// connection (nothing is created in the graph). A library that cannot be loaded, a daemon
    /// that does not answer ("no PipeWire daemon answers at …") or does not finish the listing
    /// within 5 s throw `TuttiError` `device`. Blocks for a round trip to the daemon: any
    /// thread but a real-time one.
    public static func list(remote: String? = nil) throws(TuttiError) -> [PipeWireNodeInfo] {
        var message = [CChar](repeating: 0, count: 512)
        var nodes: UnsafeMutablePointer<tpw_node>?
        var count = 0
        let rc = withOptionalCString(remote) { tpw_list_nodes($0, &nodes, &count, &message, message.count) }
        guard rc == 0, let nodes else { throw TuttiError(.device, text(message)) }
        defer { tpw_free_nodes(nodes) }
        return (0..<count).map { i in
            var node = nodes[i]
            let description = string(&node.description)
            return PipeWireNodeInfo(
                id: Int(node.id), serial: node.serial == 0 ? nil : Int(node.serial), name: string(&node.name),
                description: description.isEmpty ? nil : description, mediaClass: string(&node.media_class),
                sampleRate: node.rate == 0 ? nil : Int(node.rate), channelCount: node.channels == 0 ? nil : Int(node.channels))
        }
    }
}

/// A fixed-size C char array (a tuple, NUL-terminated) as a String.
private func string<T>(_ field: inout T) -> String {
    withUnsafeBytes(of: &field) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
