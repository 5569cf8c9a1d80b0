import Tutti
import TuttiDSP

/// How many playing sources fit in a time budget per block (`tutti bench voices`): for a
/// way of playing them (`VoiceCounter.Mode`), the engine's count and the same count for a
/// bare reference doing the least any mixer must do with the same data. Found by measuring
/// the mean time per block at a few source counts, each next count scaled from the last
/// measurement, until the largest count that fits is pinned within 2 %. Runs on the calling
/// thread (one core); allocates (fixtures are built per count).
public enum VoiceCounter {
    /// What each voice does.
    public enum Mode: String, CaseIterable, Sendable {
        /// Buffer sources already at the engine rate: mixing only.
        case mix
        /// As `mix`, each source placed by a pan of its own (its per-channel gains).
        case pan
        /// Stream sources converted 44.1 → 48 kHz on the render thread (libsamplerate linear).
        case linear
        /// Buffer sources mixed, plus each source's file converted 44.1 → 48 kHz at the file
        /// default quality through `ChunkedResampler` (what a streaming file source's worker
        /// does), on the same core.
        case fileDefault
    }

    /// Voices share this many distinct looped buffers (32 KiB each): the data stays in cache,
    /// as when many voices play a few samples. Voices with data of their own are bound by
    /// memory bandwidth instead (docs/performance.md).
    public static let distinctBuffers = 16

    /// The most sources one engine holds (`EngineConfiguration.maxSources` is at most this).
    public static let sourcesPerEngine = 65_536

    /// How `voices` sources are split into engines of at most `limit` sources each (the
    /// engine's source limit): as few engines as hold them, sizes differing by at most one,
    /// in total `voices`. A count above the limit is measured as that many engines rendering
    /// one block each, one after the other, on the same core (each adds its own master stage,
    /// a few µs per block). `voices` ≥ 1, `limit` ≥ 1.
    public static func batches(_ voices: Int, limit: Int = sourcesPerEngine) -> [Int] {
        precondition(voices >= 1 && limit >= 1)
        let engines = (voices + limit - 1) / limit
        let size = voices / engines
        let larger = voices % engines
        return (0..<engines).map { $0 < larger ? size + 1 : size }
    }

    /// A runner rendering one block of each of `fixtures`, preparing each first.
    static func batched(_ fixtures: [EngineFixture], prepare: ((EngineFixture) -> Void)? = nil) -> Runner {
        Runner(
            prepare: { if let prepare { for f in fixtures { prepare(f) } } },
            render: { for f in fixtures { f.render() } })
    }

    /// One side's answer.
    public struct Count: Sendable {
        /// The most voices measured to fit in the budget.
        public var voices: Int
        /// Mean time per block at that count (ns).
        public var blockNs: Double
        /// Every (voices, mean ns per block) measured on the way, in order.
        public var steps: [(voices: Int, blockNs: Double)]
    }

    /// Something that renders one block for N voices; `prepare` (untimed) runs before each
    /// block: it feeds stream sources one block ahead, as a producer thread would.
    struct Runner {
        var prepare: () -> Void
        var render: () -> Void
    }

    /// Mean ns per block of `runner`, the median over rounds of `round` blocks, measuring for
    /// about `seconds`.
    static func blockTime(_ runner: Runner, round: Int, seconds: Double) -> Double {
        var means: [Double] = []
        var total: UInt64 = 0
        let budget = UInt64(seconds * 1e9)
        while total < budget || means.count < 3 {
            var t: UInt64 = 0
            for _ in 0..<round {
                runner.prepare()
                t &+= timed { runner.render() }
            }
            total &+= t
            means.append(Double(t) / Double(round))
        }
        means.sort()
        return means[means.count / 2]
    }

