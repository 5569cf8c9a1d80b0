import Foundation
import Glibc
import TuttiScene

/// `tutti play --events FILE`: the policy journal written while playing, in the JSON Lines of
/// `tutti render --events`. Each call of `write` appends the entries made since the last one
/// with one `write(2)` (no user-space buffer), so another process tailing the file sees them
/// as soon as the play loop step that made them ends. A write that fails is one line on
/// stderr and the end of the file's entries: playback goes on. Thread: the play loop's.
final class LiveJournal {
    /// The file (as given).
    let path: String
    private let fd: Int32
    /// Entries of the journal written so far.
    private var written = 0
    private var failed = false
    private let warn: (String) -> Void

    /// Creates (or truncates) `path`; an error names `--events` and the file. `warn` gets
    /// the line of a later write that failed.
    init(path: String, warn: @escaping (String) -> Void) throws {
        self.path = path
        self.warn = warn
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LiveJournalError("--events \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Appends `journal[written...]` (the whole journal so far is passed; what was written
    /// already is skipped).
    func write(_ journal: [LogEntry]) {
        guard !failed, journal.count > written else { return }
        var text = ""
        for entry in journal[written...] {
            text += entry.jsonLine
            text += "\n"
        }
        written = journal.count
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                failed = true
                warn("--events \(path): \(String(cString: strerror(errno))); no more entries are written to it")
                return
            }
            offset += n
        }
    }
}

/// The `--events` file cannot be opened or written. Value type.
struct LiveJournalError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
