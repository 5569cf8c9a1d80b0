import CTuttiTestSupport
import Foundation
import Glibc

/// Where a spawned child's stderr goes.
public enum SpawnedStderr: Sendable {
    /// The same file as its stdout.
    case withStdout
    /// /dev/null.
    case discard
}

/// Start `argv` (argv[0] a path) with posix_spawn, not Foundation's `Process`: Foundation's
/// child monitor learns of an exit late while other children run, and tests run in parallel.
/// stdin is /dev/null, stdout goes to the file `stdout` (appended to when `append`, else
/// truncated), stderr as `stderr` says. The child gets nothing else of the test process (a
/// Foundation `Process` being spawned by a parallel test holds a socket whose closing tells it
/// its child exited: a child that inherited it would hide that exit while it runs), no
/// blocked signal and every signal at its default action. `environment`: "NAME=value"
/// entries, nil for the test process's own. Returns the child's pid (the caller reaps it).
/// Any test thread.
public func spawnChild(
    _ argv: [String], environment: [String]? = nil, stdout: String, append: Bool = false, stderr: SpawnedStderr = .withStdout
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
    switch stderr {
    case .withStdout: posix_spawn_file_actions_adddup2(&actions, 1, 2)
    case .discard: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let env = environment ?? ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    var cArgv = argv.map { strdup($0) } + [nil]
    var cEnv = env.map { strdup($0) } + [nil]
    defer { for p in cArgv + cEnv { free(p) } }
    var child = pid_t()
    let rc = posix_spawn(&child, argv[0], &actions, &attributes, &cArgv, &cEnv)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    return child
}
