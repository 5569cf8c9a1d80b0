import Testing
import Tutti
import TuttiTestSupport

/// A stream that runs out of data reports it: one `sourceUnderrun` event per run of underruns,
/// at the frame its silence begins, and no second one while the first waits to be taken.
@Suite struct UnderrunEventTests {
    func underruns(_ events: [AudioEvent]) -> [(frame: Int64, frames: Int64)] {
        events.compactMap { e in
            if case .sourceUnderrun(_, _, let frames) = e.kind { return (e.frame, frames) }
            return nil
        }
    }

    @Test func aStreamThatRunsDryIsReportedOncePerRun() throws {
        let (engine, music, _, _, _) = try makeEngine()
        // The engine's rate: no conversion, so the data ends exactly where it was written.
        let stream = try music.makeStreamSource(sampleRate: 48_000, channelCount: 1, capacityFrames: 8_192)
        try stream.play()
        // No data at all: one run from frame 0 (256 frames missed in the first block).
        var x = render(engine, frames: 1_024)
        var reported = underruns(engine.pollEvents())
        #expect(reported.count == 1 && reported.first?.frame == 0 && reported.first?.frames == 256, "\(reported)")
        #expect(x.allSatisfy { $0 == 0 })
        // Data for 1 000 frames, then dry again: a second run, where the output falls silent.
        let data = [Float](repeating: 0.5, count: 1_000)
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == 1_000)
        x = render(engine, frames: 2_048)
        reported = underruns(engine.pollEvents())
        let lastSound = try #require(x.lastIndex { $0 != 0 })
        #expect(reported.count == 1, "\(reported)")
        #expect(reported.first?.frame == 1_024 + Int64(lastSound) + 1, "silence from frame \(1_024 + lastSound + 1): \(reported)")
        // A run while the last report waits: not reported again until it is taken.
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == 1_000)
        _ = render(engine, frames: 2_048)
        #expect(try data.withUnsafeBufferPointer { try stream.write($0) } == 1_000)
        _ = render(engine, frames: 2_048)
        reported = underruns(engine.pollEvents())
        #expect(reported.count == 1, "two runs, the second while the first waited: \(reported)")
        // 7 168 frames rendered, 3 000 written (a few dozen of which the converter still holds).
        let missed = try stream.underrunFrames
        #expect(missed >= 7_168 - 3_000 && missed < 7_168 - 3_000 + 200, "underrun frames: \(missed)")
    }

    @Test func buffersAndTonesNeverReportUnderruns() throws {
        let (engine, _, _, song, _) = try makeEngine()
        try song.play()
        _ = render(engine, frames: 48_000)
        #expect(underruns(engine.pollEvents()).isEmpty)
    }
}
