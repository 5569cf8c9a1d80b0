import Foundation
import Testing
import Tutti
import TuttiDSP
import TuttiPolicy
import TuttiScene
import TuttiTestSupport

/// `sessions[].effects` and `engine.effects` in a scene: decoded with their defaults, heard
/// in the render (a session's filter, the master compressor before the system volume), bad
/// values refused naming their JSON path.
@Suite struct EffectsSceneTests {
    /// One playback session with a 2 kHz tone of `amplitude`.
    static func scene(engine: String = "", session: String = "", device: String = "", amplitude: Double = 0.25) -> String {
        """
        {"duration": 1, \(engine)\(device)"sessions": [{"id": "m", "category": "playback"\(session)}],
         "sources": [{"id": "a", "session": "m", "tone": {"frequency": 2000, "amplitude": \(amplitude)}}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"}]}
        """
    }

    func render(_ json: String, in dir: String) throws -> [Double] {
        let scenePath = dir + "/scene.json"
        try json.write(toFile: scenePath, atomically: true, encoding: .utf8)
        _ = try OfflineRenderer.renderFile(scenePath: scenePath, outputPath: dir + "/out.wav", eventsPath: nil, format: nil)
        return Analysis.channel(readWAV(dir + "/out.wav").samples, 0, of: 2)
    }

