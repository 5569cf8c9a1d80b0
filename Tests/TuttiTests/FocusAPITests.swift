import Testing
import Tutti
import TuttiTestSupport

/// Issue 22 through the host API: `setActive(true, focus:)` and the session settings, measured
/// in the output.
@Suite struct FocusAPITests {
    @Test func transientMayDuckDucksAPlayerInsteadOfInterruptingIt() throws {
        let (engine, music, _, song, _) = try makeEngine()
        let alert = try engine.makeSession(SessionConfiguration(id: "alert", category: .playback))
        let beep = try alert.makeToneSource(frequency: 880, amplitude: 0.5, name: "beep")
        try music.setActive(true)
        try song.play()
        try alert.setActive(true, focus: .transientMayDuck, at: .frame(4_800))
        try beep.play(at: .frame(4_800))
        let x = render(engine, frames: 24_000)
        #expect(abs(Analysis.dB(level(x, 12_000..<24_000, 440) / 0.5) - -15) < 0.2)
        #expect(abs(Analysis.dB(level(x, 12_000..<24_000, 880) / 0.5)) < 0.2)
        #expect(try music.state == .audible)
    }

    @Test func transientLetsAPlayerResumeWithoutNotifyOthers() throws {
        let (engine, music, _, song, _) = try makeEngine()
        let alert = try engine.makeSession(SessionConfiguration(id: "alert", category: .playback))
        try music.setActive(true)
        try song.play()
        try alert.setActive(true, focus: .transient, at: .frame(4_800))
        try alert.setActive(false, at: .frame(9_600))
        let x = render(engine, frames: 19_200)
        #expect(level(x, 6_000..<9_600, 440) < 1e-4)
        #expect(abs(level(x, 12_000..<19_200, 440) - 0.5) < 0.005)
        // The same with gain (the default): a media player stays paused.
        let (engine2, music2, _, song2, _) = try makeEngine()
        let alert2 = try engine2.makeSession(SessionConfiguration(id: "alert", category: .playback))
        try music2.setActive(true)
        try song2.play()
        try alert2.setActive(true, at: .frame(4_800))
        try alert2.setActive(false, at: .frame(9_600))
        #expect(level(render(engine2, frames: 19_200), 12_000..<19_200, 440) < 1e-4)
    }

    @Test func aDelayedActivationPlaysWhenTheCallEnds() throws {
        let (engine, _, _, _, _) = try makeEngine()
        let player = try engine.makeSession(SessionConfiguration(id: "player", category: .playback, acceptsDelayedActivation: true))
        let tune = try player.makeToneSource(frequency: 550, amplitude: 0.5, name: "tune")
        try engine.beginPhoneCall(at: .frame(0))
        _ = render(engine, frames: 2_400)
        try player.setActive(true) // not denied: delayed
        try tune.play()
        try engine.endPhoneCall(at: .frame(9_600))
        let x = render(engine, frames: 19_200) // frames 2 400…21 600: the call ends at index 7 200
        #expect(level(x, 0..<7_000, 550) < 1e-4)
        #expect(abs(level(x, 9_000..<19_200, 550) - 0.5) < 0.005)
        // The host hears of the delay and of the grant, at their frames.
        let delays = engine.pollEvents().filter {
            switch $0.kind {
            case .activationDelayed, .activationGranted, .activationCancelled: true
            default: false
            }
        }
        #expect(
            delays == [
                AudioEvent(frame: 2_400, kind: .activationDelayed(session: player.id)),
                AudioEvent(frame: 9_600, kind: .activationGranted(session: player.id)),
            ])
    }

    @Test func theInteractionTableThroughTheAPI() throws {
        let (engine, music, nav, song, _) = try makeEngine()
        try engine.setInteractions([InteractionRule(active: .session("music"), incoming: .session("nav"), outcome: .reject)])
        #expect(engine.interactions.count == 1)
        try music.setActive(true)
        try song.play()
        #expect { try nav.setActive(true) } throws: { ($0 as? TuttiError)?.code == .denied && "\($0)".contains("rejectedByTable") }
        #expect {
            try engine.setInteractions([InteractionRule(active: .session("radio"), incoming: .category(.playback), outcome: .mix)])
        } throws: { ($0 as? TuttiError)?.code == .invalidArgument && "\($0)".contains("interactions[0].active") }
        #expect(engine.interactions.first?.outcome == .reject) // unchanged
    }

    @Test func badSettingsNameTheArgument() throws {
        let (engine, _, _, _, _) = try makeEngine()
        #expect {
            try engine.makeSession(SessionConfiguration(id: "rain", category: .ambient, acceptsDelayedActivation: true))
        } throws: { error in
            guard let e = error as? TuttiError else { return false }
            return e.code == .invalidArgument && e.message.contains("acceptsDelayedActivation") && e.message.contains("rain")
        }
    }
}
