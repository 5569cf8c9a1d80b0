import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// `"device": "otherAudio"` events and the `other` control line: other apps' audio in the journal
/// and in the category an activating session takes.
@Suite struct OtherAudioSceneTests {
    static func scene(_ event: String) -> String {
        """
        {"duration": 2, "sessions": [{"id": "game", "category": "soloAmbient", "categoryWhenOtherAudioPlaying": "ambient"}],
         "sources": [{"id": "fx", "session": "game", "tone": {"frequency": 440, "amplitude": 0.25}}],
         "events": [\(event), {"at": 1, "source": "fx", "action": "play"}]}
        """
    }

    func events(_ json: String) throws -> String {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try renderScene(json, in: dir, events: "events.jsonl")
        return try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
    }

    @Test func anotherAppPlayingIsJournalledAndPicksTheFallbackCategory() throws {
        let log = try events(
            Self.scene(#"{"at": 0.5, "device": "otherAudio", "playing": true, "silenceSecondary": true, "clients": ["pw-play"]}"#))
        #expect(log.contains(#""type":"otherAudioChanged","playing":true,"silenceSecondary":true,"clients":["pw-play"]"#), "\(log)")
        #expect(log.contains(#""type":"sessionActivated","session":"game","category":"ambient""#), "\(log)")
        // Stopped before the activation: the session's own category, and the entry says so.
        let stopped = try events(
            Self.scene(
                #"{"at": 0.2, "device": "otherAudio", "playing": true}, {"at": 0.5, "device": "otherAudio", "playing": false}"#))
        #expect(stopped.contains(#""type":"otherAudioChanged","playing":false,"silenceSecondary":false,"clients":[]"#), "\(stopped)")
        #expect(stopped.contains(#""type":"sessionActivated","session":"game","category":"soloAmbient""#), "\(stopped)")
    }

    @Test func explainSaysWhyTheFallbackCategory() throws {
        let json = Self.scene(#"{"at": 0.5, "device": "otherAudio", "playing": true, "clients": ["pw-play"]}"#)
        let e = try Explanation.explain(scene: try Scene.decode(json: json, baseDirectory: ""), at: 1.5)
        let game = try #require(e.sessions.first)
        #expect(game.category == "ambient")
        #expect(game.reason?.contains("other apps played audio when it activated") == true, "\(game.reason ?? "nil")")
        #expect(game.chain.map(\.type) == ["otherAudioChanged", "sessionActivated", "sourceStarted"])
        // Without other apps: no such reason.
        let plain = try Explanation.explain(
            scene: try Scene.decode(json: Self.scene(#"{"at": 0, "device": "lock"}"#), baseDirectory: ""), at: 1.5)
        #expect(plain.sessions.first?.reason?.contains("other apps") != true)
    }

    @Test func badOtherAudioEventsNameTheirPlace() {
        for (event, says) in [
            (#"{"at": 0, "device": "otherAudio"}"#, "events[0].playing: required boolean is missing"),
            (#"{"at": 0, "device": "otherAudio", "playing": 1}"#, "events[0].playing: expected true or false"),
            (#"{"at": 0, "device": "otherAudio", "playing": true, "clients": "mpv"}"#, "events[0].clients: expected an array"),
            (#"{"at": 0, "device": "otherAudio", "playing": true, "clients": ["a", 2]}"#, "events[0].clients[1]: expected a client name"),
            (#"{"at": 0, "device": "otherAudio", "playing": true, "value": true}"#, "events[0].value: unknown field"),
        ] {
            do {
                _ = try Scene.decode(json: Self.scene(event), baseDirectory: "")
                Issue.record("\(event) decoded")
            } catch {
                #expect("\(error)".contains(says), "\(event): \(error)")
            }
        }
    }

    @Test func otherControlLines() throws {
        #expect(
            try ControlLine.parse("other on")?.action == .device(.otherAudio(OtherAudio(playing: true))))
        #expect(
            try ControlLine.parse("other on silence spotify pw-play")?.action
                == .device(.otherAudio(OtherAudio(playing: true, silenceSecondary: true, clients: ["spotify", "pw-play"]))))
        #expect(try ControlLine.parse("other on mpv")?.action == .device(.otherAudio(OtherAudio(playing: true, clients: ["mpv"]))))
        #expect(try ControlLine.parse("other off")?.action == .device(.otherAudio(OtherAudio())))
        for (line, says) in [
            ("other", "takes on or off"), ("other maybe", "on or off, got \"maybe\""), ("other off mpv", "takes nothing after it"),
        ] {
            do {
                _ = try ControlLine.parse(line)
                Issue.record("\(line) parsed")
            } catch {
                #expect(error.description.contains(says), "\(line): \(error.description)")
            }
        }
    }
}
