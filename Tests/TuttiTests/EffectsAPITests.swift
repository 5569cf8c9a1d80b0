import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// `SessionHandle.setEffects` through the host API: a session's notch takes its tone out of
/// the mix and leaves the other session's alone; removing the chain brings the tone back;
/// bad parameters are refused by name, changing nothing.
@Suite struct EffectsAPITests {
    @Test func aSessionNotchIsHeardAndCanBeRemoved() throws {
        let (engine, music, nav, song, prompt) = try makeEngine()
        try music.setActive(true)
        try nav.setActive(true)
        try music.setEffects([.biquad(.notch, frequencyHz: 440, q: 0.5, gainDB: 0)])
        try song.play()
        try prompt.play()
        let filtered = render(engine, frames: 24_000)
        let song440 = Analysis.fitSine(filtered[12_000...], frequency: 440, sampleRate: 48_000).amplitude
        let prompt660 = Analysis.fitSine(filtered[12_000...], frequency: 660, sampleRate: 48_000).amplitude
        #expect(song440 < 1e-4, "the notched song: \(song440)")
        // nav ducks music but not itself: its tone is at its own level.
        #expect(abs(prompt660 - 0.5) < 1e-4, "the prompt: \(prompt660)")
        // The notch glides away to 4 kHz (default glide): the song is back, nav unchanged.
        try music.setEffect(at: 0, to: .biquad(.notch, frequencyHz: 4_000, q: 0.5, gainDB: 0))
        let moved = render(engine, frames: 12_000)
        let back = Analysis.fitSine(moved[2_400..<12_000], frequency: 440, sampleRate: 48_000).amplitude
        #expect(back > 0.05, "the song after the glide: \(back)")
        #expect(abs(Analysis.fitSine(moved[2_400..<12_000], frequency: 660, sampleRate: 48_000).amplitude - 0.5) < 1e-4)
        try music.setEffects([])
        let dry = render(engine, frames: 12_000)
        #expect(abs(Analysis.fitSine(dry[6_000...], frequency: 440, sampleRate: 48_000).amplitude - back) > 1e-4)
        #expect {
            try music.setEffect(at: 0, to: .biquad(.notch, frequencyHz: 4_000, q: 0.5, gainDB: 0))
        } throws: { error in
            (error as? TuttiError)?.message.hasPrefix("effects[0]: the bus's chain has 0 effects") == true
        }
    }

    @Test func badParametersAreRefusedByName() throws {
        let (_, music, _, _, _) = try makeEngine()
        #expect {
            try music.setEffects([.delay(timeSeconds: 0.2, feedback: 0.99, mix: 0.5)])
        } throws: { error in
            let e = error as? TuttiError
            return e?.code == .invalidArgument && e?.message.hasPrefix("effects[0].feedback must be finite and in 0…0.95") == true
        }
    }
}
