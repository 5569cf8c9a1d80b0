import Foundation
import Testing
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

/// The output peak limiter, measured offline: it never lets a sample past its ceiling, leaves
/// output at rest below the ceiling bit for bit, delays by exactly its lookahead, recovers,
/// and refuses bad settings naming them.
@Suite struct LimiterTests {
    /// The first index where two signals differ (nil: identical), without printing them.
    func firstDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Int? {
        if a.count != b.count { return -1 }
        return zip(a.indices, b.indices).first { a[$0.0] != b[$0.1] }?.0
    }

    static let noise = noiseBuffer(seed: 9, seconds: 3)

    /// Full-scale noise and two full-scale sines summed (peaks up to +12 dBFS), or a quiet
    /// program peaking near −6 dBFS, on a stereo 48 kHz engine with `limiter`.
    func engine(_ limiter: LimiterSettings?, loud: Bool = true) throws -> Engine {
        var config = EngineConfiguration()
        config.limiter = limiter
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        let scale: Float = loud ? 1 : 0.125
        let sources = [
            try engine.addSource(.buffer(Self.noise), bus: bus, gain: 4 * scale, loop: true),
            try engine.addSource(.tone(frequency: 997, amplitude: 1), bus: bus, gain: scale),
            try engine.addSource(.tone(frequency: 61, amplitude: 1), bus: bus, gain: scale),
        ]
        for s in sources { try engine.send(.play(s)) }
        return engine
    }

