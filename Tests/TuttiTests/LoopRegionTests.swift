import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// Loop regions of buffer sources (`SourceHandle.setLoop(_:startFrame:endFrame:count:at:)`):
/// the wrap is sample-exact whatever the block split, a count lets the region repeat that
/// many times and then plays on to the end, bad arguments change nothing.
@Suite struct LoopRegionTests {
    /// A mono 48 kHz engine (no conversion: the buffer plays bit for bit) with an active
    /// session and a buffer source whose frame k holds k + 1.
    func rampSource(frames: Int = 1_000) throws -> (engine: AudioEngine, session: SessionHandle, source: SourceHandle) {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let ramp = AudioBuffer(interleaved: (0..<frames).map { Float($0 + 1) }, channelCount: 1, sampleRate: 48_000)
        let src = try s.makeSource(buffer: ramp)
        try s.setActive(true)
        return (engine, s, src)
    }

    /// The samples a source plays: frame k of the buffer is k + 1.
    func values(_ frames: [Int]) -> [Double] { frames.map { Double($0 + 1) } }

    /// 0 ..< 500, then 200 ..< 500 over and over, sample for sample, with blocks that split
    /// the seam anywhere; the position counts source frames.
    @Test(arguments: [256, 100, 7, 300]) func anEndlessRegionLoopsSampleExactly(block: Int) throws {
        let (engine, _, src) = try rampSource()
        try src.setLoop(true, startFrame: 200, endFrame: 500)
        try src.play()
        let x = render(engine, frames: 2_000, block: block)
        var expected = Array(0..<500)
        while expected.count < 2_000 { expected += Array(200..<500) }
        #expect(x == values(Array(expected.prefix(2_000))))
        // 2000 = 500 + 5 × 300: the next frame is the region's start again.
        #expect(try src.position == 200)
        #expect(try src.state == .playing)
    }

    /// `count` 2: the region is heard three times, then the buffer plays on to its end and
    /// ends (`sourceEnded` at the frame after its last sample); a play after the end starts
    /// the count over.
    @Test(arguments: [256, 99]) func aCountRepeatsTheRegionThenPlaysToTheEnd(block: Int) throws {
        let (engine, s, src) = try rampSource()
        try src.setLoop(true, startFrame: 200, endFrame: 500, count: 2)
        try src.play()
        let x = render(engine, frames: 2_000, block: block)
        let heard = Array(0..<500) + Array(200..<500) + Array(200..<500) + Array(500..<1_000)
        #expect(heard.count == 1_600)
        #expect(Array(x.prefix(1_600)) == values(heard))
        #expect(x.suffix(400).allSatisfy { $0 == 0 })
        #expect(try src.state == .ended)
        let ended = engine.pollEvents().filter { if case .sourceEnded = $0.kind { true } else { false } }
        #expect(ended == [AudioEvent(frame: 1_600, kind: .sourceEnded(source: src.id, session: s.id))])
        try src.play()
        let again = render(engine, frames: 1_600, block: block)
        #expect(again == values(heard))
    }

    /// The whole buffer with a count: heard `count` + 1 times, then it ends.
    @Test func aCountOnTheWholeBuffer() throws {
        let (engine, _, src) = try rampSource(frames: 100)
        try src.setLoop(true, count: 1)
        try src.play()
        let x = render(engine, frames: 300)
        #expect(Array(x.prefix(200)) == values(Array(0..<100) + Array(0..<100)))
        #expect(x.suffix(100).allSatisfy { $0 == 0 })
        #expect(try src.state == .ended)
    }

    /// A seek past the region's end plays on to the buffer's end, then wraps to the region's
    /// start; `setLoop(false)` lets a looping source end at its end.
    @Test func pastTheRegionItWrapsAtTheEndAndLoopCanBeTurnedOff() throws {
        let (engine, _, src) = try rampSource()
        try src.setLoop(true, startFrame: 200, endFrame: 500)
        try src.seek(to: 900)
        try src.play()
        // Resuming mid-way fades in over 10 ms (480 frames): compare after it.
        let x = render(engine, frames: 600)
        let expected = values(Array(900..<1_000) + Array(200..<500) + Array(200..<400))
        #expect(Array(x[480...]) == Array(expected[480...]))
        try src.setLoop(false)
        let y = render(engine, frames: 1_000)
        #expect(Array(y.prefix(600)) == values(Array(400..<1_000)))
        #expect(y.suffix(400).allSatisfy { $0 == 0 })
        #expect(try src.state == .ended)
    }

