import Foundation
import Glibc
import Synchronization
import Testing

/// A private JACK server on the dummy driver (paced like a sound card, no hardware), started
/// the way docs/backends.md and the notes describe: `JACK_NO_AUDIO_RESERVATION=1 jackd -n NAME
/// -S -d dummy -r RATE -p FRAMES`, synchronous (`-S`) so a recording client gets every cycle
/// exactly; ready once `jack_wait -w -t 5` says so. Each instance has a unique name, so tests
/// (and other people's test runs on the machine) never share a server. Thread: the test's.
final class JACKServer: @unchecked Sendable {
    static func tool(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"] {
            let p = "\(dir)/\(name)"
            if access(p, X_OK) == 0 { return p }
        }
        return nil
    }
    static let jackd = tool("jackd")
    static let jackWait = tool("jack_wait")
    static let jackBufsize = tool("jack_bufsize")
    static var isAvailable: Bool { jackd != nil && jackWait != nil }
    static let skipReason: Comment =
        "JACK tests skipped: jackd is not installed (apt-get install --no-install-recommends jackd2 libjack-jackd2-dev)"

    private static let counter = Mutex(0)
    let name: String
    let sampleRate: Int
    let periodFrames: Int
    let log: String
    private var pid: pid_t?

    init(sampleRate: Int = 48_000, periodFrames: Int = 128) throws {
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
        kill(SIGTERM)
        JACKServer.removeLeftovers(of: name)
        try? FileManager.default.removeItem(atPath: log)
    }

    /// A killed server leaves its semaphores and socket in /dev/shm.
    static func removeLeftovers(of name: String) {
        let shm = "/dev/shm"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: shm)) ?? [] where entry.contains("_\(name)_") {
            try? FileManager.default.removeItem(atPath: "\(shm)/\(entry)")
        }
    }

    /// Servers left running by an earlier test process that crashed: named `tutti-test-PID-N`
    /// with a PID that no longer exists. Killed once per test process, so they do not pile up
    /// (jackd allows only a few servers at once).
    static let reapStaleServers: Void = {
        for pidText in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(pidText), let data = FileManager.default.contents(atPath: "/proc/\(pidText)/cmdline") else { continue }
            let args = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let first = args.first, first.hasSuffix("jackd"), let i = args.firstIndex(of: "-n"), i + 1 < args.count else { continue }
            let parts = args[i + 1].split(separator: "-")
            guard args[i + 1].hasPrefix("tutti-test-"), parts.count == 4, let owner = pid_t(parts[2]) else { continue }
            if owner != getpid(), Glibc.kill(owner, 0) != 0, errno == ESRCH {
                Glibc.kill(pid, SIGKILL)
                removeLeftovers(of: args[i + 1])
            }
        }
    }()

    /// Start (or restart, same name) and wait until clients can connect. Spawned with
    /// posix_spawn, not Foundation's Process (whose child monitor waits on every running
    /// Process whenever any child exits, hanging the next `waitUntilExit`).
    func start() throws {
        let argv = [JACKServer.jackd!, "-n", name, "-S", "-d", "dummy", "-r", "\(sampleRate)", "-p", "\(periodFrames)"]
        var env = ProcessInfo.processInfo.environment
        env["JACK_NO_AUDIO_RESERVATION"] = "1"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in cArgv + cEnv { free(p) } }
        var child = pid_t()
        let rc = posix_spawn(&child, argv[0], &actions, nil, &cArgv, &cEnv)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        pid = child
        let wait = try run([JACKServer.jackWait!, "-w", "-t", "5"])
        guard wait.status == 0 else {
            kill(SIGKILL)
            throw ServerError.notReady(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
    }

    enum ServerError: Error {
        case notReady(log: String)
    }

    /// Stop the server with `signal` (SIGKILL: as if it crashed) and reap it.
    func kill(_ signal: Int32 = SIGKILL) {
        guard let p = pid else { return }
        Glibc.kill(p, signal)
        var status: Int32 = 0
        _ = waitpid(p, &status, 0)
        pid = nil
    }

    /// `jack_bufsize FRAMES` on this server.
    func setBufferSize(_ frames: Int) throws -> Tool.Result {
        try run([JACKServer.jackBufsize!, "\(frames)"])
    }

    /// A tool run against this server (`JACK_DEFAULT_SERVER` set to its name).
    func run(_ argv: [String], environment: [String: String] = [:]) throws -> Tool.Result {
        try Tool.run(argv, environment: environment.merging(["JACK_DEFAULT_SERVER": name]) { a, _ in a })
    }
}
