import Foundation
import Testing
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

/// Effects on buses and on the master, measured in the engine's output: each biquad's
/// magnitude against the cookbook formula, the compressor's static curve, a delay's tail and
/// its going idle, no allocation while they run, bad parameters refused by name.
@Suite struct EffectsTests {
    static let rate = 48_000.0
    /// Ten frequencies from 40 Hz to 18 kHz (none exactly at a notch's centre).
    static let frequencies: [Double] = [40, 150, 400, 700, 950, 1_300, 2_500, 5_000, 10_000, 18_000]

    /// The amplitude of a steady `frequency` sine of `amplitude` through `effects` on a bus
    /// (or, with `master`, through the master chain), fitted on channel 0 after 0.25 s.
    func measure(_ effects: [EffectSettings], frequency: Double, amplitude: Float = 0.25, master: Bool = false) throws -> Double {
        var config = EngineConfiguration()
        if master { config.effects = effects }
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        if !master { try engine.setBusEffects(bus, effects) }
        let tone = try engine.addSource(.tone(frequency: frequency, amplitude: amplitude), bus: bus)
        try engine.send(.play(tone))
        let out = renderAll(engine, frameCount: 24_000)
        let left = Analysis.channel(out, 0, of: 2)
        return Analysis.fitSine(left[12_000...], frequency: frequency, sampleRate: Self.rate).amplitude / Double(amplitude)
    }

    @Test(arguments: EffectSettings.BiquadKind.allCases)
    func biquadMagnitudeMatchesTheCookbookAtTenFrequencies(kind: EffectSettings.BiquadKind) throws {
        let gain = kind == .lowshelf ? -9.0 : 6.0
        let settings = EffectSettings.biquad(kind, frequencyHz: 1_000, q: 0.9, gainDB: gain)
        let c = BiquadCoefficients(kind, frequencyHz: 1_000, q: 0.9, gainDB: gain, sampleRate: Self.rate)
        var worst = 0.0
        for f in Self.frequencies {
            let measured = Analysis.dB(try measure([settings], frequency: f))
            let expected = c.magnitudeDB(atHz: f, sampleRate: Self.rate)
            worst = max(worst, abs(measured - expected))
            #expect(abs(measured - expected) < 0.1, "\(kind) at \(f) Hz: measured \(measured) dB, formula \(expected) dB")
        }
        print("biquad \(kind): worst deviation \(worst) dB over \(Self.frequencies.count) frequencies")
    }

    /// The formula itself is the cookbook's: spot values every form must have.
    @Test func cookbookFormulaSpotValues() {
        func m(_ k: EffectSettings.BiquadKind, _ f: Double, gain: Double = 6) -> Double {
            BiquadCoefficients(k, frequencyHz: 1_000, q: 1 / 2.squareRoot(), gainDB: gain, sampleRate: Self.rate)
                .magnitudeDB(atHz: f, sampleRate: Self.rate)
        }
        #expect(abs(m(.lowpass, 1_000) + 3.0103) < 0.001)
        #expect(abs(m(.highpass, 1_000) + 3.0103) < 0.001)
        #expect(abs(m(.bandpass, 1_000)) < 0.001)
        #expect(m(.notch, 1_000) < -100)
        #expect(abs(m(.peaking, 1_000) - 6) < 0.001)
        #expect(abs(m(.lowshelf, 20) - 6) < 0.05)
        #expect(abs(m(.highshelf, 20_000) - 6) < 0.1)
        #expect(abs(m(.lowshelf, 1_000) - 3) < 0.001)
    }

    @Test func masterBiquadMatchesTheCookbook() throws {
        let settings = EffectSettings.biquad(.peaking, frequencyHz: 2_000, q: 2, gainDB: -12)
        let c = BiquadCoefficients(.peaking, frequencyHz: 2_000, q: 2, gainDB: -12, sampleRate: Self.rate)
        for f in [500.0, 1_800, 2_000, 2_300, 8_000] {
            let measured = Analysis.dB(try measure([settings], frequency: f, master: true))
            #expect(abs(measured - c.magnitudeDB(atHz: f, sampleRate: Self.rate)) < 0.1, "\(f) Hz: \(measured) dB")
        }
    }

