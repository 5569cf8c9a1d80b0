import Foundation
import Synchronization
import TuttiOutput

/// Collects log lines and events from an output's threads (`log`, `onEvent`), for any
/// backend. Thread: any (one lock).
public final class Collector: Sendable {
    private let state = Mutex<(lines: [String], events: [OutputEvent])>(([], []))
    /// A collector with nothing collected yet.
    public init() {}
    /// The log lines so far.
    public var lines: [String] { state.withLock { $0.lines } }
    /// The events so far, in order.
    public var events: [OutputEvent] { state.withLock { $0.events } }
    /// The output's `log`.
    public var log: @Sendable (String) -> Void { { [self] l in state.withLock { $0.lines.append(l) } } }
    /// The output's `onEvent`.
    public var onEvent: @Sendable (OutputEvent) -> Void { { [self] e in state.withLock { $0.events.append(e) } } }

    /// Wait (bounded) until `predicate` holds for the events so far.
    public func waitFor(_ seconds: Double, _ predicate: ([OutputEvent]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if predicate(events) { return true }
            usleep(2_000)
        }
        return predicate(events)
    }
}

extension OutputEvent {
    public var isDeviceLost: Bool { if case .deviceLost = self { true } else { false } }
    public var isDeviceRestored: Bool { if case .deviceRestored = self { true } else { false } }
    public var isStalled: Bool { if case .stalled = self { true } else { false } }
    public var isStallEnded: Bool { if case .stallEnded = self { true } else { false } }
    public var isXrun: Bool { if case .xrun = self { true } else { false } }
    public var isFinished: Bool { if case .finished = self { true } else { false } }
    public var isGaveUp: Bool { if case .gaveUp = self { true } else { false } }
    /// The code of a `deviceLost`.
    public var lostCode: Int32? { if case .deviceLost(_, let c) = self { c } else { nil } }
    /// The frames of a `commandsLate`.
    public var lateFrames: Int64? { if case .commandsLate(let n) = self { n } else { nil } }
    /// The frames of a `periodChanged`.
    public var periodFrames: Int? { if case .periodChanged(let n) = self { n } else { nil } }
}
