import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// The render probe records what the mixer applied: per-bus gains and output peaks.
@Suite struct ProbeTests {
    func render(block: Int) throws -> (probe: RenderProbe, output: [Float], buses: [BusID]) {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
        let a = try engine.addBus()
        let b = try engine.addBus(gateOpen: false)
        let s = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: a, loop: true)
        let t = try engine.addSource(.tone(frequency: 660, amplitude: 0.25), bus: b, loop: true)
        try engine.send(.play(s))
        try engine.send(.play(t))
        // Duck bus a to −15 dB over 480 frames at 4800; open b at 9600; volume 0.5 at 14400.
        try engine.send(.setBusDuck(a, targetDB: -15, dBPerFrame: 15 / 480), at: .frame(4_800))
        try engine.send(.setBusGate(b, gain: 1, rampFrames: 960), at: .frame(9_600))
        try engine.send(.setMasterVolume(gain: 0.5, rampFrames: 0), at: .frame(14_400))
        let probe = RenderProbe(intervalFrames: 256, recordCapacity: 80, busSlots: engine.configuration.maxBuses)
        try engine.attachProbe(probe)
        let out = renderAll(engine, frameCount: 19_200, block: block)
        return (probe, out, [a, b])
    }

    @Test func gainsAndPeaksAreWhatWasApplied() throws {
        let (probe, out, buses) = try render(block: 256)
        let (a, b) = (buses[0].slot, buses[1].slot)
        #expect(probe.recordCount == 19_200 / 256)
        let duck = DuckEnvelope.gain(forDB: -15)
        // Record k covers frames 256k ..< 256(k+1); its gain is the one of its last frame.
        #expect(probe.gain(record: 17, bus: a) == 1) // frames up to 4607
        #expect(probe.gain(record: 21, bus: a) == duck) // 5376…5631: the attack is over
        #expect(probe.gain(record: 36, bus: b) == 0) // closed until 9600
        #expect(probe.gain(record: 41, bus: b) == 1) // 10496…10751: open
        #expect(probe.gain(record: 74, bus: a) == duck * 0.5)
        // Mid-ramp: record 18 ends at frame 4863, 64 frames into the attack.
        let mid = try #require(probe.gain(record: 18, bus: a))
        #expect(abs(Double(mid) - pow(10, -15 * 64 / 480 / 20)) < 1e-4)
        // A slot with no bus has no gain.
        #expect(probe.gain(record: 10, bus: 5) == nil)
        // Peaks: the largest absolute sample of each record.
        for k in 0..<probe.recordCount {
            let peak = out[(k * 512)..<((k + 1) * 512)].map(abs).max()!
            #expect(probe.peak(record: k) == peak, "record \(k)")
        }
    }

    @Test func recordsDoNotDependOnHowRenderingIsSplit() throws {
        let x = try render(block: 256)
        let y = try render(block: 77)
        #expect(x.output == y.output)
        for k in 0..<x.probe.recordCount {
            #expect(x.probe.peak(record: k) == y.probe.peak(record: k))
            for bus in x.buses { #expect(x.probe.gain(record: k, bus: bus.slot) == y.probe.gain(record: k, bus: bus.slot)) }
        }
    }

    @Test func aProbeTooSmallForTheEngineIsRefused() throws {
        let engine = try Engine()
        #expect(throws: TuttiError.self) { try engine.attachProbe(RenderProbe(intervalFrames: 256, recordCapacity: 1, busSlots: 3)) }
    }
}
