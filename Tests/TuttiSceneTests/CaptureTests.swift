import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// Issue 11 part 2: input sources fed offline by `--input`, recorded by `recordTo`, monitored
/// at their gain. Checked by measurement against the input file.
@Suite struct CaptureTests {
    static let rate = 48_000

    /// A playAndRecord session: activate at 0, the mic plays at 0.5 s, the mic is muted at
    /// 1.5 s and unmuted at 2.0 s, the mic is played again explicitly at 2.5 s.
    static func scene(gain: Double = 0.5, rate: Int = rate, recordTo: Bool = true) -> String {
        """
        {"engine": {"sampleRate": \(rate), "channels": 2}, "duration": 3,
         "sessions": [{"id": "rec", "category": "playAndRecord"\(recordTo ? ", \"recordTo\": \"take.wav\"" : "")}],
         "sources": [{"id": "mic", "session": "rec", "input": {"channels": 1}, "gain": \(gain)}],
         "events": [{"at": 0, "session": "rec", "action": "activate"},
                    {"at": 0.5, "source": "mic", "action": "play"},
                    {"at": 1.5, "device": "micMuted", "value": true},
                    {"at": 2.0, "device": "micMuted", "value": false},
                    {"at": 2.5, "source": "mic", "action": "play"}]}
        """
    }

    func render(_ json: String, in dir: String, inputs: [(String, String)], notices: inout [String]) throws -> RenderReport {
        try json.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        var heard: [String] = []
        let report = try OfflineRenderer.renderFile(
            scenePath: dir + "/scene.json", outputPath: dir + "/out.wav", eventsPath: dir + "/events.jsonl", format: nil,
            inputs: inputs.map { (source: $0.0, path: $0.1) }, notice: { heard.append($0) })
        notices = heard
        return report
    }