    /// Bad arguments throw `invalidArgument` naming the argument (a streaming file's region
    /// `state`), and nothing changes: the region set before still plays.
    @Test func badArgumentsAreRefusedAndChangeNothing() throws {
        let (engine, s, src) = try rampSource()
        try src.setLoop(true, startFrame: 200, endFrame: 500)
        let cases: [(start: Int64, end: Int64?, count: Int?, name: String)] = [
            (-1, 500, nil, "startFrame"),
            (0, 1_001, nil, "endFrame"),
            (300, 300, nil, "endFrame"),
            (400, 300, nil, "endFrame"),
            (1_000, nil, nil, "endFrame"),
            (0, 500, 0, "count"),
            (0, 500, -1, "count"),
        ]
        for c in cases {
            let error = #expect(throws: TuttiError.self) { try src.setLoop(false, startFrame: c.start, endFrame: c.end, count: c.count) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains(c.name) == true, "\(c): \(error?.message ?? "")")
        }
        let tone = try s.makeToneSource(frequency: 440, amplitude: 0.5)
        let toneError = #expect(throws: TuttiError.self) { try tone.setLoop(true) }
        #expect(toneError?.code == .invalidArgument)
        try src.play()
        let x = render(engine, frames: 1_100)
        #expect(x == values(Array(0..<500) + Array(200..<500) + Array(200..<500)))
    }

    /// A mono 48 kHz engine whose pull render waits for file data (deterministic), streaming
    /// files longer than `streamingThreshold` seconds.
    func fileEngine(streamingThreshold: Double) throws -> (engine: AudioEngine, session: SessionHandle) {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.streamingThresholdSeconds = streamingThreshold
        config.pullRenderWaitsForFiles = true
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        try s.setActive(true)
        return (engine, s)
    }

