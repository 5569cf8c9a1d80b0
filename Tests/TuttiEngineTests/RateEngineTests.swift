import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Playback rate of buffer sources on the render side (`EngineCommand.setSourceRate`):
/// measured pitch, length in output frames, glides without clicks, loop regions at a rate,
/// rate 1 bit for bit as no rate, and no allocation while reading at a rate.
@Suite struct RateEngineTests {
    /// A mono 48 kHz engine with a buffer source (not looping unless asked), its rate set
    /// (a step) before it plays.
    func engine(_ buffer: AudioBuffer, rate: Float?, loop: Bool = false) throws -> (Engine, SourceID) {
        var config = EngineConfiguration(sampleRate: 48_000, channelCount: 1)
        config.transportFadeSeconds = 0
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        let id = try engine.addSource(.buffer(buffer), bus: bus, loop: loop)
        if let rate { try engine.send(.setSourceRate(id, rate: rate, rampFrames: 0)) }
        try engine.send(.play(id))
        return (engine, id)
    }

    /// Residual of a least-squares sine fit at `frequency`, relative to the fitted tone, dB.
    func residueDB(_ x: ArraySlice<Double>, frequency: Double) -> Double {
        let fit = Analysis.fitSine(x, frequency: frequency, sampleRate: 48_000)
        return Analysis.dB(fit.residualRMS / (fit.amplitude / 2.0.squareRoot()))
    }

    /// 440 Hz at rate 2 is 880 Hz within 0.1 Hz, and nothing else is there (rate 2 from frame
    /// 0 reads whole frames only: measured −153 dB, the float samples' own rounding).
    @Test func rateTwoIsAnOctaveUp() throws {
        let (engine, _) = try engine(sineBuffer(440, seconds: 2, channels: 1), rate: 2)
        let x = renderAll(engine, frameCount: 40_000, block: 256).map(Double.init)
        let f = Analysis.dominantFrequency(x[...], sampleRate: 48_000, low: 800, high: 960)
        #expect(abs(f - 880) < 0.1, "\(f) Hz")
        let residue = residueDB(x[...], frequency: 880)
        print("rate 2: \(f) Hz, residue \(residue) dB")
        #expect(residue < -140, "\(residue) dB")
    }

    /// 440 Hz at rate 0.5 is 220 Hz within 0.1 Hz; every other frame is interpolated half way
    /// (t = 0.5, the Hermite's worst point): residue below −125 dB after the first frames
    /// (measured −137.6 dB; the very first interpolated frame reads silence before frame 0).
    @Test func rateOneHalfIsAnOctaveDown() throws {
        let (engine, _) = try engine(sineBuffer(440, seconds: 1, channels: 1), rate: 0.5)
        let x = renderAll(engine, frameCount: 40_000, block: 300).map(Double.init)
        let f = Analysis.dominantFrequency(x[...], sampleRate: 48_000, low: 180, high: 260)
        #expect(abs(f - 220) < 0.1, "\(f) Hz")
        let residue = residueDB(x[100...], frequency: 220)
        print("rate 0.5: \(f) Hz, residue \(residue) dB")
        #expect(residue < -125, "\(residue) dB")
    }

    /// The interpolator's quality at a rate that reads every fraction of a frame (1.37): the
    /// residue of a sine fit (interpolation error, harmonics, images) relative to the tone,
    /// for a 440 Hz tone (measured −109.8 dB) and a 5 kHz one (measured −48.9 dB: away from
    /// t = 0.5 the cubic's error grows with about the third power of the frequency).
    @Test(arguments: [(440.0, -105.0), (5_000.0, -45.0)]) func interpolationResidueAtAFractionalRate(tone: Double, limit: Double) throws {
        let (engine, _) = try engine(sineBuffer(tone, seconds: 1, channels: 1), rate: 1.37)
        let x = renderAll(engine, frameCount: 30_000, block: 256).map(Double.init)
        let residue = residueDB(x[100...], frequency: tone * 1.37)
        print("rate 1.37, \(tone) Hz: residue \(residue) dB")
        #expect(residue < limit, "\(residue) dB")
    }