    /// Steady sines at levels from −40 to 0 dBFS through threshold −20 dB, ratio 4, makeup
    /// 3 dB: the output level is the static curve within 0.5 dB.
    @Test func compressorStaticCurveWithinHalfADecibel() throws {
        let settings = EffectSettings.compressor(thresholdDB: -20, ratio: 4, attackSeconds: 0.005, releaseSeconds: 0.05, makeupDB: 3)
        var worst = 0.0
        for level in [-40.0, -30, -24, -20, -16, -10, -5, 0] {
            let amplitude = Float(pow(10, level / 20))
            let out = level + Analysis.dB(try measure([settings], frequency: 1_000, amplitude: amplitude))
            let expected = (level <= -20 ? level : -20 + (level + 20) / 4) + 3
            worst = max(worst, abs(out - expected))
            #expect(abs(out - expected) < 0.5, "in \(level) dBFS: out \(out), curve \(expected)")
        }
        print("compressor: worst deviation from the static curve \(worst) dB")
    }

    /// A 50 ms burst through a 100 ms delay (feedback 0.5, mix 0.5): echoes at 100, 200 and
    /// 300 ms at 0.5 × 0.5^k of the burst, long after the source ended; the tail then goes to
    /// exact silence once below −90 dBFS, well before 3 s.
    @Test func delayTailRingsAfterTheSourceStopsThenGoesIdle() throws {
        let engine = try Engine(configuration: EngineConfiguration())
        let bus = try engine.addBus()
        try engine.setBusEffects(bus, [.delay(timeSeconds: 0.1, feedback: 0.5, mix: 0.5)])
        let burst = try engine.addSource(.buffer(sineBuffer(1_000, amplitude: 0.5, seconds: 0.05)), bus: bus)
        try engine.send(.play(burst))
        var events: [EngineEvent] = []
        let out = renderAll(engine, frameCount: 48_000 * 3, events: &events)
        let ended = events.first { $0.kind == .sourceEnded(burst) }
        #expect(ended?.frame == 2_400)
        let left = Analysis.channel(out, 0, of: 2)
        // The dry burst at half level, then the echoes.
        for (k, start) in [(0, 0), (1, 4_800), (2, 9_600), (3, 14_400)] {
            let window = left[(start + 200)..<(start + 2_200)]
            let expected = 0.5 * 0.5 * (k == 0 ? 1 : pow(0.5, Double(k - 1)))
            let measured = Analysis.fitSine(window, frequency: 1_000, sampleRate: Self.rate).amplitude
            #expect(abs(Analysis.dB(measured / expected)) < 0.1, "echo \(k): \(measured), expected \(expected)")
        }
        // Between the echoes: silence (the burst is 50 ms, the delay 100 ms).
        #expect(left[(2_400 + 10)..<4_790].allSatisfy { $0 == 0 })
        let lastNonZero = left.lastIndex { $0 != 0 } ?? 0
        #expect(lastNonZero > 48_000, "the tail rings for more than a second: last sample at \(lastNonZero)")
        #expect(lastNonZero < 48_000 * 2, "the tail went idle: last sample at \(lastNonZero)")
        // What it cut was below −90 dBFS (the last echo, mix 0.5 of a line value below it).
        let lastEcho = left[max(0, lastNonZero - 4_800)...lastNonZero].map(abs).max() ?? 0
        #expect(lastEcho < 3.2e-5, "last echo peak \(lastEcho)")
        #expect(lastEcho > 0)
    }

