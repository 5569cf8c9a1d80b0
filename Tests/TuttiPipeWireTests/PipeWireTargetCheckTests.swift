import Foundation
import Testing
import TuttiEngine
import TuttiOutput
import TuttiPipeWire
import TuttiTestSupport

/// The library checks the sinks the settings name (main's target and each bus's) against the
/// daemon before anything plays: an unknown one is a `device` error naming the setting and
/// listing the sinks, without CLI wording.
@Suite(.serialized) struct PipeWireTargetCheckTests {
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aSinkTheDaemonDoesNotHaveIsAnErrorListingTheSinks() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let buses = engine.renderer.configuration.outputBuses
        #expect(buses == ["main", "cue"])
        func failure(_ settings: OutputSettings) -> TuttiError? {
            do {
                let output = try PipeWireOutput(
                    renderer: engine.renderer, settings: settings, remote: server.socket, log: nil, onEvent: nil)
                output.stop()
                return nil
            } catch {
                return error
            }
        }
        // A bus's destination the daemon does not have: init and probe fail the same way.
        var settings = OutputSettings()
        settings.busDestinations = ["main": [PipeWireServer.sink], "cue": ["nosuchsink"]]
        let bus = try #require(failure(settings), "a stream to an unknown sink was opened")
        #expect(bus.code == .device)
        #expect(
            bus.message
                == "busDestinations[\"cue\"] \"nosuchsink\": no PipeWire sink has that node.name or object.serial (the sinks: \(PipeWireServer.sink))",
            "\(bus.message)")
        #expect(!bus.message.contains("--"), "CLI wording in the library's message: \(bus.message)")
        #expect(throws: bus) { _ = try PipeWireOutput.probe(settings, channelCount: 2, busNames: buses, remote: server.socket) }
        #expect(throws: bus) { try PipeWireOutput.checkTargets(settings, busNames: buses, remote: server.socket) }
        // Main's target, by `device` and by its bus's destination.
        let device = try #require(failure(OutputSettings(device: "nosuchsink")))
        #expect(device.code == .device && device.message.hasPrefix("device \"nosuchsink\": no PipeWire sink"), "\(device.message)")
        settings.busDestinations = ["main": ["gone"]]
        let main = try #require(failure(settings))
        #expect(main.message.hasPrefix("busDestinations[\"main\"] \"gone\": no PipeWire sink"), "\(main.message)")
        // A sink named by its object.serial is taken; so is the bus's by its node.name.
        let sink = try #require(try PipeWireDevices.list(remote: server.socket).first { $0.name == PipeWireServer.sink })
        let serial = try #require(sink.serial)
        settings.busDestinations = ["main": [String(serial)], "cue": [PipeWireServer.sink]]
        try PipeWireOutput.checkTargets(settings, busNames: buses, remote: server.socket)
        #expect(failure(settings) == nil)
        // Nothing named: nothing to check, even with no daemon.
        try PipeWireOutput.checkTargets(OutputSettings(), busNames: buses, remote: "/nonexistent/pipewire-0")
    }
}
