import CPipeWire
import Foundation
import Glibc
import Testing
import Tutti
import TuttiPipeWire
import TuttiTestSupport

/// The desktop's sinks drive the policy's route: `tutti play --backend pipewire` against a
/// private daemon (in `PlayPipeWireCommandTests`, serialized with the other daemon tests),
/// checked through its live journal (`--events`). The transitions themselves are
/// `SinkRoutesTests` (pure).
extension PlayPipeWireCommandTests {
    /// A playback scene of `seconds` (a looping tone in session "music") at 48 kHz.
    static func musicScene(seconds: Double) -> String { toneScene(seconds: seconds, sampleRate: 48_000) }

    /// `tutti play` of `scene` with `arguments`, stdin a FIFO held open (control lines stay
    /// possible: the scene is decided --control-lookahead ahead), stderr and stdout in `dir`.
    final class Playing {
        let pid: pid_t
        let dir: String
        let events: String
        private let input: Int32
        private var reaped = false

        init(_ server: PipeWireServer, scene: String, dir: String, arguments: [String]) throws {
            self.dir = dir
            events = dir + "/events.jsonl"
            try scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
            let fifo = dir + "/stdin"
            guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(.EIO) }
            input = open(fifo, O_RDWR | O_CLOEXEC)
            var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
            for (k, v) in server.clientEnvironment { env[k] = v }
            pid = try spawnChild(
                [Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--events", events, "--no-mpris"] + arguments,
                environment: env.map { "\($0.key)=\($0.value)" }, stdin: fifo, stdout: dir + "/out", stderr: .file(dir + "/err"))
        }

        deinit {
            if !reaped {
                kill(pid, SIGKILL)
                _ = waitForChild(pid)
            }
            close(input)
        }

