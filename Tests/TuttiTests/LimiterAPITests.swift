import Foundation
import Testing
import TuttiTestSupport

@testable import Tutti

/// `AudioEngineConfiguration.limiter` through the host API: the ceiling holds in what
/// `render` returns, its lookahead counts in the latency, bad settings are refused by name.
@Suite struct LimiterAPITests {
    @Test func theCeilingHoldsAndTheLookaheadCountsInTheLatency() throws {
        let (engine, music, nav, song, prompt) = try makeEngine(channels: 2) {
            $0.limiter = LimiterSettings(ceilingDB: -6, releaseSeconds: 0.05, lookaheadSeconds: 0.002)
        }
        #expect(engine.statistics.latencyFrames == 96)
        try music.setActive(true)
        try nav.setActive(true)
        try song.setGain(4, rampFrames: 0)
        try prompt.setGain(4, rampFrames: 0)
        try song.play()
        try prompt.play()
        let out = render(engine, frames: 24_000)
        let ceiling = Double(LimiterSettings(ceilingDB: -6).ceiling)
        #expect(out.allSatisfy { abs($0) <= ceiling })
        #expect(out[4_800...].map(abs).max()! > 0.9 * ceiling)
        // The first 96 frames are the lookahead's delay: silence.
        #expect(out[0..<(2 * 96)].allSatisfy { $0 == 0 })
        let (plain, _, _, _, _) = try makeEngine(channels: 2)
        #expect(plain.statistics.latencyFrames == 0)
    }

    /// The renderer's output meter (what `tutti play` reports) equals a measure of the samples
    /// `render` returned: the largest |sample| and the count beyond full scale, over several
    /// calls; with the limiter on, nothing clips.
    @Test(arguments: [false, true])
    func theOutputMeterMeasuresWhatWasRendered(_ limited: Bool) throws {
        let (engine, music, _, song, _) = try makeEngine(channels: 2) {
            if limited { $0.limiter = LimiterSettings(ceilingDB: -1) }
        }
        #expect(engine.renderer.outputLevels == (0, 0))
        try music.setActive(true)
        try song.setGain(2.5, rampFrames: 0)
        try song.play()
        let out = render(engine, frames: 9_600, block: 300)
        let levels = engine.renderer.outputLevels
        #expect(Double(levels.peak) == out.map(abs).max()!)
        #expect(levels.clippedSampleCount == out.filter { abs($0) > 1 }.count)
        if limited {
            #expect(levels.clippedSampleCount == 0)
            #expect(Double(levels.peak) <= Double(LimiterSettings(ceilingDB: -1).ceiling))
        } else {
            #expect(levels.peak > 1.2 && levels.clippedSampleCount > 1_000, "\(levels)")
        }
    }

    @Test func badSettingsAreRefusedByName() throws {
        var config = AudioEngineConfiguration()
        config.limiter = LimiterSettings(ceilingDB: 1)
        #expect {
            _ = try AudioEngine(configuration: config)
        } throws: { error in
            let e = error as? TuttiError
            return e?.code == .invalidArgument && e?.message.hasPrefix("limiter.ceilingDB must be finite and in −60…0 dB") == true
        }
    }
}