    /// A bus whose effects are removed mixes exactly as a bus that never had any; a bus
    /// without effects beside one with effects is untouched.
    @Test func removingEffectsRestoresTheDryRenderBitForBit() throws {
        func render(_ configure: (Engine, BusID, BusID) throws -> Void) throws -> [Float] {
            let engine = try Engine(configuration: EngineConfiguration())
            let a = try engine.addBus()
            let b = try engine.addBus(gain: 0.5)
            try configure(engine, a, b)
            for (bus, f) in [(a, 440.0), (b, 660.0)] {
                let s = try engine.addSource(.tone(frequency: f, amplitude: 0.3), bus: bus)
                try engine.send(.play(s))
            }
            return renderAll(engine, frameCount: 9_600)
        }
        let dry = try render { _, _, _ in }
        let removed = try render { e, a, _ in
            try e.setBusEffects(a, [.biquad(.lowpass, frequencyHz: 500, q: 0.7, gainDB: 0)])
            try e.setBusEffects(a, [])
        }
        #expect(firstDifference(dry, removed) == nil)
        // The other bus: its tone alone is unchanged (same output minus the filtered bus).
        let filtered = try render { e, a, _ in try e.setBusEffects(a, [.biquad(.notch, frequencyHz: 440, q: 0.5, gainDB: 0)]) }
        let left = Analysis.channel(filtered, 0, of: 2)
        #expect(abs(Analysis.fitSine(left[4_800...], frequency: 660, sampleRate: Self.rate).amplitude - 0.15) < 1e-5)
        #expect(Analysis.fitSine(left[4_800...], frequency: 440, sampleRate: Self.rate).amplitude < 1e-4)
    }

