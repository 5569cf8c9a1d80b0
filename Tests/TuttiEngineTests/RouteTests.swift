import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Output buses: each source mixes into one bus; `render(outputBuses:…)` returns each bus's
/// mix, `render(into:…)` main alone. Checked by measurement (tone levels, null tests).
@Suite struct RouteTests {
    /// Renders `frameCount` frames of every route of `engine` in blocks of `block`.
    func renderRoutes(_ engine: Engine, frameCount: Int, block: Int = 256) -> [[Float]] {
        let ch = engine.channelCount
        let count = engine.configuration.outputBuses.count
        let buffers = (0..<count).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frameCount * ch) }
        defer { for b in buffers { b.deallocate() } }
        var done = 0
        buffers.withUnsafeBufferPointer { pointers in
            while done < frameCount {
                let n = min(block, frameCount - done)
                let at = pointers.map { $0 + done * ch }
                at.withUnsafeBufferPointer { engine.render(outputBuses: $0.baseAddress!, busCount: count, frameCount: n) }
                done += n
            }
        }
        return buffers.map { Array(UnsafeBufferPointer(start: $0, count: frameCount * ch)) }
    }

    func amplitude(_ x: [Float], _ frequency: Double, from: Int = 4_800) -> Double {
        let left = Analysis.channel(x, 0, of: 2)
        return Analysis.toneAmplitude(left[from...], frequency: frequency, sampleRate: 48_000)
    }

    func twoRouteEngine() throws -> Engine {
        var config = EngineConfiguration()
        config.outputBuses = ["main", "cue"]
        return try Engine(configuration: config)
    }

    @Test func aToneOnCueSoundsOnlyOnCue() throws {
        let (engine, _, _) = try twoRouteToneEngine()
        let out = renderRoutes(engine, frameCount: 48_000)
        #expect(abs(amplitude(out[0], 440) - 0.5) < 0.01)
        #expect(amplitude(out[0], 1_000) < 1e-4)
        #expect(abs(amplitude(out[1], 1_000) - 0.25) < 0.01)
        #expect(amplitude(out[1], 440) < 1e-4)
    }

    /// A cue route costs main nothing: main of a two-route engine equals, bit for bit, the
    /// output of a one-route engine with the main sources alone, whatever the block size;
    /// and `render(into:)` on the two-route engine is its main.
    @Test func mainIsUnchangedByOtherRoutes() throws {
        let single = try Engine()
        let double = try twoRouteEngine()
        let pull = try twoRouteEngine()
        let buffer = sineBuffer(330, seconds: 0.3)
        for engine in [single, double, pull] {
            let bus = try engine.addBus()
            let music = try engine.addSource(.buffer(buffer), bus: bus, gain: 0.7, loop: true)
            try engine.send(.play(music))
            try engine.send(.setSourceGain(music, gain: 0.2, rampFrames: 9_000), at: .frame(7_000))
            if engine !== single {
                let cue = try engine.addSource(.tone(frequency: 880, amplitude: 0.5), bus: bus, loop: true)
                try engine.send(.setOutputBus(cue, bus: 1))
                try engine.send(.play(cue))
            }
            try engine.send(.setMasterVolume(gain: 0.5, rampFrames: 4_800), at: .frame(10_000))
        }
        let reference = renderAll(single, frameCount: 30_000, block: 256)
        let routes = renderRoutes(double, frameCount: 30_000, block: 100)
        let mainOnly = renderAll(pull, frameCount: 30_000, block: 333)
        #expect(routes[0] == reference)
        #expect(mainOnly == reference)
        #expect(amplitude(routes[1], 880, from: 24_000) > 0.2)
    }

    /// System volume applies on every route (the master stage is per source's bus).
    @Test func volumeAppliesOnEveryRoute() throws {
        let engine = try twoRouteEngine()
        let bus = try engine.addBus()
        let a = try engine.addSource(.tone(frequency: 500, amplitude: 0.4), bus: bus, loop: true)
        let b = try engine.addSource(.tone(frequency: 700, amplitude: 0.4), bus: bus, loop: true)
        try engine.send(.setOutputBus(b, bus: 1))
        for id in [a, b] { try engine.send(.play(id)) }
        try engine.send(.setMasterVolume(gain: 0.25, rampFrames: 0))
        let out = renderRoutes(engine, frameCount: 24_000)
        #expect(abs(amplitude(out[0], 500) - 0.1) < 0.005)
        #expect(abs(amplitude(out[1], 700) - 0.1) < 0.005)
    }

    /// A route change at a frame moves the source there: before it on main, after it on cue.
    @Test func setRouteTakesEffectAtItsFrame() throws {
        let engine = try twoRouteEngine()
        let bus = try engine.addBus()
        // 610 Hz: frame 10 000 is not a zero of the sine (at 600 Hz it is: 125 whole cycles).
        let a = try engine.addSource(.tone(frequency: 610, amplitude: 0.5), bus: bus, loop: true)
        try engine.send(.play(a))
        try engine.send(.setOutputBus(a, bus: 1), at: .frame(10_000))
        let out = renderRoutes(engine, frameCount: 20_000, block: 512)
        let main = Analysis.channel(out[0], 0, of: 2)
        let cue = Analysis.channel(out[1], 0, of: 2)
        #expect(main[9_999] != 0)
        #expect(main[10_000...].allSatisfy { $0 == 0 })
        #expect(cue[..<10_000].allSatisfy { $0 == 0 })
        #expect(cue[10_000] != 0)
        // Continuous across the move: main + cue is the unbroken tone.
        let sum = zip(main, cue).map { $0 + $1 }
        #expect(Analysis.clicks(sum, reference: 2_000..<9_000).isEmpty)
    }

    @Test func badRoutesAreRejected() throws {
        for routes in [[], ["cue"], ["cue", "main"], ["main", "main"], ["main", ""], (0..<9).map { $0 == 0 ? "main" : "r\($0)" }] {
            var config = EngineConfiguration()
            config.outputBuses = routes
            #expect(throws: TuttiError.self) { try Engine(configuration: config) }
        }
        let engine = try twoRouteEngine()
        let bus = try engine.addBus()
        let a = try engine.addSource(.tone(frequency: 600, amplitude: 0.5), bus: bus)
        #expect(throws: TuttiError.self) { try engine.send(.setOutputBus(a, bus: 2)) }
        #expect(throws: TuttiError.self) { try engine.send(.setOutputBus(a, bus: -1)) }
        try engine.send(.setOutputBus(a, bus: 1))
        #expect(engine.configuration.outputBusIndex(named: "cue") == 1)
        #expect(engine.configuration.outputBusIndex(named: "booth") == nil)
    }

    @Test func noMallocsRenderingThreeRoutes() throws {
        var config = EngineConfiguration()
        config.outputBuses = ["main", "cue", "booth"]
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        let buffer = sineBuffer(330, seconds: 0.5)
        var ids: [SourceID] = []
        for i in 0..<24 {
            let kind: SourceKind = i % 3 == 0 ? .tone(frequency: 200 + Double(i), amplitude: 0.05) : .buffer(buffer)
            let id = try engine.addSource(kind, bus: bus, gain: 0.1, loop: true)
            try engine.send(.setOutputBus(id, bus: Int32(i % 3)))
            try engine.send(.play(id))
            ids.append(id)
        }
        let buffers = (0..<3).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2) }
        defer { for b in buffers { b.deallocate() } }
        try buffers.withUnsafeBufferPointer { pointers in
            let p = pointers.baseAddress!
            for _ in 0..<8 { engine.render(outputBuses: p, busCount: 3, frameCount: 256) }
            _ = engine.pollEvents()
            try engine.send(.setSourceGain(ids[1], gain: 0.05, rampFrames: 4_800), at: .frame(engine.framesRendered + 2_000))
            try engine.send(.setOutputBus(ids[2], bus: 0), at: .frame(engine.framesRendered + 3_000))
            let mallocs = countMallocs {
                for _ in 0..<5_000 { engine.render(outputBuses: p, busCount: 3, frameCount: 256) }
                // Fewer buffers than routes: the rest mix into scratch.
                for _ in 0..<1_000 { engine.render(outputBuses: p, busCount: 1, frameCount: 256) }
            }
            #expect(mallocs == 0)
        }
        #expect(engine.framesRendered > 1_500_000)
    }
}
