import Foundation
import Glibc
import Testing
import TuttiTestSupport

/// `tutti play`'s MPRIS server, on a private session bus, playing to the `null` PCM.
@Suite(
    .serialized,
    .enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle (swift build --build-tests builds it)"),
    .enabled(if: PrivateSessionBus.isAvailable, "needs dbus-daemon, dbus-send and dbus-monitor (the Debian package dbus)"))
struct PlayMPRISTests {
    static let name = "org.mpris.MediaPlayer2.tutti"

    /// The journal entries of a remote command at `frame`, without frame and time.
    static func entries(_ lines: [String], at frame: Int64) -> [String] {
        lines.filter { TuttiALSATests.frame(of: $0) == frame }.map { line in
            // {"frame":F,"time":T,"type":… → {"type":…
            guard let r = line.range(of: "\"type\":") else { return line }
            return "{" + line[r.lowerBound...]
        }
    }

    /// Pause over D-Bus reaches the now-playing session through the policy's remote rule (the
    /// same entries as the control line `remote pause`), and the properties follow it.
    @Test func transportMethodsGoThroughThePolicyAndPropertiesFollow() throws {
        let bus = try PrivateSessionBus()
        let dir = bus.directory
        try journalScene(seconds: 120).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let events = dir + "/play.jsonl"
        let play = try LivePlay(
            [dir + "/scene.json", "--backend", "alsa", "--device", "null", "--events", events],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(eventually(20) { play.stderr.contains("MPRIS: \(Self.name) on the session bus") }, "\(play.stderr)")
        #expect(try bus.names().contains("\"\(Self.name)\""))
        // After the scene's own remote events (1.25 s, 1.5 s): music plays.
        #expect(eventually(20) { jsonLines(events).contains { $0.contains("\"type\":\"volumeChanged\"") } })
        #expect(
            eventually(10) {
                (try? bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout)?.contains("\"Playing\"") == true
            })
        let identity = try bus.property(Self.name, "org.mpris.MediaPlayer2", "Identity")
        #expect(identity.status == 0 && identity.stdout.contains("\"Tutti\""), "\(identity.stdout)\(identity.stderr)")
        let metadata = try bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "Metadata")
        #expect(metadata.stdout.contains("object path \"/org/tutti/session/music\""), "\(metadata.stdout)")
        #expect(metadata.stdout.contains("string \"music\""), "\(metadata.stdout)")
        for (interface, property, value) in [
            ("org.mpris.MediaPlayer2", "CanQuit", "boolean false"), ("org.mpris.MediaPlayer2", "HasTrackList", "boolean false"),
            ("org.mpris.MediaPlayer2.Player", "CanControl", "boolean true"), ("org.mpris.MediaPlayer2.Player", "CanGoNext", "boolean true"),
        ] {
            let r = try bus.property(Self.name, interface, property)
            #expect(r.stdout.contains(value), "\(property): \(r.stdout)\(r.stderr)")
        }