    @Test func recordingEqualsTheInputAndIsSilentWhileMuted() throws {
        let dir = makeTemporaryFolder()
        let input = sine(440, rate: Self.rate, seconds: 3, amplitude: 0.5)
        writeWAV(dir + "/voice.wav", input, rate: Self.rate, channels: 1)
        var notices: [String] = []
        _ = try render(Self.scene(), in: dir, inputs: [("mic", dir + "/voice.wav")], notices: &notices)
        #expect(notices.isEmpty)
        let take = readWAV(dir + "/take.wav")
        #expect(take.channels == 1 && take.rate == Self.rate)
        // From the first captured frame (0.5 s) to the end of the render.
        let start = Self.rate / 2
        #expect(take.samples.count == 3 * Self.rate - start)
        func rec(_ frame: Int) -> Float { take.samples[frame - start] }
        // Capturing: sample-exact (no conversion, the tap is before the gain).
        for f in start..<(3 * Self.rate / 2) { #expect(rec(f) == input[f], "frame \(f)") }
        // Muted at 1.5 s: silence after the 10 ms transport fade, and still after the unmute at
        // 2.0 s (nothing re-enables the mic by itself) until the explicit play at 2.5 s.
        let mutedFrom = 3 * Self.rate / 2 + Self.rate / 100
        let muted = take.samples[(mutedFrom - start)..<(5 * Self.rate / 2 - start)]
        #expect(muted.allSatisfy { $0 == 0 }, "recording not silent while muted")
        for f in (5 * Self.rate / 2)..<(3 * Self.rate) { #expect(rec(f) == input[f], "frame \(f)") }

        // Monitoring: the output carries the input at the source gain 0.5 on both channels.
        let out = readWAV(dir + "/out.wav")
        var worst: Float = 0
        for f in start..<(3 * Self.rate / 2) {
            worst = max(worst, abs(out.samples[2 * f] - 0.5 * input[f]), abs(out.samples[2 * f + 1] - 0.5 * input[f]))
        }
        #expect(worst < 1e-6, "monitored output differs by \(worst)")
        #expect(out.samples[(2 * mutedFrom)..<(2 * 5 * Self.rate / 2)].allSatisfy { $0 == 0 })
        #expect(out.samples[0..<(2 * start)].allSatisfy { $0 == 0 })

        // The journal says why it went silent, and when the recording started and stopped.
        let log = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
        #expect(log.contains("\"type\":\"interruptionBegan\"") && log.contains("builtInMicMuted"))
        #expect(log.contains("\"frame\":\(start),\"time\":0.5,\"type\":\"recordingStarted\",\"session\":\"rec\",\"file\":\"take.wav\""))
        #expect(log.contains("\"type\":\"recordingStopped\""))
    }

    @Test func rendersAreDeterministic() throws {
        let dir = makeTemporaryFolder()
        writeWAV(dir + "/voice.wav", sine(300, rate: Self.rate, seconds: 3), rate: Self.rate, channels: 1)
        var notices: [String] = []
        _ = try render(Self.scene(), in: dir, inputs: [("mic", dir + "/voice.wav")], notices: &notices)
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/take.wav"))
        let oa = try Data(contentsOf: URL(fileURLWithPath: dir + "/out.wav"))
        _ = try render(Self.scene(), in: dir, inputs: [("mic", dir + "/voice.wav")], notices: &notices)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/take.wav")) == a)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out.wav")) == oa)
    }

    @Test func inputAtAnotherRateIsConverted() throws {
        let dir = makeTemporaryFolder()
        writeWAV(dir + "/voice.wav", sine(1000, rate: 44_100, seconds: 3), rate: 44_100, channels: 1)
        var notices: [String] = []
        _ = try render(Self.scene(), in: dir, inputs: [("mic", dir + "/voice.wav")], notices: &notices)
        let take = readWAV(dir + "/take.wav").samples
        let expected = sine(1000, rate: Self.rate, seconds: 3)
        // SNR of the capture against the ideal 48 kHz sine over 0.6…1.4 s.
        var signal = 0.0
        var noise = 0.0
        for f in (Self.rate * 6 / 10)..<(Self.rate * 14 / 10) {
            let e = Double(expected[f])
            signal += e * e
            let d = Double(take[f - Self.rate / 2]) - e
            noise += d * d
        }
        let snr = 10 * log10(signal / noise)
        #expect(snr > 60, "SNR \(snr) dB")
        print("capture of a 44.1 kHz input at 48 kHz: SNR \(String(format: "%.1f", snr)) dB")
    }

    /// A `record` session captures but is not heard (it plays no audio, rule 5): its input is
    /// recorded whole while the output stays silent, whatever the input's gain.
    @Test func recordSessionsRecordButAreNotHeard() throws {
        let dir = makeTemporaryFolder()
        let input = sine(440, rate: Self.rate, seconds: 1, amplitude: 0.5)
        writeWAV(dir + "/voice.wav", input, rate: Self.rate, channels: 1)
        let json = """
            {"duration": 1, "sessions": [{"id": "rec", "category": "record", "recordTo": "take.wav"}],
             "sources": [{"id": "mic", "session": "rec", "input": {"channels": 1}, "gain": 1}],
             "events": [{"at": 0, "session": "rec", "action": "activate"}, {"at": 0, "source": "mic", "action": "play"}]}
            """
        var notices: [String] = []
        _ = try render(json, in: dir, inputs: [("mic", dir + "/voice.wav")], notices: &notices)
        #expect(readWAV(dir + "/take.wav").samples == input)
        #expect(readWAV(dir + "/out.wav").samples.allSatisfy { $0 == 0 })
    }

    @Test func inputWithoutFileCapturesSilenceAndSaysSo() throws {
        let dir = makeTemporaryFolder()
        var notices: [String] = []
        _ = try render(Self.scene(), in: dir, inputs: [], notices: &notices)
        #expect(notices.count == 1 && notices[0].contains("\"mic\""))
        let take = readWAV(dir + "/take.wav")
        #expect(take.samples.count == 3 * Self.rate - Self.rate / 2)
        #expect(take.samples.allSatisfy { $0 == 0 })
    }

    @Test func inputsOnlyInCapturingSessions() throws {
        let json = """
            {"duration": 1, "sessions": [{"id": "p", "category": "playback"}],
             "sources": [{"id": "mic", "session": "p", "input": {"channels": 1}}]}
            """
        #expect(
            throws: SceneError(
                "sources[0].input", "an input needs a session of category record or playAndRecord; session \"p\" is playback")
        ) {
            try Scene.decode(json: json, baseDirectory: "")
        }
        let noInput = """
            {"duration": 1, "sessions": [{"id": "r", "category": "record", "recordTo": "t.wav"}], "sources": []}
            """
        #expect(throws: SceneError("sessions[0].recordTo", "session \"r\" has no input source to record")) {
            try Scene.decode(json: noInput, baseDirectory: "")
        }
        let channels = """
            {"duration": 1, "sessions": [{"id": "r", "category": "record"}],
             "sources": [{"id": "mic", "session": "r", "input": {"channels": 3}}]}
            """
        #expect(throws: SceneError.self) { try Scene.decode(json: channels, baseDirectory: "") }
    }

    @Test func badInputArgumentsFailAndWriteNothing() throws {
        guard let tutti = Tool.tutti else { return }
        let dir = makeTemporaryFolder()
        try Self.scene().write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        try """
        {"duration": 1, "sessions": [{"id": "s", "category": "record"}], "sources": [{"id": "t", "session": "s", "tone": {"frequency": 440}}]}
        """.write(toFile: dir + "/tone.json", atomically: true, encoding: .utf8)
        writeWAV(dir + "/stereo.wav", sine(440, rate: Self.rate, seconds: 1, channels: 2), rate: Self.rate, channels: 2)
        let out = dir + "/out.wav"
        func run(_ scene: String, _ args: [String]) throws -> Tool.Result {
            try Tool.run([tutti, "render", dir + "/" + scene, "-o", out, "--quiet"] + args)
        }
        let unknown = try run("scene.json", ["--input", "mike=\(dir)/stereo.wav"])
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown source \"mike\""), "\(unknown.stderr)")
        let notInput = try run("tone.json", ["--input", "t=\(dir)/stereo.wav"])
        #expect(notInput.status == 64 && notInput.stderr.contains("source \"t\" is not an input"), "\(notInput.stderr)")
        let malformed = try run("scene.json", ["--input", "mic"])
        #expect(malformed.status == 64 && malformed.stderr.contains("ID=FILE"), "\(malformed.stderr)")
        let wrongChannels = try run("scene.json", ["--input", "mic=\(dir)/stereo.wav"])
        #expect(
            wrongChannels.status == 1 && wrongChannels.stderr.contains("stereo.wav: has 2 channels; input \"mic\" takes 1"),
            "\(wrongChannels.stderr)")
        let missing = try run("scene.json", ["--input", "mic=\(dir)/nope.wav"])
        #expect(missing.status == 1 && missing.stderr.contains("nope.wav"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(!FileManager.default.fileExists(atPath: dir + "/take.wav"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
        // No --input: rendered, with one notice on stderr.
        let silent = try run("scene.json", [])
        #expect(silent.status == 0 && silent.stderr.contains("input \"mic\" has no --input"), "\(silent.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/take.wav"))
    }
}
