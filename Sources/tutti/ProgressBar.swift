import Foundation
import Synchronization
import TuttiEngine
import TuttiScene

/// A one-line progress bar on stderr for the whole render job: loading and converting the
/// audio files (file by file, naming the one being loaded), then rendering. Shown once the
/// job has taken more than a second, redrawn ten times a second by a thread of its own, so
/// it moves on (and names the file) even while one long file is being converted.
///
/// Thread: `update` and `finish` from the job's thread; drawing on the bar's thread (one lock).
final class ProgressBar: Sendable {
    private struct State {
        var latest: RenderProgress?
        var drawn = false
        var finished = false
        /// The drawing thread, joined by `finish`.
        var thread: pthread_t?
    }
    private let state = Mutex(State())
    private let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
        guard enabled else { return }
        let start = Date()
        // No thread (it could not start): no bar; the job goes on.
        let thread = try? startThread(name: "tutti-progress") { [self] in
            while true {
                usleep(100_000)
                let finished = state.withLock { s in
                    if s.finished {
                        if s.drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                        return true
                    }
                    if Date().timeIntervalSince(start) > 1, let p = s.latest {
                        FileHandle.standardError.write(Data("\r\(ProgressBar.line(p))\u{1B}[K".utf8))
                        s.drawn = true
                    }
                    return false
                }
                if finished { return }
            }
        }
        state.withLock { $0.thread = thread }
    }

    /// Record where the job is (drawn on the next tick).
    func update(_ progress: RenderProgress) {
        guard enabled else { return }
        state.withLock { $0.latest = progress }
    }

    /// Clear the line and stop drawing; returns once the line is clear (the thread joined).
    func finish() {
        guard enabled else { return }
        let thread = state.withLock { s in
            s.finished = true
            defer { s.thread = nil }
            return s.thread
        }
        if let thread { pthread_join(thread, nil) }
    }

    static func line(_ progress: RenderProgress) -> String {
        switch progress {
        case .loading(let done, let total, let file):
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return "loading   " + bar(Double(done) / Double(max(total, 1))) + " \(done)/\(total) files" + (done < total ? " · \(name)" : "")
        case .rendering(let fraction):
            return "rendering " + bar(fraction) + String(format: " %3.0f%%", fraction * 100)
        }
    }

    static func bar(_ fraction: Double) -> String {
        let width = 30
        let filled = min(width, max(0, Int((fraction * Double(width)).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }
}
