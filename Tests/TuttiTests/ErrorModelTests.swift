import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// One error model: every failure throws a `TuttiError` whose code says what kind, whose
/// message names the argument or object, and after which nothing changed.
@Suite struct ErrorModelTests {
    func expectError(_ code: TuttiError.Code, mentioning text: String, _ body: () throws(TuttiError) -> Void) {
        do {
            try body()
            Issue.record("expected a \(code) error")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.message.contains(text), "\"\(error.message)\" should mention \"\(text)\"")
        }
    }

    @Test func badGainsAreRefusedNamingTheArgument() throws {
        let (engine, music, _, song, _) = try makeEngine()
        try music.setActive(true)
        try song.play()
        for bad: Float in [.nan, .infinity, -1, 16.5] {
            expectError(.invalidArgument, mentioning: "gain") { () throws(TuttiError) in try song.setGain(bad) }
            expectError(.invalidArgument, mentioning: "gain") { () throws(TuttiError) in try music.setGain(bad) }
        }
        expectError(.invalidArgument, mentioning: "rampFrames") { () throws(TuttiError) in try song.setGain(0.5, rampFrames: -3) }
        // 16 is the top of the range and 4 is fine: an app may boost a quiet source.
        try song.setGain(16)
        try song.setGain(4)
        #expect(try song.info.gain == 4)
        let x = render(engine, frames: 4_800)
        #expect(x.allSatisfy { $0.isFinite })
        #expect(abs(level(x, 1_000..<4_800, 440) - 2.0) < 0.01)
    }

    @Test func badSourcesAreRefusedAndConsumeNoId() throws {
        let (engine, music, _, _, _) = try makeEngine()
        let before = engine.statistics.sourceCount
        expectError(.invalidArgument, mentioning: "frequency") { () throws(TuttiError) in
            _ = try music.makeToneSource(frequency: .nan, amplitude: 0.5)
        }
        expectError(.invalidArgument, mentioning: "Nyquist") { () throws(TuttiError) in
            _ = try music.makeToneSource(frequency: 30_000, amplitude: 0.5)
        }
        expectError(.invalidArgument, mentioning: "amplitude") { () throws(TuttiError) in
            _ = try music.makeToneSource(frequency: 440, amplitude: 2)
        }
        expectError(.invalidArgument, mentioning: "sampleRate") { () throws(TuttiError) in
            _ = try music.makeStreamSource(sampleRate: 0, channelCount: 1)
        }
        expectError(.invalidArgument, mentioning: "channelCount") { () throws(TuttiError) in
            _ = try music.makeStreamSource(sampleRate: 44_100, channelCount: 3)
        }
        expectError(.invalidArgument, mentioning: "song") { () throws(TuttiError) in
            _ = try music.makeToneSource(frequency: 440, amplitude: 0.5, name: "song")
        }
        #expect(engine.statistics.sourceCount == before)
        // The next source gets the first free slot in its first generation: nothing was used up.
        let ok = try music.makeToneSource(frequency: 330, amplitude: 0.1)
        #expect(ok.id.slot == 2 && ok.id.generation == 1)
        #expect(engine.statistics.sourceCount == before + 1)
    }

    @Test func badSessionsAreRefused() throws {
        let (engine, _, _, _, _) = try makeEngine()
        expectError(.invalidArgument, mentioning: "music") { () throws(TuttiError) in _ = try engine.makeSession(named: "music") }
        expectError(.invalidArgument, mentioning: "duckOthers") { () throws(TuttiError) in
            _ = try engine.makeSession(SessionConfiguration(id: "game", category: .ambient, options: [.duckOthers]))
        }
        expectError(.invalidArgument, mentioning: "empty") { () throws(TuttiError) in _ = try engine.makeSession(named: "") }
        #expect(engine.statistics.sessionCount == 2)
    }

    @Test func deviceValuesAreChecked() throws {
        let (engine, _, _, _, _) = try makeEngine()
        for bad: Float in [.nan, -0.1, 1.5] {
            expectError(.invalidArgument, mentioning: "volume") { () throws(TuttiError) in try engine.setVolume(bad) }
            expectError(.invalidArgument, mentioning: "ringer volume") { () throws(TuttiError) in try engine.setRingerVolume(bad) }
        }
        expectError(.invalidArgument, mentioning: "frame") { () throws(TuttiError) in try engine.setLocked(true, at: .frame(-5)) }
        #expect(engine.deviceState.volume == 1 && !engine.deviceState.locked)
    }

    @Test func thePolicyRefusesWithDeniedAndTheReason() throws {
        let (engine, music, nav, song, _) = try makeEngine()
        try engine.beginPhoneCall()
        expectError(.denied, mentioning: "phone call") { () throws(TuttiError) in try music.setActive(true) }
        #expect(try music.state == .inactive)
        try engine.endPhoneCall()
        // A background app may only start mixable audio over a session that plays.
        try music.setActive(true)
        try song.play()
        let radio = try engine.makeSession(named: "radio", category: .playback)
        try radio.setForeground(false)
        expectError(.denied, mentioning: "cannotInterruptOthers") { () throws(TuttiError) in try radio.setActive(true) }
        #expect(try radio.state == .inactive)
        #expect(try music.state == .audible)
        // Mixable audio from the background is fine (nav ducks others, so it mixes).
        try nav.setForeground(false)
        try nav.setActive(true)
        #expect(try nav.state == .audible)
    }

    @Test func staleHandlesThrowNotFoundAndNeverReachANewObject() throws {
        let (engine, music, _, song, _) = try makeEngine()
        try song.remove()
        expectError(.notFound, mentioning: "source") { () throws(TuttiError) in try song.play() }
        expectError(.notFound, mentioning: "source") { () throws(TuttiError) in _ = try song.info }
        _ = render(engine, frames: 512) // the render side lets go of the slot
        let newcomer = try music.makeToneSource(frequency: 550, amplitude: 0.5)
        #expect(newcomer.id.slot == song.id.slot) // the slot is reused…
        #expect(newcomer.id != song.id) // …in a new generation
        expectError(.notFound, mentioning: "source") { () throws(TuttiError) in try song.setGain(0.1) }
        #expect(try newcomer.info.gain == 1)
        // A forged id (C hosts pass integers) is just as harmless.
        let forged = SourceHandle(engine: engine, id: SourceID(rawValue: 0xDEAD_BEEF_0000_0042))
        expectError(.notFound, mentioning: "source") { () throws(TuttiError) in try forged.play() }

        try music.remove()
        expectError(.notFound, mentioning: "session") { () throws(TuttiError) in try music.setActive(true) }
        expectError(.notFound, mentioning: "source") { () throws(TuttiError) in try newcomer.play() }
        #expect(engine.session(named: "music") == nil)
        // The name is free again, and the new session is another one.
        let again = try engine.makeSession(named: "music")
        #expect(again.id != music.id)
    }

    @Test func removingASessionReleasesWhatItInterrupted() throws {
        let (engine, music, _, song, _) = try makeEngine()
        let voip = try engine.makeSession(named: "voip", category: .playAndRecord)
        try music.setActive(true)
        try song.play()
        try voip.setActive(true)
        #expect(try music.state == .interrupted)
        try voip.remove()
        // Removal deactivates without notifying: the player may not resume by itself.
        #expect(try music.state == .inactive)
        _ = render(engine, frames: 1_024)
        #expect(engine.pollEvents().contains { $0.kind == .interruptionEnded(session: music.id, shouldResume: false) })
    }

    @Test func aFullCommandQueueIsACapacityErrorAndLosesNothing() throws {
        let (engine, music, _, song, _) = try makeEngine { $0.commandQueueCapacity = 64 }
        try music.setActive(true)
        var accepted = 0
        var refused: TuttiError?
        for k in 0..<200 {
            do {
                try song.setGain(Float(k % 10) / 10, rampFrames: 0, at: .frame(Int64(1_000 + k)))
                accepted += 1
            } catch {
                refused = error
                break
            }
        }
        #expect(refused?.code == .capacity)
        #expect(accepted > 32 && accepted < 64)
        // Rendering applies them; every accepted gain landed: the last one holds at the end.
        let lastGain = Float((accepted - 1) % 10) / 10
        _ = render(engine, frames: 2_048)
        try song.play()
        let x = render(engine, frames: 4_096)
        #expect(abs(level(x, 2_048..<4_096, 440) - 0.5 * Double(lastGain)) < 0.005)
        try song.setGain(0.3) // room again
    }
}