    /// A file that streams loops a region as the same file held in memory does: null test of
    /// the two renders (a file at the engine rate: identical, sample for sample; one at
    /// 44.1 kHz, converted: after each seam the converter restarts a little before the
    /// region's start, so the samples differ by less than 1e-5 of full scale: 3.6e-7 measured), with
    /// or without a count, blocks splitting the seam anywhere. A count of 2 plays the region
    /// three times, then the file on to its end, and the source ends.
    @Test(arguments: [(48_000, nil, 256), (48_000, 2, 100), (44_100, nil, 256), (44_100, 2, 333)] as [(Int, Int?, Int)])
    func aStreamingFileLoopsARegionAsABufferDoes(rate: Int, count: Int?, block: Int) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 0.5 s of a 440 Hz tone over a slow ramp (every frame distinct).
        let n = rate / 2
        let samples = (0..<n).map { k in Float(0.5 * sin(2 * Double.pi * 440 * Double(k) / Double(rate)) + 0.4 * Double(k) / Double(n)) }
        writeWAV(dir + "/tone.wav", samples, rate: rate, channels: 1)
        func run(streamingThreshold: Double) throws -> (x: [Double], ended: Bool) {
            let (engine, s) = try fileEngine(streamingThreshold: streamingThreshold)
            let src = try s.makeFileSource(path: dir + "/tone.wav")
            try src.setLoop(true, startFrame: 5_000, endFrame: 9_000, count: count)
            try src.play()
            var x = render(engine, frames: 48_000, block: block)
            let ended = try src.state == .ended
            if count != nil {
                // Played again after its end: the count starts over (the stream's data after the
                // file's end already follows it).
                try src.play()
                x += render(engine, frames: 36_000, block: block)
            }
            return (x, ended)
        }
        let loaded = try run(streamingThreshold: 10)
        let streamed = try run(streamingThreshold: 0.05)
        let worst = zip(loaded.x, streamed.x).map { abs($0 - $1) }.max() ?? 0
        if rate == 48_000 {
            #expect(worst == 0, "largest difference \(worst)")
        } else {
            #expect(worst < 1e-5, "largest difference \(worst)")
        }
        // The region did loop: 9 000 frames in, playback is back at 5 000.
        #expect(abs(streamed.x[9_000] - loaded.x[5_000]) < 1e-3)
        if count == 2 {
            // 9 000 + 2 × 4 000 + (24 000 − 9 000) = 32 000 frames, then silence.
            #expect(streamed.x[31_000..<32_000].contains { $0 != 0 })
            #expect(streamed.x[32_000..<48_000].allSatisfy { $0 == 0 })
            #expect(streamed.ended && loaded.ended)
            // The second play is the first again, sample for sample.
            #expect(Array(streamed.x[48_000..<80_000]) == Array(streamed.x[0..<32_000]))
        } else {
            #expect(!streamed.ended)
            #expect(streamed.x[40_000...].contains { $0 != 0 })
        }
    }

    /// A streaming sine looped on whole periods: the second-difference detector finds no
    /// click at any seam (nothing is faded, dropped or repeated there), and the ring never
    /// ran dry.
    @Test func aStreamingRegionSeamHasNoClick() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 375 Hz: a period of exactly 128 frames at 48 kHz; the region is 30 periods.
        let samples = (0..<24_000).map { Float(0.5 * sin(2 * Double.pi * Double($0) / 128)) }
        writeWAV(dir + "/sine.wav", samples, rate: 48_000, channels: 1)
        let (engine, s) = try fileEngine(streamingThreshold: 0.05)
        let src = try s.makeFileSource(path: dir + "/sine.wav")
        try src.setLoop(true, startFrame: 1_280, endFrame: 1_280 + 30 * 128)
        try src.play()
        let x = render(engine, frames: 24_000, block: 480)
        #expect(Analysis.clicks(x, reference: 100..<1_000) == [])
        #expect(try src.underrunFrames == 0)
        #expect(try src.position == 1_280 + (24_000 - 1_280) % (30 * 128))
    }

    /// A seek past the region's end on a file that streams: it plays on to the file's end,
    /// then wraps to the region's start (as a buffer does), and loops the region from there.
    @Test func aStreamingFileSeekedPastTheRegionWrapsAtItsEnd() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/ramp.wav", (0..<4_800).map { Float($0 + 1) }, rate: 48_000, channels: 1)
        let (engine, s) = try fileEngine(streamingThreshold: 0.05)
        let src = try s.makeFileSource(path: dir + "/ramp.wav")
        try src.setLoop(true, startFrame: 1_000, endFrame: 2_000)
        try src.play()
        _ = render(engine, frames: 500)
        try src.seek(to: 3_000)
        let y = render(engine, frames: 6_000)
        let last = try #require(y.firstIndex(of: 4_800))
        #expect(Array(y[(last + 1)...].prefix(2_500)) == values(Array(1_000..<2_000) + Array(1_000..<2_000) + Array(1_000..<1_500)))
    }

    /// Bad regions on a file that streams keep the errors of one held in memory (nothing
    /// changes: it still plays the whole file, then ends).
    @Test func aStreamingFileRefusesABadRegion() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let samples = (0..<4_800).map { Float($0 % 100) / 100 }
        writeWAV(dir + "/ramp.wav", samples, rate: 48_000, channels: 1)
        let (engine, s) = try fileEngine(streamingThreshold: 0.05)
        let src = try s.makeFileSource(path: dir + "/ramp.wav")
        let cases: [(start: Int64, end: Int64?, name: String)] = [(0, 4_801, "endFrame"), (100, 100, "endFrame"), (-1, 100, "startFrame")]
        for c in cases {
            let error = #expect(throws: TuttiError.self) { try src.setLoop(true, startFrame: c.start, endFrame: c.end) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains(c.name) == true, "\(c): \(error?.message ?? "")")
        }
        try src.play()
        let x = render(engine, frames: 6_000)
        #expect(Array(x.prefix(4_800)) == samples.map(Double.init))
        #expect(x.suffix(1_200).allSatisfy { $0 == 0 })
        #expect(try src.state == .ended)
    }

    /// A file that streams takes a count on its whole length too — heard twice, then it ends
    /// — and a region set while it plays takes over from where it is.
    @Test func aStreamingFileTakesACountAndARegionWhilePlaying() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let samples = (0..<4_800).map { Float($0 + 1) }
        writeWAV(dir + "/ramp.wav", samples, rate: 48_000, channels: 1)
        let (engine, s) = try fileEngine(streamingThreshold: 0.05)
        let src = try s.makeFileSource(path: dir + "/ramp.wav")
        try src.setLoop(true, count: 1)
        try src.play()
        let x = render(engine, frames: 12_000)
        #expect(Array(x.prefix(9_600)) == (samples + samples).map(Double.init))
        #expect(x.suffix(2_400).allSatisfy { $0 == 0 })
        #expect(try src.state == .ended)
        // Playing: at frame 1 000 the region 2 000 ..< 3 000 (count 1) takes over.
        try src.play()
        _ = render(engine, frames: 1_000)
        try src.setLoop(true, startFrame: 2_000, endFrame: 3_000, count: 1)
        let y = render(engine, frames: 6_000)
        let heard = Array(1_000..<3_000) + Array(2_000..<4_800)
        #expect(Array(y.prefix(heard.count)) == values(heard))
        #expect(y.suffix(6_000 - heard.count).allSatisfy { $0 == 0 })
    }

    /// A WAV's `smpl` loop (frames 200 … 499, end inclusive) is the region of a file source
    /// made with `loop`, held in memory or streaming (above the streaming threshold; the pull
    /// render waits for its data); without `loop` the file plays through and ends.
    @Test(arguments: [10.0, 0.005]) func aWAVsSampleLoopIsTheRegion(streamingThreshold: Double) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAVWithSampleLoop(dir + "/smpl.wav", (0..<1_000).map { Float($0 + 1) }, rate: 48_000, loopStart: 200, loopEnd: 499)
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.streamingThresholdSeconds = streamingThreshold
        config.pullRenderWaitsForFiles = true
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        try s.setActive(true)
        let looped = try s.makeFileSource(path: dir + "/smpl.wav", loop: true)
        try looped.play()
        let x = render(engine, frames: 1_100)
        #expect(x == values(Array(0..<500) + Array(200..<500) + Array(200..<500)))
        try looped.remove()
        _ = render(engine, frames: 1_000)
        let plain = try s.makeFileSource(path: dir + "/smpl.wav")
        try plain.play()
        let y = render(engine, frames: 1_100)
        #expect(y == values(Array(0..<1_000)) + [Double](repeating: 0, count: 100))
    }

    /// A seek while a region loops: the old position's crossfade tail wraps through the region
    /// as the source does. Null test against the same loop written out (unrolled) in a buffer
    /// that does not loop: the two renders are identical, sample for sample.
    @Test(arguments: [nil, 1] as [Int?]) func aSeeksTailWrapsThroughTheRegion(count: Int?) throws {
        let (engine, s, src) = try rampSource()
        try src.setLoop(true, startFrame: 200, endFrame: 500, count: count)
        var frames = Array(0..<500)
        if count == 1 {
            frames += Array(200..<500) + Array(500..<1_000)
        } else {
            while frames.count < 3_000 { frames += Array(200..<500) }
        }
        let unrolled = AudioBuffer(interleaved: frames.map { Float($0 + 1) }, channelCount: 1, sampleRate: 48_000)
        let reference = try s.makeSource(buffer: unrolled)
        func run(_ source: SourceHandle) throws -> [Double] {
            try source.play()
            var x = render(engine, frames: 450)
            try source.seek(to: 100)
            x += render(engine, frames: 1_500, block: 128)
            try source.stop()
            _ = render(engine, frames: 1_000)
            return x
        }
        let looped = try run(src)
        let written = try run(reference)
        let firstDifference = zip(looped, written).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "first difference: \(String(describing: firstDifference))")
        // The crossfade did happen (not a jump): the frame after the seek mixes both positions.
        #expect(looped[450] != 101 && looped[450] != 451)
    }
}
