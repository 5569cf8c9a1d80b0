import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Voice limits on the render side: who is stolen (priority, then the quietest, then the
/// oldest), refusal, the scope of a bus's limit, the fade, and the frame it happens at —
/// measured on the output (each voice is a tone of its own frequency).
@Suite struct VoiceLimitTests {
    let rate = 48_000

    struct Voice {
        var frequency: Double
        var priority: UInt8 = 128
        var gain: Float = 1
        var startFrame: Int64 = 0
        var bus = 0
    }

    /// An engine (mono) with `buses` buses, one tone source per voice; `setup` adds more.
    func make(maxVoices: Int, buses: Int = 1, busLimits: [Int] = [], steal: Double = 0.010, _ voices: [Voice]) throws -> (
        Engine, [BusID], [SourceID]
    ) {
        var config = EngineConfiguration(sampleRate: rate, channelCount: 1)
        config.maxVoices = maxVoices
        config.voiceStealFadeSeconds = steal
        let engine = try Engine(configuration: config)
        var ids: [BusID] = []
        for b in 0..<buses { ids.append(try engine.addBus(maxVoices: b < busLimits.count ? busLimits[b] : 0)) }
        var sources: [SourceID] = []
        for v in voices {
            let s = try engine.addSource(
                .tone(frequency: v.frequency, amplitude: 0.2), bus: ids[v.bus], gain: v.gain, loop: true, priority: v.priority)
            try engine.send(.play(s), at: .frame(v.startFrame))
            sources.append(s)
        }
        return (engine, ids, sources)
    }

    /// Tone level of `frequency` over [from, to) of a mono render.
    func level(_ x: [Float], _ frequency: Double, _ range: Range<Int>) -> Double {
        Analysis.toneAmplitude(x[range].map(Double.init)[...], frequency: frequency, sampleRate: Double(rate))
    }

    func stolen(_ events: [EngineEvent]) -> [(frame: Int64, victim: SourceID, by: SourceID)] {
        events.compactMap { if case .voiceStolen(let v, let by) = $0.kind { ($0.frame, v, by) } else { nil } }
    }

    @Test func theLowestPriorityIsStolen() throws {
        let (engine, bus, s) = try make(
            maxVoices: 3, [Voice(frequency: 300, priority: 50), Voice(frequency: 500, priority: 10), Voice(frequency: 700, priority: 200)])
        let newcomer = try engine.addSource(.tone(frequency: 900, amplitude: 0.2), bus: bus[0], loop: true, priority: 128)
        try engine.send(.play(newcomer), at: .frame(24_000))
        var events: [EngineEvent] = []
        let x = renderAll(engine, frameCount: 48_000, events: &events)
        #expect(stolen(events).map(\.frame) == [24_000])
        #expect(stolen(events).first?.victim == s[1] && stolen(events).first?.by == newcomer)
        // 500 Hz (priority 10) gone after its fade; the others and the newcomer sound.
        #expect(level(x, 500, 4_000..<20_000) > 0.15)
        #expect(level(x, 500, 26_000..<46_000) < 1e-4)
        for f in [300.0, 700, 900] { #expect(level(x, f, 26_000..<46_000) > 0.15, "\(f) Hz") }
    }

    @Test func amongEqualPrioritiesTheQuietestIsStolen() throws {
        let (engine, bus, s) = try make(
            maxVoices: 3, [Voice(frequency: 300, gain: 0.8), Voice(frequency: 500, gain: 0.3), Voice(frequency: 700, gain: 0.6)])
        let newcomer = try engine.addSource(.tone(frequency: 900, amplitude: 0.2), bus: bus[0], loop: true)
        try engine.send(.play(newcomer), at: .frame(24_000))
        var events: [EngineEvent] = []
        let x = renderAll(engine, frameCount: 48_000, events: &events)
        #expect(stolen(events).map(\.victim) == [s[1]])
        #expect(level(x, 500, 26_000..<46_000) < 1e-4)
        #expect(level(x, 300, 26_000..<46_000) > 0.1 && level(x, 700, 26_000..<46_000) > 0.1)
    }

    @Test func amongEqualPrioritiesAndGainsTheOldestIsStolen() throws {
        // Started at frames 2000, 100 and 1000: the one from frame 100 is the oldest.
        let (engine, bus, s) = try make(
            maxVoices: 3,
            [Voice(frequency: 300, startFrame: 2_000), Voice(frequency: 500, startFrame: 100), Voice(frequency: 700, startFrame: 1_000)])
        let newcomer = try engine.addSource(.tone(frequency: 900, amplitude: 0.2), bus: bus[0], loop: true)
        try engine.send(.play(newcomer), at: .frame(24_000))
        var events: [EngineEvent] = []
        let x = renderAll(engine, frameCount: 48_000, events: &events)
        #expect(stolen(events).map(\.victim) == [s[1]])
        #expect(level(x, 500, 26_000..<46_000) < 1e-4)
        // The quieter voice goes first even when it is younger: gain before age.
        try engine.send(.setSourceGain(s[2], gain: 0.5, rampFrames: 0))
        let later = try engine.addSource(.tone(frequency: 1_100, amplitude: 0.2), bus: bus[0], loop: true)
        try engine.send(.play(later))
        events = []
        _ = renderAll(engine, frameCount: 4_800, events: &events)
        #expect(stolen(events).map(\.victim) == [s[2]])
    }

    @Test func aNewVoiceBelowEveryPlayingOneIsRefused() throws {
        let (engine, bus, _) = try make(maxVoices: 2, [Voice(frequency: 300, priority: 200), Voice(frequency: 500, priority: 90)])
        let low = try engine.addSource(.tone(frequency: 900, amplitude: 0.2), bus: bus[0], loop: true, priority: 89)
        try engine.send(.play(low), at: .frame(24_000))
        var events: [EngineEvent] = []
        let x = renderAll(engine, frameCount: 48_000, events: &events)
        #expect(events.filter { $0.kind == .voiceRefused(low) }.map(\.frame) == [24_000])
        #expect(stolen(events).isEmpty)
        #expect(level(x, 900, 24_000..<48_000) < 1e-6)
        #expect(level(x, 300, 26_000..<46_000) > 0.15 && level(x, 500, 26_000..<46_000) > 0.15)
        #expect(engine.status(low)?.state == .stopped)
        // An equal priority is not below: it steals.
        try engine.send(.setPriority(low, 90))
        try engine.send(.play(low))
        events = []
        _ = renderAll(engine, frameCount: 4_800, events: &events)
        #expect(stolen(events).count == 1)
    }

    @Test func aBusLimitStealsWithinItsBus() throws {
        // Bus 0 may have one voice; bus 1's voice has the lowest priority of all but is not in scope.
        let (engine, bus, s) = try make(
            maxVoices: 0, buses: 2, busLimits: [1, 0],
            [Voice(frequency: 300, priority: 100, bus: 0), Voice(frequency: 500, priority: 1, bus: 1)])
        let second = try engine.addSource(.tone(frequency: 700, amplitude: 0.2), bus: bus[0], loop: true, priority: 100)
        try engine.send(.play(second), at: .frame(24_000))
        var events: [EngineEvent] = []
        let x = renderAll(engine, frameCount: 48_000, events: &events)
        #expect(stolen(events).map(\.victim) == [s[0]])
        #expect(level(x, 300, 26_000..<46_000) < 1e-4)
        #expect(level(x, 500, 26_000..<46_000) > 0.15 && level(x, 700, 26_000..<46_000) > 0.15)
    }

    @Test func whatIsNotAVoice() throws {
        var config = EngineConfiguration(sampleRate: rate, channelCount: 1)
        config.maxVoices = 1
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        let own = try engine.addBus(limitsVoices: false)
        let a = try engine.addSource(.tone(frequency: 300, amplitude: 0.2), bus: bus, loop: true)
        let b = try engine.addSource(.tone(frequency: 500, amplitude: 0.2), bus: bus, loop: true)
        let system = try engine.addSource(.tone(frequency: 700, amplitude: 0.2), bus: own, loop: true)
        try engine.send(.play(a))
        try engine.send(.play(system)) // the engine's own buses neither count nor steal
        var events: [EngineEvent] = []
        _ = renderAll(engine, frameCount: 4_800, events: &events)
        #expect(stolen(events).isEmpty)
        // A voice fading out for a pause no longer counts: pause a and play b at the same frame.
        try engine.send(.pause(a), at: .frame(9_600))
        try engine.send(.play(b), at: .frame(9_600))
        // Playing a voice that plays already changes nothing.
        try engine.send(.play(b), at: .frame(12_000))
        _ = renderAll(engine, frameCount: 14_400, events: &events)
        #expect(stolen(events).isEmpty)
        #expect(!events.contains { if case .voiceRefused = $0.kind { true } else { false } })
        // Resuming a, now that b is the one voice, takes b's.
        try engine.send(.play(a))
        events = []
        _ = renderAll(engine, frameCount: 4_800, events: &events)
        #expect(stolen(events).map(\.victim) == [b])
    }

    @Test func theStealFadesWithoutAClickAndStartsAtThePlaysFrame() throws {
        // The newcomer is a silent source, so the output is the stolen tone alone.
        func render(stealSeconds: Double, steal: Bool) throws -> [Float] {
            let (engine, bus, _) = try make(maxVoices: 1, steal: stealSeconds, [Voice(frequency: 440)])
            if steal {
                let silent = try engine.addSource(.silence, bus: bus[0])
                try engine.send(.play(silent), at: .frame(24_027))
            }
            return renderAll(engine, frameCount: 48_000, block: 256)
        }
        let x = try render(stealSeconds: 0.010, steal: true)
        let reference = try render(stealSeconds: 0.010, steal: false)
        // Identical up to the play's frame, different from it on.
        #expect(Array(x[0..<24_027]) == Array(reference[0..<24_027]))
        #expect(x[24_028] != reference[24_028])
        // 10 ms later it is silent, and the fade has no click.
        #expect(x[(24_027 + 480)...].allSatisfy { $0 == 0 })
        let clicks = Analysis.clicks(x.map(Double.init), reference: 2_000..<20_000)
        #expect(clicks.isEmpty, "clicks at \(clicks.prefix(5))")
        // The detector sees a steal without a fade.
        let hard = try render(stealSeconds: 0, steal: true)
        #expect(Analysis.clicks(hard.map(Double.init), reference: 2_000..<20_000).contains(24_027))
    }

    @Test func theDecisionDoesNotDependOnBlockSize() throws {
        func render(block: Int) throws -> [Float] {
            let (engine, bus, _) = try make(
                maxVoices: 2, [Voice(frequency: 300, priority: 60), Voice(frequency: 500, priority: 60, startFrame: 333)])
            for (k, f) in [(1_000, 700.0), (5_555, 900.0), (9_001, 1_100.0)] {
                let s = try engine.addSource(.tone(frequency: f, amplitude: 0.2), bus: bus[0], loop: true, priority: UInt8(k % 200))
                try engine.send(.play(s), at: .frame(Int64(k)))
            }
            return renderAll(engine, frameCount: 12_000, block: block)
        }
        #expect(try render(block: 256) == render(block: 97))
    }
}
