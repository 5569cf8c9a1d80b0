import Testing
import Tutti
import TuttiOutput
import TuttiPipeWire

/// The sinks as routes (pure): the route table (form factor, device API, bus, active port) and
/// the `RouteFollower`'s transitions,
/// snapshot by snapshot, as the PipeWire watcher feeds them. The same against a daemon is
/// `PlayPipeWireCommandTests.aLostSinkIsARouteChangeThatPausesMedia`.
@Suite struct SinkRoutesTests {
    /// headphone, headphones and headset (any case) are the headphones route; every other form
    /// factor, an empty one and none are the speaker.
    @Test(
        arguments: [
            ("headphones", Route.headphones), ("headphone", .headphones), ("headset", .headphones), ("Headset", .headphones),
            ("HEADPHONES", .headphones), ("internal", .speaker), ("speaker", .speaker), ("handset", .speaker), ("tv", .speaker),
            ("hifi", .speaker), ("car", .speaker), ("hands-free", .speaker), ("portable", .speaker), ("", .speaker),
            ("headphones ", .speaker),
        ] as [(String, Route)])
    func theFormFactorTable(formFactor: String, route: Route) {
        #expect(PipeWireSink.route(formFactor: formFactor) == route)
        #expect(PipeWireSink(id: 1, name: "s", formFactor: formFactor).route == route)
    }

    @Test func noFormFactorIsTheSpeaker() {
        #expect(PipeWireSink.route(formFactor: nil) == .speaker)
    }

    /// SPA's availability values: 0 unknown, 1 no, 2 yes; others unknown.
    @Test func portAvailabilityFromSPA() {
        #expect(PipeWireSink.PortAvailability(spaValue: 0) == .unknown)
        #expect(PipeWireSink.PortAvailability(spaValue: 1) == .no)
        #expect(PipeWireSink.PortAvailability(spaValue: 2) == .yes)
        #expect(PipeWireSink.PortAvailability(spaValue: 3) == .unknown)
    }

    /// One row of the full table: form factor, device API, bus, active port type and its
    /// availability, and the route.
    struct Row: Sendable, CustomTestStringConvertible {
        var formFactor: String? = nil
        var api: String? = nil
        var bus: String? = nil
        var port: String? = nil
        var available: PipeWireSink.PortAvailability = .unknown
        var route: Route
        var testDescription: String { "\(formFactor ?? "-") \(api ?? "-") \(bus ?? "-") \(port ?? "-")/\(available) → \(route)" }
    }

    /// The table of `PipeWireSink.route(formFactor:deviceAPI:bus:portType:portAvailability:)`,
    /// row by row (docs/backends.md has the same table).
    @Test(
        arguments: [
            // 1. Bluetooth: by API (any bluez), bus or port; a bluez headset is bluetooth too.
            Row(api: "bluez5", route: .bluetooth), Row(api: "BlueZ5", route: .bluetooth),
            Row(formFactor: "headset", api: "bluez5", route: .bluetooth),
            Row(formFactor: "headphone", api: "bluez5", port: "headphones", available: .yes, route: .bluetooth),
            Row(bus: "bluetooth", route: .bluetooth), Row(port: "bluetooth", route: .bluetooth),
            // 2. The active port, plugged in or unknown.
            Row(api: "alsa", bus: "pci", port: "headphones", available: .yes, route: .headphones),
            Row(api: "alsa", port: "Headphones", route: .headphones), Row(port: "headset", available: .yes, route: .headphones),
            Row(api: "alsa", bus: "pci", port: "speaker", route: .speaker),
            Row(formFactor: "internal", port: "speaker", available: .unknown, route: .speaker),
            Row(port: "hdmi", available: .yes, route: .external), Row(port: "HDMI", route: .external),
            Row(port: "displayport", route: .external), Row(port: "spdif", route: .external), Row(port: "line", route: .external),
            Row(port: "usb", route: .external), Row(port: "tv", route: .external), Row(port: "video", route: .external),
            Row(port: "network", route: .external),
            Row(port: "earpiece", route: .speaker), Row(port: "analog", route: .speaker), Row(port: "unknown", route: .speaker),
            // An unplugged active port does not count: the rest decides.
            Row(api: "alsa", port: "headphones", available: .no, route: .speaker),
            Row(port: "hdmi", available: .no, route: .speaker),
            Row(formFactor: "headset", port: "headphones", available: .no, route: .headphones),
            Row(bus: "usb", port: "line", available: .no, route: .external),
            // The port beats the form factor and the bus.
            Row(formFactor: "headphones", port: "hdmi", available: .yes, route: .external),
            Row(bus: "usb", port: "headphones", route: .headphones),
            // 3. Form factor, before the bus: a USB headset is headphones.
            Row(formFactor: "headset", bus: "usb", route: .headphones), Row(formFactor: "headphone", route: .headphones),
            // Port speaker goes on down: USB speakers are external.
            Row(bus: "usb", port: "speaker", route: .external),
            // 4. Bus.
            Row(bus: "usb", route: .external), Row(bus: "USB", route: .external), Row(bus: "firewire", route: .external),
            Row(bus: "pci", route: .speaker),
            // 5. Everything else.
            Row(route: .speaker), Row(formFactor: "", api: "", bus: "", port: "", route: .speaker),
            Row(formFactor: "tv", api: "alsa", route: .speaker), Row(formFactor: "hifi", route: .speaker),
            Row(api: "alsa", route: .speaker), Row(api: "jack", route: .speaker),
        ])
    func theRouteTable(row: Row) {
        let route = PipeWireSink.route(
            formFactor: row.formFactor, deviceAPI: row.api, bus: row.bus, portType: row.port, portAvailability: row.available)
        #expect(route == row.route)
        let sink = PipeWireSink(
            id: 1, name: "s", formFactor: row.formFactor ?? "", deviceAPI: row.api ?? "", bus: row.bus ?? "", portType: row.port ?? "",
            portAvailability: row.available)
        #expect(sink.route == row.route)
    }

