import Foundation
import TuttiDSP
import TuttiEngine

/// Render `frameCount` frames from `engine` in blocks of `block`, collecting events.
public func renderAll(
    _ engine: Engine, frameCount: Int, block: Int = 256, events: inout [EngineEvent],
    before: (Int64) -> Void = { _ in }
) -> [Float] {
    let ch = engine.channelCount
    var out = [Float](repeating: 0, count: frameCount * ch)
    var done = 0
    out.withUnsafeMutableBufferPointer { o in
        while done < frameCount {
            let n = min(block, frameCount - done)
            before(Int64(done))
            engine.render(into: o.baseAddress! + done * ch, frameCount: n)
            events += engine.pollEvents()
            done += n
        }
    }
    return out
}

public func renderAll(_ engine: Engine, frameCount: Int, block: Int = 256) -> [Float] {
    var events: [EngineEvent] = []
    return renderAll(engine, frameCount: frameCount, block: block, events: &events)
}

public func sineBuffer(_ f: Double, amplitude: Double = 0.5, seconds: Double, rate: Int = 48_000, channels: Int = 2, phase: Double = 0)
    -> AudioBuffer
{
    let n = Int(Double(rate) * seconds)
    var s = [Float](repeating: 0, count: n * channels)
    for i in 0..<n {
        let v = Float(amplitude * sin(2 * .pi * f * Double(i) / Double(rate) + phase))
        for c in 0..<channels { s[i * channels + c] = v }
    }
    return AudioBuffer(interleaved: s, channelCount: channels, sampleRate: Double(rate))
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
    config.routes = ["main", "cue"]
    let engine = try Engine(configuration: config)
    let bus = try engine.addBus()
    let deck = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: bus, loop: true)
    let preview = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.25), bus: bus, loop: true)
    try engine.send(.setRoute(preview, route: 1))
    try engine.send(.play(deck))
    try engine.send(.play(preview))
    return (engine, deck, preview)
}
