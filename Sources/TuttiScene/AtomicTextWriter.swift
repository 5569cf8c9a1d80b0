import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a text file atomically: `prepare()` writes the temporary file beside the
/// destination, `commit()` renames it into place, `discard()` removes it. Until the commit
/// the destination is untouched. Control side. Thread: one at a time, the control thread's (not `Sendable`).
public final class AtomicTextWriter {
    /// The path the file gets on `commit()`. The writer's thread.
    public let destination: String
    private let temporaryPath: String
    private var text = ""
    private var prepared = false

    /// Creates the (empty) temporary file now, so an unwritable folder fails before any
    /// rendering. Errors name `path`. The writer's thread.
    public init(path: String) throws {
        destination = path
        let (dir, name) = AtomicWAVWriter.split(path)
        if name.isEmpty { throw SceneError(path, "output path names a folder, not a file") }
        temporaryPath = (dir.isEmpty ? "" : dir + "/") + ".\(name).tutti-\(getpid()).tmp"
        try write([])
    }

    /// The temporary file never outlives the writer (after a commit it is already renamed away).
    deinit { discard() }

    /// Add text to what `prepare()` writes. The writer's thread.
    public func append(_ s: String) { text += s }

    /// Write the text to the temporary file. The writer's thread.
    public func prepare() throws {
        try write(Array(text.utf8))
        prepared = true
    }

    /// Move the temporary file into place (preparing it first if needed). The writer's thread.
    public func commit() throws {
        if !prepared { try prepare() }
        try TemporaryFiles.together { try commit(in: &$0) }
    }

    /// Move the prepared temporary file into place inside `TemporaryFiles.together` (with other
    /// outputs, all or none); `commit()` alone otherwise. The writer's thread.
    public func commit(in held: inout TemporaryFiles.Held) throws {
        if !prepared {
            let (path, bytes) = (temporaryPath, Array(text.utf8))
            if let error = held.create(path, { Self.write(bytes, to: path) }) { throw SceneError(destination, error) }
            prepared = true
        }
        guard held.moveIntoPlace(temporaryPath, to: destination) == 0 else {
            let reason = String(cString: strerror(errno))
            held.remove(temporaryPath)
            throw SceneError(destination, "cannot move the finished file into place: \(reason)")
        }
    }

    /// Remove the temporary file; the destination stays as it was. The writer's thread.
    public func discard() { TemporaryFiles.remove(temporaryPath) }

    private func write(_ bytes: [UInt8]) throws {
        let path = temporaryPath
        if let error = TemporaryFiles.create(path, { Self.write(bytes, to: path) }) { throw SceneError(destination, error) }
    }

    /// Writes `bytes` to the file at `path`; nil, or what went wrong.
    private static func write(_ bytes: [UInt8], to path: String) -> String? {
        guard let f = fopen(path, "wb") else { return "cannot write: \(String(cString: strerror(errno)))" }
        let n = fwrite(bytes, 1, bytes.count, f)
        let closed = fclose(f)
        return n == bytes.count && closed == 0 ? nil : "write failed: \(String(cString: strerror(errno)))"
    }
}
