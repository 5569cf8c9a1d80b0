import Foundation
import Glibc
import Testing
import TuttiTestSupport

/// `tutti play --backend jack --capture-from`: the scene's input source captures from JACK
/// ports, and its session's `recordTo` WAV is written live. The capture is the client's own
/// `out_1` (a loopback), so the take is the played tone one period later.
extension JACKTests {
    @Suite(
        .enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)),
        .enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle (swift build --build-tests builds it)"))
    struct PlayJACKCaptureTests {
        @Test func playCapturesFromPortsAndRecordsTheTakeLive() throws {
            let server = try JACKServer()
            let dir = try PlayJACKCommandTests.workDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let scenePath = dir + "/scene.json"
            try liveCaptureScene.write(toFile: scenePath, atomically: true, encoding: .utf8)
            let play = try Tool.run(
                [Tool.tutti!, "play", scenePath, "--backend", "jack", "--no-connect", "--capture-from", "tutti:out_1"],
                environment: ["JACK_DEFAULT_SERVER": server.name])
            #expect(play.status == 0, "\(play.stderr)")
            #expect(play.stdout.contains("played 3.00 s in "), "\(play.stdout)")
            let take = try Tool.wavFloats(dir + "/take.wav")
            #expect(take.count == 3 * 48_000, "one recorded frame per rendered frame from frame 0: \(take.count)")
            guard take.count == 3 * 48_000 else { return }
            // JACK delays a client's own output by one cycle on its way back in (128 frames).
            #expect(take[0..<128].allSatisfy { $0 == 0 }, "the first cycle hears the silence before rendering")
            #expect(take[128..<256].contains { $0 != 0 }, "the tone from the second cycle on")
            let expected = 0.25 / 2.0.squareRoot()
            let level = 20 * log10(Analysis.rms(take[4_800..<72_000]) / expected)
            var crossings = 0
            for k in 4_801..<72_000 where take[k - 1] < 0 && take[k] >= 0 { crossings += 1 }
            let frequency = Double(crossings) / (Double(72_000 - 4_801) / 48_000)
            print(String(format: "tutti play --backend jack capture: level %+.4f dB, about %.1f Hz", level, frequency))
            #expect(abs(level) < 0.1, "captured level \(level) dB from the played tone's")
            #expect(abs(frequency - 440) < 2, "captured frequency \(frequency) Hz")
            // Muted at 1.5 s (after the 10 ms fade) until played again at 2.5 s: silence.
            let muted = take[(72_000 + 480)..<120_000]
            #expect(muted.allSatisfy { $0 == 0 }, "recording not silent while muted (rms \(Analysis.rms(muted)))")
            #expect(
                abs(20 * log10(Analysis.rms(take[(120_000 + 4_800)...]) / expected)) < 0.1,
                "level after the mic is played again")
        }
    }
}
