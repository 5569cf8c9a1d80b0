import Foundation
import Testing
import Tutti
import TuttiALSA
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

/// The test graph (`TestGraph`) as the ALSA tests play it: its six scheduled changes, no
/// gain steps. Control thread.
func makeEngine(channels: Int = 2, scheduleChanges: Bool = true, commandCapacity: Int? = nil) throws -> Engine {
    try TestGraph(channels: channels, scheduleChanges: scheduleChanges, gainSteps: 0, commandCapacity: commandCapacity).engine
}

/// The same graph rendered offline (pull mode) in blocks of `block` frames.
func offlineReference(frames: Int, channels: Int = 2, block: Int = 777) throws -> [Float] {
    try TestGraph.offline(frames: frames, channels: channels, block: block, gainSteps: 0)
}

/// Collects log lines and events from the backend's threads. Thread: any (one lock).
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    private var _events: [ALSAEvent] = []
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return _lines
    }
    var events: [ALSAEvent] {
        lock.lock()
        defer { lock.unlock() }
        return _events
    }
    var log: @Sendable (String) -> Void {
        { [self] l in
            lock.lock()
            _lines.append(l)
            lock.unlock()
        }
    }
    var onEvent: @Sendable (ALSAEvent) -> Void {
        { [self] e in
            lock.lock()
            _events.append(e)
            lock.unlock()
        }
    }

    /// Wait (bounded) until `predicate` holds for the events so far.
    func waitFor(_ seconds: Double, _ predicate: ([ALSAEvent]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if predicate(events) { return true }
            usleep(2_000)
        }
        return predicate(events)
    }
}

extension ALSAEvent {
    var isDeviceLost: Bool { if case .deviceLost = self { true } else { false } }
    var isDeviceRestored: Bool { if case .deviceRestored = self { true } else { false } }
    var isStalled: Bool { if case .stalled = self { true } else { false } }
    var isStallEnded: Bool { if case .stallEnded = self { true } else { false } }
    var isXrun: Bool { if case .xrun = self { true } else { false } }
    var isFinished: Bool { if case .finished = self { true } else { false } }
    var lostCode: Int32? { if case .deviceLost(let c, _) = self { c } else { nil } }
}

func uniqueName(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

/// Mock configuration: small periods, no real-time promotion (unpaced fakes spin).
func mockConfiguration(_ device: String, period: Int = 256, periods: Int = 4) -> ALSAOutputConfiguration {
    var c = ALSAOutputConfiguration(device: device)
    c.periodFrames = period
    c.periodCount = periods
    c.realtimePriority = nil
    c.reopenInitialDelay = 0.01
    c.reopenMaximumDelay = 0.05
    return c
}

/// Play `frames` of the test graph through a mock device; returns the output after stop.
func playOnMock(
    _ device: MockDevice, frames: Int, configuration: ALSAOutputConfiguration? = nil,
    collector: Collector = Collector(), timeout: Double = 20,
    during: ((ALSAOutput) throws -> Void)? = nil
) throws -> (output: ALSAOutput, finished: Bool, seconds: Double) {
    let engine = try makeEngine()
    let output = try ALSAOutput(
        engine: engine, configuration: configuration ?? mockConfiguration(device.name),
        functions: .mock, log: collector.log, onEvent: collector.onEvent)
    let started = monotonic()
    try output.start(frameLimit: Int64(frames))
    try during?(output)
    let finished = output.waitUntilFinished(timeout: timeout)
    output.stop(drain: finished)
    engine.pollEvents()
    return (output, finished, monotonic() - started)
}