        // PropertiesChanged, as a client sees it.
        let monitor = try Child(
            ["/usr/bin/dbus-monitor", "--address", bus.address, "type='signal',interface='org.freedesktop.DBus.Properties'"],
            stdout: dir + "/monitor.out")
        defer { monitor.stop() }
        usleep(300_000)
        let pause = try bus.call(Self.name, "Pause")
        #expect(pause.status == 0, "\(pause.stderr)")
        let late: Int64 = 72_000 // after the scene's own remote play (1.5 s)
        func remote(_ command: String) -> [String] {
            jsonLines(events).filter {
                $0.contains("\"type\":\"remoteCommand\"") && $0.contains("\"command\":\"\(command)\"") && frame(of: $0) > late
            }
        }
        #expect(eventually(10) { remote("pause").count == 1 }, "\(jsonLines(events))")
        #expect(play.isRunning, "the play ended before the checks")
        let viaDBus = try #require(remote("pause").first)
        #expect(viaDBus.contains("\"session\":\"music\""), "\(viaDBus)")
        #expect(
            eventually(5) {
                (try? bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout)?.contains("\"Paused\"") == true
            })
        #expect(play.stderr.contains("control: remote pause (MPRIS) at "), "\(play.stderr)")
        #expect(
            eventually(5) {
                let signals = (try? String(contentsOfFile: dir + "/monitor.out", encoding: .utf8)) ?? ""
                return signals.contains("member=PropertiesChanged") && signals.contains("string \"Paused\"")
            }, "\((try? String(contentsOfFile: dir + "/monitor.out", encoding: .utf8)) ?? "")")

        // Play again, then the same pause as a control line: the same entries.
        #expect(try bus.call(Self.name, "Play").status == 0)
        #expect(eventually(10) { remote("play").count == 1 })
        #expect(
            eventually(5) {
                (try? bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout)?.contains("\"Playing\"") == true
            })
        play.send("remote pause")
        #expect(eventually(10) { remote("pause").count == 2 })
        let lines = jsonLines(events)
        let pauses = remote("pause")
        let fromDBus = Self.entries(lines, at: frame(of: pauses[0]))
        let fromLine = Self.entries(lines, at: frame(of: pauses[1]))
        #expect(fromDBus.count >= 2, "\(fromDBus)") // remoteCommand + sourcePaused
        #expect(fromDBus == fromLine)

        // Malformed calls: an error reply, nothing changes.
        let before = jsonLines(events).count
        let withArgument = try bus.call(Self.name, "Pause", ["string:now"])
        #expect(withArgument.status != 0)
        #expect(withArgument.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(withArgument.stderr)")
        let unknown = try bus.call(Self.name, "Shuffle")
        #expect(unknown.stderr.contains("org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown.stderr)")
        let noProperty = try bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "Volume")
        #expect(noProperty.stderr.contains("org.freedesktop.DBus.Error.UnknownProperty"), "\(noProperty.stderr)")
        let set = try bus.send([
            "--dest=\(Self.name)", "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player",
            "string:PlaybackStatus", "variant:string:Playing",
        ])
        #expect(set.stderr.contains("org.freedesktop.DBus.Error.PropertyReadOnly"), "\(set.stderr)")
        let seek = try bus.call(Self.name, "Seek", ["int64:1000000"])
        #expect(seek.stderr.contains("org.freedesktop.DBus.Error.NotSupported"), "\(seek.stderr)")
        usleep(300_000)
        #expect(jsonLines(events).count == before)
        #expect(try bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout.contains("\"Paused\""))

        play.closeInput()
        #expect(play.wait(seconds: 120) == 0, "\(play.stderr)")
        // The name goes with the process.
        #expect(try !bus.names().contains("\"\(Self.name)\""))
    }

    /// A second `tutti play` on the same bus takes the name with .instance<PID>.
    @Test func aSecondPlayerTakesAnInstanceName() throws {
        let bus = try PrivateSessionBus()
        let dir = bus.directory
        try journalScene(seconds: 120).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let arguments = [dir + "/scene.json", "--backend", "alsa", "--device", "null"]
        let first = try LivePlay(arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(eventually(20) { first.stderr.contains("MPRIS: \(Self.name) on the session bus") }, "\(first.stderr)")
        let second = try LivePlay(arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let instance = "\(Self.name).instance\(second.pid)"
        #expect(eventually(20) { second.stderr.contains("MPRIS: \(instance) on the session bus") }, "\(second.stderr)")
        #expect(try bus.names().contains("\"\(instance)\""))
        // Both past the scene's own remote pause and play (1.25 s, 1.5 s).
        for name in [Self.name, instance] {
            #expect(eventually(20) { (try? bus.position(name)) ?? 0 > 2_000_000 }, "\(name)")
            #expect(try bus.property(name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout.contains("\"Playing\""))
        }
        #expect(try bus.call(instance, "Pause").status == 0)
        #expect(
            eventually(5) {
                (try? bus.property(instance, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout)?.contains("\"Paused\"") == true
            })
        #expect(try bus.property(Self.name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout.contains("\"Playing\""))
        first.terminate()
        second.terminate()
    }

    /// --no-mpris: the name never appears.
    @Test func noMPRISLeavesTheBusAlone() throws {
        let bus = try PrivateSessionBus()
        let dir = bus.directory
        try journalScene(seconds: 120).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let play = try LivePlay(
            [dir + "/scene.json", "--backend", "alsa", "--device", "null", "--no-mpris"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(eventually(20) { play.stderr.contains("render thread:") }, "\(play.stderr)")
        usleep(200_000)
        #expect(play.isRunning)
        #expect(try !bus.names().contains("org.mpris.MediaPlayer2.tutti"))
        #expect(!play.stderr.contains("MPRIS"), "\(play.stderr)")
        play.terminate()
    }

    /// No session bus: one warning line, and the scene plays to the end.
    @Test func withoutASessionBusOneLineAndPlaybackGoesOn() throws {
        let dir = makeTemporaryFolder("tutti-no-bus")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try journalScene(seconds: 2.5).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let play = try Tool.run(
            [Tool.tutti!, "play", dir + "/scene.json", "--backend", "alsa", "--device", "null"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(dir)/no-bus", "XDG_RUNTIME_DIR": dir + "/no-runtime"])
        #expect(play.status == 0, "\(play.stderr)")
        let warnings = play.stderr.split(separator: "\n").filter { $0.contains("MPRIS") }
        #expect(warnings.count == 1, "\(play.stderr)")
        #expect(warnings.first?.hasPrefix("tutti: MPRIS is off: ") == true, "\(play.stderr)")
        #expect(play.stdout.contains("played 2.50 s in "), "\(play.stdout)")
    }
}
