import TuttiOutput
import TuttiPolicy

/// One audio sink of the PipeWire daemon (`media.class` Audio/Sink) as the watcher sees it.
/// Value type: any thread.
public struct PipeWireSink: Sendable, Equatable {
    /// The node's global id.
    public var id: UInt32
    /// Its `node.name` (what `target.object` and `default.audio.sink` name).
    public var name: String
    /// Its `device.form-factor` ("headphones", "headset", "internal" …; "" when not set).
    public var formFactor: String
    /// It came into the graph after the watcher started (a device plugged in, a sink loaded).
    public var appeared: Bool

    /// A sink as given.
    public init(id: UInt32, name: String, formFactor: String = "", appeared: Bool = false) {
        self.id = id
        self.name = name
        self.formFactor = formFactor
        self.appeared = appeared
    }

    /// The policy's route for this sink: `PipeWireSink.route(formFactor:)`.
    public var route: Route { Self.route(formFactor: formFactor) }

    /// The policy's route for a sink whose `device.form-factor` is `formFactor`:
    /// `headphones` for "headphone", "headphones" or "headset" (any case), `speaker` for
    /// everything else (none, "internal", "speaker", "tv", "hifi", "car", "hands-free" …).
    /// Pure: any thread.
    public static func route(formFactor: String?) -> Route {
        guard let formFactor else { return .speaker }
        return headphoneFormFactors.contains(formFactor.lowercased()) ? .headphones : .speaker
    }

    /// "headphone", "headphones", "headset".
    public static let headphoneFormFactors: Set<String> = ["headphone", "headphones", "headset"]
}

/// What the watcher knows about the sinks: every sink, the default one (`default.audio.sink`
/// of the "default" metadata) and the one the output's stream is linked to. Value type: any
/// thread.
public struct SinkSnapshot: Sendable, Equatable {
    /// The daemon's sinks, in the registry's order.
    public var sinks: [PipeWireSink]
    /// The default sink's `node.name`; nil: unset.
    public var defaultSink: String?
    /// The id of the sink the stream is linked to; nil: none (not linked yet, or being moved).
    public var linkedSink: UInt32?

    /// A snapshot as given.
    public init(sinks: [PipeWireSink], defaultSink: String? = nil, linkedSink: UInt32? = nil) {
        self.sinks = sinks
        self.defaultSink = defaultSink
        self.linkedSink = linkedSink
    }

    /// The sink with id `id`, if it is there.
    func sink(_ id: UInt32?) -> PipeWireSink? { id.flatMap { id in sinks.first { $0.id == id } } }
}

/// Follows the sink the stream plays to, snapshot after snapshot, and says when that is a
/// route change for the policy (rule 7). It starts on the `speaker` route with no sink:
///
/// - The sink it played to is no longer in the graph: `oldDeviceUnavailable` (media sessions
///   pause), to the route of the sink it is linked to now, else of the default sink, else
///   `speaker`. PipeWire's session manager then moves the stream to the default sink (or it
///   waits, unlinked, when there is none).
/// - It is linked to another sink while the one before is still there (the default sink
///   changed and the stream followed it, or the user moved it): `newDeviceAvailable` when
///   that sink came while watching, `override` when it was already there (someone chose it).
/// - The first sink it is linked to, or the sink it is linked to after a loss: a change only
///   when its route differs from the current one (the loss already reported the move to the
///   fallback), with `newDeviceAvailable` (the route arrives at a device).
///
/// Not linked (between a link's removal and the next one): no change, it waits. Value type;
/// the watcher's loop thread drives it.
public struct RouteFollower: Sendable, Equatable {
    /// The route reported last (`speaker` at first).
    public private(set) var route: Route = .speaker
    /// The sink it plays to, as last seen (nil: none, or lost).
    public private(set) var sink: PipeWireSink?

    /// Starts on `speaker`, with no sink.
    public init() {}

    /// The route change `snapshot` makes (an `OutputEvent.routeChanged`), or nil. Pure
    /// apart from its own state: any thread, one at a time.
    public mutating func update(_ snapshot: SinkSnapshot) -> OutputEvent? {
        let linked = snapshot.sink(snapshot.linkedSink)
        if let old = sink, snapshot.sink(old.id) == nil {
            let fallback = linked ?? snapshot.defaultSink.flatMap { name in snapshot.sinks.first { $0.name == name } }
            route = fallback?.route ?? .speaker
            sink = linked
            return .routeChanged(route: route, reason: .oldDeviceUnavailable, device: fallback?.name, previousDevice: old.name)
        }
        guard let linked, linked.id != sink?.id else { return nil }
        let previous = sink
        sink = linked
        if previous == nil, linked.route == route { return nil }
        route = linked.route
        let reason: RouteChangeReason = previous == nil || linked.appeared ? .newDeviceAvailable : .override
        return .routeChanged(route: route, reason: reason, device: linked.name, previousDevice: previous?.name)
    }
}