    static let speakers = PipeWireSink(id: 30, name: "speakers", formFactor: "internal")
    static let phones = PipeWireSink(id: 41, name: "phones", formFactor: "headphones")
    static let usb = PipeWireSink(id: 50, name: "usb", formFactor: "", appeared: true)
    static let headset = PipeWireSink(id: 60, name: "headset", formFactor: "headset", appeared: true)
    static let buds = PipeWireSink(id: 80, name: "buds", formFactor: "headphone", appeared: true, deviceAPI: "bluez5")
    /// A laptop's analog sink (id 70) whose card's active port is `port`.
    static func analog(port: String, _ available: PipeWireSink.PortAvailability) -> PipeWireSink {
        PipeWireSink(
            id: 70, name: "analog", formFactor: "internal", deviceAPI: "alsa", bus: "pci", portType: port, portAvailability: available)
    }

    /// Each row: the snapshots fed in order and the events they make (nil: none).
    @Test(
        arguments: [
            // Linked to a speaker sink at start: the route already is the speaker, nothing.
            ([SinkSnapshot(sinks: [speakers], defaultSink: "speakers", linkedSink: 30)], [nil]),
            // Not linked yet, then linked to headphones that were there: the first device.
            (
                [SinkSnapshot(sinks: [speakers, phones]), SinkSnapshot(sinks: [speakers, phones], linkedSink: 41)],
                [nil, .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "phones", previousDevice: nil)]
            ),
            // The headphones go: its links first (waits), then the node (lost), then PipeWire links
            // the stream to the default sink (already reported as the fallback: nothing).
            (
                [
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "speakers", linkedSink: 41),
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "speakers", linkedSink: nil),
                    SinkSnapshot(sinks: [speakers], defaultSink: "speakers", linkedSink: nil),
                    SinkSnapshot(sinks: [speakers], defaultSink: "speakers", linkedSink: 30),
                ],
                [
                    .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "phones", previousDevice: nil), nil,
                    .routeChanged(route: .speaker, reason: .oldDeviceUnavailable, device: "speakers", previousDevice: "phones"), nil,
                ]
            ),
            // A speaker sink that goes away is a loss too (media pause), even to the same route.
            (
                [
                    SinkSnapshot(sinks: [speakers, usb], defaultSink: "usb", linkedSink: 50),
                    SinkSnapshot(sinks: [speakers], defaultSink: "speakers", linkedSink: nil),
                ],
                [nil, .routeChanged(route: .speaker, reason: .oldDeviceUnavailable, device: "speakers", previousDevice: "usb")]
            ),
            // Lost with no default sink known and nothing linked: the speaker, no device.
            (
                [SinkSnapshot(sinks: [phones], linkedSink: 41), SinkSnapshot(sinks: [], linkedSink: nil)],
                [
                    .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "phones", previousDevice: nil),
                    .routeChanged(route: .speaker, reason: .oldDeviceUnavailable, device: nil, previousDevice: "phones"),
                ]
            ),
            // Lost, and the default is headphones: the fallback's route.
            (
                [
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "phones", linkedSink: 30),
                    SinkSnapshot(sinks: [phones], defaultSink: "phones", linkedSink: nil),
                ],
                [nil, .routeChanged(route: .headphones, reason: .oldDeviceUnavailable, device: "phones", previousDevice: "speakers")]
            ),
            // The default changes to a sink that was there and the stream follows: override.
            (
                [
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "speakers", linkedSink: 30),
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "phones", linkedSink: 30),
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "phones", linkedSink: nil),
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "phones", linkedSink: 41),
                ],
                [nil, nil, nil, .routeChanged(route: .headphones, reason: .override, device: "phones", previousDevice: "speakers")]
            ),
            // A headset plugged in becomes the default and the stream follows: newDeviceAvailable;
            // a move between two speaker sinks is still a route change (override).
            (
                [
                    SinkSnapshot(sinks: [speakers, phones], defaultSink: "speakers", linkedSink: 30),
                    SinkSnapshot(sinks: [speakers, phones, headset], defaultSink: "headset", linkedSink: 60),
                    SinkSnapshot(sinks: [speakers, phones, headset], defaultSink: "speakers", linkedSink: 30),
                ],
                [
                    nil, .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "headset", previousDevice: "speakers"),
                    .routeChanged(route: .speaker, reason: .override, device: "speakers", previousDevice: "headset"),
                ]
            ),
            // A link to a node that is not a sink (the watcher reports none) changes nothing.
            ([SinkSnapshot(sinks: [speakers], linkedSink: 99)], [nil]),
            // The laptop's card: headphones plugged into its jack (the active port switches on the
            // same sink), pulled out, then an unplugged headphones port (no auto switch): speaker.
            (
                [
                    SinkSnapshot(sinks: [analog(port: "speaker", .unknown)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "headphones", .yes)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "headphones", .yes)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "speaker", .unknown)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "headphones", .yes)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "headphones", .no)], linkedSink: 70),
                ],
                [
                    nil, .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "analog", previousDevice: "analog"), nil,
                    .routeChanged(route: .speaker, reason: .oldDeviceUnavailable, device: "analog", previousDevice: "analog"),
                    .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "analog", previousDevice: "analog"),
                    .routeChanged(route: .speaker, reason: .oldDeviceUnavailable, device: "analog", previousDevice: "analog"),
                ]
            ),
            // The port switches while the stream is unlinked: seen when it is linked again.
            (
                [
                    SinkSnapshot(sinks: [analog(port: "speaker", .unknown)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "headphones", .yes)], linkedSink: nil),
                    SinkSnapshot(sinks: [analog(port: "headphones", .yes)], linkedSink: 70),
                ],
                [nil, nil, .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "analog", previousDevice: "analog")]
            ),
            // Headphones → HDMI on the same sink: a new device; another property changing (the route
            // stays) is nothing.
            (
                [
                    SinkSnapshot(sinks: [analog(port: "headphones", .yes)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "hdmi", .yes)], linkedSink: 70),
                    SinkSnapshot(sinks: [analog(port: "line", .unknown)], linkedSink: 70),
                ],
                [
                    .routeChanged(route: .headphones, reason: .newDeviceAvailable, device: "analog", previousDevice: nil),
                    .routeChanged(route: .external, reason: .newDeviceAvailable, device: "analog", previousDevice: "analog"), nil,
                ]
            ),
            // A bluetooth sink that comes and becomes the default, then goes.
            (
                [
                    SinkSnapshot(sinks: [speakers], defaultSink: "speakers", linkedSink: 30),
                    SinkSnapshot(sinks: [speakers, buds], defaultSink: "buds", linkedSink: 80),
                    SinkSnapshot(sinks: [speakers], defaultSink: "speakers", linkedSink: nil),
                ],
                [
                    nil, .routeChanged(route: .bluetooth, reason: .newDeviceAvailable, device: "buds", previousDevice: "speakers"),
                    .routeChanged(route: .speaker, reason: .oldDeviceUnavailable, device: "speakers", previousDevice: "buds"),
                ]
            ),
        ] as [([SinkSnapshot], [OutputEvent?])])
    func theFollower(snapshots: [SinkSnapshot], expected: [OutputEvent?]) {
        var follower = RouteFollower()
        #expect(follower.route == .speaker)
        let events = snapshots.map { follower.update($0) }
        #expect(events == expected)
        let last = expected.compactMap { $0 }.last
        if case .routeChanged(let route, _, _, _) = last { #expect(follower.route == route) }
    }
}
