import CMPRIS
import Synchronization
import TuttiEngine
import TuttiPolicy

#if canImport(Glibc)
    import Glibc
#endif

/// Where the now-playing session (the policy's rule 8: the one remote commands go to) stands,
/// as MPRIS's PlaybackStatus spells it. Value type: any thread.
public enum NowPlayingStatus: String, Sendable, CaseIterable {
    /// One of its sources plays.
    case playing = "Playing"
    /// None plays, and a remote `play` would resume some (paused by a remote `pause` or held
    /// by an interruption).
    case paused = "Paused"
    /// None plays and nothing waits to resume.
    case stopped = "Stopped"
}

extension AudioSystem {
    /// The now-playing session and its status; nil: no session answers remote commands. Control thread.
    package var nowPlaying: (session: String, status: NowPlayingStatus)? {
        guard let id = policy.nowPlayingSession, let session = policy.session(id) else { return nil }
        if policy.sources.contains(where: { $0.session == id && $0.isPlaying }) { return (id, .playing) }
        let waiting = !session.resumeSources.isEmpty || !(session.interruption?.playingSources.isEmpty ?? true)
        return (id, waiting ? .paused : .stopped)
    }
}

/// An MPRIS server: org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player at
/// /org/mpris/MediaPlayer2 on the session bus, served by sd-bus (libsystemd.so.0, opened at
/// run time: nothing links it) on its own thread ("tutti-mpris"). Play, Pause, PlayPause,
/// Next, Previous and Stop become the remote commands play, pause, togglePlayPause,
/// nextTrack, previousTrack and stop, handed to `onCommand`; PlaybackStatus, Metadata
/// (`mpris:trackid` /org/tutti/session/<id>, `xesam:title` the session id) and Position say
/// what was last published (`publish`).
///
/// An `AudioEngine` serves one itself while its output runs when
/// `OutputConfiguration.mpris` is set (its commands go to `AudioEngine.sendRemoteCommand`);
/// a host that drives its own loop (`tutti play`) starts one here.
///
/// Thread: `init`, `publish` and `stop` from any thread but the real-time one; the bus thread
/// calls `onCommand`.
public final class MPRISServer: Sendable {
    /// The name a server asks for first.
    public static let baseName = "org.mpris.MediaPlayer2.tutti"

    /// The name taken: `org.mpris.MediaPlayer2.tutti`, or `….tutti.instance<PID>` when another
    /// process has that one.
    public let name: String
    /// The C server (`tmp_server`): its calls lock its own state, so any thread may make them.
    nonisolated(unsafe) private let server: OpaquePointer
    private let onCommand: @Sendable (RemoteCommand) -> Void
    /// The bus thread (nil once stopped) and what was last published.
    private let state = Mutex<(thread: pthread_t?, published: PublishedState?)>((nil, nil))

    private struct PublishedState: Equatable {
        var status: NowPlayingStatus
        var session: String
        var positionMicroseconds: Int64
    }

