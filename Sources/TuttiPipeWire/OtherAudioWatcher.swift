import CPipeWire
import Synchronization
import TuttiEngine
import TuttiOutput
import TuttiPolicy

/// Other applications' audio as a PipeWire daemon shows it: the playback streams
/// (`media.class` Stream/Output/Audio) of other processes whose node is running (linked and
/// moving data; a paused or corked stream's node goes idle or suspended and stops counting).
/// It has its own connection and its own loop thread ("tutti-pw-watch"), so it follows the
/// daemon whatever the output's stream does (connecting, reconnecting); it never runs on a
/// real-time thread. Streams of this process (Tutti's own) are left out by process id.
///
/// It also follows the daemon's sinks (`Audio/Sink` nodes: name, id, `device.form-factor`,
/// `device.api`, `device.bus`; their devices' — `Audio/Device` objects — properties and active
/// output ports, the devices' `Route` params),
/// the default sink (`default.audio.sink` of the "default" metadata object) and, given the
/// output stream's node id, the sink that stream is linked to (the links whose
/// `link.output.node` is the stream's node): a `RouteFollower` turns them into route changes
/// (`OutputEvent.routeChanged`) for `onRouteChange`.
///
/// Threads: the control thread (or an output's supervisor) opens and closes it; `onChange`
/// and `onRouteChange` run on the watcher's loop thread, once per change (never twice the
/// same snapshot in a row), and must not close the watcher.
public final class OtherAudioWatcher: Sendable {
    /// What other applications play: whether any playback stream runs, whether one of them is
    /// not mixable (`silencesSecondary(mediaRole:)`), and which applications (their
    /// `application.name`, else `node.name`; sorted, each once). Value type: any thread.
    public struct Snapshot: Sendable, Equatable, CustomStringConvertible {
        /// A playback stream of another process runs.
        public var playing: Bool
        /// One of them has a role that is not mixable (Music, Movie, Communication, or none).
        public var silenceSecondary: Bool
        /// The applications playing: `application.name`, else `node.name`; sorted, de-duplicated.
        public var clients: [String]

        /// Nothing plays.
        public static let silent = Snapshot(playing: false, silenceSecondary: false, clients: [])

        /// A snapshot as given.
        public init(playing: Bool, silenceSecondary: Bool, clients: [String]) {
            self.playing = playing
            self.silenceSecondary = silenceSecondary
            self.clients = clients
        }

        /// The snapshot of the running streams `streams` (their `application.name`, `node.name`
        /// and `media.role`; an empty string or nil: not set). Pure: any thread.
        public init(streams: [(application: String?, node: String?, role: String?)]) {
            var names = Set<String>()
            var silence = false
            for s in streams {
                if let name = [s.application, s.node].compactMap({ $0 }).first(where: { !$0.isEmpty }) { names.insert(name) }
                if OtherAudioWatcher.silencesSecondary(mediaRole: s.role) { silence = true }
            }
            self.init(playing: !streams.isEmpty, silenceSecondary: silence, clients: names.sorted())
        }

        /// "playing (a, b), not mixable" / "silent", for logs.
        public var description: String {
            guard playing else { return "silent" }
            let names = clients.isEmpty ? "" : " (\(clients.joined(separator: ", ")))"
            return "playing\(names)\(silenceSecondary ? ", not mixable" : ", mixable")"
        }
    }

    /// The `media.role` values that are not mixable: the stream's audio should silence
    /// secondary audio (a game's soundtrack) — Music, Movie and Communication. A stream with no
    /// `media.role` (nil or empty) counts as Music: desktop players usually set none. Every
    /// other role (Game, Notification, Event, Accessibility, Alarm, Test, Production, DSP,
    /// Phone's ringtone as Notification …) is mixable. Compared as written (PipeWire's roles
    /// are capitalised). Pure: any thread.
    public static func silencesSecondary(mediaRole: String?) -> Bool {
        guard let role = mediaRole, !role.isEmpty else { return true }
        return nonMixableRoles.contains(role)
    }

    /// Music, Movie, Communication.
    public static let nonMixableRoles: Set<String> = ["Music", "Movie", "Communication"]

    private let box: Box
    private let handle: Mutex<WatcherHandle?>

    /// Connects to the daemon at `remote` (its socket: a name in the runtime directory or an
    /// absolute path; nil: `$PIPEWIRE_REMOTE`, else `pipewire-0`) and starts watching;
    /// `onChange` gets the first snapshot once the daemon's streams are known, when one runs
    /// (starting from `Snapshot.silent`), then every change; the daemon going away is
    /// `Snapshot.silent` and the end of the reports. `streamNode` is the global id of the
    /// output stream's node (`pw_stream_get_node_id`; nil: none, no sink is ever linked):
    /// `onRouteChange` gets each route change its sinks make (`RouteFollower`; nothing more
    /// after the daemon went away: the output's own `deviceLost` says it). Throws
    /// `TuttiError` (`device`) when the library cannot be loaded or no daemon answers.
    /// Control thread.
    public init(
        remote: String?, streamNode: UInt32? = nil, onRouteChange: (@Sendable (OutputEvent) -> Void)? = nil,
        onChange: @escaping @Sendable (Snapshot) -> Void
    ) throws(TuttiError) {
        box = Box(onChange: onChange, onRouteChange: onRouteChange)
        var message = [CChar](repeating: 0, count: 512)
        let user = Unmanaged.passUnretained(box).toOpaque()
        let opened = withOptionalCString(remote) { remote in
            tpw_watch_open(remote, otherAudioChanged, sinksChanged, streamNode ?? UInt32.max, user, &message, message.count)
        }
        guard let opened else { throw TuttiError(.device, text(message)) }
        handle = Mutex(WatcherHandle(pointer: opened))
    }

