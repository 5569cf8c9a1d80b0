import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// Sources through handles: streams at any rate play at their true pitch, underruns are
/// counted, seek / position / duration, fades, removal, and what the render side publishes.
@Suite struct SourceTests {
    @Test(arguments: [(44_100.0, 1), (22_050.0, 2), (96_000.0, 1), (48_000.0, 2)])
    func streamsPlayAtTheirTruePitch(rate: Double, channels: Int) throws {
        let (engine, music, _, _, _) = try makeEngine(channels: 2)
        try music.setActive(true)
        let stream = try music.makeStreamSource(sampleRate: rate, channelCount: channels, capacityFrames: 32_768)
        try stream.play()
        var written = 0
        var out: [Double] = []
        for block in 1...100 {
            // 10 ms of input per 10 ms of output, as a host's producer would.
            let due = Int(rate * Double(block) / 100)
            let chunk = sine(440, rate: rate, frames: written..<due, channels: channels)
            written += try chunk.withUnsafeBufferPointer { try stream.write($0) }
            out += render(engine, frames: 480)
        }
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
        let window = left[12_000..<44_000]
        let f = Analysis.dominantFrequency(window, sampleRate: 48_000, low: 300, high: 600)
        #expect(abs(f - 440) < 0.5, "\(rate) Hz × \(channels): \(f) Hz")
        #expect(abs(Analysis.toneAmplitude(window, frequency: 440, sampleRate: 48_000) - 0.5) < 0.01)
        #expect(left == right) // a mono stream is on both channels
        #expect(try stream.underrunFrames < 2_000) // at most the converter's start-up
    }

    @Test func aStreamWithNoDataPlaysSilenceAndCountsUnderruns() throws {
        let (engine, music, _, _, _) = try makeEngine()
        try music.setActive(true)
        let stream = try music.makeStreamSource(sampleRate: 44_100, channelCount: 1)
        try stream.play()
        let x = render(engine, frames: 4_800)
        #expect(x.allSatisfy { $0 == 0 })
        #expect(try stream.underrunFrames >= 4_000)
        #expect(engine.statistics.underrunFrames == (try stream.underrunFrames))
        let stereo = try music.makeStreamSource(sampleRate: 44_100, channelCount: 2)
        let halfFrame: [Float] = [0, 0, 0]
        let error = #expect(throws: TuttiError.self) { _ = try halfFrame.withUnsafeBufferPointer { try stereo.write($0) } }
        #expect(error?.code == .invalidArgument)
        let seekError = #expect(throws: TuttiError.self) { try stream.seek(to: 10) }
        #expect(seekError?.code == .state)
    }

    @Test func seekPositionAndDuration() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        // A ramp: the sample value says where in the buffer we are.
        let ramp = AudioBuffer(interleaved: (0..<48_000).map { Float($0) / 48_000 }, channelCount: 1, sampleRate: 48_000)
        let src = try s.makeSource(buffer: ramp)
        #expect(try src.duration == 48_000)
        #expect(try src.state == .stopped)
        try s.setActive(true)
        try src.seek(to: 24_000) // while stopped: it starts there (with the resume de-click)
        try src.play()
        var x = render(engine, frames: 1_000)
        #expect(x[600] == Double(Float(24_600) / 48_000))
        #expect(try src.position == 25_000)
        #expect(try src.state == .playing)
        // While playing: fade out (10 ms), jump, fade back in.
        try src.seek(to: 1_000)
        x = render(engine, frames: 2_000)
        #expect(try src.position == 1_000 + 2_000 - 480)
        #expect(abs(x[1_999] - Double(1_000 + 2_000 - 480 - 1) / 48_000) < 1e-6)
        // The jump of 0.5 is faded: no step larger than the fades' slope plus the ramp's.
        let steps = zip(x.dropFirst(), x).map { abs($0 - $1) }
        #expect(steps.max()! < 0.002)
        try src.pause()
        _ = render(engine, frames: 1_024)
        #expect(try src.state == .paused)
        try src.stop()
        _ = render(engine, frames: 1_024)
        #expect(try src.state == .stopped)
        #expect(try src.position == 0)
    }

    @Test func fadesShapePlayAndPause() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let dc = AudioBuffer(interleaved: [Float](repeating: 0.5, count: 96_000), channelCount: 1, sampleRate: 48_000)
        let src = try s.makeSource(buffer: dc)
        try s.setActive(true)
        try src.setFades(inFrames: 4_800, outFrames: 2_400)
        try src.play()
        try src.pause(at: .frame(20_000))
        let x = render(engine, frames: 30_000)
        #expect(x[0] < 0.001)
        #expect(abs(x[2_400] - 0.25) < 0.001) // halfway up the 100 ms fade-in
        #expect(x[4_800] == 0.5)
        #expect(abs(x[21_200] - 0.25) < 0.001) // halfway down the 50 ms fade-out
        #expect(x[22_400...].allSatisfy { $0 == 0 })
        #expect(throws: TuttiError.self) { try src.setFades(inFrames: -1, outFrames: nil) }
    }

    @Test func removingAPlayingSourceFadesItOut() throws {
        let (engine, music, _, song, _) = try makeEngine()
        try music.setActive(true)
        try song.play()
        let before = render(engine, frames: 4_801)
        try song.remove()
        let x = [before.last!] + render(engine, frames: 4_800)
        // A 440 Hz sine at 0.5 moves at most 0.029 per frame: a cut would jump up to 0.5.
        let steps = zip(x.dropFirst(), x).map { abs($0 - $1) }
        #expect(steps.max()! < 0.03)
        #expect(level(x, 1_000..<4_800, 440) < 1e-6)
        #expect(abs(x[1]) > 0.01 || abs(x[2]) > 0.01) // it was still sounding when the fade began
        #expect(engine.statistics.sourceCount == 1)
    }

    @Test func aSourceEndsOnceAndSaysWhen() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let blip = AudioBuffer(interleaved: [Float](repeating: 0.1, count: 4_800), channelCount: 1, sampleRate: 48_000)
        let src = try s.makeSource(buffer: blip)
        try s.setActive(true)
        try src.play(at: .frame(1_000))
        _ = render(engine, frames: 9_000, block: 333)
        #expect(try src.state == .ended)
        let ended = engine.pollEvents().filter { if case .sourceEnded = $0.kind { true } else { false } }
        #expect(ended == [AudioEvent(frame: 5_800, kind: .sourceEnded(source: src.id, session: s.id))])
        #expect(engine.pollEvents().isEmpty) // delivered once
    }
}
