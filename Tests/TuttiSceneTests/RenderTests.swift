import CSndFile
import Foundation
import Testing
import TuttiDSP
import TuttiScene
import TuttiTestSupport

@Suite struct RenderTests {
    @Test func fileSourcesMixExactly() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = sine(440, rate: 48_000, seconds: 1, amplitude: 0.8, channels: 2)
        var rng = SystemRandomNumberGenerator()
        let b = (0..<96_000).map { _ in Float.random(in: -0.9...0.9, using: &rng) }
        writeWAV(dir + "/a.wav", a, rate: 48_000, channels: 2)
        writeWAV(dir + "/b.wav", b, rate: 48_000, channels: 2)
        let out = try renderScene(
            """
            {"duration": 1, "sessions": [{"id": "s", "category": "playback", "options": ["mixWithOthers"]}],
             "sources": [{"id": "a", "session": "s", "file": "a.wav", "gain": 0.5}, {"id": "b", "session": "s", "file": "b.wav", "gain": 0.25}],
             "events": [{"at": 0, "session": "s", "action": "activate"},
                        {"at": 0, "source": "a", "action": "play"}, {"at": 0, "source": "b", "action": "play"}]}
            """, in: dir)
        let y = readWAV(out).samples
        #expect(y.count == a.count)
        var err = 0.0
        var ref = 0.0
        for i in 0..<y.count {
            let e = 0.5 * Double(a[i]) + 0.25 * Double(b[i])
            err += (Double(y[i]) - e) * (Double(y[i]) - e)
            ref += e * e
        }
        let residual = err == 0 ? -Double.infinity : 10 * log10(err / ref)
        #expect(residual <= -120, "residual \(residual) dB")
    }

    func toneFileScene(_ dir: String, freq: Double) throws -> [Double] {
        writeWAV(dir + "/tone.wav", sine(freq, rate: 44_100, seconds: 1.2), rate: 44_100, channels: 1)
        let out = try renderScene(
            """
            {"duration": 1, "engine": {"channels": 1},
             "sessions": [{"id": "s", "category": "playback"}],
             "sources": [{"id": "t", "session": "s", "file": "tone.wav"}],
             "events": [{"at": 0, "session": "s", "action": "activate"}, {"at": 0, "source": "t", "action": "play"}]}
            """, in: dir)
        return readWAV(out).samples.map(Double.init)
    }

    @Test func oneKilohertzFileAt44100RendersCleanAt48000() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let y = try toneFileScene(dir, freq: 1000)
        let mid = y[8_000..<40_000]
        #expect(abs(Analysis.dominantFrequency(mid, sampleRate: 48_000, low: 900, high: 1100) - 1000) < 0.05)
        let fit = Analysis.fitSine(mid, frequency: 1000, sampleRate: 48_000)
        let snr = Analysis.dB(fit.amplitude / 2.squareRoot() / fit.residualRMS)
        #expect(snr >= 100, "SNR \(snr) dB")
    }

    @Test func twentyKilohertzFileLeavesNoAlias() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let y = try toneFileScene(dir, freq: 20_000)
        let mid = y[8_000..<40_000]
        let fit = Analysis.fitSine(mid, frequency: 20_000, sampleRate: 48_000)
        let rest = Analysis.dB(fit.residualRMS / (fit.amplitude / 2.squareRoot()))
        #expect(rest <= -100, "everything but the tone at \(rest) dB")
    }

    @Test(arguments: ["demo.json", "navigation.json", "blog-app.json"])
    func sameSceneSameBytes(scene: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = Tool.fixtures + "/scenes/" + scene
        for (i, format) in [SampleFormat.float32, .s16].enumerated() {
            _ = try OfflineRenderer.renderFile(
                scenePath: path, outputPath: dir + "/a\(i).wav", eventsPath: dir + "/a\(i).jsonl", format: format)
            _ = try OfflineRenderer.renderFile(
                scenePath: path, outputPath: dir + "/b\(i).wav", eventsPath: dir + "/b\(i).jsonl", format: format)
            let a = FileManager.default.contents(atPath: dir + "/a\(i).wav")!
            let b = FileManager.default.contents(atPath: dir + "/b\(i).wav")!
            #expect(a.count > 100_000)
            #expect(a == b)
            #expect(
                FileManager.default.contents(atPath: dir + "/a\(i).jsonl") == FileManager.default.contents(atPath: dir + "/b\(i).jsonl"))
        }
    }

    @Test(arguments: [(SampleFormat.s16, 16), (.s24, 24)])
    func integerOutputIsAValidDitheredWAV(format: SampleFormat, bits: Int) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try renderScene(
            """
            {"duration": 1, "sessions": [{"id": "s", "category": "playback"}],
             "sources": [{"id": "t", "session": "s", "tone": {"frequency": 1000, "amplitude": 0.5}}],
             "events": [{"at": 0, "session": "s", "action": "activate"}, {"at": 0.5, "source": "t", "action": "play"}]}
            """, in: dir, format: format)
        // sox reads it and agrees on the format.
        let info = try Tool.runMerged(["/usr/bin/soxi", out])
        #expect(info.status == 0, "soxi: \(info.output)")
        #expect(info.output.contains("Precision      : \(bits)-bit"))
        #expect(info.output.contains("Sample Rate    : 48000"))
        #expect(info.output.contains("Channels       : 2"))
        let stat = try Tool.runMerged(["/usr/bin/sox", out, "-n", "stat"])
        #expect(stat.status == 0, "sox stat: \(stat.output)")
        // Dithered: the silent first half is ±1 LSB noise, not digital zero.
        let y = readWAV(out).samples
        let lsb = Float(1.0 / Double(1 << (bits - 1)))
        let silent = y[0..<(24_000 * 2)]
        #expect(silent.contains { $0 != 0 })
        #expect(silent.allSatisfy { abs($0) <= 2 * lsb })
        // And the tone is still there at the right level.
        let tone = y[(30_000 * 2)...].enumerated().filter { $0.offset % 2 == 0 }.map { Double($0.element) }
        #expect(abs(Analysis.fitSine(tone[...], frequency: 1000, sampleRate: 48_000).amplitude - 0.5) < 0.001)
    }

    @Test func cliReportsErrorsAndExitsNonZero() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tutti = Tool.tuttiPath
        try #"{"duration": 1, "events": [{"at": 0, "remote": "plya"}]}"#.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let r = try Tool.runMerged([tutti, "render", dir + "/bad.json", "-o", dir + "/out.wav", "--quiet"])
        #expect(r.status == 1)
        #expect(r.output.contains(#"events[0].remote: unknown remote command "plya" (did you mean "play"?)"#), "\(r.output)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
        let usage = try Tool.runMerged([tutti, "render"])
        #expect(usage.status == 64)
        let good = try Tool.runMerged([
            tutti, "render", Tool.fixtures + "/scenes/voip.json", "-o", dir + "/voip.wav", "--format", "s24", "--quiet",
        ])
        #expect(good.status == 0, "\(good.output)")
        #expect(FileManager.default.fileExists(atPath: dir + "/voip.wav"))
        // --plot: an unknown extension or an unwritable folder is a usage error, and nothing is rendered.
        for plot in [dir + "/t.png", dir + "/missing/t.svg"] {
            let bad = try Tool.runMerged([
                tutti, "render", Tool.fixtures + "/scenes/voip.json", "-o", dir + "/p.wav", "--plot", plot, "--quiet",
            ])
            #expect(bad.status == 64, "\(bad.output)")
            #expect(bad.output.contains("--plot \(plot)"), "\(bad.output)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/p.wav"))
        }
        let plotted = try Tool.runMerged([
            tutti, "render", Tool.fixtures + "/scenes/voip.json", "-o", dir + "/p.wav", "--plot", dir + "/voip.svg", "--quiet",
        ])
        #expect(plotted.status == 0, "\(plotted.output)")
        #expect(try String(contentsOfFile: dir + "/voip.svg", encoding: .utf8).contains("<g class=\"lane session\""))
    }

}

@Suite struct LengthTests {
    /// A tone system sound whose stop falls mid-block after the last event: the file still
    /// has exactly round(duration × rate) frames.
    @Test func outputHasExactlyTheSceneLength() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try renderScene(
            """
            {"duration": 1.0, "engine": {"blockFrames": 256}, "sessions": [],
             "events": [{"at": 0.1, "system": "systemSound", "tone": {"frequency": 2000}, "duration": 0.0333}]}
            """, in: dir)
        #expect(readWAV(out).samples.count == 48_000 * 2)
    }
}
