import Foundation
import Glibc
import Synchronization
import Testing
import TuttiEngine
import TuttiJACK
import TuttiOutput
import TuttiTestSupport

/// Every JACK test, one at a time: libjack keeps per-process state for one server, so a test
/// process must not have clients on two servers at once (two tests in parallel crash in libjack).
@Suite(.serialized) struct JACKTests {}

/// A busy graph, identical every time it is built: tones and a looping buffer on two buses,
/// with gain ramps, a duck, a pause and a volume ramp at exact frames. With
/// `scheduleChanges`, the changes are queued before rendering starts (so live and offline
/// renders see the same commands); otherwise the caller queues `changes` itself.
struct TestGraph {
    let engine: Engine
    /// (frame, action), in frame order.
    let changes: [(Int64, EngineCommand)]

    init(sampleRate: Int = 48_000, channels: Int = 2, scheduleChanges: Bool = true) throws {
        engine = try Engine(configuration: EngineConfiguration(sampleRate: sampleRate, channelCount: channels))
        let a = try engine.addBus()
        let b = try engine.addBus(gain: 0.8)
        let frames = 4_801
        var samples = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                samples[i * channels + c] = Float(0.3 * sin(2 * Double.pi * 523.25 * Double(i) / Double(sampleRate) + Double(c)))
            }
        }
        let buffer = AudioBuffer(interleaved: samples, channelCount: channels, sampleRate: Double(sampleRate))
        let t1 = try engine.addSource(.tone(frequency: 440, amplitude: 0.25), bus: a)
        let t2 = try engine.addSource(.tone(frequency: 661, amplitude: 0.2), bus: b, gain: 0.5)
        let s = try engine.addSource(.buffer(buffer), bus: b, loop: true)
        try engine.send(.play(t1))
        var changes: [(Int64, EngineCommand)] = [
            (1_000, .play(t2)), (7_777, .play(s)), (12_345, .setSourceGain(t1, gain: 0.3, rampFrames: 2_400)),
            (20_000, .setBusDuck(b, targetDB: -12, dBPerFrame: 0.002)), (30_000, .pause(t2)),
            (40_000, .setMasterVolume(gain: 0.9, rampFrames: 960)),
        ]
        // A change every 0.1 s for 10 s: plenty of commands for a late control thread to miss.
        for k in 1...100 {
            changes.append((Int64(45_000 + k * 4_800), .setSourceGain(s, gain: Float(0.4 + 0.05 * Double(k % 10)), rampFrames: 480)))
        }
        self.changes = changes
        if scheduleChanges { for (frame, action) in changes { try engine.send(action, at: .frame(frame)) } }
    }

    /// The same graph rendered offline (pull mode) in blocks of `block` frames.
    static func offline(frames: Int, channels: Int = 2, block: Int = 777) throws -> [Float] {
        let graph = try TestGraph(channels: channels)
        var out = [Float](repeating: 0, count: frames * channels)
        var done = 0
        out.withUnsafeMutableBufferPointer { p in
            while done < frames {
                let n = min(block, frames - done)
                graph.engine.render(into: p.baseAddress! + done * channels, frameCount: n)
                done += n
                graph.engine.pollEvents()
            }
        }
        return out
    }
}

/// First index where two sample arrays differ bit for bit (nil: identical, same length).
func firstDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Int? {
    if a.count != b.count { return min(a.count, b.count) }
    for (i, (x, y)) in zip(a, b).enumerated() where x.bitPattern != y.bitPattern { return i }
    return nil
}

/// Collects log lines and events from the backend's threads. Thread: any (one lock).
final class Collector: Sendable {
    private let state = Mutex<(lines: [String], events: [OutputEvent])>(([], []))
    var lines: [String] { state.withLock { $0.lines } }
    var events: [OutputEvent] { state.withLock { $0.events } }
    var log: @Sendable (String) -> Void { { [self] l in state.withLock { $0.lines.append(l) } } }
    var onEvent: @Sendable (OutputEvent) -> Void { { [self] e in state.withLock { $0.events.append(e) } } }

    /// Wait (bounded) until `predicate` holds for the events so far.
    func waitFor(_ seconds: Double, _ predicate: ([OutputEvent]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if predicate(events) { return true }
            usleep(2_000)
        }
        return predicate(events)
    }
}

extension OutputEvent {
    var isDeviceLost: Bool { if case .deviceLost = self { true } else { false } }
    var isDeviceRestored: Bool { if case .deviceRestored = self { true } else { false } }
    var isGaveUp: Bool { if case .gaveUp = self { true } else { false } }
    var isFinished: Bool { if case .finished = self { true } else { false } }
    var lateFrames: Int64? { if case .commandsLate(let n) = self { n } else { nil } }
    var bufferFrames: Int? { if case .periodChanged(let n) = self { n } else { nil } }
}
