import Foundation
import Testing
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

/// Every gain transition on a sine is smooth by the second-difference detector; a hard step is not.
@Suite struct ClickTests {
    let rate = 48_000

    /// A 440 Hz tone (amplitude 0.5) playing from frame 0; `transition` schedules the change at `at`.
    func render(_ transition: (Engine, SourceID, BusID, Int64) throws -> Void, at: Int64 = 24_000, frames: Int = 72_000) throws -> [Double]
    {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: rate, channelCount: 1))
        let bus = try engine.addBus()
        let s = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: bus)
        try engine.send(.play(s))
        try transition(engine, s, bus, at)
        return renderAll(engine, frameCount: frames, block: 256).map(Double.init)
    }

    func assertSmooth(_ x: [Double], _ what: String) {
        let clicks = Analysis.clicks(x, reference: 2_000..<20_000)
        #expect(clicks.isEmpty, "\(what): clicks at frames \(clicks.prefix(5))")
        // The transition really happened (the test would be empty otherwise).
        let before = Analysis.rms(x[10_000..<20_000])
        let after = Analysis.rms(x[60_000..<70_000])
        #expect(abs(Analysis.dB(after / before)) > 3, "\(what): level did not change")
    }

    @Test func setGainRamp() throws {
        assertSmooth(try render { e, s, _, at in try e.send(.setSourceGain(s, gain: 0.1, rampFrames: 480), at: .frame(at)) }, "setGain")
    }

    @Test func gateCloseAndOpen() throws {
        let x = try render { e, _, b, at in
            try e.send(.setBusGate(b, gain: 0, rampFrames: 960), at: .frame(at))
            try e.send(.setBusGate(b, gain: 1, rampFrames: 960), at: .frame(at + 12_000))
            try e.send(.setBusGate(b, gain: 0, rampFrames: 960), at: .frame(at + 24_000))
        }
        assertSmooth(x, "gate")
    }

    @Test func duckAttackAndRelease() throws {
        let x = try render { e, _, b, at in
            try e.send(.setBusDuck(b, targetDB: -15, dBPerFrame: 15 / 4_800), at: .frame(at))
            try e.send(.setBusDuck(b, targetDB: 0, dBPerFrame: 15 / 19_200), at: .frame(at + 10_000))
            try e.send(.setBusDuck(b, targetDB: -15, dBPerFrame: 15 / 4_800), at: .frame(at + 30_000))
        }
        assertSmooth(x, "duck")
        // Ducked level is −15 dB.
        #expect(abs(Analysis.dB(Analysis.rms(x[60_000..<70_000]) / Analysis.rms(x[10_000..<20_000])) - -15) < 0.1)
    }

    @Test func pauseAndResume() throws {
        let x = try render { e, s, _, at in
            try e.send(.pause(s), at: .frame(at))
            try e.send(.play(s), at: .frame(at + 10_000))
            try e.send(.pause(s), at: .frame(at + 30_000))
        }
        assertSmooth(x, "pause/resume")
    }

    @Test func stop() throws {
        assertSmooth(try render { e, s, _, at in try e.send(.stop(s), at: .frame(at)) }, "stop")
    }

    @Test func volumeChange() throws {
        assertSmooth(try render { e, _, _, at in try e.send(.setMasterVolume(gain: 0.2, rampFrames: 960), at: .frame(at)) }, "volume")
    }

    @Test func hardStepIsDetected() throws {
        // 440 Hz at 48 kHz: frame 24_027 is near a crest, where a step is loudest.
        let x = try render({ e, s, _, at in try e.send(.setSourceGain(s, gain: 0.1, rampFrames: 0), at: .frame(at)) }, at: 24_027)
        let clicks = Analysis.clicks(x, reference: 2_000..<20_000)
        #expect(clicks.contains(24_027))
    }
}
