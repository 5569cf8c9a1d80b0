import Foundation
import Testing
import TuttiDSP

/// The chunked converter gives the whole-buffer conversion's samples to the bit, whatever
/// sizes the input is pushed in and the output pulled in, for every quality.
@Suite struct ChunkedResamplerTests {
    /// Deterministic stereo material: two tones and a little noise.
    static func material(frames: Int) -> [Float] {
        var rng = XorShift32(seed: 7)
        var out = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(i) / 44_100
            out[2 * i] = Float(0.4 * sin(2 * .pi * 997 * t)) + (rng.nextUnit() - 0.5) * 0.01
            out[2 * i + 1] = Float(0.3 * sin(2 * .pi * 15_000 * t)) + (rng.nextUnit() - 0.5) * 0.01
        }
        return out
    }

    /// Push `input` in chunks of the given sizes (cycled), pulling up to `pullFrames` after each.
    static func chunked(
        _ input: [Float], quality: ResamplerQuality, chunks: [Int], pullFrames: Int
    ) throws -> [Float] {
        let r = try ChunkedResampler(quality: quality, channelCount: 2, fromRate: 44_100, toRate: 48_000)
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: pullFrames * 2)
        func drain() {
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { r.pull(into: $0) }
                if n == 0 { break }
                out += buffer[0..<(n * 2)]
            }
        }
        var position = 0
        var k = 0
        let frames = input.count / 2
        try input.withUnsafeBufferPointer { p in
            while position < frames {
                let n = min(chunks[k % chunks.count], frames - position)
                try r.push(UnsafeBufferPointer(rebasing: p[(position * 2)..<((position + n) * 2)]))
                position += n
                k += 1
                drain()
            }
        }
        try r.finish()
        drain()
        #expect(r.availableFrameCount == 0)
        return out
    }

    @Test(arguments: ResamplerQuality.allCases)
    func anyChunkingGivesTheWholeBufferSamples(quality: ResamplerQuality) throws {
        let input = Self.material(frames: 30_011)
        let whole = try resampleBuffer(input, channelCount: 2, fromRate: 44_100, toRate: 48_000, quality: quality)
        #expect(whole.count == 2 * Int((30_011.0 * 48_000 / 44_100).rounded()))
        for (chunks, pull) in [([1], 7), ([441], 256), ([4_095, 4_097], 1_000), ([13, 5_000, 1, 777], 64), ([30_011], 100_000)] {
            let got = try Self.chunked(input, quality: quality, chunks: chunks, pullFrames: pull)
            #expect(got.count == whole.count, "chunks \(chunks)")
            #expect(
                got == whole,
                "chunks \(chunks): first difference at \(zip(got, whole).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)"
            )
        }
    }

    @Test(arguments: [ResamplerQuality.soxrHQ, .sincFastest])
    func resetStartsOverLikeANewConverter(quality: ResamplerQuality) throws {
        let input = Self.material(frames: 9_000)
        let r = try ChunkedResampler(quality: quality, channelCount: 2, fromRate: 44_100, toRate: 48_000)
        try input.withUnsafeBufferPointer { try r.push(UnsafeBufferPointer(rebasing: $0[0..<5_000])) }
        _ = r.pullAll()
        try r.reset()
        try input.withUnsafeBufferPointer { try r.push($0) }
        try r.finish()
        let again = r.pullAll()
        #expect(again == (try resampleBuffer(input, channelCount: 2, fromRate: 44_100, toRate: 48_000, quality: quality)))
    }

    @Test func soxrQualitiesAreForFilesNotLiveStreams() {
        #expect(throws: ResamplerError.self) {
            _ = try StreamingResampler(quality: .soxrHQ, channelCount: 2, fromRate: 44_100, toRate: 48_000)
        }
    }
}
