import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary files the atomic writers have on disk (`.NAME.tutti-PID.tmp`), so that a
/// process told to stop (SIGINT, SIGTERM, SIGHUP during `tutti render`) can remove them and
/// leave every destination as it was. Creating a temporary file, moving it into place and
/// removing it happen under one lock, so `removeAllForExit(then:)` finds each file either
/// still temporary or already in place, never half done.
///
/// The lock is not recursive: work that must see no other creation, move or removal in
/// between (several outputs moved into place together) runs in `together`, which hands its
/// body the `Held` list to move and remove through.
///
/// Thread: any (one `Mutex`).
public enum TemporaryFiles {
    /// The list of temporary files, reachable only while the lock is held (inside `together`).
    /// Thread: the one holding the lock.
    public struct Held: ~Copyable {
        fileprivate var paths: Set<String> = []

        /// Runs `create`, which makes the file at `path`, and remembers the path.
        mutating func create<T>(_ path: String, _ create: () -> T) -> T {
            paths.insert(path)
            return create()
        }

        /// Renames `path` to `destination` and forgets it. Returns `rename`'s result (errno set on -1).
        mutating func moveIntoPlace(_ path: String, to destination: String) -> Int32 {
            let rc = rename(path, destination)
            if rc == 0 { paths.remove(path) }
            return rc
        }

        /// Removes the file at `path` and forgets it.
        mutating func remove(_ path: String) {
            unlink(path)
            paths.remove(path)
        }
    }

    private static let lock = Mutex(Held())

    /// Runs `create`, which makes the file at `path`, and remembers the path (until `remove`
    /// or `moveIntoPlace`).
    static func create<T>(_ path: String, _ create: () -> T) -> T {
        var made: T?
        lock.withLock { held in
            held.paths.insert(path)
            made = create()
        }
        return made!
    }

    /// Renames `path` to `destination` and forgets it. Returns `rename`'s result (errno set on -1).
    static func moveIntoPlace(_ path: String, to destination: String) -> Int32 {
        lock.withLock { $0.moveIntoPlace(path, to: destination) }
    }

    /// Removes the file at `path` and forgets it.
    static func remove(_ path: String) {
        lock.withLock { $0.remove(path) }
    }

    /// Runs `body` with no other creation, move or removal in between: several outputs moved
    /// into place together (through `held`) are all moved or none (if the process is stopped
    /// meanwhile). Any thread but a real-time one (takes the lock).
    public static func together(_ body: (_ held: inout Held) throws -> Void) throws {
        try lock.withLock { (held: inout Held) throws in try body(&held) }
    }

    /// Removes every temporary file, then runs `exit` (which ends the process) with the removed
    /// paths, still holding the lock: no writer creates or moves a file after this (they wait).
    /// Any thread but a real-time one (the CLI calls it from its signal thread).
    public static func removeAllForExit(then exit: (_ removed: [String]) -> Never) -> Never {
        lock.withLock { held -> Never in
            let removed = held.paths.sorted()
            for p in removed { unlink(p) }
            held.paths.removeAll()
            exit(removed)
        }
    }
}