    /// A buffer of N frames at rate 2 ends after N/2 output frames (`sourceEnded` there,
    /// silence after), at 0.5 after 2N; at a non-integer rate after ⌈N / rate⌉.
    @Test(arguments: [(Float(2), 5_000), (Float(0.5), 20_000), (Float(1.5), 6_667), (Float(4), 2_500)])
    func lengthInOutputFramesIsTheLengthOverTheRate(rate: Float, expected: Int) throws {
        let buffer = AudioBuffer(interleaved: [Float](repeating: 0.25, count: 10_000), channelCount: 1, sampleRate: 48_000)
        let (engine, id) = try engine(buffer, rate: rate)
        var events: [EngineEvent] = []
        let x = renderAll(engine, frameCount: 25_000, block: 333, events: &events)
        let ended = events.compactMap { e -> Int64? in if case .sourceEnded(id) = e.kind { e.frame } else { nil } }
        #expect(ended.count == 1)
        #expect(abs(Int(ended.first ?? -10)) - expected <= 1 && expected - Int(ended.first ?? -10) <= 1, "\(ended)")
        let lastSound = x.lastIndex { $0 != 0 } ?? -1
        #expect(abs(lastSound + 1 - expected) <= 1, "last sounding frame \(lastSound)")
    }

    /// A glide from rate 1 to 2 over 10 ms has no click (second differences no larger than
    /// twice those of the steady 880 Hz after it), and it glides: 440 Hz before, 880 Hz
    /// after. The same change as a step (at a zero crossing, where the kink is steepest) is
    /// one the detector sees.
    @Test func aRateGlideHasNoClick() throws {
        func render(rampFrames: Int32) throws -> [Double] {
            let (engine, id) = try engine(sineBuffer(440, seconds: 2, channels: 1), rate: nil)
            // 24_000: 220 periods of 440 Hz, a zero crossing.
            try engine.send(.setSourceRate(id, rate: 2, rampFrames: rampFrames), at: .frame(24_000))
            return renderAll(engine, frameCount: 40_000, block: 256).map(Double.init)
        }
        let glide = try render(rampFrames: 480)
        let clicks = Analysis.clicks(glide, reference: 26_000..<40_000)
        #expect(clicks.isEmpty, "clicks at \(clicks.prefix(10))")
        let before = Analysis.dominantFrequency(glide[4_000..<24_000], sampleRate: 48_000, low: 430, high: 450)
        let after = Analysis.dominantFrequency(glide[26_000..<40_000], sampleRate: 48_000, low: 870, high: 890)
        #expect(abs(before - 440) < 0.1 && abs(after - 880) < 0.1, "\(before) Hz, \(after) Hz")
        let step = try render(rampFrames: 0)
        let stepClicks = Analysis.clicks(step, reference: 26_000..<40_000)
        print("rate step: clicks at \(stepClicks.prefix(10))")
        #expect(!stepClicks.isEmpty)
    }

    /// Rate 1 (sent, and a glide to 1 from 1) renders bit for bit as a source never given a
    /// rate, with gains and a seek on the way.
    @Test func rateOneIsBitIdenticalToNoRate() throws {
        let buffer = noiseBuffer(seed: 3, seconds: 1, channels: 2)
        func render(rate: Bool) throws -> [Float] {
            let engine = try Engine()
            let bus = try engine.addBus()
            let id = try engine.addSource(.buffer(buffer), bus: bus, gain: 0.7, loop: true)
            if rate {
                try engine.send(.setSourceRate(id, rate: 1, rampFrames: 0))
                try engine.send(.setSourceRate(id, rate: 1, rampFrames: 480), at: .frame(1_000))
            }
            try engine.send(.play(id))
            try engine.send(.setSourceGain(id, gain: 0.3, rampFrames: 960), at: .frame(5_000))
            try engine.send(.seek(id, position: 30_000), at: .frame(9_000))
            return renderAll(engine, frameCount: 60_000, block: 511)
        }
        let plain = try render(rate: false)
        let withRate = try render(rate: true)
        #expect(plain == withRate)
        #expect(plain.contains { $0 != 0 })
    }

    /// A seamless loop region (480 Hz: 100 frames a period; 20 periods) played at rate 1.5
    /// and 2.5 wraps through its seam with the fraction kept: 720 Hz / 1200 Hz, no click
    /// anywhere, the position stays inside the region; with a count it then plays to the end
    /// and ends.
    @Test(arguments: [Float(1.5), Float(2.5)]) func loopRegionsWrapAtARate(rate: Float) throws {
        let buffer = sineBuffer(480, seconds: 0.25, channels: 1) // 12_000 frames
        let (engine, id) = try engine(buffer, rate: rate, loop: true)
        try engine.send(.setLoopRegion(id, startFrame: 1_000, endFrame: 3_000, count: -1))
        let x = renderAll(engine, frameCount: 30_000, block: 256).map(Double.init)
        let expected = 480 * Double(rate)
        let f = Analysis.dominantFrequency(x[2_000...], sampleRate: 48_000, low: expected - 40, high: expected + 40)
        #expect(abs(f - expected) < 0.1, "\(f) Hz")
        // Every frame a wrap can fall on: no second difference beyond twice the steady ones.
        let clicks = Analysis.clicks(x, reference: 2_000..<2_000 + 48_000 / 480 * 4)
        #expect(clicks.isEmpty, "clicks at \(clicks.prefix(10))")
        let residue = residueDB(x[3_000...], frequency: expected)
        print("loop at rate \(rate): \(f) Hz, residue \(residue) dB")
        #expect(residue < -90, "\(residue) dB")
    }

