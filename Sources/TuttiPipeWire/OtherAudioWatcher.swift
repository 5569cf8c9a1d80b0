import CPipeWire
import Synchronization
import TuttiEngine

/// Other applications' audio as a PipeWire daemon shows it: the playback streams
/// (`media.class` Stream/Output/Audio) of other processes whose node is running (linked and
/// moving data; a paused or corked stream's node goes idle or suspended and stops counting).
/// It has its own connection and its own loop thread ("tutti-pw-watch"), so it follows the
/// daemon whatever the output's stream does (connecting, reconnecting); it never runs on a
/// real-time thread. Streams of this process (Tutti's own) are left out by process id.
///
/// Threads: the control thread (or an output's supervisor) opens and closes it; `onChange`
/// runs on the watcher's loop thread, once per change of the snapshot (never twice the same in
/// a row), and must not close the watcher.
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
    /// `Snapshot.silent` and the end of the reports. Throws `TuttiError` (`device`) when the
    /// library cannot be loaded or no daemon answers. Control thread.
    public init(remote: String?, onChange: @escaping @Sendable (Snapshot) -> Void) throws(TuttiError) {
        box = Box(onChange: onChange)
        var message = [CChar](repeating: 0, count: 512)
        let user = Unmanaged.passUnretained(box).toOpaque()
        let opened = withOptionalCString(remote) { remote in
            tpw_watch_open(remote, otherAudioChanged, user, &message, message.count)
        }
        guard let opened else { throw TuttiError(.device, text(message)) }
        handle = Mutex(WatcherHandle(pointer: opened))
    }

    deinit { close() }

    /// The last snapshot reported (`Snapshot.silent` before the first). Any thread.
    public var snapshot: Snapshot { box.last.withLock { $0 } }

    /// Stops watching: the loop thread ends (no `onChange` runs after this returns) and the
    /// connection closes. Idempotent. Any thread but the watcher's own (not from `onChange`).
    public func close() {
        let h = handle.withLock { h -> WatcherHandle? in
            defer { h = nil }
            return h
        }
        if let h { tpw_watch_close(h.pointer) }
    }

    /// What the C callback reaches: the callback and the last snapshot (deduplication).
    final class Box: Sendable {
        let onChange: @Sendable (Snapshot) -> Void
        let last = Mutex(Snapshot.silent)
        init(onChange: @escaping @Sendable (Snapshot) -> Void) { self.onChange = onChange }

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

/// A `tpw_watcher` address (every call on it goes through the C shim, which takes the
/// watcher's loop lock).
private struct WatcherHandle: @unchecked Sendable { // a C address: the shim locks the watcher's loop on every call
    let pointer: OpaquePointer
}
