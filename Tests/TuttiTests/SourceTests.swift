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
        // While playing: the old and the new position crossfade over 10 ms from the seek's
        // frame (the start of the next block), so the position runs on from there.
        try src.seek(to: 1_000)
        x = render(engine, frames: 2_000)
        #expect(try src.position == 1_000 + 2_000)
        #expect(abs(x[1_999] - Double(1_000 + 2_000 - 1) / 48_000) < 1e-6)
        // The jump of 0.5 is crossfaded: no step larger than the crossfade's slope plus the ramp's.
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

    /// 1 kHz in the first second, 3 kHz in the second (amplitude 0.5), mono 48 kHz.
    static let twoTones: [Float] = (0..<96_000).map { k in
        Float(0.5 * sin(2 * Double.pi * (k < 48_000 ? 1_000 : 3_000) * Double(k) / 48_000))
    }

    /// A seek while playing is heard at the frame asked: from that frame the old position
    /// fades out and the new one fades in, linearly over the 10 ms de-click (480 frames), the
    /// two gains summing to 1; after that exactly the new material, from the position asked.
    /// The seek's frame is not on a block boundary (the block is split there).
    @Test(arguments: [256, 100]) func seekIsHeardAtTheFrameAsked(block: Int) throws {
        let m = Self.twoTones
        let (f, p) = (10_037, 60_000)
        let (engine, src) = try twoTonesPlaying { try $0.seek(to: Int64(p), at: .frame(Int64(f))) }
        let x = render(engine, frames: 20_000, block: block)
        var worst = 0.0
        for t in 0..<20_000 {
            let new = t >= f ? Double(m[p + t - f]) : 0
            let k = Double(t - f + 1) / 480
            let expected = t < f ? Double(m[t]) : t < f + 480 ? (1 - k) * Double(m[t]) + k * new : new
            worst = max(worst, abs(x[t] - expected))
        }
        #expect(worst < 1e-5)
        // By measurement: the new material's 3 kHz is there in the seek's first block (ramping
        // in: about 0.05 over 100 frames, 0.13 over 256; none before), none of the old 1 kHz
        // once the crossfade is over.
        #expect(level(x, f - 480..<f, 3_000) < 1e-3)
        #expect(level(x, f..<f + block, 3_000) > 0.02)
        #expect(level(x, f + 480..<f + 2_400, 1_000) < 1e-3)
        #expect(abs(level(x, f + 480..<f + 2_400, 3_000) - 0.5) < 0.01)
        // The position ran on from the position asked at the frame asked.
        #expect(try src.position == Int64(p + 20_000 - f))
    }

    /// A seek to just before the end: the new position ends (the source ends there) while
    /// the old one goes on fading out to the end of its 10 ms, then silence.
    @Test func aSeekNearTheEndLetsTheOldPositionFadeOut() throws {
        let m = Self.twoTones
        let (f, p) = (1_000, 96_000 - 200)
        let (engine, src) = try twoTonesPlaying { try $0.seek(to: Int64(p), at: .frame(Int64(f))) }
        let x = render(engine, frames: 3_000)
        var worst = 0.0
        for t in 0..<3_000 {
            let k = Double(t - f + 1) / 480
            let old = t < f ? Double(m[t]) : t < f + 480 ? (1 - k) * Double(m[t]) : 0
            let new = t >= f && t < f + 200 ? k * Double(m[p + t - f]) : 0
            worst = max(worst, abs(x[t] - (old + new)))
        }
        #expect(worst < 1e-5)
        #expect(try src.state == .ended)
        #expect(x[(f + 480)...].allSatisfy { $0 == 0 })
    }

    /// A mono engine playing `twoTones` from frame 0, with `schedule` applied before any
    /// render; the engine and the source.
    func twoTonesPlaying(_ schedule: (SourceHandle) throws -> Void) throws -> (engine: AudioEngine, source: SourceHandle) {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let src = try s.makeSource(buffer: AudioBuffer(interleaved: Self.twoTones, channelCount: 1, sampleRate: 48_000))
        try s.setActive(true)
        try src.play()
        try schedule(src)
        return (engine, src)
    }

    /// A seek's crossfade does not depend on how the blocks fall: the same samples, bit for
    /// bit, in blocks of 256, 100 and 7 frames.
    @Test func aSeeksCrossfadeDoesNotDependOnTheBlockSplit() throws {
        var outputs: [[Double]] = []
        for block in [256, 100, 7] {
            let (engine, _) = try twoTonesPlaying { src in
                try src.seek(to: 60_000, at: .frame(1_001))
                try src.seek(to: 5_000, at: .frame(4_000))
            }
            outputs.append(render(engine, frames: 6_000, block: block))
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0] == outputs[2])
        #expect(outputs[0][1_001..<1_481].contains { $0 != 0 })
    }

    /// A panned source (stereo engine, mono material hard left) crossfades through its pan:
    /// the left channel is the crossfade, the right one stays silent throughout.
    @Test func aPannedSourceCrossfadesThroughItsPan() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 2
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let m = Self.twoTones
        let src = try s.makeSource(buffer: AudioBuffer(interleaved: m, channelCount: 1, sampleRate: 48_000))
        try src.setPan(-1, rampFrames: 0)
        try s.setActive(true)
        try src.play()
        let (f, p) = (1_000, 60_000)
        try src.seek(to: Int64(p), at: .frame(Int64(f)))
        let x = render(engine, frames: 3_000)
        var worst = 0.0
        for t in 0..<3_000 {
            let k = Double(t - f + 1) / 480
            let new = t >= f ? Double(m[p + t - f]) : 0
            let expected = t < f ? Double(m[t]) : t < f + 480 ? (1 - k) * Double(m[t]) + k * new : new
            worst = max(worst, abs(x[2 * t] - expected))
        }
        #expect(worst < 1e-5)
        #expect(stride(from: 1, to: x.count, by: 2).allSatisfy { x[$0] == 0 })
        #expect(x[2 * (f + 10)] != 0)
    }

    /// A negative seek is refused with an error naming the argument and changes nothing: the
    /// source plays on from where it was, no crossfade. (A seek past the end is not an error:
    /// it goes to the end, as documented.)
    @Test func aNegativeSeekIsRefusedAndChangesNothing() throws {
        var handle: SourceHandle?
        let (engine, _) = try twoTonesPlaying { handle = $0 }
        let src = try #require(handle)
        _ = render(engine, frames: 1_000)
        let error = #expect(throws: TuttiError.self) { try src.seek(to: -1) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("seek position") == true)
        let x = render(engine, frames: 1_000)
        #expect(zip(x, Self.twoTones[1_000..<2_000]).allSatisfy { $0 == Double($1) })
        #expect(try src.position == 2_000)
    }

    /// A pause with no fade-out during a seek's crossfade silences both positions at once.
    @Test func aPauseWithoutFadeCutsTheCrossfade() throws {
        let (engine, _) = try twoTonesPlaying { src in
            try src.setFades(inFrames: nil, outFrames: 0)
            try src.seek(to: 60_000, at: .frame(1_000))
            try src.pause(at: .frame(1_100))
        }
        let x = render(engine, frames: 2_000)
        #expect(x[1_000..<1_100].contains { $0 != 0 })
        #expect(x[1_100...].allSatisfy { $0 == 0 })
    }

    /// A second seek while the first one's crossfade still runs: the old position finishes
    /// its fade-out, the first new one fades out over 10 ms, then the second plays from its
    /// position after a 10 ms fade-in (a third read head is not kept).
    @Test func aSeekDuringACrossfadeFadesOutThenJumps() throws {
        let m = Self.twoTones
        let (f, p1, p2) = (1_000, 60_000, 70_000)
        var handle: SourceHandle?
        let (engine, _) = try twoTonesPlaying { src in
            handle = src
            try src.seek(to: Int64(p1), at: .frame(Int64(f)))
            try src.seek(to: Int64(p2), at: .frame(Int64(f + 100)))
        }
        let x = render(engine, frames: 4_000)
        let jump = f + 100 + 480
        #expect(x[jump - 1] == 0)
        var worst = 0.0
        for t in jump + 480..<4_000 { worst = max(worst, abs(x[t] - Double(m[p2 + t - jump]))) }
        #expect(worst < 1e-6)
        #expect(try handle!.position == Int64(p2 + 4_000 - jump))
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