    /// Connects to the session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus; or the
    /// bus at `busAddress`, a D-Bus address such as "unix:path=/run/user/1000/bus"), takes
    /// the name (`baseName`, else `baseName`.instance<PID>) and starts the bus thread; the
    /// properties say Stopped with no track until `publish`. `onCommand` gets each transport
    /// method called, on the bus thread, before the reply is sent (a `stop` from there does
    /// not wait for the thread). `onFailure` gets a message when the connection fails later
    /// (the server then serves no more; the bus thread). Throws `device` when it cannot start: no session bus, libsystemd
    /// missing (the message names the Debian package), no name. Any thread but the real-time one.
    public init(
        busAddress: String? = nil, onCommand: @escaping @Sendable (RemoteCommand) -> Void,
        onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(TuttiError) {
        var error = [CChar](repeating: 0, count: 512)
        var name = [CChar](repeating: 0, count: 256)
        let box = Unmanaged.passRetained(CommandBox(onCommand)).toOpaque()
        let command: tmp_command_fn = { user, command in
            guard let user, let command else { return }
            let box = Unmanaged<CommandBox>.fromOpaque(user).takeUnretainedValue()
            guard let remote = RemoteCommand(rawValue: String(cString: command)) else { return }
            box.body(remote)
        }
        guard let server = tmp_open(Self.baseName, busAddress, command, box, &name, name.count, &error, error.count) else {
            Unmanaged<CommandBox>.fromOpaque(box).release()
            throw TuttiError(.device, Self.text(error))
        }
        self.server = server
        self.name = Self.text(name)
        self.onCommand = onCommand
        self.box = box
        do {
            let thread = try startThread(name: "tutti-mpris") { [server, name = self.name, closesItself] in
                let rc = tmp_run(server)
                if rc < 0 {
                    onFailure("the session bus connection failed (\(String(cString: strerror(-rc)))); \(name) is gone")
                }
                // `stop` ran on this thread (from `onCommand`): it could not join, so the
                // thread closes the server itself.
                if closesItself.value.load(ordering: .acquiring) {
                    tmp_close(server)
                    Unmanaged<CommandBox>.fromOpaque(box).release()
                }
            }
            state.withLock { $0.thread = thread }
        } catch {
            tmp_close(server)
            Unmanaged<CommandBox>.fromOpaque(box).release()
            throw TuttiError(.device, "\(error)")
        }
    }

    /// The closure the C callback reaches (retained for the server's life).
    private final class CommandBox {
        let body: @Sendable (RemoteCommand) -> Void
        init(_ body: @escaping @Sendable (RemoteCommand) -> Void) { self.body = body }
    }
    /// The retained `CommandBox` the C server calls back with (released once, by `stop` or by
    /// the bus thread when it closes the server itself).
    nonisolated(unsafe) private let box: UnsafeMutableRawPointer
    /// Set by a `stop` on the bus thread itself (the last reference to an engine dropped in
    /// `onCommand`): the thread is detached and closes the server when `tmp_run` returns.
    private let closesItself = MPRISFlag(false)

    /// A NUL-terminated C buffer's text.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What the properties say from now on: the now-playing session's id and status (nil:
    /// Stopped and the NoTrack id) and Position, microseconds. A change of status or session
    /// is signalled (PropertiesChanged) within 50 ms. Cheap when nothing changed. Any thread
    /// but the real-time one.
    public func publish(_ nowPlaying: (session: String, status: NowPlayingStatus)?, positionMicroseconds: Int64) {
        let new = PublishedState(
            status: nowPlaying?.status ?? .stopped, session: nowPlaying?.session ?? "", positionMicroseconds: positionMicroseconds)
        // Under the lock: `stop` cannot close the server meanwhile.
        state.withLock { s in
            guard s.thread != nil, s.published != new else { return }
            s.published = new
            tmp_set_state(server, new.status.rawValue, new.session, new.positionMicroseconds)
        }
    }

    /// Stops the bus thread (within 50 ms), joins it, releases the name and closes the
    /// connection. Once; later calls do nothing. Any thread but the real-time one; on the bus
    /// thread itself (from `onCommand`) it cannot join, and the thread closes the connection
    /// once it has stopped serving.
    public func stop() {
        guard
            let thread = state.withLock({ s -> pthread_t? in
                defer { s.thread = nil }
                return s.thread
            })
        else { return }
        tmp_stop(server)
        if pthread_equal(thread, pthread_self()) != 0 {
            closesItself.value.store(true, ordering: .releasing)
            pthread_detach(thread)
            return
        }
        pthread_join(thread, nil)
        tmp_close(server)
        Unmanaged<CommandBox>.fromOpaque(box).release()
    }

    deinit { stop() }
}

/// An `AudioEngine`'s MPRIS server and the thread that publishes the engine's now-playing
/// session to it ("tutti-mpris-state": every 50 ms it reads the policy under the engine's
/// lock and the frames rendered; `publish` sends only changes).
final class EngineMPRIS: Sendable {
    let server: MPRISServer
    private let running = MPRISFlag(true)
    private let thread: Mutex<pthread_t?>

    /// Starts the server on the session bus or the bus at `busAddress` (commands go to the
    /// engine's `sendRemoteCommand`) and the publisher.
    /// Throws `device` when the server cannot start.
    init(engine: AudioEngine, busAddress: String?) throws(TuttiError) {
        server = try MPRISServer(busAddress: busAddress, onCommand: { [weak engine] command in try? engine?.sendRemoteCommand(command) })
        thread = Mutex(nil)
        let rate = Int64(engine.sampleRate)
        let publish: @Sendable () -> Void = { [weak engine, server] in
            guard let engine else { return }
            let nowPlaying = try? engine.withCore { s in s.nowPlaying }
            server.publish(nowPlaying ?? nil, positionMicroseconds: engine.framesRendered * 1_000_000 / rate)
        }
        publish()
        do {
            let started = try startThread(name: "tutti-mpris-state") { [running] in
                while running.value.load(ordering: .acquiring) {
                    publish()
                    usleep(50_000)
                }
            }
            thread.withLock { $0 = started }
        } catch {
            server.stop()
            throw TuttiError(.device, "\(error)")
        }
    }

    /// Stops the publisher and the server (joined). Once. Not on either of their threads.
    func stop() {
        running.value.store(false, ordering: .releasing)
        if let t = thread.withLock({ t -> pthread_t? in
            defer { t = nil }
            return t
        }) {
            // On the publisher itself (the engine's last reference dropped there): it ends
            // after this round.
            if pthread_equal(t, pthread_self()) != 0 { pthread_detach(t) } else { pthread_join(t, nil) }
        }
        server.stop()
    }
}

/// A flag shared with a thread's closure.
private final class MPRISFlag: Sendable {
    let value: Atomic<Bool>
    init(_ initial: Bool) { value = Atomic(initial) }
}
