import Foundation
import Glibc
import Testing
import Tutti
import TuttiPipeWire
import TuttiTestSupport

// The listing of a daemon's audio nodes (`PipeWireDevices`), and `tutti devices` / `tutti play
// --target` over it, against a private daemon (`PipeWireServer`). In the two existing suites
// (serialized), so that no more daemons run at once than before: on a loaded machine a third
// suite's daemons in parallel leave gaps in the play tests' recordings.

/// A source the tests add to the daemon (`pw-cli create-node`, lingering): 3 channels at
/// 44.1 kHz (neither is a node property: they come from its EnumFormat), with a description.
private func addSource(_ server: PipeWireServer) throws {
    let created = try server.cli([
        "create-node", "adapter",
        "{ factory.name = support.null-audio-sink node.name = testsource media.class = Audio/Source/Virtual "
            + "audio.position = [ FL FR FC ] node.description = \"Test source\" object.linger = true }",
    ])
    #expect(created.status == 0, "\(created.stdout) \(created.stderr)")
}

extension PipeWireOutputTests {
    /// The null sink is listed with its name, media.class, rate (its `audio.rate` property) and
    /// channels (from its EnumFormat: it has no `audio.channels`); an added source with its
    /// description, its 3 channels and its format's rate; nothing else but audio devices.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func listsTheSinksAndSources() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        try addSource(server)
        let nodes = try PipeWireDevices.list(remote: server.socket)
        let sink = try #require(nodes.first { $0.name == PipeWireServer.sink }, "\(nodes)")
        #expect(sink.mediaClass == "Audio/Sink")
        #expect(sink.sampleRate == 48_000)
        #expect(sink.channelCount == 2)
        #expect(sink.isSink && !sink.isSource)
        let serial = try #require(sink.serial, "no object.serial")
        #expect(sink.isNamed(by: "testsink") && sink.isNamed(by: String(serial)) && !sink.isNamed(by: "testsin"))
        let source = try #require(nodes.first { $0.name == "testsource" }, "\(nodes)")
        #expect(source.mediaClass == "Audio/Source/Virtual")
        #expect(source.description == "Test source")
        #expect(source.channelCount == 3)
        #expect(source.sampleRate != nil)
        #expect(source.isSource && !source.isSink)
        // The drivers (Dummy-Driver, Freewheel-Driver) and clients are not audio devices.
        #expect(nodes.map(\.name).sorted() == ["testsink", "testsource"], "\(nodes)")
    }

    /// No daemon at the socket: a `device` error naming it.
    @Test(.enabled(if: PipeWireOutputTests.libraryLoads, "libpipewire-0.3.so.0 is not installed"))
    func aMissingDaemonIsADeviceError() throws {
        let dir = makeTemporaryFolder("tutti-pw-list-none")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            _ = try PipeWireDevices.list(remote: dir + "/pipewire-0")
            Issue.record("listed without a daemon")
        } catch {
            #expect(error.code == .device)
            #expect(error.message.hasPrefix("no PipeWire daemon answers at \(dir)/pipewire-0 ("), "\(error.message)")
        }
    }

}

extension PlayPipeWireCommandTests {
    /// `tutti devices --backend pipewire` lists the sink and the source under their headings;
    /// `tutti devices` (auto) picks PipeWire when its daemon answers and says so on stderr.
    @Test(
        .enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theDevicesCommandListsTheNodes() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        try addSource(server)
        var environment = server.clientEnvironment
        environment["JACK_DEFAULT_SERVER"] = "tutti-no-server-\(getpid())"
        for arguments in [["--backend", "pipewire"], []] {
            let r = try Tool.run([Tool.tutti!, "devices"] + arguments, environment: environment)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            let expected = [
                "PipeWire sinks (tutti play --backend pipewire --target NAME):", "    testsink (Audio/Sink, 48000 Hz, 2 ch)",
                "PipeWire sources:", "    testsource (Audio/Source/Virtual, ",
            ]
            #expect(r.stdout.contains(expected.joined(separator: "\n")), "\(arguments): \(r.stdout)")
            #expect(r.stdout.contains(", 3 ch): Test source\n"), "\(arguments): \(r.stdout)")
            #expect(r.stderr == (arguments.isEmpty ? "tutti: backend: pipewire (auto)\n" : ""), "\(arguments): \(r.stderr)")
        }
    }

    /// No daemon: exit 1 with the library's message and the CLI's way out.
    @Test(.enabled(if: PipeWireOutputTests.libraryLoads, "libpipewire-0.3.so.0 is not installed"))
    func theDevicesCommandWithoutADaemonIsAClearError() throws {
        let dir = makeTemporaryFolder("tutti-pw-devices-none")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Tool.run(
            [Tool.tutti!, "devices", "--backend", "pipewire"],
            environment: ["XDG_RUNTIME_DIR": dir, "PIPEWIRE_REMOTE": "pipewire-0", "PIPEWIRE_RUNTIME_DIR": dir])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        #expect(
            r.stderr.contains("no PipeWire daemon answers at \(dir)/pipewire-0 (")
                && r.stderr.contains("(start pipewire, or use --backend alsa|jack)"), "\(r.stderr)")
    }

    /// `tutti play --target` (or `--bus-output main=`) naming no sink: exit 1 before anything plays,
    /// an error naming the option and listing the sinks (a source is not one).
    @Test(
        .enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func anUnknownTargetListsTheSinks() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        try addSource(server)
        let dir = makeTemporaryFolder("tutti-pw-target")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PlayPipeWireCommandTests.toneScene(seconds: 1, sampleRate: 48_000)
            .write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        for (extra, option) in [
            (["--target", "nosuch"], "--target nosuch"), (["--bus-output", "main=nosuch"], "--bus-output main=nosuch"),
            (["--target", "testsource"], "--target testsource"),
        ] {
            let play = try Tool.run(
                [Tool.tutti!, "play", dir + "/tone.json", "--backend", "pipewire"] + extra, environment: server.clientEnvironment)
            #expect(play.status == 1, "\(extra): \(play.stderr)")
            #expect(!play.stdout.contains("played"), "\(extra): \(play.stdout)")
            #expect(
                play.stderr.contains(
                    "\(option): no PipeWire sink has that node.name or object.serial (the sinks: testsink; `tutti devices --backend pipewire` lists them)"
                ), "\(extra): \(play.stderr)")
        }
    }
}