    deinit { close() }

    /// The last snapshot reported (`Snapshot.silent` before the first). Any thread.
    public var snapshot: Snapshot { box.last.withLock { $0 } }

    /// The sinks as last reported (nil before the daemon's objects at start are known). Any
    /// thread.
    public var sinks: SinkSnapshot? { box.sinks.withLock { $0 } }

    /// The route the stream's sinks make, as last reported (`speaker` before any change). Any
    /// thread.
    public var route: Route { box.follower.withLock { $0.route } }

    /// Stops watching: the loop thread ends (no `onChange` runs after this returns) and the
    /// connection closes. Idempotent. Any thread but the watcher's own (not from `onChange`).
    public func close() {
        let h = handle.withLock { h -> WatcherHandle? in
            defer { h = nil }
            return h
        }
        if let h { tpw_watch_close(h.pointer) }
    }

    /// What the C callbacks reach: the callbacks, the last snapshots (deduplication) and the
    /// route follower.
    final class Box: Sendable {
        let onChange: @Sendable (Snapshot) -> Void
        let onRouteChange: (@Sendable (OutputEvent) -> Void)?
        let last = Mutex(Snapshot.silent)
        let sinks = Mutex<SinkSnapshot?>(nil)
        let follower = Mutex(RouteFollower())
        init(onChange: @escaping @Sendable (Snapshot) -> Void, onRouteChange: (@Sendable (OutputEvent) -> Void)?) {
            self.onChange = onChange
            self.onRouteChange = onRouteChange
        }

        /// The watcher's loop thread: a new sink snapshot, and the route change it makes.
        func update(_ snapshot: SinkSnapshot) {
            let changed = sinks.withLock { last -> Bool in
                guard last != snapshot else { return false }
                last = snapshot
                return true
            }
            guard changed, let event = follower.withLock({ $0.update(snapshot) }) else { return }
            onRouteChange?(event)
        }

        /// The watcher's loop thread: reports `snapshot` if it differs from the last one.
        func update(_ snapshot: Snapshot) {
            let changed = last.withLock { last -> Bool in
                guard last != snapshot else { return false }
                last = snapshot
                return true
            }
            if changed { onChange(snapshot) }
        }
    }
}

/// The watcher's C callback (its loop thread): the running streams as a snapshot.
private func otherAudioChanged(user: UnsafeMutableRawPointer?, streams: UnsafePointer<tpw_playing>?, count: Int) {
    guard let user else { return }
    let box = Unmanaged<OtherAudioWatcher.Box>.fromOpaque(user).takeUnretainedValue()
    func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
    var list: [(application: String?, node: String?, role: String?)] = []
    if let streams {
        for i in 0..<count {
            let s = streams[i]
            list.append((string(s.application), string(s.node), string(s.role)))
        }
    }
    box.update(OtherAudioWatcher.Snapshot(streams: list))
}

/// The watcher's sinks callback (its loop thread): the sinks as a snapshot.
private func sinksChanged(
    user: UnsafeMutableRawPointer?, sinks: UnsafePointer<tpw_sink>?, count: Int, defaultSink: UnsafePointer<CChar>?, linked: UInt32
) {
    guard let user else { return }
    let box = Unmanaged<OtherAudioWatcher.Box>.fromOpaque(user).takeUnretainedValue()
    var list: [PipeWireSink] = []
    if let sinks {
        for i in 0..<count {
            let s = sinks[i]
            func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
            list.append(
                PipeWireSink(
                    id: s.id, name: string(s.name), formFactor: string(s.form_factor), appeared: s.appeared,
                    deviceAPI: string(s.device_api), bus: string(s.bus), portType: string(s.port_type),
                    portAvailability: PipeWireSink.PortAvailability(spaValue: s.port_available)))
        }
    }
    let name = defaultSink.map { String(cString: $0) } ?? ""
    box.update(SinkSnapshot(sinks: list, defaultSink: name.isEmpty ? nil : name, linkedSink: linked == UInt32.max ? nil : linked))
}

/// A `tpw_watcher` address (every call on it goes through the C shim, which takes the
/// watcher's loop lock). Not `Sendable`: it stays inside the watcher's `Mutex` (taken out
/// only to be closed). Control thread.
private struct WatcherHandle {
    let pointer: OpaquePointer
}
