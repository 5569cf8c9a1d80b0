import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a text file atomically: `prepare()` writes the temporary file beside the
/// destination, `commit()` renames it into place, `discard()` removes it.
public final class AtomicTextWriter {
    public let destination: String
    private let temporaryPath: String
    private var text = ""
    private var prepared = false

    public init(path: String) throws {
        destination = path
        let (dir, name) = AtomicWAVWriter.split(path)
        if name.isEmpty { throw SceneError(path, "output path names a folder, not a file") }
        temporaryPath = (dir.isEmpty ? "" : dir + "/") + ".\(name).tutti-\(getpid()).tmp"
        // Fail now, before any rendering, if the folder is not writable.
        guard let f = fopen(temporaryPath, "wb") else { throw SceneError(path, "cannot write: \(String(cString: strerror(errno)))") }
        fclose(f)
    }

    /// The temporary file never outlives the writer (after a commit it is already renamed away).
    deinit { discard() }

    public func append(_ s: String) { text += s }

    public func prepare() throws {
        guard let f = fopen(temporaryPath, "wb") else { throw SceneError(destination, "cannot write: \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let n = fwrite(bytes, 1, bytes.count, f)
        let closed = fclose(f)
        guard n == bytes.count, closed == 0 else {
            throw SceneError(destination, "write failed: \(String(cString: strerror(errno)))")
        }
        prepared = true
    }

    public func commit() throws {
        if !prepared { try prepare() }
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw SceneError(destination, "cannot move the finished file into place: \(reason)")
        }
    }

    public func discard() { unlink(temporaryPath) }
}