        var stderr: String { (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "" }
        var stdout: String { (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? "" }
        var journal: [String] { ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        var routeChanges: [String] { journal.filter { $0.contains(#""type":"routeChange""#) } }

        /// Whether the process still runs (not exited, not a zombie).
        var isRunning: Bool { !reaped && PipeWireServer.isAlive(pid) }

        /// Waits for the exit; its status (a signal's number when one ended it).
        func wait() -> Int32 {
            let status = waitForChild(pid)
            reaped = true
            return status
        }
    }

    /// The sink the stream plays to is destroyed mid-play (`pw-cli destroy`, as unplugging
    /// headphones would): the live journal has the route change `oldDeviceUnavailable`
    /// (headphones → speaker) and the playback session's source paused by it; PipeWire moves the
    /// stream to the default sink (testsink) and playback goes on to the scene's end, exit 0.
    /// The headphones sink (`device.form-factor` headphones) it was linked to at start is
    /// the `headphones` route first (`newDeviceAvailable`).
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aLostSinkIsARouteChangeThatPausesMedia() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        try server.addSink("phones", formFactor: "headphones")
        let dir = makeTemporaryFolder("tutti-pw-route-lost")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let play = try Playing(server, scene: Self.musicScene(seconds: 8), dir: dir, arguments: ["--target", "phones"])
        #expect(eventually(20) { play.stderr.contains("render thread:") }, "\(play.stderr)")
        let toHeadphones = #""type":"routeChange","reason":"newDeviceAvailable","previous":"speaker","current":"headphones""#
        #expect(eventually(10) { play.routeChanges.contains { $0.contains(toHeadphones) } }, "\(play.journal) \(play.stderr)")
        #expect(!play.journal.contains { $0.contains(#""type":"sourcePaused""#) }, "\(play.journal)")

        try server.destroyNode("phones")
        let lost = #""type":"routeChange","reason":"oldDeviceUnavailable","previous":"headphones","current":"speaker""#
        #expect(eventually(10) { play.routeChanges.contains { $0.contains(lost) } }, "\(play.journal) \(play.stderr)")
        let paused = #""type":"sourcePaused","source":"tone","reason":"routeChange""#
        #expect(eventually(5) { play.journal.contains { $0.contains(paused) } }, "\(play.journal)")
        #expect(play.isRunning, "\(play.stderr)")
        #expect(eventually(5) { play.stderr.contains("route: speaker (oldDeviceUnavailable): phones → testsink") }, "\(play.stderr)")

        let status = play.wait()
        #expect(status == 0, "\(play.stderr)")
        #expect(play.stdout.contains("played 8.00 s"), "\(play.stdout)")
        // The move to testsink was already the loss's fallback: two route changes in all.
        #expect(play.routeChanges.count == 2, "\(play.routeChanges)")
    }

    /// The default sink changes (`pw-metadata … default.configured.audio.sink`) and the stream,
    /// which has no `--target`, follows it: to a headset sink added while playing is
    /// `newDeviceAvailable` (speaker → headphones), back to testsink (there from the start) is
    /// `override` (headphones → speaker). Neither pauses the playback session; exit 0.
    @Test(.enabled(if: PipeWireServer.isAvailable && Self.pwMetadata != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func followingTheDefaultSinkIsARouteChange() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-route-default")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let play = try Playing(server, scene: Self.musicScene(seconds: 8), dir: dir, arguments: [])
        #expect(eventually(20) { play.stderr.contains("render thread:") }, "\(play.stderr)")
        try server.addSink("headset", formFactor: "headset")
        usleep(300_000)
        #expect(play.routeChanges.isEmpty, "a sink added but not played to changed the route: \(play.routeChanges)")

        try Self.setDefaultSink(server, "headset")
        let toHeadset = #""type":"routeChange","reason":"newDeviceAvailable","previous":"speaker","current":"headphones""#
        #expect(eventually(10) { play.routeChanges.contains { $0.contains(toHeadset) } }, "\(play.journal) \(play.stderr)")
        try Self.setDefaultSink(server, PipeWireServer.sink)
        let back = #""type":"routeChange","reason":"override","previous":"headphones","current":"speaker""#
        #expect(eventually(10) { play.routeChanges.contains { $0.contains(back) } }, "\(play.journal) \(play.stderr)")
        #expect(play.isRunning, "\(play.stderr)")

        #expect(play.wait() == 0, "\(play.stderr)")
        #expect(play.routeChanges.count == 2, "\(play.routeChanges)")
        #expect(!play.journal.contains { $0.contains(#""type":"sourcePaused""#) }, "\(play.journal)")
        #expect(play.stderr.contains("route: headphones (newDeviceAvailable): testsink → headset"), "\(play.stderr)")
    }

    static let pwMetadata = Tool.find("pw-metadata")

    /// Makes `sink` the configured default (WirePlumber then sets default.audio.sink to it).
    static func setDefaultSink(_ server: PipeWireServer, _ sink: String) throws {
        let set = try Tool.run(
            [pwMetadata!, "0", "default.configured.audio.sink", #"{"name":"\#(sink)"}"#, "Spa:String:JSON"],
            environment: server.clientEnvironment)
        #expect(set.status == 0, "\(set.stdout) \(set.stderr)")
    }

    /// The host API: an `AudioEngine` playing through PipeWire (`startOutput`) to a headphones
    /// sink gets `routeChanged` speaker → headphones, then, the sink destroyed,
    /// `oldDeviceUnavailable` headphones → speaker; its playback session's source is paused
    /// and stays paused while the output plays on (to testsink).
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theHostAPIPausesMediaWhenTheSinkGoes() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        try server.addSink("phones", formFactor: "headphones")
        let engine = try AudioEngine()
        let music = try engine.makeSession(named: "music", category: .playback)
        let song = try music.makeToneSource(frequency: 440, amplitude: 0.5)
        try song.play()
        var configuration = OutputConfiguration()
        configuration.backend = .pipewire
        configuration.device = "phones"
        try engine.startOutput(configuration, pipeWireRemote: server.socket)
        defer { engine.stopOutput() }
        var kinds: [AudioEvent.Kind] = []
        func routes() -> [AudioEvent.Kind] {
            kinds += engine.pollEvents().map(\.kind)
            return kinds.filter { if case .routeChanged = $0 { true } else { false } }
        }
        #expect(eventually(10) { !routes().isEmpty }, "\(kinds)")
        #expect(routes().first == .routeChanged(reason: .newDeviceAvailable, previous: .speaker, current: .headphones))
        // Rendering (the status board is published by the render side): the song plays.
        let playing = eventually(5) { engine.framesRendered >= 24_000 && (try? song.state) == .playing }
        #expect(playing, "\(String(describing: try? song.state))")

        try server.destroyNode("phones")
        #expect(eventually(10) { routes().count == 2 }, "\(kinds)")
        #expect(routes().last == .routeChanged(reason: .oldDeviceUnavailable, previous: .headphones, current: .speaker))
        #expect(eventually(5) { (try? song.state) == .paused })
        let rendered = engine.framesRendered
        #expect(eventually(5) { engine.framesRendered > rendered + 24_000 }, "the output stopped after the sink went")
        #expect(try song.state == .paused, "media resumed by itself")
        #expect(engine.isOutputRunning)
    }

    /// The watcher's view of the sinks, from the C shim up: testsink (there at start, the
    /// default, no form factor); a sink added while watching comes with its form factor and
    /// `appeared`; a destroyed one leaves the list; with no stream node nothing is linked.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theWatcherSeesTheSinksAndTheDefault() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let watcher = try OtherAudioWatcher(remote: server.socket, onChange: { _ in })
        defer { watcher.close() }
        #expect(eventually(10) { watcher.sinks?.defaultSink == PipeWireServer.sink }, "\(String(describing: watcher.sinks))")
        let start = try #require(watcher.sinks)
        #expect(start.sinks.map(\.name) == [PipeWireServer.sink])
        #expect(start.sinks.first?.formFactor == "" && start.sinks.first?.appeared == false)
        #expect(start.linkedSink == nil)

        try server.addSink("phones", formFactor: "headphones")
        #expect(eventually(10) { watcher.sinks?.sinks.contains { $0.name == "phones" } == true }, "\(String(describing: watcher.sinks))")
        let phones = try #require(watcher.sinks?.sinks.first { $0.name == "phones" })
        #expect(phones.formFactor == "headphones" && phones.appeared && phones.route == .headphones)
        #expect(try server.nodeID("phones") == Int(phones.id))

        try server.destroyNode("phones")
        #expect(eventually(10) { watcher.sinks?.sinks.map(\.name) == [PipeWireServer.sink] }, "\(String(describing: watcher.sinks))")
        #expect(watcher.route == .speaker)
    }

    /// Sinks made in the daemon with a real device's node properties map as the route table
    /// says, read from the daemon by the C shim: `device.api=bluez5` (and a headphone form
    /// factor) is `bluetooth`, `api.bluez5.address` alone is `bluetooth` (its API read as
    /// bluez5), `device.bus=usb` is `external`, a `device.bus=usb` headset is `headphones`, and
    /// `device.api=alsa device.bus=pci` with no device object (so no active port) is `speaker`.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theWatcherMapsDeviceProperties() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let watcher = try OtherAudioWatcher(remote: server.socket, onChange: { _ in })
        defer { watcher.close() }
        #expect(eventually(10) { watcher.sinks != nil }, "\(String(describing: watcher.sinks))")
        try server.addSink("buds", formFactor: "headphone", properties: ["device.api": "bluez5", "device.bus": "bluetooth"])
        try server.addSink("bluez-addr", formFactor: nil, properties: ["api.bluez5.address": "00:11:22:33:44:55"])
        try server.addSink("dac", formFactor: nil, properties: ["device.api": "alsa", "device.bus": "usb"])
        try server.addSink("usb-headset", formFactor: "headset", properties: ["device.bus": "usb"])
        try server.addSink("card", formFactor: "internal", properties: ["device.api": "alsa", "device.bus": "pci"])
        let names: Set = ["buds", "bluez-addr", "dac", "usb-headset", "card"]
        #expect(
            eventually(10) { Set(watcher.sinks?.sinks.map(\.name) ?? []).isSuperset(of: names) }, "\(String(describing: watcher.sinks))")
        let sinks = Dictionary(uniqueKeysWithValues: (watcher.sinks?.sinks ?? []).map { ($0.name, $0) })
        #expect(sinks["buds"]?.deviceAPI == "bluez5" && sinks["buds"]?.bus == "bluetooth" && sinks["buds"]?.route == .bluetooth)
        #expect(sinks["bluez-addr"]?.deviceAPI == "bluez5" && sinks["bluez-addr"]?.route == .bluetooth)
        #expect(sinks["dac"]?.bus == "usb" && sinks["dac"]?.route == .external)
        #expect(sinks["usb-headset"]?.route == .headphones)
        #expect(sinks["card"]?.route == .speaker && sinks["card"]?.portType == "" && sinks["card"]?.portAvailability == .unknown)
        #expect(sinks[PipeWireServer.sink]?.route == .speaker)
    }

    /// A sound card exported to the private daemon by this process (`tpw_test_device_open`: a
    /// device implemented in the shim, exported as WirePlumber exports the ALSA cards) with one
    /// active output Route for profile device 6, and a null sink that belongs to it
    /// (`device.id`, `card.profile.device` 6) as the card's analog sink would.
    final class TestCard {
        let pointer: OpaquePointer
        let id: UInt32

        init(_ server: PipeWireServer, port: String, available: UInt32) throws {
            var id: UInt32 = 0
            var message = [CChar](repeating: 0, count: 256)
            guard let pointer = tpw_test_device_open(server.socket, "tutti_test_card", 6, port, available, &id, &message, message.count)
            else {
                throw Failure(message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            self.pointer = pointer
            self.id = id
            try server.addSink("card", formFactor: "internal", properties: ["device.id": "\(id)", "card.profile.device": "6"])
        }

        struct Failure: Error { let message: String }

        /// The card's active port switches (2: plugged in, 1: unplugged, 0: unknown).
        /// nil: no active output route (only an input one: an input-only profile).
        func setRoute(_ port: String?, available: UInt32) { tpw_test_device_set_route(pointer, port, available) }

        deinit { tpw_test_device_close(pointer) }
    }

    /// The watcher reads a card's active port from the daemon: the sink is reported with its
    /// device's Route (port.type speaker, then headphones plugged in, unplugged, HDMI, then no output
    /// route, only an input one) and the device's `device.api` (the sink has none of its own), and maps it
    /// as the table says.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theWatcherReadsTheCardsActivePort() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let watcher = try OtherAudioWatcher(remote: server.socket, onChange: { _ in })
        defer { watcher.close() }
        let card = try TestCard(server, port: "speaker", available: 0)
        func sink() -> PipeWireSink? { watcher.sinks?.sinks.first { $0.name == "card" } }
        #expect(eventually(10) { sink() != nil }, "\(String(describing: watcher.sinks))")
        #expect(sink()?.portType == "speaker" && sink()?.portAvailability == .unknown, "\(String(describing: sink()))")
        #expect(sink()?.deviceAPI == "tutti-test" && sink()?.route == .speaker, "\(String(describing: sink()))")

        card.setRoute("headphones", available: 2)
        #expect(eventually(10) { sink()?.portType == "headphones" }, "\(String(describing: sink()))")
        #expect(sink()?.portAvailability == .yes && sink()?.route == .headphones, "\(String(describing: sink()))")
        card.setRoute("headphones", available: 1)
        #expect(eventually(10) { sink()?.portAvailability == .no }, "\(String(describing: sink()))")
        #expect(sink()?.route == .speaker)
        card.setRoute("hdmi", available: 2)
        #expect(eventually(10) { sink()?.route == .external }, "\(String(describing: sink()))")
        // No active output route any more (an input-only profile: its Route is the mic's): the
        // routes enumerated replace the old ones as a whole, and input routes are not the sink's.
        card.setRoute(nil, available: 0)
        #expect(eventually(10) { sink()?.portType == "" }, "\(String(describing: sink()))")
        #expect(sink()?.route == .speaker && sink()?.portAvailability == .unknown)
    }

    /// The host API playing to the card's sink: headphones plugged into its jack (the active
    /// Route switches, the sink stays) are `newDeviceAvailable` speaker → headphones; pulled out
    /// (back to the speaker port) `oldDeviceUnavailable` headphones → speaker, and the playback
    /// session's source pauses while the output plays on.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func headphonesInTheJackAreARouteChange() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let card = try TestCard(server, port: "speaker", available: 0)
        let engine = try AudioEngine()
        let music = try engine.makeSession(named: "music", category: .playback)
        let song = try music.makeToneSource(frequency: 440, amplitude: 0.5)
        try song.play()
        var configuration = OutputConfiguration()
        configuration.backend = .pipewire
        configuration.device = "card"
        try engine.startOutput(configuration, pipeWireRemote: server.socket)
        defer { engine.stopOutput() }
        var kinds: [AudioEvent.Kind] = []
        func routes() -> [AudioEvent.Kind] {
            kinds += engine.pollEvents().map(\.kind)
            return kinds.filter { if case .routeChanged = $0 { true } else { false } }
        }
        #expect(eventually(5) { engine.framesRendered >= 24_000 && (try? song.state) == .playing })
        #expect(routes().isEmpty, "the card's speaker changed the route: \(kinds)")

        card.setRoute("headphones", available: 2)
        #expect(eventually(10) { !routes().isEmpty }, "\(kinds)")
        #expect(routes().first == .routeChanged(reason: .newDeviceAvailable, previous: .speaker, current: .headphones))
        #expect(try song.state == .playing)

        card.setRoute("speaker", available: 0)
        #expect(eventually(10) { routes().count == 2 }, "\(kinds)")
        #expect(routes().last == .routeChanged(reason: .oldDeviceUnavailable, previous: .headphones, current: .speaker))
        #expect(eventually(5) { (try? song.state) == .paused })
        let rendered = engine.framesRendered
        #expect(eventually(5) { engine.framesRendered > rendered + 24_000 }, "the output stopped")
        #expect(engine.isOutputRunning)
    }
}
