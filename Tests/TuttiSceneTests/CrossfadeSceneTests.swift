import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// The `crossfade` source action, measured in the written WAV: 440 Hz gives way to 1000 Hz
/// at equal power from 0.1 s over 2 s, the old source's stop is journalled at the fade's last
/// frame, renders repeat bit for bit; bad events name their JSON path.
@Suite struct CrossfadeSceneTests {
    static func scene(event: String = #"{"at": 0.1, "source": "b", "action": "crossfade", "from": "a", "duration": 2}"#) -> String {
        """
        {"duration": 2.2, "engine": {"channels": 1},
         "sessions": [{"id": "m", "category": "playback"}, {"id": "o", "category": "ambient"}],
         "sources": [{"id": "a", "session": "m", "tone": {"frequency": 440, "amplitude": 0.5}},
                     {"id": "b", "session": "m", "tone": {"frequency": 1000, "amplitude": 0.5}},
                     {"id": "c", "session": "m", "tone": {"frequency": 2000, "amplitude": 0.5}},
                     {"id": "x", "session": "o", "tone": {"frequency": 3000, "amplitude": 0.5}}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"},
                    \(event)]}
        """
    }

    func level(_ x: [Double], _ range: Range<Int>, _ frequency: Double) -> Double {
        Analysis.toneAmplitude(x[range], frequency: frequency, sampleRate: 48_000)
    }

    @Test func aCrossfadeGivesWayAtEqualPowerAndStopsTheOldSource() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let renderer = try OfflineRenderer(scene: try Scene.decode(json: Self.scene(), baseDirectory: dir))
        var out: [Float] = []
        try renderer.render { out += $0 }
        let x = out.map(Double.init)
        let (start, end) = (4_800, 4_800 + 96_000)
        #expect(x.count == 105_600)
        #expect(abs(level(x, 0..<start, 440) - 0.5) < 0.001)
        #expect(level(x, 0..<start, 1_000) < 0.001)
        let middle = (start + 48_000 - 600)..<(start + 48_000 + 600)
        for frequency in [440.0, 1_000] {
            let dB = Analysis.dB(level(x, middle, frequency) / 0.5)
            #expect(abs(dB - -3.0103) <= 0.05, "\(frequency) Hz half-way: \(dB) dB")
        }
        #expect(abs(level(x, end..<x.count, 1_000) - 0.5) < 0.001)
        #expect(level(x, end..<x.count, 440) < 0.001)
        #expect(Analysis.clicks(x, reference: end..<x.count).isEmpty)
        // The policy stops "a" at the crossfade's last frame (and starts "b" at its first).
        let stops = renderer.journal.filter { e in
            e.type == "sourcePaused" && e.fields.contains { $0.key == "source" && $0.value == .string("a") }
        }
        #expect(stops.map(\.frame) == [Int64(end)])
        #expect(stops.first?.fields.contains { $0.key == "reason" && $0.value == .string("stop") } == true)
        // Deterministic: a second render is the same, bit for bit.
        let again = try OfflineRenderer(scene: try Scene.decode(json: Self.scene(), baseDirectory: dir))
        var second: [Float] = []
        try again.render { second += $0 }
        #expect(second.map(\.bitPattern) == out.map(\.bitPattern))
        #expect(again.journal == renderer.journal)
    }

    @Test(arguments: [
        (#""from": "nope", "duration": 1"#, "events[2].from", "unknown source"),
        (#""from": "b", "duration": 1"#, "events[2].from", "itself"),
        (#""from": "x", "duration": 1"#, "events[2].from", "session"),
        (#""duration": 1"#, "events[2].from", "missing"),
        (#""from": "a", "duration": 0"#, "events[2].duration", "> 0"),
        (#""from": "a", "duration": -1"#, "events[2].duration", "> 0"),
        (#""from": "a", "duration": 0.00001"#, "events[2].duration", "frames"),
        (#""from": "a""#, "events[2].duration", "missing"),
        (#""from": "c", "duration": 1"#, "events[2].from", "not playing"),
    ])
    func badCrossfadeNamesItsPlaceAndWritesNothing(fields: String, place: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = Self.scene(event: #"{"at": 0.1, "source": "b", "action": "crossfade", "# + fields + "}")
        do {
            try renderScene(json, in: dir)
            Issue.record("rendered a bad scene")
        } catch let e as SceneError {
            #expect(e.description.contains(place) && e.description.contains(message), "\(e.description)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}