    @Test func effectsDecodeWithTheirDefaults() throws {
        let json = Self.scene(
            engine: #""engine": {"effects": [{"type": "compressor", "threshold": -18, "ratio": 3}]}, "#,
            session:
                #", "effects": [{"type": "lowpass", "frequency": 1000}, {"type": "peaking", "frequency": 300, "q": 2, "gain": -4}, {"type": "delay", "time": 0.25}]"#
        )
        let scene = try Scene.decode(json: json, baseDirectory: "")
        #expect(scene.engine.effects == [.compressor(thresholdDB: -18, ratio: 3, attackSeconds: 0.01, releaseSeconds: 0.1, makeupDB: 0)])
        #expect(
            scene.sessionEffects["m"] == [
                .biquad(.lowpass, frequencyHz: 1_000, q: 1 / 2.squareRoot(), gainDB: 0),
                .biquad(.peaking, frequencyHz: 300, q: 2, gainDB: -4),
                .delay(timeSeconds: 0.25, feedback: 0, mix: 0.5),
            ])
        #expect(OfflineRenderer.engineConfiguration(for: scene).effects == scene.engine.effects)
        let plain = try Scene.decode(json: Self.scene(), baseDirectory: "")
        #expect(plain.engine.effects == nil)
        #expect(plain.sessionEffects.isEmpty)
    }

    /// A session's lowpass at 1 kHz takes the 2 kHz tone down by the cookbook's magnitude.
    @Test func aSessionFilterIsHeard() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let left = try render(Self.scene(session: #", "effects": [{"type": "lowpass", "frequency": 1000, "q": 0.7071}]"#), in: dir)
        let measured = Analysis.dB(Analysis.fitSine(left[24_000...], frequency: 2_000, sampleRate: 48_000).amplitude / 0.25)
        let expected = BiquadCoefficients(.lowpass, frequencyHz: 1_000, q: 0.7071, gainDB: 0, sampleRate: 48_000)
            .magnitudeDB(atHz: 2_000, sampleRate: 48_000)
        #expect(abs(measured - expected) < 0.1, "\(measured) dB, formula \(expected) dB")
    }

    /// The master compressor sees the mix before the system volume: a 0 dBFS tone through
    /// threshold −20 dB, ratio 4 comes out at −15 dBFS, then the volume applies.
    @Test func theMasterCompressorComesBeforeTheSystemVolume() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let engine = #""engine": {"effects": [{"type": "compressor", "threshold": -20, "ratio": 4}]}, "#
        for volume in [1.0, 0.5] {
            let left = try render(
                Self.scene(engine: engine, device: #""device": {"volume": \#(volume)}, "#, amplitude: 1), in: dir)
            let measured = Analysis.dB(Analysis.fitSine(left[24_000...], frequency: 2_000, sampleRate: 48_000).amplitude)
            let expected = -15 + Analysis.dB(VolumeCurve.gain(forVolume: volume))
            #expect(abs(measured - expected) < 0.5, "volume \(volume): \(measured) dBFS, expected \(expected)")
        }
    }

    /// `setEffect` at 0.5 s moves the session's lowpass from 1 kHz to 8 kHz over 20 ms: the
    /// 2 kHz tone comes up to the new filter's magnitude, with no click on the way.
    @Test func aSetEffectEventGlidesTheFilter() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = Self.scene(session: #", "effects": [{"type": "lowpass", "frequency": 1000}]"#)
            .replacingOccurrences(
                of: #""action": "play"}]"#,
                with:
                    #""action": "play"}, {"at": 0.5, "session": "m", "action": "setEffect", "effect": {"type": "lowpass", "frequency": 8000}, "glide": 0.02}]"#
            )
        let left = try render(json, in: dir)
        func level(_ r: Range<Int>) -> Double {
            Analysis.dB(Analysis.fitSine(left[r], frequency: 2_000, sampleRate: 48_000).amplitude / 0.25)
        }
        func magnitude(_ f: Double) -> Double {
            BiquadCoefficients(.lowpass, frequencyHz: f, q: 1 / 2.squareRoot(), gainDB: 0, sampleRate: 48_000)
                .magnitudeDB(atHz: 2_000, sampleRate: 48_000)
        }
        #expect(abs(level(4_800..<24_000) - magnitude(1_000)) < 0.1)
        #expect(abs(level(26_400..<48_000) - magnitude(8_000)) < 0.1)
        #expect(Analysis.clicks(left, reference: 26_400..<48_000).isEmpty)
    }

    static let bad: [(String, String, String)] = [
        ("", #"[{"type": "reverb"}]"#, "sessions[0].effects[0].type: unknown effect type \"reverb\""),
        ("", #"[{"type": "lowpass", "frequency": 0}]"#, "sessions[0].effects[0].frequency: must be finite and in 0…24000"),
        ("", #"[{"type": "lowpass", "frequency": 24000}]"#, "sessions[0].effects[0].frequency: must be finite and in 0…24000"),
        ("", #"[{"type": "peaking", "frequency": 100, "q": 0}]"#, "sessions[0].effects[0].q: must be finite and in 0…100"),
        (
            "", #"[{"type": "lowpass", "frequency": 100}, {"type": "compressor", "threshold": -10, "ratio": 0.5}]"#,
            "sessions[0].effects[1].ratio: must be finite and in 1…100"
        ),
        ("", #"[{"type": "delay", "time": 0.1, "feedback": 1}]"#, "sessions[0].effects[0].feedback: must be finite and in 0…0.95"),
        ("", #"[{"type": "delay", "time": 0.1, "feedback": -0.5}]"#, "sessions[0].effects[0].feedback: must be finite"),
        ("", #"[{"type": "delay", "time": 0.1, "mix": 1.5}]"#, "sessions[0].effects[0].mix: must be finite and in 0…1"),
        ("", #"[{"type": "delay", "time": 0}]"#, "sessions[0].effects[0].time: must be finite and in 0…10.0 s"),
        ("", #"[{"type": "delay", "time": 12}]"#, "sessions[0].effects[0].time: must be finite and in 0…10.0 s"),
        ("", #"[{"type": "lowpass", "frequency": 100, "gain": 3}]"#, "sessions[0].effects[0].gain: unknown field"),
        ("", #"{"type": "lowpass"}"#, "sessions[0].effects: expected an array"),
        (
            #""engine": {"effects": [{"type": "notch", "frequency": 30000}]}, "#, "",
            "engine.effects[0].frequency: must be finite and in 0…24000"
        ),
        ("", "", "events[2].action: session \"m\" has no effects to change"),
        ("", #"[{"type": "delay", "time": 0.1}]"#, "events[2].index: effect 0 of session \"m\" is not a biquad"),
        ("", #"[{"type": "notch", "frequency": 100}]"#, "events[2].index: 1 is out of range 0…0"),
        (
            "", #"[{"type": "notch", "frequency": 100}]"#,
            "events[2].effect.type: must be a biquad"
        ),
    ]

    @Test(arguments: bad)
    func badEffectsNameTheirPlace(engine: String, effects: String, message: String) throws {
        let json = Self.scene(engine: engine, session: effects.isEmpty ? "" : #", "effects": \#(effects)"#)
            .replacingOccurrences(
                of: #""action": "play"}]"#,
                with: message.hasPrefix("events[2].effect.type")
                    ? #""action": "play"}, {"at": 0.5, "session": "m", "action": "setEffect", "effect": {"type": "delay", "time": 0.1}}]"#
                    : message.hasPrefix("events[2]")
                        ? #""action": "play"}, {"at": 0.5, "session": "m", "action": "setEffect", "index": \#(message.contains("out of range") ? 1 : 0), "effect": {"type": "lowpass", "frequency": 100}}]"#
                        : #""action": "play"}]"#)
        do {
            _ = try Scene.decode(json: json, baseDirectory: "")
            Issue.record("decoded a bad scene")
        } catch let e as SceneError {
            #expect(e.description.hasPrefix(message), "\(e.description)")
        }
    }
}
