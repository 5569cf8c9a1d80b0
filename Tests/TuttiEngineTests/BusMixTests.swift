import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Main split by bus (`Renderer.render(outputBuses:busCount:busMixes:busMixCount:joiningMain:frameCount:)`),
/// what a stream per session plays: each split bus's mix after its bus factor, the rest in
/// main. Checked by measurement against the same engine rendered whole.
@Suite struct BusMixTests {
    /// Three buses with moving factors (a gain ramp, a duck, the system volume ramping, a
    /// ringer bus with its own volume and an effect chain) and a fourth bus that is never split.
    func scene(limiter: Bool = false) throws -> (Engine, [BusID]) {
        var config = EngineConfiguration()
        if limiter { config.limiter = LimiterSettings(ceilingDB: -6) }
        let engine = try Engine(configuration: config)
        let music = try engine.addBus()
        let game = try engine.addBus()
        let ringer = try engine.addBus(volumeClass: .ringer)
        let other = try engine.addBus()
        let loop = sineBuffer(330, amplitude: 0.4, seconds: 0.5)
        let a = try engine.addSource(.buffer(loop), bus: music, gain: 0.8, loop: true)
        let b = try engine.addSource(.tone(frequency: 880, amplitude: 0.3), bus: game, loop: true)
        let c = try engine.addSource(.tone(frequency: 1_500, amplitude: 0.25), bus: ringer, loop: true)
        let d = try engine.addSource(.tone(frequency: 2_200, amplitude: 0.2), bus: other, loop: true)
        try engine.setBusEffects(ringer, [.biquad(.lowpass, frequencyHz: 3_000, q: 0.7071, gainDB: 0)])
        for s in [a, b, c, d] { try engine.send(.play(s)) }
        try engine.send(.setBusGain(music, gain: 0.3, rampFrames: 6_000), at: .frame(4_000))
        try engine.send(.setBusDuck(game, targetDB: -12, dBPerFrame: 0.01), at: .frame(9_000))
        try engine.send(.setMasterVolume(gain: 0.6, rampFrames: 4_800), at: .frame(12_000))
        try engine.send(.setRingerVolume(gain: 0.5, rampFrames: 2_400), at: .frame(15_000))
        return (engine, [music, game, ringer, other])
    }

    /// Renders `frameCount` frames in blocks of `block`: main, and each of `split`'s buses'
    /// mixes (nil: main whole, through the call without mixes).
    func render(_ engine: Engine, split: [BusID]?, joining: Bool = false, frameCount: Int, block: Int) -> (main: [Float], mixes: [[Float]])
    {
        let ch = engine.channelCount
        let main = UnsafeMutablePointer<Float>.allocate(capacity: frameCount * ch)
        defer { main.deallocate() }
        let buses = split ?? []
        let mixes = buses.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frameCount * ch) }
        defer { for m in mixes { m.deallocate() } }
        let count = (buses.map(\.slot).max() ?? 0) + 1
        var done = 0
        while done < frameCount {
            let n = min(block, frameCount - done)
            var outputs = [main + done * ch]
            if split == nil {
                outputs.withUnsafeBufferPointer { engine.renderer.render(outputBuses: $0.baseAddress!, busCount: 1, frameCount: n) }
            } else {
                var table = [UnsafeMutablePointer<Float>?](repeating: nil, count: count)
                for (k, bus) in buses.enumerated() { table[bus.slot] = mixes[k] + done * ch }
                outputs.withUnsafeMutableBufferPointer { o in
                    table.withUnsafeBufferPointer { t in
                        engine.renderer.render(
                            outputBuses: o.baseAddress!, busCount: 1, busMixes: t.baseAddress!, busMixCount: count, joiningMain: joining,
                            frameCount: n)
                    }
                }
            }
            done += n
        }
        return (
            Array(UnsafeBufferPointer(start: main, count: frameCount * ch)),
            mixes.map { Array(UnsafeBufferPointer(start: $0, count: frameCount * ch)) }
        )
    }

    func maxDifference(_ x: [Float], _ y: [Float]) -> Float {
        zip(x, y).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    func amplitude(_ x: [Float], _ frequency: Double) -> Double {
        Analysis.toneAmplitude(Analysis.channel(x, 0, of: 2)[20_000...], frequency: frequency, sampleRate: 48_000)
    }

    /// Not joined: main keeps the bus not split, each mix its bus alone, and main plus the
    /// mixes equals the whole render within float rounding (measured: the largest difference
    /// is printed); joined: main itself equals it so.
    @Test func theMixesAddUpToTheWholeMix() throws {
        let frames = 30_000
        let (whole, _) = try scene()
        let reference = render(whole, split: nil, frameCount: frames, block: 256).main
        let (engine, buses) = try scene()
        let split = render(engine, split: Array(buses.prefix(3)), frameCount: frames, block: 100)
        var sum = split.main
        for mix in split.mixes { for i in sum.indices { sum[i] += mix[i] } }
        let difference = maxDifference(sum, reference)
        print("bus mixes: max |main + Σ mixes − whole| = \(difference)")
        #expect(difference < 1e-6)
        #expect(amplitude(reference, 880) > 0.02)
        // Each mix holds its own bus, main the bus not split.
        #expect(amplitude(split.mixes[0], 330) > 0.03)
        #expect(amplitude(split.mixes[0], 880) < 1e-4)
        #expect(amplitude(split.mixes[1], 880) > 0.02)
        #expect(amplitude(split.mixes[1], 330) < 1e-4)
        #expect(amplitude(split.mixes[2], 1_500) > 0.02)
        #expect(amplitude(split.main, 2_200) > 0.05)
        #expect(amplitude(split.main, 330) < 1e-4)
        #expect(amplitude(split.main, 880) < 1e-4)

        let (joinedEngine, joinedBuses) = try scene()
        let joined = render(joinedEngine, split: Array(joinedBuses.prefix(3)), joining: true, frameCount: frames, block: 100)
        let joinedDifference = maxDifference(joined.main, reference)
        print("bus mixes: max |joined main − whole| = \(joinedDifference)")
        #expect(joinedDifference < 1e-6)
        #expect(maxDifference(joined.mixes[1], split.mixes[1]) == 0)
    }

    /// A call with no bus given (every entry nil) renders main exactly as the call without
    /// mixes: bit for bit.
    @Test func noBusGivenIsBitIdentical() throws {
        let (whole, _) = try scene()
        let reference = render(whole, split: nil, frameCount: 20_000, block: 256).main
        let (engine, _) = try scene()
        let none = render(engine, split: [], frameCount: 20_000, block: 256).main
        #expect(none == reference)
    }

    /// A limiter acts on the sum: the engine cannot be split (`supportsBusMixes` false), the
    /// mixes are silence and main is the whole render.
    @Test func aLimiterKeepsMainWhole() throws {
        let (whole, _) = try scene(limiter: true)
        #expect(!whole.renderer.supportsBusMixes)
        let reference = render(whole, split: nil, frameCount: 12_000, block: 256).main
        let (engine, buses) = try scene(limiter: true)
        let split = render(engine, split: Array(buses.prefix(2)), frameCount: 12_000, block: 256)
        #expect(split.main == reference)
        #expect(split.mixes.allSatisfy { $0.allSatisfy { $0 == 0 } })
        #expect(try scene().0.renderer.supportsBusMixes)
    }
}
