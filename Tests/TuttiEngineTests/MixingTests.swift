import Foundation
import Testing
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

@Suite struct MixingTests {
    @Test func mixingIsExact() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let a = noiseBuffer(seed: 11, seconds: 1)
        let b = sineBuffer(997, seconds: 1)
        let sa = try engine.addSource(.buffer(a), bus: bus, gain: 0.5)
        let sb = try engine.addSource(.buffer(b), bus: bus, gain: 0.25)
        try engine.send(.play(sa))
        try engine.send(.play(sb))
        let out = renderAll(engine, frameCount: 48_000)
        var err = 0.0
        var ref = 0.0
        for i in 0..<out.count {
            let expected = 0.5 * Double(a.samples[i]) + 0.25 * Double(b.samples[i])
            err += (Double(out[i]) - expected) * (Double(out[i]) - expected)
            ref += expected * expected
        }
        let residual = err == 0 ? -Double.infinity : 10 * log10(err / ref)
        #expect(residual <= -120, "residual \(residual) dB")
    }

    @Test func commandsApplyAtTheirExactFrame() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let s = try engine.addSource(
            .buffer(AudioBuffer(interleaved: [Float](repeating: 0.5, count: 96_000), channelCount: 2, sampleRate: 48_000)), bus: bus)
        try engine.send(.play(s), at: .frame(1_000))
        try engine.send(.setSourceGain(s, gain: 0.25, rampFrames: 0), at: .frame(3_333))
        let out = renderAll(engine, frameCount: 5_000, block: 256)
        #expect(out[2 * 999] == 0)
        #expect(out[2 * 1_000] == 0.5)
        #expect(out[2 * 3_332] == 0.5)
        #expect(out[2 * 3_333] == 0.125)
    }

    @Test func blockSizeDoesNotChangeTheOutput() throws {
        func run(block: Int) throws -> [Float] {
            let engine = try Engine()
            let bus = try engine.addBus()
            let s = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: bus)
            try engine.send(.play(s), at: .frame(100))
            try engine.send(.setSourceGain(s, gain: 0.2, rampFrames: 480), at: .frame(2_000))
            try engine.send(.setBusDuck(bus, targetDB: -15, dBPerFrame: 15 / 4_800), at: .frame(3_000))
            try engine.send(.pause(s), at: .frame(9_000))
            // A second bus whose gate ramps while nothing plays on it, then a source starts mid-ramp.
            let quiet = try engine.addBus(gateOpen: false)
            let t = try engine.addSource(.tone(frequency: 330, amplitude: 0.3), bus: quiet)
            try engine.send(.setBusGate(quiet, gain: 1, rampFrames: 3_000), at: .frame(4_000))
            try engine.send(.play(t), at: .frame(5_555))
            try engine.send(.setMasterVolume(gain: 0.3, rampFrames: 2_000), at: .frame(6_000))
            return renderAll(engine, frameCount: 12_000, block: block)
        }
        let a = try run(block: 64)
        let b = try run(block: 1024)
        let c = try run(block: 333)
        #expect(a == b)
        #expect(a == c)
    }

    @Test func sourceEndsAndReportsItsFrame() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let s = try engine.addSource(.buffer(sineBuffer(440, seconds: 0.1)), bus: bus)
        try engine.send(.play(s), at: .frame(500))
        var events: [EngineEvent] = []
        let out = renderAll(engine, frameCount: 9_600, events: &events)
        #expect(events.contains(EngineEvent(frame: 500 + 4_800, kind: .sourceEnded(s))))
        #expect(engine.status(s)?.state == .ended)
        #expect(out[(500 + 4_800) * 2..<out.count].allSatisfy { $0 == 0 })
    }

    @Test func loopingWrapsAround() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let bus = try engine.addBus()
        let ramp = AudioBuffer(interleaved: (0..<100).map { Float($0) / 100 }, channelCount: 1, sampleRate: 48_000)
        let s = try engine.addSource(.buffer(ramp), bus: bus, loop: true)
        try engine.send(.play(s))
        let out = renderAll(engine, frameCount: 350, block: 64)
        #expect(out[0] == 0 && out[99] == 0.99 && out[100] == 0 && out[349] == 0.49)
    }

    /// Settled looping sources (the renderer's settled plans, wrapping inside blocks, a loop
    /// region, a pan) mix sample for sample as the gains say, and their published position is
    /// right after every block although a steadily playing source's slot is not rewritten;
    /// a gain change, a pause and a play go through the plan's invalidation.
    @Test func settledSourcesMixExactlyAndPublishTheirPosition() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
        let bus = try engine.addBus()
        let frames = 1_000
        let data = (0..<frames * 2).map { Float(($0 * 7_919) % 1_999) / 2_000 - 0.5 }
        let buffer = AudioBuffer(interleaved: data, channelCount: 2, sampleRate: 48_000)
        let a = try engine.addSource(.buffer(buffer), bus: bus, gain: 0.5, loop: true)
        let b = try engine.addSource(.buffer(buffer), bus: bus, gain: 1, loop: true)
        try engine.send(.setLoopRegion(b, startFrame: 300, endFrame: 700, count: -1))
        try engine.send(.play(a))
        try engine.send(.play(b))
        let block = 256
        let out = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { out.deallocate() }
        var posA = 0
        var posB = 0
        var gainA: Float = 0.5
        var pausedAt: Int64 = -1
        var lastA: Int64 = -1
        for k in 0..<40 {
            if k == 17 { try engine.send(.setSourceGain(a, gain: 0.25, rampFrames: 0)) }
            if k == 25 { try engine.send(.pause(a)) }
            if k == 31 { try engine.send(.play(a)) }
            engine.render(into: out, frameCount: block)
            if k < 25 {
                for f in 0..<block {
                    let ea = gainA * data[(posA + f) % frames * 2]
                    let fb = posB + f < 700 ? posB + f : 300 + (posB + f - 700) % 400
                    // Sources mix in slot order into a zeroed block: a first, then b.
                    let expected = (0 + ea) + data[fb * 2]
                    #expect(out[2 * f] == expected, "block \(k) frame \(f)")
                    if out[2 * f] != expected { return }
                }
                posA = (posA + block) % frames
                #expect(engine.status(a)?.position == Int64(posA), "block \(k)")
            }
            posB = posB + block < 700 ? posB + block : 300 + (posB + block - 700) % 400
            #expect(engine.status(b)?.position == Int64(posB), "block \(k)")
            #expect(engine.status(b)?.state == .playing)
            if k == 16 { gainA = 0.25 }
            // Paused (after its fade-out): the position holds; played again: it advances
            // frame for frame (wrapping in its 1000-frame buffer).
            let statusA = engine.status(a)
            if (28..<31).contains(k) {
                #expect(statusA?.state == .paused)
                if pausedAt < 0 { pausedAt = statusA?.position ?? -1 }
                #expect(statusA?.position == pausedAt)
            }
            if k > 32, let position = statusA?.position {
                #expect(statusA?.state == .playing)
                #expect(position == (lastA + Int64(block)) % Int64(frames), "block \(k)")
            }
            lastA = statusA?.position ?? -1
        }
    }

    /// While every source is settled the renderer walks its dense list of them; a source that
    /// reaches its end there takes its slow path in its turn, and the others go on. Rendered
    /// in 256-frame blocks (the list), in 10-frame blocks (sources crossing every wrap and end
    /// in other chunks), and with a silent source first whose gain ramps throughout (no list:
    /// the slot loop), the output is the same bit for bit, and so are the positions.
    @Test func theDenseSettledListMixesAsTheSlotsDo() throws {
        func render(block: Int, unsettled: Bool) throws -> (samples: [Float], positions: [Int64?]) {
            let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
            let bus = try engine.addBus()
            if unsettled {
                let zeros = AudioBuffer(interleaved: [Float](repeating: 0, count: 2_000), channelCount: 2, sampleRate: 48_000)
                let z = try engine.addSource(.buffer(zeros), bus: bus, gain: 1, loop: true)
                try engine.send(.setSourceGain(z, gain: 0.5, rampFrames: 1_000_000))
                try engine.send(.play(z))
            }
            let frames = 1_000
            let data = (0..<frames * 2).map { Float(($0 * 7_919) % 1_999) / 2_000 - 0.5 }
            let buffer = AudioBuffer(interleaved: data, channelCount: 2, sampleRate: 48_000)
            let short = AudioBuffer(interleaved: Array(data[0..<1_234]), channelCount: 2, sampleRate: 48_000)
            let a = try engine.addSource(.buffer(buffer), bus: bus, gain: 0.5, loop: true)
            let b = try engine.addSource(.buffer(short), bus: bus, gain: 0.75)
            let c = try engine.addSource(.buffer(buffer), bus: bus, gain: 1, loop: true)
            try engine.send(.setLoopRegion(c, startFrame: 300, endFrame: 700, count: -1))
            try engine.send(.setSourcePan(a, pan: -0.5, rampFrames: 0))
            for s in [a, b, c] { try engine.send(.play(s)) }
            let total = 10_240
            var out = [Float](repeating: 0, count: total * 2)
            out.withUnsafeMutableBufferPointer { p in
                var done = 0
                while done < total {
                    engine.render(into: p.baseAddress! + done * 2, frameCount: block)
                    done += block
                }
            }
            return (out, [a, b, c].map { engine.status($0)?.position })
        }
        let listed = try render(block: 256, unsettled: false)
        #expect(listed.positions[2] != nil)
        for other in [try render(block: 10, unsettled: false), try render(block: 256, unsettled: true)] {
            #expect(listed.positions == other.positions)
            var firstDifference = -1
            for i in 0..<listed.samples.count where listed.samples[i].bitPattern != other.samples[i].bitPattern {
                firstDifference = i
                break
            }
            #expect(firstDifference == -1)
        }
        // The short source played (its samples are in the mix), then ended.
        #expect(listed.samples[0] != 0)
    }

    /// The output meter (the active kernel variant's C `meter`: vector lanes, the rest masked
    /// or one by one) gives the largest |sample| and the count beyond full scale of what was
    /// rendered, in calls whose sample counts are and are not multiples of the lane count.
    @Test func theOutputMeterCountsEverySample() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let bus = try engine.addBus()
        let data = (0..<997).map { Float(($0 * 389) % 997) / 997 * 2.6 - 1.3 }
        let s = try engine.addSource(.buffer(AudioBuffer(interleaved: data, channelCount: 1, sampleRate: 48_000)), bus: bus, loop: true)
        try engine.send(.play(s))
        var all: [Float] = []
        for frames in [13, 64, 5, 256, 7, 100, 3] {
            var out = [Float](repeating: 0, count: frames)
            out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frameCount: frames) }
            all += out
        }
        let levels = engine.renderer.outputLevels
        #expect(levels.peak == all.map(abs).max())
        #expect(levels.clippedSampleCount == all.filter { abs($0) > 1 }.count)
        #expect(levels.clippedSampleCount > 0)
    }

    @Test func ringerClassUsesRingerVolumeAndSystemClassUsesSystemVolume() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let media = try engine.addBus()
        let ringer = try engine.addBus(volumeClass: .ringer)
        let dc = AudioBuffer(interleaved: [Float](repeating: 0.5, count: 4_800), channelCount: 1, sampleRate: 48_000)
        let m = try engine.addSource(.buffer(dc), bus: media)
        let r = try engine.addSource(.buffer(dc), bus: ringer)
        try engine.send(.setMasterVolume(gain: 0.5, rampFrames: 0))
        try engine.send(.setRingerVolume(gain: 0.25, rampFrames: 0))
        try engine.send(.play(m))
        try engine.send(.play(r), at: .frame(2_000))
        let out = renderAll(engine, frameCount: 4_000)
        #expect(out[1_000] == 0.25)
        #expect(out[3_000] == 0.25 + 0.125)
    }

    @Test func misuseIsRejectedNotCrashing() throws {
        let engine = try Engine()
        #expect(throws: TuttiError.self) { try engine.addSource(.silence, bus: BusID(slot: 5, generation: 1)) }
        let bus = try engine.addBus()
        #expect(throws: TuttiError.self) {
            try engine.addSource(.buffer(AudioBuffer(interleaved: [0, 0], channelCount: 1, sampleRate: 44_100)), bus: bus)
        }
        #expect(throws: TuttiError.self) { try engine.send(.play(SourceID(slot: 77, generation: 1))) }
        #expect(engine.commandsInFlight == 1) // the bus install only
    }

    @Test func fullCommandQueueIsAnError() throws {
        var config = EngineConfiguration()
        config.commandQueueCapacity = 16
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        for _ in 0..<(engine.commandCapacity - 1) { try engine.send(.setBusGain(bus, gain: 1, rampFrames: 0)) }
        let error = #expect(throws: TuttiError.self) { try engine.send(.setBusGain(bus, gain: 1, rampFrames: 0)) }
        #expect(error?.code == .capacity)
        // Rendering applies them; there is room again.
        _ = renderAll(engine, frameCount: 64)
        try engine.send(.setBusGain(bus, gain: 1, rampFrames: 0))
    }

    @Test func stopThenPlayRestartsFromTheTopAfterTheFade() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let bus = try engine.addBus()
        let ramp = AudioBuffer(interleaved: (0..<48_000).map { Float($0) / 96_000 }, channelCount: 1, sampleRate: 48_000)
        let s = try engine.addSource(.buffer(ramp), bus: bus)
        try engine.send(.play(s))
        try engine.send(.stop(s), at: .frame(10_000))
        try engine.send(.play(s), at: .frame(10_000))
        let out = renderAll(engine, frameCount: 12_000)
        // 480 frames of fade-out (still advancing), then the material's frame 0, 1, 2…
        #expect(out[10_479] < out[10_000] * 0.01)
        #expect(out[10_480] == 0)
        #expect(out[10_481] == 1.0 / 96_000)
        #expect(out[11_000] == 520.0 / 96_000)
    }

    @Test func playDuringAPauseFadeResumesInPlace() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let bus = try engine.addBus()
        let s = try engine.addSource(
            .buffer(AudioBuffer(interleaved: [Float](repeating: 0.5, count: 48_000), channelCount: 1, sampleRate: 48_000)), bus: bus)
        try engine.send(.play(s))
        try engine.send(.pause(s), at: .frame(1_000))
        try engine.send(.play(s), at: .frame(1_100))
        let out = renderAll(engine, frameCount: 3_000)
        #expect(out[1_100] < 0.5 && out[1_100] > 0.3)
        #expect(out[2_000] == 0.5)
    }
}
