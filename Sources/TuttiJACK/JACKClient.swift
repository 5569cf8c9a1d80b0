import CJACK
import Glibc
import Synchronization
import TuttiEngine

/// An open, not yet activated connection to a JACK server (a `jack_client_t`). Open it before
/// building the engine: it tells the server's rate and buffer size, and the engine must run
/// at that rate. `JACKOutput(engine:client:)` then takes it over.
///
/// Thread: the control thread opens and queries it. Once a `JACKOutput` owns it, the output's
/// threads use it (the supervisor closes it after a lost server and opens a new one). The
/// handle is an atomic (its address's bit pattern), so closing it from one thread while
/// another reads it is defined: a reader gets the client or nil, never a freed one that
/// `close` already handed to libjack (callers serialise `close` with their own calls).
public final class JACKClient: Sendable {
    /// What it was opened with (client and server names, connections, reconnect settings).
    public let configuration: JACKOutputConfiguration
    /// The server name as resolved (explicit, `JACK_DEFAULT_SERVER`, or `default`).
    public let serverName: String
    /// The name JACK granted (the configured one, or with a suffix when that was taken).
    public let clientName: String
    /// The server's rate: the engine must run at it.
    public let sampleRate: Int
    /// Frames per process cycle when the client was opened.
    public let bufferFrames: Int
    /// The libjack functions it calls (its output's too).
    public let functions: JACKFunctions
    /// The `jack_client_t`'s address; 0 once closed.
    private let address: Atomic<Int>
    /// libjack's threads that ran the client's thread-init callback (jack2: the notification
    /// thread while it handles the client's activation, the process thread as it starts):
    /// how many claimed a slot, and each one's kernel id and `pthread_t` (0 until written).
    /// Written once by those threads, read by `close`.
    private let initThreadCount = Atomic<Int>(0)
    private let initThreadIDs: InlineArray<4, Atomic<Int32>> = InlineArray { _ in Atomic(0) }
    private let initThreadSelves: InlineArray<4, Atomic<UInt>> = InlineArray { _ in Atomic(0) }

    /// The `jack_client_t`; nil once closed.
    var handle: OpaquePointer? { OpaquePointer(bitPattern: address.load(ordering: .acquiring)) }

    /// Open a client (never starts a server) through `functions` (default:
    /// ``JACKFunctions/system``, libjack loaded now if not yet: not installed is a `.device`
    /// `TuttiError` naming the package). Throws `JACKError.noServer` when no server runs under
    /// that name.
    public init(configuration: JACKOutputConfiguration = JACKOutputConfiguration(), functions: JACKFunctions? = nil) throws {
        try configuration.validate()
        let functions = try functions ?? JACKFunctions.system
        self.functions = functions
        self.configuration = configuration
        serverName = configuration.resolvedServerName
        if !configuration.libjackMessages { functions.silenceMessages() }
        var status = jack_status_t(0)
        let opened = functions.openClient(
            configuration.clientName, options: JackNoStartServer.rawValue, status: &status, serverName: configuration.serverName)
        guard let opened else {
            // With JackNoStartServer, "no server" is JackServerFailed (the socket connect failed).
            if status.rawValue & JackServerFailed.rawValue != 0 { throw JACKError.noServer(serverName: serverName) }
            throw JACKError.openFailed(serverName: serverName, status: status.rawValue)
        }
        address = Atomic(Int(bitPattern: UnsafeRawPointer(opened)))
        clientName = functions.get_client_name(opened).map { String(cString: $0) } ?? configuration.clientName
        sampleRate = Int(functions.get_sample_rate(opened))
        bufferFrames = Int(functions.get_buffer_size(opened))
        // Only to find the notification thread (see `close`): without it, `close` does not wait.
        // jack2 runs the callback on its process-wide message-buffer thread inside this call
        // (and waits for it): that thread is not the client's, so the slots start over after.
        _ = functions.set_thread_init_callback(opened, jackThreadInit, Unmanaged.passUnretained(self).toOpaque())
        for i in 0..<initThreadIDs.count { initThreadSelves[i].store(0, ordering: .relaxed) }
        initThreadCount.store(0, ordering: .releasing)
    }

    deinit { close() }

    /// How `close` found libjack's notification thread before closing. A value: any thread.
    public enum NotificationWait: Equatable, Sendable {
        /// Not known (the client was never activated): closed at once.
        case unknown
        /// It had ended (after a lost server).
        case ended
        /// It was blocked reading the next notification (the server still runs).
        case idle
        /// Still busy at the limit: closed anyway.
        case timedOut
    }

    /// Close the client (deactivating it if active). Idempotent. Control or supervisor thread,
    /// not a JACK callback thread. `serverLost`: the server shut down or died.
    ///
    /// libjack (jack2) ends the client's notification thread with an asynchronous
    /// `pthread_cancel`. Cancelled while it handles another client's arrival or departure,
    /// that thread keeps libjack's process-wide synchro lock for good, and this close (and every
    /// later open or close of a client in the process) waits on it forever. So the close first
    /// waits until the thread cannot be inside a notification: after a lost server, until it
    /// has ended (it ends when the server closes its socket, after the last notification); else
    /// until it is blocked reading the next one. At most 2 s after a lost server (a stopped
    /// server never closes the socket), 0.5 s otherwise; then it closes anyway.
    @discardableResult public func close(serverLost: Bool = false) -> NotificationWait {
        guard let h = OpaquePointer(bitPattern: address.exchange(0, ordering: .acquiringAndReleasing)) else { return .unknown }
        let wait = settleNotifications(of: h, serverLost: serverLost)
        _ = functions.client_close(h)
        return wait
    }