    /// Renders `frames` frames in blocks of `block`, handing each block to `body`.
    func stream(_ engine: Engine, frames: Int, block: Int = 1_024, _ body: (UnsafeBufferPointer<Float>) -> Void) {
        let out = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { out.deallocate() }
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            engine.render(into: out, frameCount: n)
            body(UnsafeBufferPointer(start: out, count: n * 2))
            done += n
        }
    }

    @Test(arguments: [0.0, 0.005])
    func neverExceedsTheCeilingOver60SecondsAt12dBFS(lookahead: Double) throws {
        let settings = LimiterSettings(ceilingDB: -1, releaseSeconds: 0.05, lookaheadSeconds: lookahead)
        let ceiling = settings.ceiling
        var inputPeak: Float = 0
        stream(try engine(nil), frames: 48_000 * 5) { for x in $0 { inputPeak = max(inputPeak, abs(x)) } }
        // The program really goes to about +12 dBFS (noise peaks plus two sines).
        #expect(20 * log10(inputPeak) > 10, "input peak \(20 * log10(inputPeak)) dBFS")
        var peak: Float = 0
        var over = 0
        var nonFinite = 0
        var limitedRMS = 0.0
        stream(try engine(settings), frames: 48_000 * 60) { block in
            for x in block {
                if !x.isFinite { nonFinite += 1 }
                if abs(x) > ceiling { over += 1 }
                peak = max(peak, abs(x))
                limitedRMS += Double(x) * Double(x)
            }
        }
        #expect(over == 0, "\(over) samples above the ceiling; peak \(peak)")
        #expect(nonFinite == 0)
        #expect(peak <= ceiling)
        // It limits, it does not mute: the output stays loud (near the ceiling).
        #expect(20 * log10(peak) > -1.5)
        #expect(10 * log10(limitedRMS / Double(48_000 * 60 * 2)) > -20)
    }

    @Test func belowTheCeilingTheOutputIsUnchangedBitForBit() throws {
        var dry: [Float] = []
        stream(try engine(nil, loud: false), frames: 48_000 * 3) { dry += $0 }
        #expect(dry.map(abs).max()! < LimiterSettings().ceiling)
        #expect(dry.map(abs).max()! > 0.3)
        var limited: [Float] = []
        stream(try engine(LimiterSettings(), loud: false), frames: 48_000 * 3) { limited += $0 }
        #expect(firstDifference(limited[...], dry[...]) == nil)
    }

    @Test func aLookaheadDelaysTheOutputByExactlyThatMuch() throws {
        let settings = LimiterSettings(ceilingDB: -1, releaseSeconds: 0.1, lookaheadSeconds: 0.002)
        let lookahead = settings.lookaheadFrames(sampleRate: 48_000)
        #expect(lookahead == 96)
        var dry: [Float] = []
        stream(try engine(nil, loud: false), frames: 24_000) { dry += $0 }
        let delayedEngine = try engine(settings, loud: false)
        #expect(delayedEngine.renderer.limiterLatencyFrames == 96)
        var delayed: [Float] = []
        stream(delayedEngine, frames: 24_000, block: 333) { delayed += $0 }
        #expect(delayed[0..<(2 * lookahead)].allSatisfy { $0 == 0 })
        #expect(firstDifference(delayed[(2 * lookahead)...], dry[0..<(dry.count - 2 * lookahead)]) == nil)
    }

    /// A burst is limited, then the gain recovers and the output is exact again; with a
    /// lookahead the gain glides down before the burst instead of stepping.
    @Test(arguments: [0.0, 0.003])
    func recoversAfterABurst(lookahead: Double) throws {
        func run(_ limiter: LimiterSettings?) throws -> [Float] {
            var config = EngineConfiguration()
            config.limiter = limiter
            let engine = try Engine(configuration: config)
            let bus = try engine.addBus()
            let tone = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: bus)
            let burst = try engine.addSource(.tone(frequency: 1_000, amplitude: 1), bus: bus, gain: 2)
            try engine.send(.play(tone))
            try engine.send(.play(burst), at: .frame(24_000))
            try engine.send(.stop(burst), at: .frame(28_800))
            return renderAll(engine, frameCount: 96_000, block: 500)
        }
        let settings = LimiterSettings(ceilingDB: -0.5, releaseSeconds: 0.05, lookaheadSeconds: lookahead)
        let dry = try run(nil)
        let limited = try run(settings)
        let l = 2 * settings.lookaheadFrames(sampleRate: 48_000)
        #expect(limited.allSatisfy { abs($0) <= settings.ceiling })
        // Before the burst: exact (delayed); a second after it: exact again.
        #expect(firstDifference(limited[l..<(2 * 20_000)], dry[0..<(2 * 20_000 - l)]) == nil)
        #expect(firstDifference(limited[(2 * 80_000)...], dry[(2 * 80_000 - l)..<(dry.count - l)]) == nil)
        // During the burst the gain really went down.
        let burstPeak = limited[(2 * 25_000 + l)..<(2 * 28_000 + l)].map(abs).max()!
        #expect(burstPeak > settings.ceiling * 0.95)
    }

    /// The limiter at work (limiting, with a lookahead) allocates nothing while rendering.
    @Test func noMallocsWhileLimiting() throws {
        let engine = try engine(LimiterSettings(ceilingDB: -3, lookaheadSeconds: 0.002))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        for _ in 0..<8 { engine.render(into: out, frameCount: 256) }
        _ = engine.pollEvents()
        var peak: Float = 0
        let mallocs = countMallocs {
            for _ in 0..<2_000 {
                engine.render(into: out, frameCount: 256)
                for i in 0..<512 where abs(out[i]) > peak { peak = abs(out[i]) }
            }
        }
        #expect(mallocs == 0)
        #expect(peak <= LimiterSettings(ceilingDB: -3).ceiling)
        #expect(peak > LimiterSettings(ceilingDB: -3.5).ceiling)
    }

    @Test(arguments: [
        (LimiterSettings(ceilingDB: 0.5), "limiter.ceilingDB"), (LimiterSettings(ceilingDB: .nan), "limiter.ceilingDB"),
        (LimiterSettings(releaseSeconds: -1), "limiter.releaseSeconds"),
        (LimiterSettings(lookaheadSeconds: 0.2), "limiter.lookaheadSeconds"),
        (LimiterSettings(lookaheadSeconds: .infinity), "limiter.lookaheadSeconds"),
    ])
    func badSettingsAreRefusedNamingThem(settings: LimiterSettings, name: String) throws {
        var config = EngineConfiguration()
        config.limiter = settings
        #expect {
            _ = try Engine(configuration: config)
        } throws: { error in
            let e = error as? TuttiError
            return e?.code == .invalidArgument && e?.message.hasPrefix(name) == true
        }
    }
}
