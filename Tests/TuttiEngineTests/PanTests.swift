import Foundation
import Testing
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

/// Pan measured in the rendered output: the constant-power law for mono material, balance for
/// stereo material, click-free ramps, frame-exact scheduling, nothing changed by a bad value
/// and nothing at all for a source never panned.
@Suite struct PanTests {
    /// A stereo engine playing one source from frame 0; `setup` sends what the test needs.
    func render(
        _ kind: (Engine) -> SourceKind, frames: Int = 48_000, block: Int = 256, _ setup: (Engine, SourceID) throws -> Void = { _, _ in }
    ) throws -> [Float] {
        let engine = try Engine()
        let bus = try engine.addBus()
        let s = try engine.addSource(kind(engine), bus: bus)
        try engine.send(.play(s))
        try setup(engine, s)
        return renderAll(engine, frameCount: frames, block: block)
    }

    func tone(_: Engine) -> SourceKind { .tone(frequency: 997, amplitude: 0.5) }

    func rms(_ x: [Float], channel: Int, _ range: Range<Int>) -> Double {
        Analysis.rms(Analysis.channel(x, channel, of: 2)[range])
    }

    @Test func monoAtTheCentreIsMinus3dBOnEachChannel() throws {
        let dry = try render(tone)
        let centred = try render(tone) { e, s in try e.send(.setSourcePan(s, pan: 0, rampFrames: 0)) }
        for c in 0..<2 {
            let change = Analysis.dB(rms(centred, channel: c, 4_800..<48_000) / rms(dry, channel: c, 4_800..<48_000))
            #expect(abs(change - -3.0103) <= 0.05, "channel \(c): \(change) dB")
        }
    }

    @Test(arguments: [Float(-1), 1])
    func monoAtTheSideSilencesTheFarChannel(pan: Float) throws {
        let dry = try render(tone)
        let panned = try render(tone) { e, s in try e.send(.setSourcePan(s, pan: pan, rampFrames: 0)) }
        let (near, far) = pan < 0 ? (0, 1) : (1, 0)
        let reference = rms(dry, channel: near, 4_800..<48_000)
        let farLevel = Analysis.dB(rms(panned, channel: far, 0..<48_000) / reference)
        #expect(farLevel <= -120, "far channel at \(farLevel) dB")
        let nearLevel = Analysis.dB(rms(panned, channel: near, 4_800..<48_000) / reference)
        #expect(abs(nearLevel) <= 0.05, "near channel at \(nearLevel) dB")
    }

    /// Constant power across positions: L² + R² stays at the unpanned mono level's half-sum.
    @Test func monoPowerIsConstantAcrossPositions() throws {
        for pan: Float in [-0.75, -0.3, 0.2, 0.9] {
            let g = PanLaw.gains(pan: pan, stereo: false)
            #expect(abs(Double(g.left * g.left + g.right * g.right) - 1) < 1e-6, "pan \(pan)")
            #expect(pan < 0 ? g.left > g.right : g.right > g.left)
        }
    }

    @Test func stereoIsBalanced() throws {
        let noise = noiseBuffer(seed: 5, seconds: 1)
        let stereo: (Engine) -> SourceKind = { _ in .buffer(noise) }
        let dry = try render(stereo)
        // At the centre a stereo source is untouched, bit for bit.
        let centred = try render(stereo) { e, s in try e.send(.setSourcePan(s, pan: 0, rampFrames: 0)) }
        #expect(centred == dry)
        // Hard left: the left channel as it was, the right one silent.
        let left = try render(stereo) { e, s in try e.send(.setSourcePan(s, pan: -1, rampFrames: 0)) }
        #expect(Analysis.channel(left, 0, of: 2) == Analysis.channel(dry, 0, of: 2))
        #expect(Analysis.channel(left, 1, of: 2).allSatisfy { $0 == 0 })
        // Half right: the right channel kept, the left attenuated by the law.
        let half = try render(stereo) { e, s in try e.send(.setSourcePan(s, pan: 0.5, rampFrames: 0)) }
        #expect(Analysis.channel(half, 1, of: 2) == Analysis.channel(dry, 1, of: 2))
        let farDB = Analysis.dB(rms(half, channel: 0, 0..<48_000) / rms(dry, channel: 0, 0..<48_000))
        let lawDB = Analysis.dB(2.0.squareRoot() * sin(0.5 * Double.pi / 4))
        #expect(abs(farDB - lawDB) < 0.01, "far channel \(farDB) dB, law \(lawDB) dB")
    }