    /// A lowpass on a 1 kHz tone moved from 400 Hz to 8 kHz at frame 12 000: gliding over
    /// 10 ms no frame's second difference exceeds twice the steady tone's afterwards, and the
    /// level lands on the new filter's magnitude. The same move as a step is measured too.
    @Test func aBiquadChangeGlidesWithoutZipperNoise() throws {
        func run(glide: Int) throws -> [Double] {
            let engine = try Engine(configuration: EngineConfiguration())
            let bus = try engine.addBus()
            try engine.setBusEffects(bus, [.biquad(.lowpass, frequencyHz: 400, q: 0.7071, gainDB: 0)])
            let tone = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.5), bus: bus)
            try engine.send(.play(tone))
            try engine.setBusEffect(
                bus, index: 0, to: .biquad(.lowpass, frequencyHz: 8_000, q: 0.7071, gainDB: 0), glideFrames: glide, at: .frame(12_000))
            return Analysis.channel(renderAll(engine, frameCount: 36_000), 0, of: 2)
        }
        let glided = try run(glide: 480)
        let clicks = Analysis.clicks(glided, reference: 24_000..<36_000)
        #expect(clicks.isEmpty, "clicks at \(clicks.prefix(5))")
        let expected = BiquadCoefficients(.lowpass, frequencyHz: 8_000, q: 0.7071, gainDB: 0, sampleRate: Self.rate)
            .magnitudeDB(atHz: 1_000, sampleRate: Self.rate)
        let level = Analysis.dB(Analysis.fitSine(glided[24_000...], frequency: 1_000, sampleRate: Self.rate).amplitude / 0.5)
        #expect(abs(level - expected) < 0.1)
        let before = BiquadCoefficients(.lowpass, frequencyHz: 400, q: 0.7071, gainDB: 0, sampleRate: Self.rate)
            .magnitudeDB(atHz: 1_000, sampleRate: Self.rate)
        let early = Analysis.dB(Analysis.fitSine(glided[4_800..<12_000], frequency: 1_000, sampleRate: Self.rate).amplitude / 0.5)
        #expect(abs(early - before) < 0.1)
        func worstD2(_ x: [Double]) -> Double {
            var worst = 0.0
            for n in 11_990..<13_000 {
                let d2: Double = x[n] - 2 * x[n - 1] + x[n - 2]
                worst = max(worst, abs(d2))
            }
            return worst
        }
        let stepped = try run(glide: 0)
        // The detector hears the same change made as a step: a click.
        #expect(!Analysis.clicks(stepped, reference: 24_000..<36_000).isEmpty)
        print("biquad change: worst second difference around the change \(worstD2(glided)) glided, \(worstD2(stepped)) stepped")
    }

    @Test func aBiquadChangeIsRefusedByNameForOtherEffects() throws {
        let engine = try Engine(configuration: EngineConfiguration())
        let bus = try engine.addBus()
        try engine.setBusEffects(
            bus, [.biquad(.lowpass, frequencyHz: 400, q: 1, gainDB: 0), .delay(timeSeconds: 0.1, feedback: 0, mix: 0.5)])
        let lowpass = EffectSettings.biquad(.highpass, frequencyHz: 100, q: 1, gainDB: 0)
        for (index, settings, message) in [
            (1, lowpass, "effects[1]: only a biquad"), (2, lowpass, "effects[2]: the bus's chain has 2 effects"),
            (
                0, EffectSettings.compressor(thresholdDB: -10, ratio: 2, attackSeconds: 0, releaseSeconds: 0, makeupDB: 0),
                "effects[0]: only a biquad"
            ),
            (0, EffectSettings.biquad(.highpass, frequencyHz: -1, q: 1, gainDB: 0), "effects[0].frequency must be finite"),
        ] {
            let error = #expect(throws: TuttiError.self) { try engine.setBusEffect(bus, index: index, to: settings, glideFrames: 10) }
            #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        }
    }

    /// The master stage on a two-route engine at system volume 0.5 with a ramp: an empty
    /// master chain renders what the engine without a master stage renders (within float
    /// rounding) on both routes — the volume applies after the stage on every route; a master
    /// peaking filter boosts main's tone but not cue's, nor a ringer-class bus's.
    @Test func theMasterStageKeepsTheVolumeOnEveryRouteAndRingerSoundsBypassIt() throws {
        func run(_ effects: [EffectSettings]?) throws -> [[Float]] {
            var config = EngineConfiguration()
            config.outputBuses = ["main", "cue"]
            config.effects = effects
            let engine = try Engine(configuration: config)
            let bus = try engine.addBus()
            let ringer = try engine.addBus(volumeClass: .ringer)
            let main = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.25), bus: bus)
            let cue = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.25), bus: bus)
            let bell = try engine.addSource(.tone(frequency: 3_000, amplitude: 0.25), bus: ringer)
            try engine.send(.setOutputBus(cue, bus: 1))
            for s in [main, cue, bell] { try engine.send(.play(s)) }
            try engine.send(.setMasterVolume(gain: 0.5, rampFrames: 4_800), at: .frame(2_000))
            let ch = 2
            let frames = 24_000
            let buffers = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames * ch) }
            defer { for b in buffers { b.deallocate() } }
            var done = 0
            while done < frames {
                let n = min(256, frames - done)
                let at = buffers.map { $0 + done * ch }
                at.withUnsafeBufferPointer { engine.render(outputBuses: $0.baseAddress!, busCount: 2, frameCount: n) }
                done += n
            }
            return buffers.map { Array(UnsafeBufferPointer(start: $0, count: frames * ch)) }
        }
        let plain = try run(nil)
        let empty = try run([])
        for r in 0..<2 {
            let worst = zip(plain[r], empty[r]).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-6, "route \(r): \(worst)")
        }
        let boosted = try run([.biquad(.peaking, frequencyHz: 1_000, q: 1, gainDB: 6)])
        func level(_ x: [Float], _ f: Double) -> Double {
            Analysis.fitSine(Analysis.channel(x, 0, of: 2)[12_000...], frequency: f, sampleRate: Self.rate).amplitude
        }
        #expect(abs(Analysis.dB(level(boosted[0], 1_000) / level(plain[0], 1_000)) - 6) < 0.1)
        #expect(abs(Analysis.dB(level(boosted[1], 1_000) / level(plain[1], 1_000))) < 0.01)
        #expect(abs(Analysis.dB(level(boosted[0], 3_000) / level(plain[0], 3_000))) < 0.01)
        #expect(abs(level(plain[0], 1_000) - 0.125) < 1e-4)
    }

    /// A bus removed with its chain: the chain is handed back with the bus; a new bus in the
    /// same slot mixes dry.
    @Test func aRemovedBusTakesItsChainWithIt() throws {
        let engine = try Engine(configuration: EngineConfiguration())
        let bus = try engine.addBus()
        try engine.setBusEffects(bus, [.delay(timeSeconds: 0.05, feedback: 0.9, mix: 1)])
        let s = try engine.addSource(.tone(frequency: 500, amplitude: 0.5), bus: bus)
        try engine.send(.play(s))
        var events: [EngineEvent] = []
        _ = renderAll(engine, frameCount: 4_800, events: &events)
        try engine.removeBus(bus)
        _ = renderAll(engine, frameCount: 4_800, events: &events)
        #expect(events.contains { $0.kind == .busRemoved(bus) })
        let again = try engine.addBus()
        #expect(again.slot == bus.slot)
        let t = try engine.addSource(.tone(frequency: 500, amplitude: 0.5), bus: again)
        try engine.send(.play(t))
        let out = renderAll(engine, frameCount: 9_600)
        let left = Analysis.channel(out, 0, of: 2)
        #expect(abs(Analysis.fitSine(left[4_800...], frequency: 500, sampleRate: Self.rate).amplitude - 0.5) < 1e-5)
    }

    @Test func noMallocsWhileEffectsRun() throws {
        var config = EngineConfiguration()
        config.effects = [.compressor(thresholdDB: -20, ratio: 3, attackSeconds: 0.01, releaseSeconds: 0.1, makeupDB: 0)]
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        try engine.setBusEffects(
            bus, [.biquad(.highshelf, frequencyHz: 3_000, q: 0.7, gainDB: 4), .delay(timeSeconds: 0.25, feedback: 0.6, mix: 0.3)])
        let s = try engine.addSource(.tone(frequency: 300, amplitude: 0.5), bus: bus)
        try engine.send(.play(s))
        // Glides during the counted stretch (their coefficients were computed here).
        for k in 1...20 {
            try engine.setBusEffect(
                bus, index: 0, to: .biquad(.highshelf, frequencyHz: 3_000 + 100 * Double(k), q: 0.7, gainDB: 4), glideFrames: 300,
                at: .frame(Int64(k) * 20_000))
        }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { out.deallocate() }
        engine.render(into: out, frameCount: 256)
        let mallocs = countMallocs {
            for _ in 0..<2_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
    }

    @Test func badParametersAreRefusedByNameChangingNothing() throws {
        let engine = try Engine(configuration: EngineConfiguration())
        let bus = try engine.addBus()
        let cases: [(EffectSettings, String)] = [
            (.biquad(.lowpass, frequencyHz: 0, q: 1, gainDB: 0), "effects[1].frequency"),
            (.biquad(.lowpass, frequencyHz: 24_000, q: 1, gainDB: 0), "effects[1].frequency"),
            (.biquad(.peaking, frequencyHz: .nan, q: 1, gainDB: 0), "effects[1].frequency"),
            (.biquad(.highpass, frequencyHz: 100, q: 0, gainDB: 0), "effects[1].q"),
            (.biquad(.peaking, frequencyHz: 100, q: 1, gainDB: .infinity), "effects[1].gain"),
            (.compressor(thresholdDB: -10, ratio: 0.5, attackSeconds: 0.01, releaseSeconds: 0.1, makeupDB: 0), "effects[1].ratio"),
            (.delay(timeSeconds: 0.1, feedback: 1, mix: 0.5), "effects[1].feedback"),
            (.delay(timeSeconds: 0.1, feedback: -0.1, mix: 0.5), "effects[1].feedback"),
            (.delay(timeSeconds: 0.1, feedback: 0.5, mix: 1.5), "effects[1].mix"),
            (.delay(timeSeconds: 0, feedback: 0.5, mix: 0.5), "effects[1].time"),
            (.delay(timeSeconds: 11, feedback: 0.5, mix: 0.5), "effects[1].time"),
        ]
        let good = EffectSettings.biquad(.lowpass, frequencyHz: 1_000, q: 1, gainDB: 0)
        let inFlight = engine.commandsInFlight
        for (bad, name) in cases {
            let error = #expect(throws: TuttiError.self) { try engine.setBusEffects(bus, [good, bad]) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.hasPrefix(name) == true, "\(error?.message ?? "")")
            var config = EngineConfiguration()
            config.effects = [good, bad]
            let configError = #expect(throws: TuttiError.self) { _ = try Engine(configuration: config) }
            #expect(configError?.message.hasPrefix(name) == true, "\(configError?.message ?? "")")
        }
        #expect(engine.commandsInFlight == inFlight)
    }
}
