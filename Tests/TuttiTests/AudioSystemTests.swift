import Foundation
import Testing
import Tutti
import TuttiDSP
import TuttiPolicy
import TuttiTestSupport

/// The control-side API: platform names, errors, notifications, and decisions reaching the graph.
@Suite struct AudioSystemTests {
    func make() throws -> (AudioSystem, AudioSession, AudioSession) {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let system = try AudioSystem(engine: engine)
        let music = try system.addSession(
            SessionConfiguration(
                id: "music", category: .playback, playbackControls: true,
                remoteCommands: [.play, .pause, .togglePlayPause]))
        let nav = try system.addSession(SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers]))
        try system.addSource("song", session: "music", kind: .tone(frequency: 440, amplitude: 0.5), loop: true)
        try system.addSource("prompt", session: "nav", kind: .tone(frequency: 660, amplitude: 0.5), loop: true)
        return (system, music, nav)
    }

    func render(_ system: AudioSystem, frames: Int) -> [Double] {
        var out = [Float](repeating: 0, count: frames)
        out.withUnsafeMutableBufferPointer { system.engine.render(into: $0.baseAddress!, frameCount: frames) }
        system.pollEvents()
        return out.map(Double.init)
    }

    @Test func duckingReachesTheGraphAndEndsWithTheDucker() throws {
        let (system, music, nav) = try make()
        try music.setActive(true)
        try system.perform(.play(source: "song"))
        _ = render(system, frames: 4_800)
        try nav.setActive(true, at: 4_800)
        try system.perform(.play(source: "prompt"), at: 4_800)
        let ducked = render(system, frames: 24_000)
        // Music at −15 dB once the 100 ms attack is over; the prompt at full level.
        let song = Analysis.toneAmplitude(ducked[12_000..<24_000], frequency: 440, sampleRate: 48_000)
        let prompt = Analysis.toneAmplitude(ducked[12_000..<24_000], frequency: 660, sampleRate: 48_000)
        #expect(abs(Analysis.dB(song / 0.5) - -15) < 0.2)
        #expect(abs(Analysis.dB(prompt / 0.5)) < 0.2)
        try nav.setActive(false, options: .notifyOthersOnDeactivation, at: 28_800)
        let after = render(system, frames: 48_000)
        #expect(abs(Analysis.dB(Analysis.toneAmplitude(after[30_000..<48_000], frequency: 440, sampleRate: 48_000) / 0.5)) < 0.2)
        #expect(Analysis.toneAmplitude(after[30_000..<48_000], frequency: 660, sampleRate: 48_000) < 1e-4)
    }

    @Test func errorsThrowAndChangeNothing() throws {
        let (system, music, _) = try make()
        let ambient = try system.addSession(SessionConfiguration(id: "game", category: .ambient))
        #expect(throws: PolicyError.optionNotAllowed(session: "game", category: .ambient, option: .duckOthers)) {
            try ambient.setCategory(.ambient, options: [.duckOthers])
        }
        try system.perform(.phoneCallBegin)
        let before = system.policy
        #expect(throws: PolicyError.insufficientPriority(session: "music")) { try music.setActive(true) }
        #expect(system.policy == before)
    }

    @Test func notificationsArriveAsCallbackAndStream() async throws {
        let (system, music, _) = try make()
        var seen: [AudioSessionNotification] = []
        system.notificationHandler = { seen.append($0) }
        let stream = system.notifications()
        try music.setActive(true)
        try system.perform(.play(source: "song"))
        try system.perform(.phoneCallBegin, at: 100)
        try system.perform(.phoneCallEnd, at: 200)
        try system.perform(.route(.headphones), at: 300)
        let expected: [AudioSessionNotification] = [
            .interruption(session: "music", .began(reason: .phoneCall, by: nil)),
            .interruption(session: "music", .ended(shouldResume: true)),
            .routeChange(reason: .newDeviceAvailable, previous: .speaker, current: .headphones),
        ]
        #expect(seen.filter { if case .silenceSecondaryAudioHint = $0 { false } else { true } } == expected)
        var fromStream: [AudioSessionNotification] = []
        for await n in stream {
            if case .silenceSecondaryAudioHint = n { continue }
            fromStream.append(n)
            if fromStream.count == expected.count { break }
        }
        #expect(fromStream == expected)
    }

    @Test func hintsFollowOtherAudio() throws {
        let (system, music, nav) = try make()
        #expect(!nav.isOtherAudioPlaying)
        try music.setActive(true)
        try system.perform(.play(source: "song"))
        #expect(nav.isOtherAudioPlaying)
        #expect(nav.secondaryAudioShouldBeSilencedHint) // music is non-mixable and heard
        #expect(!music.isOtherAudioPlaying)
    }

    @Test func hostDecidesWhenAutoResumeIsOff() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let system = try AudioSystem(engine: engine)
        let game = try system.addSession(SessionConfiguration(id: "game", category: .soloAmbient, autoResume: false))
        try system.addSource("fx", session: "game", kind: .tone(frequency: 550, amplitude: 0.5), loop: true)
        try game.setActive(true)
        try system.perform(.play(source: "fx"))
        try system.perform(.phoneCallBegin, at: 4_800)
        try system.perform(.phoneCallEnd, at: 9_600)
        #expect(system.policy.source("fx")?.isPlaying == false)
        try game.resume(at: 14_400)
        #expect(system.policy.source("fx")?.isPlaying == true)
        let x = render(system, frames: 24_000)
        #expect(Analysis.toneAmplitude(x[10_000..<14_000], frequency: 550, sampleRate: 48_000) < 1e-4)
        #expect(Analysis.toneAmplitude(x[16_000..<24_000], frequency: 550, sampleRate: 48_000) > 0.45)
    }

    @Test func remoteCommandsReachOnlyTheNowPlayingSession() throws {
        let (system, music, nav) = try make()
        try music.setActive(true)
        try system.perform(.play(source: "song"))
        try nav.setActive(true)
        try system.perform(.play(source: "prompt"))
        let out = try system.perform(.remote(.pause))
        #expect(out.journal.contains(.remoteCommand(command: .pause, session: "music")))
        #expect(system.policy.source("song")?.isPlaying == false)
        #expect(system.policy.source("prompt")?.isPlaying == true) // nav did not list it
    }
}

@Suite struct SetCategoryModeTests {
    /// setCategory(_:mode:options:): the mode matters to rule 2.6 (spoken audio is interrupted
    /// instead of ducked by an interruptSpokenAudioAndMixWithOthers session).
    @Test func modeChangeMakesSpokenAudioInterruptible() throws {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let system = try AudioSystem(engine: engine)
        let podcast = try system.addSession(SessionConfiguration(id: "podcast", category: .playback))
        try system.addSession(SessionConfiguration(id: "nav", category: .playback, options: [.interruptSpokenAudioAndMixWithOthers]))
        try system.addSource("talk", session: "podcast", kind: .tone(frequency: 300, amplitude: 0.5), loop: true)
        try podcast.setCategory(.playback, mode: .spokenAudio)
        try podcast.setActive(true)
        try system.perform(.play(source: "talk"))
        let out = try system.perform(.activate(session: "nav"))
        #expect(out.journal.contains(.interruptionBegan(session: "podcast", reason: .spokenAudio, by: "nav")))
        #expect(system.policy.session("podcast")?.configuration.mode == .spokenAudio)
    }
}
