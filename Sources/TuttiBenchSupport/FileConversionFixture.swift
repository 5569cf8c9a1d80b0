import CSoxr
import TuttiDSP

/// File conversion as a streaming file source's worker does it, for N sources: each block,
/// every source's 44.1 kHz input is converted to one block of 48 kHz output — through
/// `ChunkedResampler` (what Tutti's file path uses: fixed 4096-frame library calls, output
/// held until pulled), or with `bare`, through the library's own streaming call fed the
/// block's input directly (soxr_process / src_process, no re-blocking, no copies): the
/// reference. The output of every source lands in one scratch block (a stand-in for its ring).
/// Owned by the benchmarking thread.
public final class FileConversionFixture {
    /// Output frames per block.
    public let blockFrames: Int
    /// The conversion quality.
    public let quality: ResamplerQuality
    /// True: the library's own streaming call (the reference); false: `ChunkedResampler`.
    public let bare: Bool
    let chunked: [ChunkedResampler]
    let bareSoxr: [soxr_t]
    let bareSRC: [StreamingResampler]
    let input: UnsafeMutablePointer<Float>
    let inputFrames: Int
    @exclusivity(unchecked) var positions: [Int]
    /// Input frames owed to each source (fractional: 235.2 per 256-frame block at 44.1 → 48 kHz).
    @exclusivity(unchecked) var owed: [Double]
    /// The last converted block (of the last source).
    public let output: UnsafeMutablePointer<Float>
    let outputCapacity: Int

    /// `sources` converters at `quality`, each fed its own stretch of 44.1 kHz material.
    public init(sources: Int, quality: ResamplerQuality, blockFrames: Int, bare: Bool) throws {
        self.blockFrames = blockFrames
        self.quality = quality
        self.bare = bare
        let rate = Double(BenchSetup.sampleRate)
        let inRate = BenchSetup.streamInputRate
        let ch = BenchSetup.channelCount
        if !bare {
            chunked = try (0..<sources).map { _ in
                try ChunkedResampler(quality: quality, channelCount: ch, fromRate: inRate, toRate: rate)
            }
            bareSoxr = []
            bareSRC = []
        } else if let recipe = quality.soxrRecipe {
            chunked = []
            bareSRC = []
            bareSoxr = try (0..<sources).map { _ in
                var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
                var q = soxr_quality_spec(recipe, 0)
                var runtime = soxr_runtime_spec(1)
                var error: soxr_error_t?
                guard let s = soxr_create(inRate, rate, UInt32(ch), &error, &io, &q, &runtime), error == nil else {
                    throw ResamplerError("soxr_create failed")
                }
                return s
            }
        } else {
            chunked = []
            bareSoxr = []
            bareSRC = try (0..<sources).map { _ in
                try StreamingResampler(quality: quality, channelCount: ch, fromRate: inRate, toRate: rate)
            }
        }
        let frames = Int(inRate) * 2
        inputFrames = frames
        let material = BenchSetup.material(frames: frames, seed: 98, rate: inRate)
        input = allocateAudio(Float.self, capacity: material.count)
        input.initialize(from: material, count: material.count)
        positions = (0..<sources).map { ($0 &* 7_919) % (frames - 8_192) }
        owed = Array(repeating: 0, count: sources)
        // Bare calls may return more than a block at once (what the library had buffered).
        outputCapacity = blockFrames * 4 + 8_192
        output = allocateAudio(Float.self, capacity: outputCapacity * ch)
        output.initialize(repeating: 0, count: outputCapacity * ch)
        // Warm up past the converters' start-up latency.
        for _ in 0..<(8_192 / blockFrames + 16) { render() }
    }

    deinit {
        for s in bareSoxr { soxr_delete(s) }
        deallocateAudio(input)
        deallocateAudio(output)
    }

    /// The measured call: one block of output for every source.
    public func render() {
        let ch = BenchSetup.channelCount
        let perBlock = Double(blockFrames) * BenchSetup.streamInputRate / Double(BenchSetup.sampleRate)
        let count = max(chunked.count, bareSoxr.count, bareSRC.count)
        for k in 0..<count {
            owed[k] += perBlock
            let frames = Int(owed[k])
            owed[k] -= Double(frames)
            if positions[k] + frames > inputFrames { positions[k] = 0 }
            let from = input + positions[k] * ch
            positions[k] += frames
            if !chunked.isEmpty {
                let r = chunked[k]
                try! r.push(UnsafeBufferPointer(start: from, count: frames * ch))
                _ = r.pull(into: UnsafeMutableBufferPointer(start: output, count: blockFrames * ch))
            } else if !bareSoxr.isEmpty {
                var done = 0
                var made = 0
                _ = soxr_process(bareSoxr[k], from, frames, &done, output, outputCapacity, &made)
            } else {
                _ = bareSRC[k].kernel.process(input: from, inputFrameCount: frames, output: output, outputFrameCount: outputCapacity)
            }
        }
    }
}
