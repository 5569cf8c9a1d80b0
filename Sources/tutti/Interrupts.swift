import Foundation
import Glibc
import TuttiEngine
import TuttiScene

/// `tutti render`'s answer to SIGINT, SIGTERM and SIGHUP: remove the temporary outputs, leave
/// every destination as it was, exit 128 + the signal number (130, 143, 129).
///
/// No signal handler runs: the signals are blocked in every thread (the mask is set before
/// any other thread exists, and threads inherit it) and taken by `sigwait` on a thread of
/// their own, where removing files and writing a line are ordinary work. That thread takes
/// `TemporaryFiles`' lock for good, so the render cannot create or move a file afterwards.
enum Interrupts {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Call first thing, on the main thread, before any other thread is started.
    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let waited = set
        // Detached, never joined: it waits for a signal until the process exits.
        do {
            pthread_detach(try startThread(name: "tutti-signals") { waitForSignal(waited) })
        } catch {
            // No thread to take them: the signals act as by default again.
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }

    /// The signal thread: waits for one of `waited`, removes the temporary outputs and exits.
    private static func waitForSignal(_ waited: sigset_t) {
        var signals = waited
        var signal: Int32 = 0
        while sigwait(&signals, &signal) != 0 {}
        TemporaryFiles.removeAllForExit { removed in
            let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][signal] ?? "signal \(signal)"
            let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
            let what = removed.isEmpty ? "nothing was written" : "removed \(removed.count) unfinished file\(removed.count == 1 ? "" : "s")"
            FileHandle.standardError.write(Data("\(clear)tutti: interrupted by \(name): \(what); existing outputs are untouched\n".utf8))
            _exit(128 + signal)
        }
    }
}
