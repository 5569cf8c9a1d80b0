import Foundation
import Testing
import Tutti
import TuttiTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// File sources through the host API, and an output device driving the engine.
@Suite struct FileAndOutputTests {
    static let audio = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fixtures/audio")
        .standardized.path

    @Test func aFileAtAnotherRatePlaysAtTheEngineRate() throws {
        let (engine, music, _, _, _) = try makeEngine()
        try music.setActive(true)
        let sine = try music.makeFileSource(path: Self.audio + "/sine1k-44100-mono.wav")
        #expect(try sine.duration == 48_000) // 1 s at 44.1 kHz → 48 000 frames at 48 kHz
        try sine.play()
        let x = render(engine, frames: 48_000)
        #expect(abs(Analysis.dominantFrequency(x[4_800..<43_200], sampleRate: 48_000, low: 900, high: 1_100) - 1_000) < 0.5)
        #expect(abs(level(x, 4_800..<43_200, 1_000) - 0.5) < 0.01)
    }

    @Test func badFilesFailAtCreationNamingThePath() throws {
        let (engine, music, _, _, _) = try makeEngine()
        let dir = makeTemporaryFolder("tutti-files")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = dir + "/notes.wav"
        try "not audio".write(toFile: text, atomically: true, encoding: .utf8)
        let fifo = dir + "/pipe.wav"
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [(String, TuttiError.Code)] = [(dir + "/missing.wav", .io), (dir, .io), (fifo, .io), (text, .format)]
        for (path, code) in cases {
            do {
                _ = try music.makeFileSource(path: path)
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.code == code, "\(path): \(error)")
                #expect(error.message.contains(path))
            }
        }
        #expect(engine.statistics.sourceCount == 2)
    }

    @Test func anOutputOwnsTheClockUntilItStops() throws {
        let (engine, music, _, song, _) = try makeEngine(channels: 2)
        try music.setActive(true)
        try song.play()
        var bad = OutputConfiguration()
        bad.periodFrames = 3
        #expect(throws: TuttiError.self) { try engine.startOutput(bad) }
        var config = OutputConfiguration()
        config.device = "null" // alsa-lib's null PCM: accepts everything, needs no sound card
        config.periodFrames = 256
        #expect(engine.outputBackend == nil)
        try engine.startOutput(config)
        #expect(engine.isOutputRunning)
        #expect(engine.outputBackend == .alsa)
        let again = #expect(throws: TuttiError.self) { try engine.startOutput(config) }
        #expect(again?.code == .state)
        let deadline = Date().addingTimeInterval(5)
        while engine.framesRendered < 48_000, Date() < deadline { usleep(1_000) }
        #expect(engine.framesRendered >= 48_000)
        var buffer = [Float](repeating: 1, count: 512)
        #expect(!buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frameCount: 256) })
        #expect(buffer.allSatisfy { $0 == 0 })
        #expect(engine.statistics.latencyFrames > 0)
        engine.stopOutput()
        #expect(!engine.isOutputRunning)
        #expect(engine.outputBackend == nil)
        #expect(buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frameCount: 256) })
        var missing = OutputConfiguration()
        missing.device = "no-such-pcm-anywhere"
        let error = #expect(throws: TuttiError.self) { try engine.startOutput(missing) }
        #expect(error?.code == .device)
        #expect(error?.message.contains("no-such-pcm-anywhere") == true)
    }

    /// `busDestinations`: each output bus past main on its own ALSA PCM (alsa-lib's `null`),
    /// bad names and counts refused before anything opens.
    @Test func routesPlayOnTheirOwnPCMs() throws {
        var engineConfig = AudioEngineConfiguration()
        engineConfig.outputBuses = ["main", "cue"]
        let engine = try AudioEngine(configuration: engineConfig)
        var config = OutputConfiguration()
        config.device = "null"
        config.periodFrames = 256
        for (destinations, text) in [
            (["booth": ["null"]], "no output bus \"booth\" (the engine's buses: main, cue)"),
            (["cue": ["null", "null"]], "ALSA takes one PCM per output bus, got 2"),
            (["cue": ["no-such-pcm-anywhere"]], "output bus cue (PCM \"no-such-pcm-anywhere\")"),
        ] {
            config.busDestinations = destinations
            let error = #expect(throws: TuttiError.self) { try engine.startOutput(config) }
            #expect(error?.message.contains(text) == true, "\(error?.message ?? "")")
            #expect(!engine.isOutputRunning)
        }
        config.busDestinations = ["cue": ["null"]]
        try engine.startOutput(config)
        let deadline = Date().addingTimeInterval(5)
        while engine.framesRendered < 48_000, Date() < deadline { usleep(1_000) }
        #expect(engine.framesRendered >= 48_000)
        engine.stopOutput()
        #expect(!engine.isOutputRunning)
    }
}
