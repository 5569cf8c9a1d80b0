import Foundation
import Glibc
import Synchronization

/// A private JACK server on the dummy driver (paced like a sound card, no hardware), started
/// the way docs/backends.md and the notes describe: `JACK_NO_AUDIO_RESERVATION=1 jackd -n NAME
/// -S -d dummy -r RATE -p FRAMES`, synchronous (`-S`) so a recording client gets every cycle
/// exactly; ready once `jack_wait -w -t 5` says so. Each instance has a unique name, so tests
/// (and other people's test runs on the machine) never share a server. Thread: the test's.
public final class JACKServer: @unchecked Sendable {
    public static let jackd = Tool.find("jackd")
    public static let jackWait = Tool.find("jack_wait")
    public static let jackBufsize = Tool.find("jack_bufsize")
    public static var isAvailable: Bool { jackd != nil && jackWait != nil }
    public static let skipReason: String =
        "JACK tests skipped: jackd is not installed (apt-get install --no-install-recommends jackd2 libjack-jackd2-dev)"

    private static let counter = Mutex(0)
    public let name: String
    public let sampleRate: Int
    public let periodFrames: Int
    public let log: String
    private var pid: pid_t?

    public init(sampleRate: Int = 48_000, periodFrames: Int = 128) throws {
        JACKServer.reapStaleServers
        let n = JACKServer.counter.withLock {
            $0 += 1
            return $0
        }
        name = "tutti-test-\(getpid())-\(n)"
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        log = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).log").path
        try start()
    }

    deinit {
        if pid == nil && JACKServer.registeredNames().contains(name) {
            // Give the name's slot back (see `kill`): start it again and stop it with no client.
            try? start()
        }
        kill(SIGTERM)
        JACKServer.removeLeftovers(of: name)
        try? FileManager.default.removeItem(atPath: log)
    }

    /// A killed server leaves its semaphores and socket in /dev/shm.
    public static func removeLeftovers(of name: String) {
        let shm = "/dev/shm"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: shm)) ?? [] where entry.contains("_\(name)_") {
            try? FileManager.default.removeItem(atPath: "\(shm)/\(entry)")
        }
    }

    /// Test servers (`tutti-test-PID-N`) of an earlier test process that no longer exists
    /// (it crashed): still running ones are stopped; crashed ones still holding a slot in
    /// libjack's registry of servers are started and stopped cleanly to free it. Once per
    /// test process, so they never pile up (8 slots per machine).
    static let reapStaleServers: Void = {
        func orphaned(_ name: Substring) -> Bool {
            let parts = name.split(separator: "-")
            guard parts.count == 4, let owner = pid_t(parts[2]) else { return false }
            return owner != getpid() && Glibc.kill(owner, 0) != 0 && errno == ESRCH
        }
        for pidText in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(pidText), let data = FileManager.default.contents(atPath: "/proc/\(pidText)/cmdline") else { continue }
            let args = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let first = args.first, first.hasSuffix("jackd"), let i = args.firstIndex(of: "-n"), i + 1 < args.count else { continue }
            guard args[i + 1].hasPrefix("tutti-test-"), orphaned(Substring(args[i + 1])) else { continue }
            Glibc.kill(pid, SIGTERM)
            for _ in 0..<200 where Glibc.kill(pid, 0) == 0 { usleep(10_000) }
        }
        for name in registeredNames() where name.hasPrefix("tutti-test-") && orphaned(Substring(name)) {
            let server = JACKServer(reclaiming: name)
            try? server.start()
        }
    }()

    /// A server object for an existing name, not started (deinit stops and cleans it).
    private init(reclaiming name: String) {
        self.name = name
        sampleRate = 48_000
        periodFrames = 128
        log = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).log").path
    }

    /// Start (or restart, same name) and wait until clients can connect. Spawned with
    /// posix_spawn, not Foundation's Process (whose child monitor waits on every running
    /// Process whenever any child exits, hanging the next `waitUntilExit`).
    public func start() throws {
        let argv = [JACKServer.jackd!, "-n", name, "-S", "-d", "dummy", "-r", "\(sampleRate)", "-p", "\(periodFrames)"]
        var env = ProcessInfo.processInfo.environment
        env["JACK_NO_AUDIO_RESERVATION"] = "1"
        pid = try spawnChild(argv, environment: env.map { "\($0.key)=\($0.value)" }, stdout: log, append: true)
        let wait = try run([JACKServer.jackWait!, "-w", "-t", "5"])
        guard wait.status == 0 else {
            kill(SIGTERM)
            throw ServerError.notReady(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
    }

    public enum ServerError: Error {
        case notReady(log: String)
    }

    /// Stop the server with `signal` (SIGTERM: it shuts down and tells its clients; SIGKILL: as
    /// if it crashed) and reap it. A server killed, or stopped while clients were connected,
    /// keeps its slot in libjack's registry of servers (8 per machine) and its shared memory
    /// until a server of the same name starts again: `start()` or deinit does that.
    public func kill(_ signal: Int32) {
        guard let p = pid else { return }
        Glibc.kill(p, signal)
        var status: Int32 = 0
        _ = waitpid(p, &status, 0)
        pid = nil
    }

    /// Server names in libjack's registry (it holds them as "jack-UID:NAME:").
    public static func registeredNames() -> [String] {
        guard let registry = FileManager.default.contents(atPath: "/dev/shm/jack-shm-registry") else { return [] }
        let text = String(decoding: registry.map { $0 == 0 ? 10 : $0 }, as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("jack-"), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[line.index(after: colon)...].prefix { $0 != ":" })
        }
    }

    /// `jack_bufsize FRAMES` on this server.
    public func setBufferSize(_ frames: Int) throws -> Tool.Result {
        try run([JACKServer.jackBufsize!, "\(frames)"])
    }

    /// A tool run against this server (`JACK_DEFAULT_SERVER` set to its name).
    public func run(_ argv: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Tool.Result {
        try Tool.run(argv, environment: environment.merging(["JACK_DEFAULT_SERVER": name]) { a, _ in a }, stdin: stdin)
    }
}
