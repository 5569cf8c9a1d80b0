import Foundation

/// A one-line progress bar on stderr, shown only once a render has taken more than a second.
final class ProgressBar {
    let enabled: Bool
    let start = Date()
    var lastDraw = Date.distantPast
    var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(start) > 1, now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        drawn = true
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data(String(format: "\rrendering [%@] %3.0f%%", bar, fraction * 100).utf8))
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
