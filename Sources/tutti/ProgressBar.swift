import Foundation
import TuttiScene

/// A one-line progress bar on stderr for the whole render job: loading and converting the
/// audio files (file by file, naming the one being loaded), then rendering. Shown once the
/// job has taken more than a second, redrawn ten times a second by a thread of its own, so
/// it moves on (and names the file) even while one long file is being converted.
///
/// Thread: `update` and `finish` from the job's thread; drawing on the bar's thread (one lock).
final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private var latest: RenderProgress?
    private var drawn = false
    private var finished = false
    private let stopped = DispatchSemaphore(value: 0)
    private let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
        guard enabled else { return }
        let start = Date()
        let thread = Thread { [self] in
            while true {
                usleep(100_000)
                lock.lock()
                if finished {
                    if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    lock.unlock()
                    stopped.signal()
                    return
                }
                if Date().timeIntervalSince(start) > 1, let p = latest {
                    FileHandle.standardError.write(Data("\r\(ProgressBar.line(p))\u{1B}[K".utf8))
                    drawn = true
                }
                lock.unlock()
            }
        }
        thread.name = "tutti-progress"
        thread.start()
    }

    /// Record where the job is (drawn on the next tick).
    func update(_ progress: RenderProgress) {
        guard enabled else { return }
        lock.lock()
        latest = progress
        lock.unlock()
    }

    /// Clear the line and stop drawing; returns once the line is clear.
    func finish() {
        guard enabled else { return }
        lock.lock()
        let first = !finished
        finished = true
        lock.unlock()
        if first { stopped.wait() }
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
