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

    /// A file that streams loops whole only: a region is `state` (nothing changed), a count
    /// applies — heard twice, then it ends.
    @Test func aStreamingFileTakesACountButNoRegion() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let samples = (0..<4_800).map { Float($0 % 100) / 100 }
        writeWAV(dir + "/ramp.wav", samples, rate: 48_000, channels: 1)
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.streamingThresholdSeconds = 0.05
        config.pullRenderWaitsForFiles = true
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let src = try s.makeFileSource(path: dir + "/ramp.wav")
        try s.setActive(true)
        let error = #expect(throws: TuttiError.self) { try src.setLoop(true, startFrame: 100, endFrame: 4_000) }
        #expect(error?.code == .state)
        try src.setLoop(true, count: 1)
        try src.play()
        let x = render(engine, frames: 12_000)
        #expect(Array(x.prefix(9_600)) == (samples + samples).map(Double.init))
        #expect(x.suffix(2_400).allSatisfy { $0 == 0 })
        #expect(try src.state == .ended)
    }

    /// A WAV's `smpl` loop (frames 200 … 499, end inclusive) is the region of a file source
    /// made with `loop` (loaded whole even above the streaming threshold); without `loop` the
    /// file plays through and ends.
    @Test(arguments: [10.0, 0.005]) func aWAVsSampleLoopIsTheRegion(streamingThreshold: Double) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAVWithSampleLoop(dir + "/smpl.wav", (0..<1_000).map { Float($0 + 1) }, rate: 48_000, loopStart: 200, loopEnd: 499)
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.streamingThresholdSeconds = streamingThreshold
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
