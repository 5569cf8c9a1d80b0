import TuttiOutput
import TuttiPolicy

/// One audio sink of the PipeWire daemon (`media.class` Audio/Sink) as the watcher sees it:
/// its properties (the node's, else its device's) and the active output port of its device
/// (the device's `Route` param for the sink's `card.profile.device`). Value type: any thread.
public struct PipeWireSink: Sendable, Equatable {
    /// Whether a port is plugged in, as PipeWire's `spa_param_availability` says (a Route's
    /// `available`). Value type: any thread.
    public enum PortAvailability: Sendable, Equatable {
        /// The card cannot tell (no jack detection; a speaker).
        case unknown
        /// Nothing is plugged in (an empty headphone jack, an HDMI screen off).
        case no
        /// Something is plugged in.
        case yes

        /// From SPA's value (a Route's `available`): 1 `no`, 2 `yes`, anything else `unknown`.
        /// Pure: any thread.
        public init(spaValue: UInt32) {
            switch spaValue {
            case 1: self = .no
            case 2: self = .yes
            default: self = .unknown
            }
        }
    }

    /// The node's global id.
    public var id: UInt32
    /// Its `node.name` (what `target.object` and `default.audio.sink` name).
    public var name: String
    /// Its `device.form-factor` ("headphones", "headset", "internal" …; "" when not set).
    public var formFactor: String
    /// It came into the graph after the watcher started (a device plugged in, a sink loaded).
    public var appeared: Bool
    /// Its `device.api` ("alsa", "bluez5" …; "bluez5" too for a node with `api.bluez5.*`
    /// properties; "" when not set).
    public var deviceAPI: String
    /// Its `device.bus` ("usb", "pci", "bluetooth" …; "" when not set).
    public var bus: String
    /// The `port.type` of its device's active output route ("headphones", "speaker", "hdmi",
    /// "line" …; "" when the sink has no device or the device no route for it).
    public var portType: String
    /// Whether that route's port is plugged in.
    public var portAvailability: PortAvailability

    /// A sink as given.
    public init(
        id: UInt32, name: String, formFactor: String = "", appeared: Bool = false, deviceAPI: String = "", bus: String = "",
        portType: String = "", portAvailability: PortAvailability = .unknown
    ) {
        self.id = id
        self.name = name
        self.formFactor = formFactor
        self.appeared = appeared
        self.deviceAPI = deviceAPI
        self.bus = bus
        self.portType = portType
        self.portAvailability = portAvailability
    }

    /// The policy's route for this sink: `PipeWireSink.route(formFactor:deviceAPI:bus:portType:portAvailability:)`.
    public var route: Route {
        Self.route(formFactor: formFactor, deviceAPI: deviceAPI, bus: bus, portType: portType, portAvailability: portAvailability)
    }

    /// The policy's route for a sink with only a `device.form-factor`: as
    /// `route(formFactor:deviceAPI:bus:portType:portAvailability:)` with nothing else known —
    /// `headphones` for "headphone", "headphones" or "headset" (any case), else `speaker`.
    /// Pure: any thread.
    public static func route(formFactor: String?) -> Route {
        route(formFactor: formFactor, deviceAPI: nil, bus: nil, portType: nil)
    }

    /// The policy's route for a sink, the first row that matches (strings compared in any case;
    /// nil and "" are not set):
    ///
    /// 1. `deviceAPI` "bluez5" (any "bluez…"), `bus` "bluetooth" or `portType` "bluetooth":
    ///    `bluetooth` — a bluetooth headset or headphones too (their own route, as A2DP is on
    ///    iOS: they connect and disconnect by themselves).
    /// 2. The device's active port, when it is not unplugged (`portAvailability` not `.no`):
    ///    `portType` "headphones", "headphone" or "headset" → `headphones`; "hdmi",
    ///    "displayport", "spdif", "line", "usb", "tv", "video", "network" → `external`. Any
    ///    other port ("speaker", "earpiece", "handset", "analog", "unknown" …) goes on down.
    ///    An unplugged active port (the headphone jack just emptied) goes on down too: the card
    ///    reads as what it is without it (usually the speaker).
    /// 3. `formFactor` "headphone", "headphones" or "headset": `headphones` (a USB headset
    ///    too: private listening).
    /// 4. `bus` "usb" or "firewire": `external` (a USB DAC, USB speakers, an interface).
    /// 5. Everything else: `speaker` (the built-in card, a null or virtual sink, form factors
    ///    "internal", "speaker", "tv", "hifi", "car", "hands-free" …).
    ///
    /// Pure: any thread.
    public static func route(
        formFactor: String?, deviceAPI: String?, bus: String?, portType: String?, portAvailability: PortAvailability = .unknown
    ) -> Route {
        let api = deviceAPI?.lowercased() ?? ""
        let bus = bus?.lowercased() ?? ""
        let port = portType?.lowercased() ?? ""
        if api.hasPrefix("bluez") || bus == "bluetooth" || port == "bluetooth" { return .bluetooth }
        if portAvailability != .no {
            if headphonePortTypes.contains(port) { return .headphones }
            if externalPortTypes.contains(port) { return .external }
        }
        if let formFactor, headphoneFormFactors.contains(formFactor.lowercased()) { return .headphones }
        if externalBuses.contains(bus) { return .external }
        return .speaker
    }

    /// "headphone", "headphones", "headset".
    public static let headphoneFormFactors: Set<String> = ["headphone", "headphones", "headset"]
    /// The active ports that are headphones: "headphones", "headphone", "headset".
    public static let headphonePortTypes: Set<String> = ["headphones", "headphone", "headset"]
    /// The active ports that are an external device: "hdmi", "displayport", "spdif", "line",
    /// "usb", "tv", "video", "network".
    public static let externalPortTypes: Set<String> = ["hdmi", "displayport", "spdif", "line", "usb", "tv", "video", "network"]
    /// The buses of an external device: "usb", "firewire".
    public static let externalBuses: Set<String> = ["usb", "firewire"]
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
/// - The sink it plays to stays, but its route changes (its card's active port switched:
///   headphones plugged into the jack, or pulled out; an HDMI screen turned on or off):
///   `oldDeviceUnavailable` back to `speaker` (media sessions pause), `newDeviceAvailable` to
///   any other route (`RouteChangeReason.default(from:to:)`).
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
        guard let linked else { return nil }
        if let current = sink, linked.id == current.id {
            sink = linked
            guard linked.route != route else { return nil }
            let previous = route
            route = linked.route
            return .routeChanged(
                route: route, reason: .default(from: previous, to: route), device: linked.name, previousDevice: current.name)
        }
        let previous = sink
        sink = linked
        if previous == nil, linked.route == route { return nil }
        route = linked.route
        let reason: RouteChangeReason = previous == nil || linked.appeared ? .newDeviceAvailable : .override
        return .routeChanged(route: route, reason: reason, device: linked.name, previousDevice: previous?.name)
    }
}