    /// The largest voice count whose block fits `budgetNs`, starting the search at `start`.
    static func search(start: Int, budgetNs: Double, round: Int, seconds: Double, make: (Int) throws -> Runner) throws -> Count {
        var n = max(1, start)
        var fits: (voices: Int, blockNs: Double)? = nil
        var tooMany = Int.max
        var steps: [(voices: Int, blockNs: Double)] = []
        for _ in 0..<8 {
            let t = try blockTime(make(n), round: round, seconds: seconds)
            steps.append((n, t))
            // A machine that is busy at times can contradict an earlier step: the latest
            // measurement wins (a count that fits clears a smaller "too many", and back).
            if t <= budgetNs {
                if n > (fits?.voices ?? 0) { fits = (n, t) }
                if n >= tooMany { tooMany = Int.max }
            } else {
                tooMany = min(tooMany, n)
                if let f = fits, f.voices >= n {
                    fits = steps.filter { $0.voices < n && $0.blockNs <= budgetNs }.max { $0.voices < $1.voices }
                }
            }
            let low = fits?.voices ?? 0
            if tooMany != Int.max, tooMany - low <= max(1, low / 50) { break }
            // Scale to the budget from this measurement, then keep inside the bracket.
            var next = Int((Double(n) * budgetNs / t * 0.995).rounded(.down))
            if next <= low { next = low + max(1, (min(tooMany, 2 * low + 2) - low) / 2) }
            if next >= tooMany { next = low + max(1, (tooMany - low) / 2) }
            if next == n { break }
            n = next
        }
        guard let fits else { return Count(voices: 0, blockNs: steps.first?.blockNs ?? 0, steps: steps) }
        return Count(voices: fits.voices, blockNs: fits.blockNs, steps: steps)
    }

    /// The engine's count and the reference's for `mode`: voices that fit in `budgetNs` per
    /// `blockFrames`-frame block (48 kHz stereo). `secondsPerStep`: measuring time per count.
    public static func count(
        _ mode: Mode, blockFrames: Int, budgetNs: Double, secondsPerStep: Double = 0.2
    ) throws -> (engine: Count, reference: Count) {
        let pool = BenchSetup.loopBuffers(count: distinctBuffers, blockFrames: blockFrames)
        let kernel = ReferenceFixture.cKernel(KernelVariant.active)
        func mixEngine(_ n: Int, panned: Bool = false) throws -> [EngineFixture] {
            try batches(n).map {
                try EngineFixture(bufferSources: $0, blockFrames: blockFrames, distinctBuffers: distinctBuffers, panned: panned)
            }
        }
        func mixReference(_ n: Int) -> ReferenceFixture {
            ReferenceFixture(
                buffers: pool, gains: (0..<n).map { BenchSetup.gain($0, of: n) }, blockFrames: blockFrames,
                kernelName: "C kernel", kernel: kernel)
        }
        switch mode {
        case .mix, .pan:
            let engine = try search(start: 256, budgetNs: budgetNs, round: 32, seconds: secondsPerStep) { n in
                batched(try mixEngine(n, panned: mode == .pan))
            }
            let reference = try search(start: 256, budgetNs: budgetNs, round: 32, seconds: secondsPerStep) { n in
                let r = mixReference(n)
                return Runner(prepare: {}, render: r.render)
            }
            return (engine, reference)
        case .linear:
            let engine = try search(start: 64, budgetNs: budgetNs, round: 32, seconds: secondsPerStep) { n in
                let fixtures = try batches(n).map {
                    try EngineFixture(
                        bufferSources: 0, streamSources: $0, quality: .linear, blockFrames: blockFrames, streamRingFrames: 4_096)
                }
                return batched(fixtures) { $0.prepare(blocks: 1) }
            }
            let reference = try search(start: 64, budgetNs: budgetNs, round: 32, seconds: secondsPerStep) { n in
                let bare = try BareResamplerFixture(sources: n, quality: .linear, blockFrames: blockFrames, mixes: true)
                return Runner(prepare: {}, render: bare.render)
            }
            return (engine, reference)
        case .fileDefault:
            // A round covers several of ChunkedResampler's 4096-frame library calls per source.
            let round = 64
            let engine = try search(start: 32, budgetNs: budgetNs, round: round, seconds: secondsPerStep) { n in
                let f = batched(try mixEngine(n))
                let c = try FileConversionFixture(sources: n, quality: .fileDefault, blockFrames: blockFrames, bare: false)
                return Runner(
                    prepare: {},
                    render: {
                        c.render()
                        f.render()
                    })
            }
            let reference = try search(start: 32, budgetNs: budgetNs, round: round, seconds: secondsPerStep) { n in
                let r = mixReference(n)
                let c = try FileConversionFixture(sources: n, quality: .fileDefault, blockFrames: blockFrames, bare: true)
                return Runner(
                    prepare: {},
                    render: {
                        c.render()
                        r.render()
                    })
            }
            return (engine, reference)
        }
    }
}