    /// A mono file converted to stereo is still mono material: placed, not balanced.
    @Test func monoMaterialInAStereoEngineIsPlaced() throws {
        let mono = try sineBuffer(997, seconds: 1, channels: 1).converted(toSampleRate: 48_000, channelCount: 2, quality: .linear)
        #expect(mono.contentChannelCount == 1)
        let material: (Engine) -> SourceKind = { _ in .buffer(mono) }
        let dry = try render(material)
        let centred = try render(material) { e, s in try e.send(.setSourcePan(s, pan: 0, rampFrames: 0)) }
        let change = Analysis.dB(rms(centred, channel: 0, 0..<48_000) / rms(dry, channel: 0, 0..<48_000))
        #expect(abs(change - -3.0103) <= 0.05, "\(change) dB")
    }

    @Test func panRampsAreClickFree() throws {
        let x = try render(tone, frames: 72_000) { e, s in
            // From no pan stage to the centre, then hard right, then back left.
            try e.send(.setSourcePan(s, pan: 0, rampFrames: 480), at: .frame(12_000))
            try e.send(.setSourcePan(s, pan: 1, rampFrames: 960), at: .frame(24_000))
            try e.send(.setSourcePan(s, pan: -0.5, rampFrames: 2_400), at: .frame(48_000))
        }
        for c in 0..<2 {
            let y = Analysis.channel(x, c, of: 2)
            let clicks = Analysis.clicks(y, reference: 2_000..<11_000)
            #expect(clicks.isEmpty, "channel \(c): clicks at frames \(clicks.prefix(5))")
        }
        // The moves happened: hard right silences the left between the second and third.
        #expect(Analysis.channel(x, 0, of: 2)[25_000..<48_000].allSatisfy { $0 == 0 })
        #expect(Analysis.rms(Analysis.channel(x, 1, of: 2)[30_000..<48_000]) > 0.3)
        // A step is detected by the same detector (the test can fail).
        let step = try render(tone, frames: 30_000) { e, s in try e.send(.setSourcePan(s, pan: 1, rampFrames: 0), at: .frame(24_003)) }
        #expect(!Analysis.clicks(Analysis.channel(step, 0, of: 2), reference: 2_000..<11_000).isEmpty)
    }

    @Test func panAppliesAtItsFrameWhateverTheBlocks() throws {
        func run(block: Int) throws -> [Float] {
            try render(tone, frames: 20_000, block: block) { e, s in
                try e.send(.setSourcePan(s, pan: -1, rampFrames: 0), at: .frame(5_001))
                try e.send(.setSourceGain(s, gain: 0.3, rampFrames: 700), at: .frame(7_000))
                try e.send(.setSourcePan(s, pan: 0.4, rampFrames: 1_234), at: .frame(7_300))
                try e.send(.setMasterVolume(gain: 0.5, rampFrames: 900), at: .frame(12_000))
            }
        }
        let a = try run(block: 64)
        let b = try run(block: 333)
        let c = try run(block: 4_096)
        #expect(a == b)
        #expect(a == c)
        // Hard left from frame 5 001 exactly.
        #expect(a[2 * 5_000 + 1] != 0)
        #expect(a[(2 * 5_001)..<(2 * 7_000)].enumerated().allSatisfy { $0.offset % 2 == 0 || $0.element == 0 })
    }

    @Test(arguments: [Float.nan, .infinity, -.infinity, 1.0001, -1.5])
    func badPanIsRefusedAndChangesNothing(pan: Float) throws {
        var thrown: TuttiError?
        let x = try render(tone, frames: 4_800) { e, s in
            do { try e.send(.setSourcePan(s, pan: pan, rampFrames: 0)) } catch { thrown = error as? TuttiError }
        }
        #expect(thrown?.code == .invalidArgument)
        #expect(thrown?.message.contains("pan") == true, "\(String(describing: thrown))")
        let untouched = try render(tone, frames: 4_800)
        #expect(x == untouched)
    }

    @Test func aMonoEngineIgnoresPan() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let bus = try engine.addBus()
        let s = try engine.addSource(.tone(frequency: 997, amplitude: 0.5), bus: bus)
        try engine.send(.play(s))
        try engine.send(.setSourcePan(s, pan: 1, rampFrames: 0))
        let panned = renderAll(engine, frameCount: 4_800)
        let plain = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let t = try plain.addSource(.tone(frequency: 997, amplitude: 0.5), bus: try plain.addBus())
        try plain.send(.play(t))
        #expect(panned == renderAll(plain, frameCount: 4_800))
    }
}
