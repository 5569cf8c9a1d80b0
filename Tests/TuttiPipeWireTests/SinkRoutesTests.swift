import Testing
import Tutti
import TuttiOutput
import TuttiPipeWire

/// The sinks as routes (pure): the form-factor table and the `RouteFollower`'s transitions,
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

    static let speakers = PipeWireSink(id: 30, name: "speakers", formFactor: "internal")
    static let phones = PipeWireSink(id: 41, name: "phones", formFactor: "headphones")
    static let usb = PipeWireSink(id: 50, name: "usb", formFactor: "", appeared: true)
    static let headset = PipeWireSink(id: 60, name: "headset", formFactor: "headset", appeared: true)

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
