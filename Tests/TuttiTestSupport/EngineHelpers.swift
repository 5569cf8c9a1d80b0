import Foundation
import TuttiDSP
import TuttiEngine

/// Render `frameCount` frames from `engine` in blocks of `block`, collecting events; with
/// `waitingForFiles`, each block waits for its streaming files (`renderWaitingForFiles`).
public func renderAll(
    _ engine: Engine, frameCount: Int, block: Int = 256, waitingForFiles: Bool = false, events: inout [EngineEvent],
    before: (Int64) -> Void = { _ in }
) -> [Float] {
    let ch = engine.channelCount
    var out = [Float](repeating: 0, count: frameCount * ch)
    var done = 0
    out.withUnsafeMutableBufferPointer { o in
        while done < frameCount {
            let n = min(block, frameCount - done)
            before(Int64(done))
            if waitingForFiles {
                engine.renderWaitingForFiles(into: o.baseAddress! + done * ch, frameCount: n)
            } else {
                engine.render(into: o.baseAddress! + done * ch, frameCount: n)
            }
            events += engine.pollEvents()
            done += n
        }
    }
    return out
}

public func renderAll(_ engine: Engine, frameCount: Int, block: Int = 256, waitingForFiles: Bool = false) -> [Float] {
    var events: [EngineEvent] = []
    return renderAll(engine, frameCount: frameCount, block: block, waitingForFiles: waitingForFiles, events: &events)
}

/// `seconds` of a sine at `rate` Hz on `channels` (see `sine(_:rate:seconds:…)`) as an engine buffer.
public func sineBuffer(_ f: Double, amplitude: Double = 0.5, seconds: Double, rate: Int = 48_000, channels: Int = 2, phase: Double = 0)
    -> AudioBuffer
{
    AudioBuffer(
        interleaved: sine(f, rate: rate, seconds: seconds, amplitude: amplitude, channels: channels, phase: phase), channelCount: channels,
        sampleRate: Double(rate))
}

public func noiseBuffer(seed: UInt32, seconds: Double, rate: Int = 48_000, channels: Int = 2) -> AudioBuffer {
    var rng = XorShift32(seed: seed)
    let n = Int(Double(rate) * seconds) * channels
    return AudioBuffer(interleaved: (0..<n).map { _ in rng.nextUnit() - 0.5 }, channelCount: channels, sampleRate: Double(rate))
}

/// A two-route engine (`["main", "cue"]`, 48 kHz stereo): a looping 440 Hz tone of amplitude
/// 0.5 on main and a looping 1 kHz tone of amplitude 0.25 on cue, both playing. Control thread.
public func twoRouteToneEngine() throws -> (engine: Engine, main: SourceID, cue: SourceID) {
    var config = EngineConfiguration()
    config.outputBuses = ["main", "cue"]
    let engine = try Engine(configuration: config)
    let bus = try engine.addBus()
    let deck = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: bus, loop: true)
    let preview = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.25), bus: bus, loop: true)
    try engine.send(.setOutputBus(preview, bus: 1))
    try engine.send(.play(deck))
    try engine.send(.play(preview))
    return (engine, deck, preview)
}

/// The offset of the first sample where two sample sequences differ bit for bit, counted from
/// their starts (nil: identical, same length; the shorter one's length when only the lengths
/// differ).
public func firstDifference<A: Collection<Float>, B: Collection<Float>>(_ a: A, _ b: B) -> Int? {
    if a.count != b.count { return min(a.count, b.count) }
    for (i, (x, y)) in zip(a, b).enumerated() where x.bitPattern != y.bitPattern { return i }
    return nil
}

/// A busy graph, identical every time it is built, for comparing a backend's output with an
/// offline render: a 440 Hz tone on one bus, a 661 Hz tone and a looping 0.1 s buffer (523.25 Hz)
/// on another at gain 0.8, with gain ramps, a duck, a pause and a volume ramp at exact frames,
/// then `gainSteps` source-gain changes, one every 0.1 s from frame 49 800 (plenty of commands
/// for a late control thread to miss). With `scheduleChanges`, the changes are queued before
/// rendering starts (so live and offline renders see the same commands); otherwise the caller
/// queues `changes` itself. Control thread.
public struct TestGraph {
    public let engine: Engine
    /// (frame, action), in frame order.
    public let changes: [(Int64, EngineCommand)]

    public init(
        sampleRate: Int = 48_000, channels: Int = 2, scheduleChanges: Bool = true, gainSteps: Int = 100, commandCapacity: Int? = nil
    ) throws {
        var configuration = EngineConfiguration(sampleRate: sampleRate, channelCount: channels)
        if let commandCapacity { configuration.commandQueueCapacity = commandCapacity }
        engine = try Engine(configuration: configuration)
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
        for k in stride(from: 1, through: gainSteps, by: 1) {
            changes.append((Int64(45_000 + k * 4_800), .setSourceGain(s, gain: Float(0.4 + 0.05 * Double(k % 10)), rampFrames: 480)))
        }
        self.changes = changes
        if scheduleChanges { for (frame, action) in changes { try engine.send(action, at: .frame(frame)) } }
    }

    /// The same graph (all changes scheduled) rendered offline (pull mode) in blocks of `block` frames.
    public static func offline(frames: Int, channels: Int = 2, block: Int = 777, gainSteps: Int = 100) throws -> [Float] {
        let graph = try TestGraph(channels: channels, gainSteps: gainSteps)
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