    /// A seek's crossfade reads the old position at the rate too: a seek by a whole number of
    /// periods of a 480 Hz tone (100 frames) at rate 1.5, on a whole frame, sounds as no seek
    /// at all (the fading-out old position and the fading-in new one carry the same wave; a
    /// tail read at rate 1 would not).
    @Test func aSeekCrossfadesAtTheRate() throws {
        func render(seek: Bool) throws -> [Float] {
            let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
            let bus = try engine.addBus()
            let id = try engine.addSource(.buffer(sineBuffer(480, seconds: 1, channels: 1)), bus: bus)
            try engine.send(.setSourceRate(id, rate: 1.5, rampFrames: 0))
            try engine.send(.play(id))
            // Output frame 10_000 reads source frame 15_000 exactly (an even frame at 1.5).
            if seek { try engine.send(.seek(id, position: 16_000), at: .frame(10_000)) }
            return renderAll(engine, frameCount: 12_000, block: 256)
        }
        let plain = try render(seek: false)
        let seeked = try render(seek: true)
        let worst = zip(plain, seeked).map { abs(Double($0) - Double($1)) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference \(worst)")
        #expect(plain[10_000..<10_480].contains { abs($0) > 0.4 })
    }

    /// Whole-buffer loop with a count at rate 2: heard twice (N/2 frames each), then it ends.
    @Test func aCountAtARateEndsAfterItsWraps() throws {
        let buffer = AudioBuffer(interleaved: [Float](repeating: 0.25, count: 10_000), channelCount: 1, sampleRate: 48_000)
        let (engine, id) = try engine(buffer, rate: 2, loop: true)
        try engine.send(.setLoopRegion(id, startFrame: 0, endFrame: 10_000, count: 1))
        var events: [EngineEvent] = []
        _ = renderAll(engine, frameCount: 15_000, block: 256, events: &events)
        let ended = events.compactMap { e -> Int64? in if case .sourceEnded(id) = e.kind { e.frame } else { nil } }
        #expect(ended == [10_000])
    }

    /// Reading at a rate — gliding, wrapping short regions, seeking with crossfades, ending —
    /// allocates nothing.
    @Test func noMallocsAtARate() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let buffer = sineBuffer(330, seconds: 0.5)
        var ids: [SourceID] = []
        for i in 0..<8 {
            let id = try engine.addSource(.buffer(buffer), bus: bus, gain: 0.1, loop: i % 4 != 3)
            let start = Int64(100 * i)
            try engine.send(.setLoopRegion(id, startFrame: start, endFrame: start + [3, 90, 500, 2_000][i % 4], count: -1))
            try engine.send(.setSourceRate(id, rate: [0.25, 0.8, 1.7, 4][i % 4], rampFrames: 0))
            try engine.send(.play(id))
            ids.append(id)
        }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        for _ in 0..<8 { engine.render(into: out, frameCount: 256) }
        _ = engine.pollEvents()
        for (k, id) in ids.enumerated() {
            let at = engine.framesRendered + Int64(1_000 * (k + 1))
            try engine.send(.setSourceRate(id, rate: [3.5, 0.3, 1, 2][k % 4], rampFrames: 2_000), at: .frame(at))
            try engine.send(.seek(id, position: Int64(120 * k)), at: .frame(at + 500))
        }
        let mallocs = countMallocs {
            for _ in 0..<2_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
    }

    /// The engine refuses a rate that is not finite or outside [0.25, 4].
    @Test func badRatesAreRefused() throws {
        let (engine, id) = try engine(sineBuffer(440, seconds: 0.1, channels: 1), rate: nil)
        for bad: Float in [0.2, 4.5, .nan, .infinity, 0, -1] {
            let error = #expect(throws: TuttiError.self) { try engine.send(.setSourceRate(id, rate: bad, rampFrames: 0)) }
            #expect(error?.message.contains("rate") == true)
        }
    }
}
