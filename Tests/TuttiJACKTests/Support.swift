import Foundation
import Glibc
import Synchronization
import Testing
import TuttiEngine
import TuttiJACK
import TuttiTestSupport

/// Every JACK test, one at a time: libjack keeps per-process state for one server, so a test
/// process must not have clients on two servers at once (two tests in parallel crash in libjack).
@Suite(.serialized) struct JACKTests {}

/// Collects log lines and events from the backend's threads. Thread: any (one lock).
final class Collector: Sendable {
    private let state = Mutex<(lines: [String], events: [JACKEvent])>(([], []))
    var lines: [String] { state.withLock { $0.lines } }
    var events: [JACKEvent] { state.withLock { $0.events } }
    var log: @Sendable (String) -> Void { { [self] l in state.withLock { $0.lines.append(l) } } }
    var onEvent: @Sendable (JACKEvent) -> Void { { [self] e in state.withLock { $0.events.append(e) } } }

    /// Wait (bounded) until `predicate` holds for the events so far.
    func waitFor(_ seconds: Double, _ predicate: ([JACKEvent]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if predicate(events) { return true }
            usleep(2_000)
        }
        return predicate(events)
    }
}

extension JACKEvent {
    var isDeviceLost: Bool { if case .deviceLost = self { true } else { false } }
    var isDeviceRestored: Bool { if case .deviceRestored = self { true } else { false } }
    var isGaveUp: Bool { if case .gaveUp = self { true } else { false } }
    var isFinished: Bool { if case .finished = self { true } else { false } }
    var lateFrames: Int64? { if case .commandsLate(let n) = self { n } else { nil } }
    var bufferFrames: Int? { if case .bufferSizeChanged(let n) = self { n } else { nil } }
}
