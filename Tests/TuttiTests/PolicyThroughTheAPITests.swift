import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// The policy's decisions reaching the graph through the host API, measured in the output.
@Suite struct PolicyThroughTheAPITests {
    @Test func duckingReachesTheGraphAndEndsWithTheDucker() throws {
        let (engine, music, nav, song, prompt) = try makeEngine()
        try music.setActive(true)
        try song.play()
        _ = render(engine, frames: 4_800)
        try nav.setActive(true, at: .frame(4_800))
        try prompt.play(at: .frame(4_800))
        let ducked = render(engine, frames: 24_000)
        // Music at −15 dB once the 100 ms attack is over; the prompt at full level.
        #expect(abs(Analysis.dB(level(ducked, 12_000..<24_000, 440) / 0.5) - -15) < 0.2)
        #expect(abs(Analysis.dB(level(ducked, 12_000..<24_000, 660) / 0.5)) < 0.2)
        try nav.setActive(false, options: .notifyOthersOnDeactivation, at: .frame(28_800))
        let after = render(engine, frames: 48_000)
        #expect(abs(Analysis.dB(level(after, 30_000..<48_000, 440) / 0.5)) < 0.2)
        #expect(level(after, 30_000..<48_000, 660) < 1e-4)
    }

    @Test func hintsFollowOtherAudio() throws {
        let (_, music, nav, song, _) = try makeEngine()
        #expect(try !nav.isOtherAudioPlaying)
        try music.setActive(true)
        try song.play()
        #expect(try nav.isOtherAudioPlaying)
        #expect(try nav.secondaryAudioShouldBeSilencedHint) // music is non-mixable and heard
        #expect(try !music.isOtherAudioPlaying)
    }

    @Test func hostDecidesWhenAutoResumeIsOff() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let game = try engine.makeSession(SessionConfiguration(id: "game", category: .soloAmbient, autoResume: false))
        let fx = try game.makeToneSource(frequency: 550, amplitude: 0.5)
        try game.setActive(true)
        try fx.play()
        try engine.beginPhoneCall(at: .frame(4_800))
        try engine.endPhoneCall(at: .frame(9_600))
        try game.resume(at: .frame(14_400))
        let x = render(engine, frames: 24_000)
        #expect(level(x, 10_000..<14_000, 550) < 1e-4)
        #expect(level(x, 16_000..<24_000, 550) > 0.45)
        #expect(try fx.state == .playing)
    }

    @Test func remoteCommandsReachOnlyTheNowPlayingSessionAndEligibilityChangesAtRunTime() throws {
        let (engine, music, nav, song, prompt) = try makeEngine()
        try music.setActive(true)
        try song.play()
        try nav.setActive(true)
        try prompt.play()
        try engine.sendRemoteCommand(.pause)
        _ = render(engine, frames: 4_800)
        #expect(try song.state == .paused)
        #expect(try prompt.state == .playing) // nav did not list it
        // The player leaves its audio context: it answers nothing any more; a play is dropped.
        try music.setRemoteCommands([])
        try engine.sendRemoteCommand(.play)
        _ = render(engine, frames: 4_800)
        #expect(try song.state == .paused)
        try music.setRemoteCommands([.play])
        try engine.sendRemoteCommand(.play)
        _ = render(engine, frames: 4_800)
        #expect(try song.state == .playing)
    }

    @Test func modeChangeMakesSpokenAudioInterruptible() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let podcast = try engine.makeSession(named: "podcast", category: .playback)
        let nav = try engine.makeSession(
            SessionConfiguration(id: "nav", category: .playback, options: [.interruptSpokenAudioAndMixWithOthers]))
        let talk = try podcast.makeToneSource(frequency: 300, amplitude: 0.5)
        try podcast.setCategory(.playback, mode: .spokenAudio)
        try podcast.setActive(true)
        try talk.play()
        try nav.setActive(true)
        #expect(try podcast.state == .interrupted)
        _ = render(engine, frames: 2_048)
        let events = engine.pollEvents()
        #expect(events.contains { $0.kind == .interruptionBegan(session: podcast.id, reason: .spokenAudio, by: nav.id) })
    }
}
