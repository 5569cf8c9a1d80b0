import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opening input files (scenes, audio) without hanging on what is not a regular file: the
/// open is non-blocking, so a FIFO with no writer or a device cannot stall it, and anything
/// but a regular file is refused before a byte is read. Any thread.
enum RegularFile {
    /// A read-only descriptor (blocking mode, close-on-exec) for the regular file at `path`;
    /// the caller closes it. Errors are `SceneError`s at `path`; `missing` is the message for
    /// a path that does not exist.
    static func open(_ path: String, missing: String = "no such file") throws -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SceneError(path, code == ENOENT ? missing : "cannot open: \(String(cString: strerror(code)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw SceneError(path, "cannot open: \(reason)")
        }
        if let kind = nonRegularKind(st.st_mode) {
            close(fd)
            throw SceneError(path, kind)
        }
        // Back to blocking reads (no difference for a regular file, but libsndfile expects it).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Why a file of this mode is refused; nil for a regular file.
    static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "is a folder, not a file"
        case S_IFIFO: "is a FIFO (named pipe), not a regular file"
        case S_IFCHR: "is a character device, not a regular file"
        case S_IFBLK: "is a block device, not a regular file"
        case S_IFSOCK: "is a socket, not a regular file"
        default: "is not a regular file"
        }
    }

    /// The whole content of the regular file at `path`.
    static func contents(_ path: String, missing: String = "no such file") throws -> [UInt8] {
        let fd = try open(path, missing: missing)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SceneError(path, "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}
