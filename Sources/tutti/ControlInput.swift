import Foundation
import Synchronization
import TuttiEngine
import TuttiScene

/// `tutti play`'s control lines: a thread reads stdin line by line (and the MPRIS server adds
/// the remote commands it is sent, `submit`); the play loop takes what came (`take`) and
/// applies it through the `ScenePlayback`. Thread: the reader thread and the MPRIS thread
/// append, the play loop takes (one lock, never held while reading).
final class ControlInput: Sendable {
    private struct State {
        /// `origin`: nil for stdin's line `number`, else who sent it (MPRIS).
        var lines: [(number: Int, origin: String?, text: String)] = []
        var open = true
        var count = 0
    }
    private let state = Mutex(State())
    /// How far ahead the scene is decided while stdin is open (`--control-lookahead`).
    let lookaheadSeconds: Double

    /// Starts reading stdin (a closed or empty stdin, e.g. /dev/null, just ends it).
    /// `lookaheadSeconds`: see `lookaheadFrames`.
    init(lookaheadSeconds: Double = 0.05) {
        self.lookaheadSeconds = lookaheadSeconds
        // Detached, never joined: it may be blocked reading stdin until the process exits.
        do {
            pthread_detach(
                try startThread(name: "tutti-stdin") { [self] in
                    while let line = readLine(strippingNewline: true) {
                        state.withLock {
                            $0.count += 1
                            $0.lines.append(($0.count, nil, line))
                        }
                    }
                    state.withLock { $0.open = false }
                })
        } catch {
            // No reader: no control lines (as for an empty stdin).
            state.withLock { $0.open = false }
        }
    }

    /// A control line from elsewhere than stdin (`origin` names it: "MPRIS"), applied like
    /// stdin's next line. Any thread.
    func submit(_ text: String, origin: String) {
        state.withLock { $0.lines.append((0, origin, text)) }
    }

    /// Lines read since the last call: stdin's numbered from 1, the others with their origin.
    func take() -> [(number: Int, origin: String?, text: String)] {
        state.withLock { s in
            defer { s.lines.removeAll() }
            return s.lines
        }
    }

    /// More lines may come (stdin not at its end).
    var isOpen: Bool { state.withLock { $0.open } }

    /// How far ahead of the live render the scene is decided: `lookaheadSeconds` while a
    /// person may type (a control line is heard after about this much plus the device
    /// buffer), at least one second once stdin has ended (more slack for a busy control
    /// thread). At least one frame.
    func lookaheadFrames(sampleRate: Int) -> Int64 {
        let short = max(1, Int64((lookaheadSeconds * Double(sampleRate)).rounded()))
        return isOpen ? short : max(short, Int64(sampleRate))
    }

    /// Apply every line that came: parse errors and unknown ids are one line on stderr each and
    /// playback goes on; applied lines say at which second they took effect and what the policy
    /// did (and, when not from stdin, where they came from).
    func applyPending(to playback: ScenePlayback, say: (String) -> Void) {
        for (number, origin, text) in take() {
            let from = origin.map { " (\($0))" } ?? ""
            let place = origin ?? "line \(number)"
            do {
                guard let line = try ControlLine.parse(text) else { continue }
                let frame = playback.decidedFrames
                let at = Double(frame) / Double(playback.scene.engine.sampleRate)
                let entries = try playback.apply(line)
                let what = entries.map { $0.jsonLine }.joined(separator: " ")
                say(
                    "control: \(text.trimmingCharacters(in: .whitespaces))\(from) at \(String(format: "%.3f", at)) s (frame \(frame))\(what.isEmpty ? "" : ": " + what)"
                )
            } catch let e as ControlLineError {
                say("control: \(place): \(e.description)")
            } catch {
                say("control: \(place): \(error)")
            }
        }
    }
}
