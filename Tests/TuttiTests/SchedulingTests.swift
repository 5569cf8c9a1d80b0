import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// One clock: frames at the engine rate. `.now` never waits behind later frames; changes for
/// the same frame apply in the order made; a frame already rendered counts as now.
@Suite struct SchedulingTests {
    @Test func nowDoesNotWaitBehindLaterFrames() throws {
        let (engine, music, _, song, _) = try makeEngine()
        try music.setActive(true)
        // Sent first, for two seconds from now…
        try song.setGain(0.25, rampFrames: 0, at: .frame(96_000))
        _ = render(engine, frames: 1_024)
        // …then a play for now: it must start at the next block, not at frame 96 000.
        try song.play()
        let x = render(engine, frames: 2_048)
        #expect(abs(level(x, 512..<2_048, 440) - 0.5) < 0.005)
        let later = render(engine, frames: 96_000)
        // And the earlier command still lands at its frame (frame 96 000 = index 96 000 − 3 072).
        #expect(abs(level(later, 92_928 - 4_800..<92_928 - 100, 440) - 0.5) < 0.005)
        #expect(abs(level(later, 92_928 + 100..<92_928 + 2_900, 440) - 0.125) < 0.005)
    }

    @Test func sameFrameAppliesInTheOrderMade() throws {
        for order in [[0.2, 0.7], [0.7, 0.2]] as [[Float]] {
            let (engine, music, _, song, _) = try makeEngine()
            try music.setActive(true)
            try song.play()
            for g in order { try song.setGain(g, rampFrames: 0, at: .frame(4_800)) }
            let x = render(engine, frames: 9_600)
            #expect(abs(level(x, 5_000..<9_600, 440) - 0.5 * Double(order[1])) < 0.005, "\(order)")
        }
    }

    @Test func aFrameAlreadyRenderedCountsAsNow() throws {
        let (engine, music, _, song, _) = try makeEngine()
        try music.setActive(true)
        try song.play()
        _ = render(engine, frames: 10_000)
        try song.setGain(0.1, rampFrames: 0, at: .frame(5_000)) // in the past
        let x = render(engine, frames: 4_800)
        #expect(abs(level(x, 0..<4_800, 440) - 0.05) < 0.002)
    }

    @Test func changesLandOnTheirExactFrame() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let dc = AudioBuffer(interleaved: [Float](repeating: 0.5, count: 48_000), channelCount: 1, sampleRate: 48_000)
        let src = try s.makeSource(buffer: dc)
        try s.setActive(true)
        try src.setFades(inFrames: 0, outFrames: 0)
        try src.play(at: .frame(1_001))
        try src.setGain(0.5, rampFrames: 0, at: .frame(3_333))
        let x = render(engine, frames: 5_000, block: 512)
        #expect(x[1_000] == 0 && x[1_001] == 0.5)
        #expect(x[3_332] == 0.5 && x[3_333] == 0.25)
    }

    @Test func durationsConvertToFrames() throws {
        let (engine, _, _, _, _) = try makeEngine()
        #expect(engine.frameCount(for: .milliseconds(10)) == 480)
        #expect(engine.frameCount(for: .seconds(2)) == 96_000)
    }
}
