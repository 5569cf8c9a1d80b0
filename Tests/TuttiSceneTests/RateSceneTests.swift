import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// `sources[].rate` and the `setRate` source action, measured in the rendered output; a
/// rated file loads whole past the streaming threshold; bad values name their JSON path.
@Suite struct RateSceneTests {
    /// A one-second mono 440 Hz file `f` (written into `dir`) in a two-second scene.
    static func scene(rate: String = "", events: String = "", audio: String = #""file": "tone.wav""#) -> String {
        """
        {"duration": 2, "sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "f", "session": "m", \(audio)\(rate)}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "f", "action": "play"}\(events)]}
        """
    }

    func render(_ json: String, in dir: String, streamingThreshold: Double = 10) throws -> [Double] {
        writeWAV(dir + "/tone.wav", sine(440, rate: 48_000, seconds: 1), rate: 48_000, channels: 1)
        let renderer = try OfflineRenderer(
            scene: try Scene.decode(json: json, baseDirectory: dir), streamingThresholdSeconds: streamingThreshold)
        var out: [Float] = []
        try renderer.render { out += $0 }
        return Analysis.channel(out, 0, of: 2)
    }

    /// `"rate": 2`: 880 Hz, over after half a second (the file's second of source frames);
    /// a `setRate` to 0.5 at 0.25 s glides there: 220 Hz after it, and the rest of the file
    /// (36_000 source frames at 0.5) lasts until ≈ 1.75 s. Loaded whole past the threshold.
    @Test(arguments: [10.0, 0.5]) func rateKeyAndSetRateAction(streamingThreshold: Double) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fast = try render(Self.scene(rate: #", "rate": 2"#), in: dir, streamingThreshold: streamingThreshold)
        let f = Analysis.dominantFrequency(fast[0..<23_000], sampleRate: 48_000, low: 860, high: 900)
        #expect(abs(f - 880) < 0.1, "\(f) Hz")
        let lastSound = fast.lastIndex { $0 != 0 } ?? -1
        #expect(abs(lastSound + 1 - 24_000) <= 1, "last sounding frame \(lastSound)")
        let json = Self.scene(
            rate: #", "rate": 2"#, events: #", {"at": 0.25, "source": "f", "action": "setRate", "value": 0.5, "ramp": 0.01}"#)
        let glide = try render(json, in: dir, streamingThreshold: streamingThreshold)
        let slow = Analysis.dominantFrequency(glide[13_000..<80_000], sampleRate: 48_000, low: 200, high: 240)
        #expect(abs(slow - 220) < 0.1, "\(slow) Hz")
        #expect(Analysis.clicks(glide, reference: 13_000..<80_000, factor: 2).allSatisfy { $0 < 12_000 || $0 > 83_000 })
        // 12_000 output frames at 2 = 24_000 source frames; the glide (480 frames, mean rate
        // 1.25) takes 600; the other 23_400 at 0.5 take 46_800: the end near 59_280.
        let end = (glide.lastIndex { $0 != 0 } ?? -1) + 1
        #expect(abs(end - 59_280) <= 2, "ends at \(end)")
    }

    static let bad: [(String, String)] = [
        (scene(rate: #", "rate": 4.5"#), "sources[0].rate: 4.5 is out of range 0.25…4"),
        (scene(rate: #", "rate": 0.2"#), "sources[0].rate: 0.2 is out of range 0.25…4"),
        (scene(rate: #", "rate": "fast""#), "sources[0].rate: expected a number, found a string"),
        (scene(rate: #", "rate": 2"#, audio: #""tone": {"frequency": 440}"#), "sources[0].rate: only a file source has a playback rate"),
        (scene(events: #", {"at": 0.5, "source": "f", "action": "setRate", "value": 8}"#), "events[2].value: 8 is out of range 0.25…4"),
        (scene(events: #", {"at": 0.5, "source": "f", "action": "setRate"}"#), "events[2].value: required number is missing"),
        (
            scene(events: #", {"at": 0.5, "source": "f", "action": "setRate", "value": 2}"#, audio: #""tone": {"frequency": 440}"#),
            "events[2].source: source \"f\" is not a file source"
        ),
    ]

    @Test(arguments: bad)
    func badRateNamesItsPlace(json: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            _ = try render(json, in: dir)
            Issue.record("rendered a bad scene")
        } catch let e as SceneError {
            #expect(e.description.contains(message), "\(e.description)")
        }
    }
}
