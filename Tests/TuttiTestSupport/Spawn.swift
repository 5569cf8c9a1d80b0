import CTuttiTestSupport
import Foundation
import Glibc

/// Where a spawned child's stderr goes.
public enum SpawnedStderr: Sendable {
    /// The same file as its stdout.
    case withStdout
    /// /dev/null.
    case discard
    /// The file at this path (created or truncated).
    case file(String)
}

/// Start `argv` (argv[0] a path) with posix_spawn, not Foundation's `Process`: Foundation's
/// child monitor learns of an exit late while other children run, and tests run in parallel.
/// stdin is the file `stdin` (nil: /dev/null), stdout goes to the file `stdout` (appended to
/// when `append`, else truncated), stderr as `stderr` says. The child gets nothing else of the test process (a
/// Foundation `Process` being spawned by a parallel test holds a socket whose closing tells it
/// its child exited: a child that inherited it would hide that exit while it runs), no
/// blocked signal and every signal at its default action. `environment`: "NAME=value"
/// entries, nil for the test process's own. `realtimePriority`: the child starts SCHED_FIFO at
/// that priority (`POSIX_SPAWN_SETSCHEDULER`; a test process that may not be real-time gets
/// `POSIXError(.EPERM)`); nil: the test process's scheduling. Returns the child's pid (the
/// caller reaps it). Any test thread.
public func spawnChild(
    _ argv: [String], environment: [String]? = nil, stdin: String? = nil, stdout: String, append: Bool = false,
    stderr: SpawnedStderr = .withStdout, realtimePriority: Int32? = nil
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
    switch stderr {
    case .withStdout: posix_spawn_file_actions_adddup2(&actions, 1, 2)
    case .discard: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    case .file(let path): posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    _ = tutti_spawn_actions_close_from(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if let realtimePriority {
        var parameters = sched_param()
        parameters.sched_priority = realtimePriority
        posix_spawnattr_setschedpolicy(&attributes, SCHED_FIFO)
        posix_spawnattr_setschedparam(&attributes, &parameters)
        flags |= POSIX_SPAWN_SETSCHEDULER
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    let env = environment ?? ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    var cArgv = argv.map { strdup($0) } + [nil]
    var cEnv = env.map { strdup($0) } + [nil]
    defer { for p in cArgv + cEnv { free(p) } }
    var child = pid_t()
    let rc = posix_spawn(&child, argv[0], &actions, &attributes, &cArgv, &cEnv)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    return child
}

/// Wait for `pid` to end and reap it: its exit status, or the number of the signal that ended
/// it (as Foundation's `terminationStatus`). Any test thread.
public func waitForChild(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
}

/// A child process (`spawnChild`, stdin /dev/null) whose output goes to a file (a chatty child
/// cannot fill a pipe nobody reads) and whose wait is bounded, so a hang fails the test instead
/// of stalling the run. Killed and reaped when dropped while still running. Thread: the test's.
public final class Child {
    public let pid: pid_t
    private let outputPath: String
    /// The folder made for the output (removed with the child), nil when the caller named the file.
    private let directory: String?
    /// Whether `wait(seconds:)` had to kill it.
    public private(set) var timedOut = false
    private var status: Int32?

    /// Start `executable` (a path) with `arguments`, stdout and stderr together into a file of
    /// its own (`output`).
    public convenience init(_ executable: String, _ arguments: [String]) throws {
        let directory = makeTemporaryFolder()
        try self.init([executable] + arguments, environment: nil, stdout: directory + "/out", stderr: .withStdout, directory: directory)
    }

    /// Start `argv` (argv[0] a path) with `environment` ("NAME=value" entries, nil: the test
    /// process's), stdout into the file `stdout` (truncated), stderr as `stderr` says;
    /// `realtimePriority` as `spawnChild` takes it.
    public convenience init(
        _ argv: [String], environment: [String]? = nil, stdout: String, stderr: SpawnedStderr = .withStdout,
        realtimePriority: Int32? = nil
    ) throws {
        try self.init(
            argv, environment: environment, stdout: stdout, stderr: stderr, directory: nil, realtimePriority: realtimePriority)
    }

    private init(
        _ argv: [String], environment: [String]?, stdout: String, stderr: SpawnedStderr, directory: String?,
        realtimePriority: Int32? = nil
    ) throws {
        outputPath = stdout
        self.directory = directory
        pid = try spawnChild(argv, environment: environment, stdout: stdout, stderr: stderr, realtimePriority: realtimePriority)
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var s: Int32 = 0
            _ = waitpid(pid, &s, 0)
        }
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// True until the child has exited (reaps it when it has).
    public var isRunning: Bool {
        if status != nil { return false }
        var s: Int32 = 0
        if waitpid(pid, &s, WNOHANG) == pid {
            status = s
            return false
        }
        return true
    }

    /// True when the child exited (rather than being killed by a signal).
    public var exited: Bool { status.map { $0 & 0x7F == 0 } ?? false }

    /// Wait at most `seconds`; a child still running then is killed and `timedOut` set.
    /// Returns the exit status, or -1 when a signal ended it.
    @discardableResult
    public func wait(seconds: Double) -> Int32 {
        let end = Date().addingTimeInterval(seconds)
        while isRunning, Date() < end { usleep(5_000) }
        if isRunning {
            timedOut = true
            kill(pid, SIGKILL)
            var s: Int32 = 0
            _ = waitpid(pid, &s, 0)
            status = s
        }
        return exited ? (status! >> 8) & 0xFF : -1
    }

    /// SIGTERM, then SIGKILL if it has not ended within 2 s; reaped either way.
    public func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<200 {
            if !isRunning { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        var s: Int32 = 0
        _ = waitpid(pid, &s, 0)
        status = s
    }

    /// What it wrote to its stdout file so far (with stderr, when that goes there too).
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
}

extension Tool {
    /// Run `argv` (argv[0] a path) to the end with `spawnChild` (stdin /dev/null): its exit
    /// status (or the signal that ended it) and its stdout and stderr together, in the order
    /// written.
    public static func runMerged(_ argv: [String]) throws -> (status: Int32, output: String) {
        let dir = makeTemporaryFolder("tutti-run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pid = try spawnChild(argv, stdout: dir + "/out")
        let status = waitForChild(pid)
        return (status, (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? "")
    }
}