    /// Kernel ids of libjack's threads that ran the thread-init callback, the process thread
    /// excepted: the notification thread (jack2). Empty before the client was activated.
    var notificationThreadIDs: [Int32] { notificationThreads(processThread: handle.map { functions.client_thread_id($0) }) }

    private func notificationThreads(processThread: pthread_t?) -> [Int32] {
        var ids: [Int32] = []
        for i in 0..<min(initThreadCount.load(ordering: .acquiring), initThreadIDs.count) {
            let me = initThreadSelves[i].load(ordering: .acquiring)
            guard me != 0, me != processThread else { continue }
            ids.append(initThreadIDs[i].load(ordering: .relaxed))
        }
        return ids
    }

    /// The wait `close` describes, on `/proc/self/task/ID`: gone once the thread ended; its
    /// `syscall` file starts with 0 (`read`) while it waits for a notification.
    private func settleNotifications(of h: OpaquePointer, serverLost: Bool) -> NotificationWait {
        let ids = notificationThreads(processThread: functions.client_thread_id(h))
        guard !ids.isEmpty else { return .unknown }
        let limit = monotonicSeconds() + (serverLost ? 2 : 0.5)
        var idleBefore = false
        while true {
            let alive = ids.filter { access("/proc/self/task/\($0)", F_OK) == 0 }
            if alive.isEmpty { return .ended }
            if !serverLost {
                // Twice in a row, a millisecond apart: not a read that returned in between.
                let idle = alive.allSatisfy { JACKClient.blockedInRead(threadID: $0) }
                if idle && idleBefore { return .idle }
                idleBefore = idle
            }
            if monotonicSeconds() >= limit { return .timedOut }
            usleep(1_000)
        }
    }

    /// Whether thread `threadID` of this process is blocked in `read` (its
    /// `/proc/self/task/ID/syscall` starts with "0 "). False when it cannot be read.
    static func blockedInRead(threadID: Int32) -> Bool {
        let fd = open("/proc/self/task/\(threadID)/syscall", O_RDONLY)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var bytes: (UInt8, UInt8) = (0, 0)
        let n = withUnsafeMutableBytes(of: &bytes) { read(fd, $0.baseAddress, 2) }
        return n == 2 && bytes.0 == UInt8(ascii: "0") && bytes.1 == UInt8(ascii: " ")
    }

    /// The thread-init callback's body: one slot per thread, no allocation or lock.
    fileprivate func noteInitThread() {
        let slot = initThreadCount.add(1, ordering: .acquiringAndReleasing).oldValue
        guard slot < initThreadIDs.count else { return }
        initThreadIDs[slot].store(tutti_jack_gettid(), ordering: .relaxed)
        initThreadSelves[slot].store(pthread_self(), ordering: .releasing)
    }

    /// Full names of the server's physical audio ports: `playback` true for the ones that
    /// play (JACK inputs, e.g. `system:playback_1`), false for capture (`system:capture_1`).
    /// Control thread.
    public func physicalPorts(playback: Bool) -> [String] {
        let direction = playback ? JackPortIsInput.rawValue : JackPortIsOutput.rawValue
        return ports(flags: UInt(JackPortIsPhysical.rawValue | direction))
    }

    func ports(flags: UInt) -> [String] {
        guard let handle, let list = functions.get_ports(handle, nil, JACK_DEFAULT_AUDIO_TYPE, flags) else { return [] }
        defer { functions.free(UnsafeMutableRawPointer(list)) }
        var names: [String] = []
        var i = 0
        while let p = list[i] {
            names.append(String(cString: p))
            i += 1
        }
        return names
    }

    /// Destination ports per output channel for `connection`, checked against the server
    /// (unknown or non-input ports throw, naming the port). Control or supervisor thread.
    public func destinations(for connection: JACKConnection, channelCount: Int) throws -> [[String]] {
        switch connection {
        case .none:
            return Array(repeating: [], count: channelCount)
        case .physical:
            let physical = physicalPorts(playback: true)
            if channelCount == 1 { return [Array(physical.prefix(2))] }
            return (0..<channelCount).map { $0 < physical.count ? [physical[$0]] : [] }
        case .ports(let names):
            guard names.count == channelCount else { throw JACKError.connectionCount(ports: names.count, channels: channelCount) }
            for name in names {
                guard let handle, let port = functions.port_by_name(handle, name) else { throw JACKError.unknownPort(name) }
                guard UInt32(bitPattern: functions.port_flags(port)) & JackPortIsInput.rawValue != 0 else {
                    throw JACKError.notAnInputPort(name)
                }
            }
            return names.map { [$0] }
        }
    }
}

/// libjack calls it on each thread it starts running the client's code on (`arg`: the
/// `JACKClient`, which outlives its libjack client).
private let jackThreadInit: JackThreadInitCallback = { arg in
    Unmanaged<JACKClient>.fromOpaque(arg!).takeUnretainedValue().noteInitThread()
}
