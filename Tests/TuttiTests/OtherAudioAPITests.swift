import Testing
import Tutti
import TuttiTestSupport

/// `AudioEngine.setOtherAudio`: other apps' audio through the host API.
@Suite struct OtherAudioAPITests {
    @Test func otherAppsCountForTheQueriesTheEventsAndTheCategory() throws {
        let (engine, music, _, _, _) = try makeEngine()
        let game = try engine.makeSession(SessionConfiguration(id: "game", categoryWhenOtherAudioPlaying: .ambient))
        #expect(try !game.isOtherAudioPlaying)
        try engine.setOtherAudio(playing: true, silenceSecondary: true, clients: ["pw-play"], at: .frame(0))
        try engine.setOtherAudio(playing: true, silenceSecondary: true, clients: ["pw-play"], at: .frame(0)) // the same: no event
        _ = render(engine, frames: 480)
        #expect(try game.isOtherAudioPlaying && game.secondaryAudioShouldBeSilencedHint)
        #expect(try music.secondaryAudioShouldBeSilencedHint)
        let kinds = engine.pollEvents().map(\.kind)
        #expect(
            kinds.filter { if case .otherAudioChanged = $0 { true } else { false } } == [
                .otherAudioChanged(playing: true, silenceSecondary: true, clients: ["pw-play"])
            ])
        #expect(kinds.contains { if case .silenceSecondaryAudioHint(_, true) = $0 { true } else { false } })
        try engine.setOtherAudio(playing: false)
        _ = render(engine, frames: 480)
        #expect(try !music.isOtherAudioPlaying && !music.secondaryAudioShouldBeSilencedHint)
        #expect(engine.pollEvents().contains { $0.kind == .otherAudioChanged(playing: false, silenceSecondary: false, clients: []) })
    }
}
