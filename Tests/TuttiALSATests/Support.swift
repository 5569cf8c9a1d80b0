import Foundation
import Testing
import Tutti
import TuttiALSA
import TuttiDSP
import TuttiOutput

/// A small busy graph, identical every time it is built: two tones and a looping buffer on
/// two buses, with gain ramps, a duck and a pause scheduled at exact frames (all queued
/// before rendering starts, so live and offline renders see the same commands).
func buildGraph(_ engine: Engine, sampleRate: Int = 48_000, scheduleChanges: Bool = true) throws {
    let a = try engine.addBus()
    let b = try engine.addBus(gain: 0.8)
    let ch = engine.channelCount
    let frames = 4_801
    var samples = [Float](repeating: 0, count: frames * ch)
    for i in 0..<frames {
        for c in 0..<ch { samples[i * ch + c] = Float(0.3 * sin(2 * Double.pi * 523.25 * Double(i) / Double(sampleRate) + Double(c))) }
    }
    let buffer = AudioBuffer(interleaved: samples, channelCount: ch, sampleRate: Double(sampleRate))
    let t1 = try engine.addSource(.tone(frequency: 440, amplitude: 0.25), bus: a)
    let t2 = try engine.addSource(.tone(frequency: 661, amplitude: 0.2), bus: b, gain: 0.5)
    let s = try engine.addSource(.buffer(buffer), bus: b, loop: true)
    try engine.send(.play(t1))
    guard scheduleChanges else { return }
    try engine.send(.play(t2), at: .frame(1_000))
    try engine.send(.play(s), at: .frame(7_777))
    try engine.send(.setSourceGain(t1, gain: 0.3, rampFrames: 2_400), at: .frame(12_345))
    try engine.send(.setBusDuck(b, targetDB: -12, dBPerFrame: 0.002), at: .frame(20_000))
    try engine.send(.pause(t2), at: .frame(30_000))
    try engine.send(.setMasterVolume(gain: 0.9, rampFrames: 960), at: .frame(40_000))
}

func makeEngine(channels: Int = 2, scheduleChanges: Bool = true, commandCapacity: Int? = nil) throws -> Engine {
    var config = EngineConfiguration(sampleRate: 48_000, channelCount: channels)
    if let commandCapacity { config.commandQueueCapacity = commandCapacity }
    let engine = try Engine(configuration: config)
    try buildGraph(engine, scheduleChanges: scheduleChanges)
    return engine
}

/// The same graph rendered offline (pull mode) in blocks of `block` frames.
func offlineReference(frames: Int, channels: Int = 2, block: Int = 777) throws -> [Float] {
    let engine = try makeEngine(channels: channels)
    var out = [Float](repeating: 0, count: frames * channels)
    var done = 0
    out.withUnsafeMutableBufferPointer { p in
        while done < frames {
            let n = min(block, frames - done)
            engine.render(into: p.baseAddress! + done * channels, frameCount: n)
            done += n
            engine.pollEvents()
        }
    }
    return out
}

/// First index where two sample arrays differ bit for bit (nil: identical, same length).
func firstDifference(_ a: [Float], _ b: [Float]) -> Int? {
    if a.count != b.count { return min(a.count, b.count) }
    for i in a.indices where a[i].bitPattern != b[i].bitPattern { return i }
    return nil
}

/// Collects log lines and events from the backend's threads. Thread: any (one lock).
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    private var _events: [OutputEvent] = []
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return _lines
    }
    var events: [OutputEvent] {
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
    var onEvent: @Sendable (OutputEvent) -> Void {
        { [self] e in
            lock.lock()
            _events.append(e)
            lock.unlock()
        }
    }

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
    var isStalled: Bool { if case .stalled = self { true } else { false } }
    var isStallEnded: Bool { if case .stallEnded = self { true } else { false } }
    var isXrun: Bool { if case .xrun = self { true } else { false } }
    var isFinished: Bool { if case .finished = self { true } else { false } }
    var lostCode: Int32? { if case .deviceLost(_, let c) = self { c } else { nil } }
}

func uniqueName(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

/// Mock configuration: small periods, no real-time promotion (unpaced fakes spin).
func mockConfiguration(_ device: String, period: Int = 256, periods: Int = 4) -> ALSAOutputConfiguration {
    var c = ALSAOutputConfiguration(device: device)
    c.periodFrames = period
    c.periodCount = periods
    c.realtimePriority = nil
    c.reconnect.backoffInitial = .seconds(0.01)
    c.reconnect.backoffMax = .seconds(0.05)
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
    let finished = output.waitUntilFinished(timeoutSeconds: timeout)
    output.stop(drain: finished)
    engine.pollEvents()
    return (output, finished, monotonic() - started)
}
