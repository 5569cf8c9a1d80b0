import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

@Suite struct RealtimeTests {
    @Test func noMallocsWhileRendering32Sources() throws {
        let engine = try Engine()
        var ids: [SourceID] = []
        var buses: [BusID] = []
        for _ in 0..<4 { buses.append(try engine.addBus()) }
        let buffer = sineBuffer(330, seconds: 0.5)
        for i in 0..<32 {
            let kind: SourceKind = i % 4 == 0 ? .tone(frequency: 200 + Double(i), amplitude: 0.1) : .buffer(buffer)
            ids.append(try engine.addSource(kind, bus: buses[i % 4], gain: 0.1, loop: true))
        }
        for id in ids { try engine.send(.play(id)) }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        // Warm up: install nodes, collect them.
        for _ in 0..<8 { engine.render(into: out, frameCount: 256) }
        _ = engine.pollEvents()
        // Keep the graph busy: ramps, gates and ducks move while we count.
        try engine.send(.setBusDuck(buses[0], targetDB: -15, dBPerFrame: 0.001), at: .frame(engine.framesRendered + 1_000))
        try engine.send(.setSourceGain(ids[1], gain: 0.05, rampFrames: 4_800), at: .frame(engine.framesRendered + 2_000))
        try engine.send(.setBusGate(buses[2], gain: 0, rampFrames: 960), at: .frame(engine.framesRendered + 3_000))
        // Panned sources too: settled and ramping pan gains (the per-channel kernels).
        try engine.send(.setSourcePan(ids[0], pan: -0.7, rampFrames: 0), at: .frame(engine.framesRendered + 500))
        try engine.send(.setSourcePan(ids[2], pan: 0.3, rampFrames: 9_600), at: .frame(engine.framesRendered + 1_500))
        let mallocs = countMallocs {
            for _ in 0..<10_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
        #expect(engine.framesRendered > 2_560_000)
    }

    /// The pending-command heap at work while counting: a thousand commands for frames spread
    /// over the counted stretch, sent before it in reverse frame order (the worst case for the
    /// heap), plus commands for now, all taken off the ring and ordered on the render thread.
    @Test func noMallocsWhileOrderingAThousandScheduledCommands() throws {
        var config = EngineConfiguration()
        config.commandQueueCapacity = 2_048
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        var ids: [SourceID] = []
        for i in 0..<16 { ids.append(try engine.addSource(.tone(frequency: 100 + 20 * Double(i), amplitude: 0.05), bus: bus, loop: true)) }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        for _ in 0..<4 { engine.render(into: out, frameCount: 256) }
        engine.pollEvents()
        let start = engine.framesRendered
        for k in (0..<1_000).reversed() {
            let id = ids[k % ids.count]
            let at = EngineTime.frame(start + Int64(k * 250))
            switch k % 4 {
            case 0: try engine.send(.play(id), at: at)
            case 1: try engine.send(.setSourceGain(id, gain: Float(k % 9) / 10, rampFrames: 100), at: at)
            case 2: try engine.send(.pause(id), at: at)
            default: try engine.send(.seek(id, position: Int64(k)), at: at)
            }
        }
        for id in ids { try engine.send(.play(id)) }
        #expect(engine.commandsInFlight == 1_016)
        let mallocs = countMallocs {
            for _ in 0..<1_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
        #expect(engine.commandsInFlight == 0)
    }

    /// Voice limits at work while counting: plays over an engine limit and a bus limit steal
    /// and are refused, with the probe attached (as `tutti render --plot` does).
    @Test func noMallocsWhileStealingVoicesWithAProbe() throws {
        var config = EngineConfiguration()
        config.maxVoices = 6
        config.commandQueueCapacity = 2_048
        let engine = try Engine(configuration: config)
        let buses = [try engine.addBus(maxVoices: 2), try engine.addBus()]
        var ids: [SourceID] = []
        for i in 0..<24 {
            ids.append(
                try engine.addSource(
                    .tone(frequency: 100 + 20 * Double(i), amplitude: 0.05), bus: buses[i % 2], loop: true, priority: UInt8(i * 37 % 256)))
        }
        let probe = RenderProbe(intervalFrames: 256, recordCapacity: 2_000, busSlots: config.maxBuses)
        try engine.attachProbe(probe)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        for _ in 0..<4 { engine.render(into: out, frameCount: 256) }
        engine.pollEvents()
        let start = engine.framesRendered
        for k in 0..<1_000 {
            let id = ids[k * 7 % ids.count]
            let at = EngineTime.frame(start + Int64(k * 250))
            try engine.send(k % 5 == 4 ? .stop(id) : .play(id), at: at)
        }
        let mallocs = countMallocs {
            for _ in 0..<1_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
        let events = engine.pollEvents()
        let steals = events.filter { if case .voiceStolen = $0.kind { true } else { false } }.count
        let refusals = events.filter { if case .voiceRefused = $0.kind { true } else { false } }.count
        #expect(steals > 50 && refusals > 50, "\(steals) steals, \(refusals) refusals")
        #expect(probe.recordCount > 1_000)
        #expect(engine.eventsDropped == 0)
    }

    @Test func theCounterSeesAllocations() {
        // So the zero above means something.
        let n = countMallocs { UnsafeMutablePointer<Float>.allocate(capacity: 10).deallocate() }
        #expect(n >= 1)
    }

    @Test func ringKeepsOrderAcrossThreads() {
        // Values stay below 2^24 so Float holds them exactly.
        let total = 1 << 20
        let storage = RingStorage<Float>(capacity: 1024)
        let ring = SampleRing(storage)
        let producer = Thread {
            var i = 0
            var chunk = [Float](repeating: 0, count: 37)
            while i < total {
                let n = min(37, total - i)
                for k in 0..<n { chunk[k] = Float(i + k) }
                i += chunk.withUnsafeBufferPointer { ring.write(from: $0.baseAddress!, count: n) }
            }
        }
        producer.start()
        var expected = 0
        var ok = true
        // The consumer reads in place, the way the render thread does.
        while expected < total, ok {
            let span = ring.readableSpan()
            let n = min(span.count, 53)
            for k in 0..<n where span.pointer[k] != Float(expected + k) { ok = false }
            ring.release(n)
            expected += n
        }
        #expect(ok)
        #expect(expected == total)
    }

    @Test func streamSourceConvertsWhilePlaying() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let bus = try engine.addBus()
        let s = try engine.addSource(.stream(sampleRate: 44_100, channelCount: 1, capacityFrames: 16_384), bus: bus)
        let stream = try #require(engine.stream(s))
        try engine.send(.play(s))
        var written = 0
        var out: [Float] = []
        var block = [Float](repeating: 0, count: 256)
        // Feed 441 input frames per 480 output frames, as a host would.
        for _ in 0..<200 {
            let chunk = (written..<written + 441).map { Float(0.5 * sin(2 * .pi * 1000 * Double($0) / 44_100)) }
            written += chunk.withUnsafeBufferPointer { stream.write($0) }
            for _ in 0..<2 {
                block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frameCount: 240) }
                out += block[0..<240]
            }
        }
        let mid = out[20_000..<80_000].map(Double.init)
        let fit = Analysis.fitSine(mid[...], frequency: 1000, sampleRate: 48_000)
        #expect(abs(fit.amplitude - 0.5) < 0.01)
        #expect(Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS) >= 80)
    }
}
