import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary files the atomic writers have on disk (`.NAME.tutti-PID.tmp`), so that a
/// process told to stop (SIGINT, SIGTERM, SIGHUP during `tutti render`) can remove them and
/// leave every destination as it was. Creating a temporary file, moving it into place and
/// removing it happen under one lock, so `removeAllForExit()` finds each file either still
/// temporary or already in place, never half done.
///
/// Thread: any (one recursive lock).
public enum TemporaryFiles {
    private static let lock = NSRecursiveLock()
    nonisolated(unsafe) private static var paths: Set<String> = []

    /// Runs `create`, which makes the file at `path`, and remembers the path (until `remove`
    /// or `moveIntoPlace`).
    static func create<T>(_ path: String, _ create: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        paths.insert(path)
        return try create()
    }

    /// Renames `path` to `destination` and forgets it. Returns `rename`'s result (errno set on -1).
    static func moveIntoPlace(_ path: String, to destination: String) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        let rc = rename(path, destination)
        if rc == 0 { paths.remove(path) }
        return rc
    }

    /// Removes the file at `path` and forgets it.
    static func remove(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        unlink(path)
        paths.remove(path)
    }

    /// Runs `body` with no other creation, move or removal in between: several outputs moved
    /// into place together are all moved or none (if the process is stopped meanwhile).
    public static func together<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Removes every temporary file and keeps the lock for good: no writer creates or moves a
    /// file after this (they wait). For a process about to exit; returns the removed paths.
    public static func removeAllForExit() -> [String] {
        lock.lock()
        let removed = paths.sorted()
        for p in removed { unlink(p) }
        paths.removeAll()
        return removed
    }
}
