import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// `sources[].pan` and the `setPan` source action, measured in the written WAV; bad values
/// name their JSON path.
@Suite struct PanSceneTests {
    static func scene(pan: String = "", events: String = "") -> String {
        """
        {"duration": 1, "sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "t", "session": "m", "tone": {"frequency": 997, "amplitude": 0.5}\(pan)}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "t", "action": "play"}\(events)]}
        """
    }

    func channels(_ path: String) -> (left: [Double], right: [Double]) {
        let w = readWAV(path)
        return (Analysis.channel(w.samples, 0, of: 2), Analysis.channel(w.samples, 1, of: 2))
    }

    @Test func panKeyAndSetPanActionPlaceTheSource() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dry = channels(try renderScene(Self.scene(), in: dir, output: "dry.wav"))
        let json = Self.scene(
            pan: #", "pan": -1"#, events: #", {"at": 0.5, "source": "t", "action": "setPan", "value": 0, "ramp": 0.01}"#)
        let panned = channels(try renderScene(json, in: dir))
        let reference = Analysis.rms(dry.left[4_800..<24_000])
        // Hard left until 0.5 s: the right channel silent, the left at the dry level.
        #expect(panned.right[0..<24_000].allSatisfy { $0 == 0 })
        #expect(abs(Analysis.dB(Analysis.rms(panned.left[4_800..<24_000]) / reference)) < 0.05)
        // Centred after the 10 ms ramp: −3.01 dB on each channel.
        for (name, x) in [("left", panned.left), ("right", panned.right)] {
            let db = Analysis.dB(Analysis.rms(x[25_000..<48_000]) / reference)
            #expect(abs(db - -3.0103) <= 0.05, "\(name): \(db) dB")
        }
    }

    @Test func aSceneWithoutPanRendersAsBefore() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scene = try Scene.decode(json: Self.scene(), baseDirectory: dir)
        #expect(scene.sources[0].pan == nil)
        // A stereo tone never panned: both channels carry the tone at its full amplitude.
        let dry = channels(try renderScene(Self.scene(), in: dir))
        #expect(dry.left == dry.right)
        #expect(abs(Analysis.rms(dry.left[4_800..<48_000]) - 0.5 / 2.0.squareRoot()) < 1e-4)
    }

    /// Files, loaded whole or streamed: a mono file is placed by the constant-power law, a
    /// stereo file balanced (what pan does follows the file's own channels).
    @Test(arguments: [10.0, 0.5])
    func filesArePlacedOrBalancedByTheirOwnChannels(streamingThreshold: Double) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/mono.wav", sine(997, rate: 48_000, seconds: 1), rate: 48_000, channels: 1)
        var stereo = sine(997, rate: 48_000, seconds: 1, channels: 2)
        for i in stride(from: 1, to: stereo.count, by: 2) { stereo[i] *= 0.5 }
        writeWAV(dir + "/stereo.wav", stereo, rate: 48_000, channels: 2)
        func render(_ file: String, pan: String) throws -> (left: [Double], right: [Double]) {
            let json = """
                {"duration": 1, "sessions": [{"id": "m", "category": "playback"}],
                 "sources": [{"id": "f", "session": "m", "file": "\(file)"\(pan)}],
                 "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "f", "action": "play"}]}
                """
            let renderer = try OfflineRenderer(
                scene: try Scene.decode(json: json, baseDirectory: dir), streamingThresholdSeconds: streamingThreshold)
            var out: [Float] = []
            try renderer.render { out += $0 }
            return (Analysis.channel(out, 0, of: 2), Analysis.channel(out, 1, of: 2))
        }
        let monoDry = try render("mono.wav", pan: "")
        let monoCentred = try render("mono.wav", pan: #", "pan": 0"#)
        for (dry, centred) in [(monoDry.left, monoCentred.left), (monoDry.right, monoCentred.right)] {
            let db = Analysis.dB(Analysis.rms(centred[2_400..<45_600]) / Analysis.rms(dry[2_400..<45_600]))
            #expect(abs(db - -3.0103) <= 0.05, "mono file at 0: \(db) dB")
        }
        let stereoDry = try render("stereo.wav", pan: "")
        #expect(try render("stereo.wav", pan: #", "pan": 0"#).left == stereoDry.left)
        let hardLeft = try render("stereo.wav", pan: #", "pan": -1"#)
        #expect(hardLeft.left == stereoDry.left)
        #expect(hardLeft.right.allSatisfy { $0 == 0 })
        #expect(Analysis.rms(stereoDry.right[2_400..<45_600]) > 0.1)
    }

    static let bad: [(String, String)] = [
        (scene(pan: #", "pan": 1.5"#), "sources[0].pan: 1.5 is out of range -1…1"),
        (scene(pan: #", "pan": "left""#), "sources[0].pan: expected a number, found a string"),
        (scene(events: #", {"at": 0.5, "source": "t", "action": "setPan", "value": -2}"#), "events[2].value: -2 is out of range -1…1"),
        (scene(events: #", {"at": 0.5, "source": "t", "action": "setPan"}"#), "events[2].value: required number is missing"),
        (
            scene(events: #", {"at": 0.5, "source": "t", "action": "setPan", "value": 0, "ramp": -1}"#),
            "events[2].ramp: -1 s is out of range 0…60 s"
        ),
    ]

    @Test(arguments: bad)
    func badPanNamesItsPlaceAndWritesNothing(json: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            try renderScene(json, in: dir)
            Issue.record("rendered a bad scene")
        } catch let e as SceneError {
            #expect(e.description.contains(message), "\(e.description)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}
