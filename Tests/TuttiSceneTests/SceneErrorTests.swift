import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// Every bad input names its place, and leaves the output path as it was.
@Suite struct SceneErrorTests {
    static let good = """
        {"duration": 1, "sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "t", "session": "m", "tone": {"frequency": 440, "amplitude": 0.5}}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "t", "action": "play"}]}
        """

    static let cases: [(String, String, String)] = [
        ("malformed JSON", #"{"duration": 1,"#, "line 1, column 16"),
        (
            "unknown action", good.replacingOccurrences(of: #""action": "play""#, with: #""action": "plya""#),
            #"events[1].action: unknown source action "plya" (did you mean "play"?)"#
        ),
        (
            "unknown root field", good.replacingOccurrences(of: #""duration": 1"#, with: #""duration": 1, "durration": 2"#),
            #"durration: unknown field (did you mean "duration"?)"#
        ),
        ("missing duration", good.replacingOccurrences(of: #""duration": 1, "#, with: ""), "duration: required number is missing"),
        (
            "unknown session in source", good.replacingOccurrences(of: #""session": "m", "tone""#, with: #""session": "x", "tone""#),
            #"sources[0].session: unknown session "x""#
        ),
        (
            "unknown source in event", good.replacingOccurrences(of: #""source": "t""#, with: #""source": "u""#),
            #"events[1].source: unknown source "u""#
        ),
        (
            "gain out of range", good.replacingOccurrences(of: #""amplitude": 0.5}"#, with: #""amplitude": 0.5}, "gain": 1.5"#),
            "sources[0].gain: 1.5 is out of range 0…1"
        ),
        (
            "bad category", good.replacingOccurrences(of: #""playback""#, with: #""playbak""#),
            #"sessions[0].category: unknown category "playbak""#
        ),
        (
            "option not allowed",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "ambient", "options": ["duckOthers"]}"#),
            "sessions[0].options[0]"
        ),
        (
            "event after the end", good.replacingOccurrences(of: #"{"at": 0, "source""#, with: #"{"at": 3, "source""#),
            "events[1].at: 3 s is out of range 0…1 s"
        ),
        (
            "two targets", good.replacingOccurrences(of: #"{"at": 0, "source": "t""#, with: #"{"at": 0, "session": "m", "source": "t""#),
            "events[1].source: an event has one target"
        ),
        (
            "wrong type", good.replacingOccurrences(of: #""duration": 1"#, with: #""duration": "1""#),
            "duration: expected a number, found a string"
        ),
        (
            "bad sample rate", good.replacingOccurrences(of: #""duration": 1"#, with: #""duration": 1, "engine": {"sampleRate": 1000}"#),
            "engine.sampleRate: 1000 is out of range 8000…384000"
        ),
        (
            "bad output format", good.replacingOccurrences(of: #""duration": 1"#, with: #""duration": 1, "engine": {"output": "mp3"}"#),
            #"engine.output: unknown output format "mp3""#
        ),
        (
            "duplicate source id",
            good.replacingOccurrences(of: #""sources": ["#, with: #""sources": [{"id": "t", "session": "m", "silence": true}, "#),
            #"sources[1].id: duplicate source id "t""#
        ),
        (
            "missing file", good.replacingOccurrences(of: #""tone": {"frequency": 440, "amplitude": 0.5}"#, with: #""file": "nope.wav""#),
            #"sources[0].file: "nope.wav": cannot read audio file"#
        ),
        (
            "not a WAV", good.replacingOccurrences(of: #""tone": {"frequency": 440, "amplitude": 0.5}"#, with: #""file": "scene.json""#),
            #"sources[0].file: "scene.json": cannot read audio file"#
        ),
        (
            "tone above Nyquist", good.replacingOccurrences(of: #""frequency": 440"#, with: #""frequency": 30000"#),
            "sources[0].tone.frequency: 30000 Hz is out of range"
        ),
        // Voice limits and ducking rules.
        (
            "engine maxVoices 0", good.replacingOccurrences(of: #""duration": 1"#, with: #""duration": 1, "engine": {"maxVoices": 0}"#),
            "engine.maxVoices: must be a whole number of voices in 1…65536, got 0"
        ),
        (
            "session maxVoices negative",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "playback", "maxVoices": -2}"#),
            "sessions[0].maxVoices: must be a whole number of voices in 1…65536, got -2"
        ),
        (
            "maxVoices not whole",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "playback", "maxVoices": 1.5}"#),
            "sessions[0].maxVoices: must be a whole number"
        ),
        (
            "priority above 255", good.replacingOccurrences(of: #""amplitude": 0.5}"#, with: #""amplitude": 0.5}, "priority": 256"#),
            "sources[0].priority: 256 is out of range 0…255"
        ),
        (
            "priority negative", good.replacingOccurrences(of: #""amplitude": 0.5}"#, with: #""amplitude": 0.5}, "priority": -1"#),
            "sources[0].priority: -1 is out of range 0…255"
        ),
        (
            "rule names an unknown session",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with: #""duration": 1, "engine": {"ducking": {"rules": [{"by": "m", "duck": "radio", "level": -6}]}}"#),
            #"engine.ducking.rules[0].duck: unknown session or category "radio""#
        ),
        (
            "rule names an unknown category",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with: #""duration": 1, "engine": {"ducking": {"rules": [{"by": "playbak", "duck": "m", "level": -6}]}}"#),
            #"engine.ducking.rules[0].by: unknown session or category "playbak" (did you mean "playback"?)"#
        ),
        (
            "rule level above 0 dB",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with: #""duration": 1, "engine": {"ducking": {"rules": [{"by": "m", "duck": "ambient", "level": 3}]}}"#),
            "engine.ducking.rules[0].level: 3 dB is out of range -96…0 dB"
        ),
        (
            "rule level below −96 dB",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with: #""duration": 1, "engine": {"ducking": {"rules": [{"by": "m", "duck": "ambient", "level": -97}]}}"#),
            "engine.ducking.rules[0].level: -97 dB is out of range -96…0 dB"
        ),
        (
            "rule with a negative attack",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with: #""duration": 1, "engine": {"ducking": {"rules": [{"by": "m", "duck": "ambient", "attack": -0.1}]}}"#),
            "engine.ducking.rules[0].attack: -0.1 s is out of range 0…10 s"
        ),
        (
            "rule with a negative release",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with: #""duration": 1, "engine": {"ducking": {"rules": [{"by": "m", "duck": "ambient", "release": -1}]}}"#),
            "engine.ducking.rules[0].release: -1 s is out of range 0…10 s"
        ),
        (
            "rule without by",
            good.replacingOccurrences(
                of: #""duration": 1"#, with: #""duration": 1, "engine": {"ducking": {"rules": [{"duck": "ambient"}]}}"#),
            "engine.ducking.rules[0].by: required string is missing"
        ),
        (
            "two rules for one pair",
            good.replacingOccurrences(
                of: #""duration": 1"#,
                with:
                    #""duration": 1, "engine": {"ducking": {"rules": [{"by": "m", "duck": "ambient"}, {"by": "m", "duck": "ambient", "level": -3}]}}"#
            ),
            #"engine.ducking.rules[1]: rules[0] already covers by "m", duck "ambient""#
        ),
        (
            "rules in a session's ducking",
            good.replacingOccurrences(of: #""category": "playback"}"#, with: #""category": "playback", "ducking": {"rules": []}}"#),
            "sessions[0].ducking.rules: unknown field"
        ),
    ]

    @Test(arguments: cases)
    func badSceneNamesThePlaceAndTouchesNothing(name: String, json: String, expected: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let precious = Data("do not overwrite me".utf8)
        _ = FileManager.default.createFile(atPath: dir + "/out.wav", contents: precious)
        _ = FileManager.default.createFile(atPath: dir + "/events.jsonl", contents: precious)
        do {
            try renderScene(json, in: dir, events: "events.jsonl")
            Issue.record("\(name): rendered without error")
        } catch {
            #expect("\(error)".contains(expected), "\(name): \(error)")
        }
        #expect(FileManager.default.contents(atPath: dir + "/out.wav") == precious, "\(name): output changed")
        #expect(FileManager.default.contents(atPath: dir + "/events.jsonl") == precious, "\(name): events changed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "\(name): left \(leftovers)")
    }

    @Test func threeChannelFileIsRefused() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/three.wav", [Float](repeating: 0, count: 300), rate: 48_000, channels: 3)
        let json = Self.good.replacingOccurrences(of: #""tone": {"frequency": 440, "amplitude": 0.5}"#, with: #""file": "three.wav""#)
        #expect { try renderScene(json, in: dir) } throws: { "\($0)".contains("sources[0].file: \"three.wav\": has 3 channels") }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }

    @Test func goodSceneRenders() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try renderScene(Self.good, in: dir)
        let wav = readWAV(out)
        #expect(wav.samples.count == 48_000 * 2)
    }
}
