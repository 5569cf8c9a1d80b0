import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// Streams that end and pass through: at the engine's rate a stream's frames play as written
/// (bit for bit); `endStream` makes every written frame heard — the converter's tail included —
/// then ends the source; a ring that runs dry fades out and back in instead of cutting.
@Suite struct StreamEndTests {
    static func signal(_ k: Int) -> Float { Float(k % 1_000 + 1) / 2_048 }

    func ended(_ events: [AudioEvent]) -> [Int64] {
        events.compactMap { e in
            if case .sourceEnded = e.kind { return e.frame }
            return nil
        }
    }

    @Test func aStreamAtTheEngineRateIsBitTransparentAndItsUnderrunsExact() throws {
        let (engine, music, _, _, _) = try makeEngine()
        let stream = try music.makeStreamSource(sampleRate: 48_000, channelCount: 1, capacityFrames: 65_536)
        let data = (0..<48_000).map(Self.signal)
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == 48_000)
        try stream.play()
        let x = render(engine, frames: 60_000)
        // Frame for frame up to the 2 ms de-click where the data runs out (96 frames).
        let differing = (0..<(48_000 - 96)).filter { Float(x[$0]) != data[$0] }.count
        #expect(differing == 0, "\(differing) frames differ from what was written")
        #expect(try stream.underrunFrames == 12_000)
        #expect(x[48_000..<60_000].allSatisfy { $0 == 0 })
        // The fade-out: down to near silence at the last written frame, no cut.
        #expect(abs(x[47_999]) <= Double(data[47_999]) / 96 && abs(x[47_903] - Double(data[47_903])) < 0.02)
    }

    @Test(arguments: [48_000.0, 44_100.0, 22_050.0])
    func endStreamPlaysEveryFrameThenEnds(rate: Double) throws {
        let (engine, music, _, _, _) = try makeEngine()
        let stream = try music.makeStreamSource(sampleRate: rate, channelCount: 1, capacityFrames: 65_536)
        // One second of a 375 Hz tone at the stream's rate.
        let n = Int(rate)
        let data = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 375 * Double($0) / rate)) }
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == n)
        try stream.endStream()
        try stream.play()
        let x = render(engine, frames: 60_000)
        let frames = ended(engine.pollEvents())
        #expect(frames.count == 1, "\(frames)")
        // The last frame written is heard at 48 000 (± the converter's rounding), then silence.
        let end = try #require(frames.first)
        #expect(abs(end - 48_000) <= 2, "ended at frame \(end)")
        #expect(try stream.underrunFrames == 0)
        #expect(try stream.state == .ended)
        #expect(x[Int(end)...].allSatisfy { $0 == 0 })
        // Full level up to the end: nothing of the tail lost or faded (the last 10 ms measured).
        let tail = x[(Int(end) - 480)..<Int(end)]
        let peak = tail.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.01, "peak of the last 10 ms: \(peak)")
    }

    @Test func endStreamMisuseIsRefused() throws {
        let (_, music, _, song, _) = try makeEngine()
        let stream = try music.makeStreamSource(sampleRate: 44_100, channelCount: 2)
        try stream.endStream()
        let twice = #expect(throws: TuttiError.self) { try stream.endStream() }
        #expect(twice?.code == .state && twice?.message.contains("already ended") == true)
        let write = #expect(throws: TuttiError.self) {
            _ = try [Float](repeating: 0, count: 4).withUnsafeBufferPointer { try stream.write($0) }
        }
        #expect(write?.code == .state && write?.message.contains("endStream") == true, "\(String(describing: write))")
        let tone = #expect(throws: TuttiError.self) { try song.endStream() }
        #expect(tone?.code == .invalidArgument)
        try stream.remove()
        let gone = #expect(throws: TuttiError.self) { try stream.endStream() }
        #expect(gone?.code == .notFound)
    }

    @Test func aDryRingFadesOutAndTheNextDataFadesIn() throws {
        let (engine, music, _, _, _) = try makeEngine()
        let stream = try music.makeStreamSource(sampleRate: 48_000, channelCount: 1, capacityFrames: 8_192)
        let data = [Float](repeating: 0.5, count: 1_000)
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == 1_000)
        try stream.play()
        var x = render(engine, frames: 2_048)
        #expect(x[0] == 0.5 && x[903] == 0.5, "untouched before the fade")
        #expect(x[999] > 0 && x[999] < 0.01, "faded out at the last frame: \(x[999])")
        // No step larger than the fade's (0.5 / 97 per frame) anywhere: no click.
        var worst = 0.0
        for k in 1..<x.count { worst = max(worst, abs(x[k] - x[k - 1])) }
        #expect(worst < 0.006, "largest step \(worst)")
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == 1_000)
        x = render(engine, frames: 1_024)
        #expect(x[0] > 0 && x[0] < 0.01 && x[200] == 0.5, "faded in: \(x[0]), then \(x[200])")
    }
}
