import Foundation
import Glibc
import Testing
import Tutti
import TuttiTestSupport

/// The library's MPRIS server (`OutputConfiguration.mpris`) on an `AudioEngine` playing to
/// ALSA's `null` PCM, on a private session bus given by its address
/// (`OutputConfiguration.mprisBusAddress`: the process's environment is not touched, as
/// other suites run in parallel). The checks name the engine's own name and process.
@Suite(.serialized, .enabled(if: PrivateSessionBus.isAvailable, "needs dbus-daemon, dbus-send and dbus-monitor (the Debian package dbus)"))
struct EngineMPRISTests {
    static let name = "org.mpris.MediaPlayer2.tutti"

    /// An engine with a music session answering every remote command, its tone playing.
    static func musicEngine() throws -> (AudioEngine, SessionHandle, SourceHandle) {
        let engine = try AudioEngine()
        let music = try engine.makeSession(
            SessionConfiguration(id: "music", category: .playback, remoteCommands: Set(RemoteCommand.allCases)))
        let tone = try music.makeToneSource(frequency: 440, amplitude: 0.1)
        try music.setActive(true)
        try tone.play()
        return (engine, music, tone)
    }

    static func status(_ bus: PrivateSessionBus, _ name: String) -> String? {
        try? bus.property(name, "org.mpris.MediaPlayer2.Player", "PlaybackStatus").stdout
    }

    /// Whether this process owns an MPRIS name of tutti's on `bus`.
    static func ownsAName(_ bus: PrivateSessionBus) throws -> Bool {
        let names = try bus.names()
        let candidates = [name, "\(name).instance\(getpid())"].filter { names.contains("\"\($0)\"") }
        return try candidates.contains { candidate in
            let pid = try bus.send([
                "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                "string:\(candidate)",
            ]).stdout
            return pid.contains("uint32 \(getpid())")
        }
    }

    /// PlayPause over D-Bus reaches the now-playing session through rule 8 (its tone pauses,
    /// then plays again), and PlaybackStatus and Metadata follow the engine with no host
    /// polling; stopping the output releases the name.
    @Test func playPauseReachesTheNowPlayingSession() throws {
        let bus = try PrivateSessionBus()
        let (engine, _, tone) = try Self.musicEngine()
        var config = OutputConfiguration()
        config.device = "null"
        config.periodFrames = 256
        config.mpris = true
        config.mprisBusAddress = bus.address
        try engine.startOutput(config)
        defer { engine.stopOutput() }
        #expect(engine.mprisError == nil, "\(engine.mprisError ?? "")")
        let name = try #require(engine.mprisName)
        #expect(name == Self.name || name == "\(Self.name).instance\(getpid())", "\(name)")
        #expect(try bus.names().contains("\"\(name)\""))
        #expect(try Self.ownsAName(bus))
        #expect(eventually(5) { Self.status(bus, name)?.contains("\"Playing\"") == true }, "\(Self.status(bus, name) ?? "")")
        let metadata = try bus.property(name, "org.mpris.MediaPlayer2.Player", "Metadata").stdout
        #expect(metadata.contains("/org/tutti/session/music"), "\(metadata)")

        let pause = try bus.call(name, "PlayPause")
        #expect(pause.status == 0, "\(pause.stderr)")
        #expect(eventually(5) { (try? tone.state) == .paused }, "\(String(describing: try? tone.state))")
        #expect(eventually(5) { Self.status(bus, name)?.contains("\"Paused\"") == true }, "\(Self.status(bus, name) ?? "")")
        let play = try bus.call(name, "PlayPause")
        #expect(play.status == 0, "\(play.stderr)")
        #expect(eventually(5) { (try? tone.state) == .playing })
        #expect(eventually(5) { Self.status(bus, name)?.contains("\"Playing\"") == true }, "\(Self.status(bus, name) ?? "")")
        // Position follows the frames rendered.
        let first = try #require(try bus.position(name))
        usleep(200_000)
        #expect(eventually(5) { ((try? bus.position(name)) ?? nil).map { $0 > first } == true })

        engine.stopOutput()
        #expect(engine.mprisName == nil)
        #expect(try !bus.names().contains("\"\(name)\""))
        #expect(try !Self.ownsAName(bus))
    }

    /// Off by default: an output started without `mpris` leaves the bus alone.
    @Test func offByDefault() throws {
        let bus = try PrivateSessionBus()
        let (engine, _, _) = try Self.musicEngine()
        var config = OutputConfiguration()
        config.device = "null"
        #expect(!config.mpris)
        config.mprisBusAddress = bus.address
        try engine.startOutput(config)
        defer { engine.stopOutput() }
        usleep(200_000)
        #expect(engine.mprisName == nil)
        #expect(engine.mprisError == nil)
        #expect(try !Self.ownsAName(bus))
    }

    /// No session bus: the output plays anyway and `mprisError` says why.
    @Test func noBusStillPlays() throws {
        let dir = makeTemporaryFolder("tutti-nobus")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (engine, _, _) = try Self.musicEngine()
        var config = OutputConfiguration()
        config.device = "null"
        config.mpris = true
        config.mprisBusAddress = "unix:path=\(dir)/no-bus"
        try engine.startOutput(config)
        defer { engine.stopOutput() }
        #expect(engine.isOutputRunning)
        #expect(engine.mprisName == nil)
        #expect(engine.mprisError?.isEmpty == false, "\(engine.mprisError ?? "nil")")
    }
}
