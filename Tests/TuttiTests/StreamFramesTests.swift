import Testing
import Tutti
import TuttiTestSupport

/// `SourceHandle.write(interleaved:frameCount:)`: streams written by frame count (the C ABI's
/// `tutti_stream_write`) take whole frames of the stream's channel count, up to what fits.
@Suite struct StreamFramesTests {
    @Test func writesWholeFramesUpToWhatFits() throws {
        let (engine, music, _, song, _) = try makeEngine(channels: 2)
        let stream = try music.makeStreamSource(sampleRate: 48_000, channelCount: 2, capacityFrames: 1_024)
        let frames = [Float]((0..<4_096).map { _ in [Float(0.25), -0.25] }.joined())
        let taken = try frames.withUnsafeBufferPointer { try stream.write(interleaved: $0.baseAddress!, frameCount: 4_096) }
        #expect(taken >= 1_024 && taken < 4_096, "a 1024-frame stream took \(taken) frames")
        let more = try frames.withUnsafeBufferPointer { try stream.write(interleaved: $0.baseAddress!, frameCount: 16) }
        #expect(more == 0) // full
        try stream.play()
        let x = render(engine, frames: 512)
        // Left and right stay apart: the frames were read as stereo frames.
        #expect(abs(x[2 * 500] - 0.25) < 1e-3 && abs(x[2 * 500 + 1] + 0.25) < 1e-3, "\(x[1_000]) \(x[1_001])")

        let notAStream = #expect(throws: TuttiError.self) {
            _ = try frames.withUnsafeBufferPointer { try song.write(interleaved: $0.baseAddress!, frameCount: 1) }
        }
        #expect(notAStream?.code == .invalidArgument)
        let negative = #expect(throws: TuttiError.self) {
            _ = try frames.withUnsafeBufferPointer { try stream.write(interleaved: $0.baseAddress!, frameCount: -1) }
        }
        #expect(negative?.code == .invalidArgument)
        try stream.remove()
        let stale = #expect(throws: TuttiError.self) {
            _ = try frames.withUnsafeBufferPointer { try stream.write(interleaved: $0.baseAddress!, frameCount: 1) }
        }
        #expect(stale?.code == .notFound)
    }
}
