import CMPRIS
import Foundation
import Glibc
import TuttiEngine
import TuttiScene

/// `tutti play`'s MPRIS server: org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player at
/// /org/mpris/MediaPlayer2 on the session bus, served by sd-bus (libsystemd.so.0, opened at
/// run time) on its own thread ("tutti-mpris"). Play, Pause, PlayPause, Next, Previous and
/// Stop become the control lines `remote play|pause|togglePlayPause|nextTrack|previousTrack|stop`
/// (`ControlInput.submit`), so they reach the now-playing session through the policy's remote
/// rule exactly as a typed line does; the play loop publishes what PlaybackStatus, Metadata and
/// Position say (`publish`).
///
/// Thread: `start`, `publish` and `stop` on the play loop's thread; the bus thread serves calls.
final class MPRISServer {
    /// The name taken: `org.mpris.MediaPlayer2.tutti`, or `….tutti.instance<PID>` when another
    /// process has that one.
    let name: String
    private let server: OpaquePointer
    private let control: ControlInput
    private var thread: pthread_t?
    private var published: (status: String, session: String, position: Int64)?

    /// The name a `tutti play` asks for first.
    static let baseName = "org.mpris.MediaPlayer2.tutti"

    /// Connects, takes the name and starts the bus thread. nil when it cannot (no session bus,
    /// libsystemd missing, no name): `warn` gets the one line saying why, and playback goes on.
    static func start(control: ControlInput, warn: (String) -> Void) -> MPRISServer? {
        var error = [CChar](repeating: 0, count: 512)
        var name = [CChar](repeating: 0, count: 256)
        let user = Unmanaged.passUnretained(control).toOpaque()
        let command: tmp_command_fn = { user, command in
            guard let user, let command else { return }
            let control = Unmanaged<ControlInput>.fromOpaque(user).takeUnretainedValue()
            control.submit("remote \(String(cString: command))", origin: "MPRIS")
        }
        guard let server = tmp_open(baseName, command, user, &name, name.count, &error, error.count) else {
            warn("MPRIS is off: \(text(error)) (--no-mpris turns it off without this line)")
            return nil
        }
        let mpris = MPRISServer(name: text(name), server: server, control: control)
        do {
            mpris.thread = try startThread(name: "tutti-mpris") { [server, name = mpris.name] in
                let rc = tmp_run(server)
                if rc < 0 {
                    let line =
                        "tutti: MPRIS stopped: the session bus connection failed (\(String(cString: strerror(-rc)))); \(name) is gone\n"
                    FileHandle.standardError.write(Data(line.utf8))
                }
            }
        } catch {
            tmp_close(server)
            warn("MPRIS is off: \(error)")
            return nil
        }
        return mpris
    }

    /// A NUL-terminated C buffer's text.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private init(name: String, server: OpaquePointer, control: ControlInput) {
        self.name = name
        self.server = server
        self.control = control
    }

    /// What the properties say: the now-playing session's status and id (none: Stopped and the
    /// NoTrack id) and the output's position. Cheap when nothing changed.
    func publish(_ nowPlaying: (session: String, status: ScenePlayback.NowPlayingStatus)?, positionMicroseconds: Int64) {
        let status = nowPlaying?.status.rawValue ?? ScenePlayback.NowPlayingStatus.stopped.rawValue
        let session = nowPlaying?.session ?? ""
        if let p = published, p.status == status, p.session == session, p.position == positionMicroseconds { return }
        published = (status, session, positionMicroseconds)
        tmp_set_state(server, status, session, positionMicroseconds)
    }

    /// Stops the bus thread (within 50 ms), joins it, releases the name and closes the
    /// connection. Once; later calls do nothing.
    func stop() {
        guard let thread else { return }
        self.thread = nil
        tmp_stop(server)
        pthread_join(thread, nil)
        tmp_close(server)
    }

    deinit { stop() }
}
