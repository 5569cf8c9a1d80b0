import Foundation
import Glibc
import Testing
import TuttiTestSupport

/// `tutti play --backend pipewire --capture-device testsink.monitor`: the scene's input source
/// captures the null sink's monitor through a PipeWire input stream while the scene plays into
/// the sink, and its session's `recordTo` WAV is written live.
@Suite(
    .enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)),
    .enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle (swift build --build-tests builds it)"))
struct PlayPipeWireCaptureTests {
    /// The take holds the played 440 Hz tone from the loopback's delay on, without a gap, at
    /// the level PipeWire's channel mix gives it (the stereo monitor downmixed to the mic's
    /// one channel: (FL + FR)/√2, +3.01 dB), and silence while the mic is muted.
    @Test func playCapturesTheSinksMonitorAndRecordsTheTakeLive() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-capture")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try liveCaptureScene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let play = try Tool.run(
            [
                Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink, "--period", "1024",
                "--capture-device", PipeWireServer.sink + ".monitor", "--no-mpris",
            ],
            environment: server.clientEnvironment)
        #expect(play.status == 0, "\(play.stderr)")
        #expect(
            play.stderr.contains("capturing input mic from PipeWire stream \"tutti-capture\" from \"testsink.monitor\""), "\(play.stderr)")
        #expect(play.stderr.contains("cycles without a buffer"), "\(play.stderr)")
        let take = try Tool.wavFloats(dir + "/take.wav")
        #expect(take.count == 3 * 48_000, "one recorded frame per rendered frame from frame 0: \(take.count)")
        guard take.count == 3 * 48_000 else { return }
        let first = try #require(take.firstIndex { $0 != 0 }, "the take is silent")
        #expect(first < 4_800, "the tone arrives after \(first) frames")
        // No gap: no run of 4 zeros between the loopback's first frame and the mute at 1.5 s.
        var run = 0
        var longest = 0
        for k in first..<72_000 {
            run = take[k] == 0 ? run + 1 : 0
            longest = max(longest, run)
        }
        #expect(longest < 4, "a run of \(longest) zeros in the take before the mute")
        let expected = 0.25 // the tone's rms, 0.25/√2, times √2 from the downmix
        let level = 20 * log10(Analysis.rms(take[(first + 4_800)..<72_000]) / expected)
        var crossings = 0
        for k in (first + 4_801)..<72_000 where take[k - 1] < 0 && take[k] >= 0 { crossings += 1 }
        let frequency = Double(crossings) / (Double(72_000 - first - 4_801) / 48_000)
        print(
            String(format: "tutti play --backend pipewire capture: delay %d frames, level %+.4f dB, about %.1f Hz", first, level, frequency)
        )
        #expect(abs(level) < 0.1, "captured level \(level) dB from the expected")
        #expect(abs(frequency - 440) < 2, "captured frequency \(frequency) Hz")
        let muted = take[(72_000 + 480)..<120_000]
        #expect(muted.allSatisfy { $0 == 0 }, "recording not silent while muted (rms \(Analysis.rms(muted)))")
    }

    /// `--capture-device` naming no source of the daemon: exit 1 before anything plays or is
    /// recorded, the library's error under the option's name, listing the sources.
    @Test func anUnknownCaptureDeviceListsTheSources() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let dir = makeTemporaryFolder("tutti-pw-capture-unknown")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try liveCaptureScene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let play = try Tool.run(
            [
                Tool.tutti!, "play", dir + "/scene.json", "--backend", "pipewire", "--target", PipeWireServer.sink,
                "--capture-device", "nosuch", "--no-mpris",
            ],
            environment: server.clientEnvironment)
        #expect(play.status == 1, "\(play.stderr)")
        #expect(
            play.stderr.contains(
                "tutti: error: --capture-device \"nosuch\": no PipeWire source has that node.name or object.serial "
                    + "(the sources: testsink.monitor); `tutti devices --backend pipewire` lists them"), "\(play.stderr)")
        #expect(!play.stdout.contains("played") && !play.stderr.contains("capturing input"), "\(play.stdout)\(play.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/take.wav"), "a take was written")
    }
}
