import ArgumentParser
import Foundation
import Histogram
import Tutti
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// `tutti bench`: the render-latency benchmark. It times the engine's real render path
/// (`Engine.render(into:frameCount:)`, what a backend's real-time thread calls) block by
/// block, and a reference computation on the same data in the same run, interleaved in
/// rounds so that both see the same machine. See docs/performance.md.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the engine's render latency per block, next to a reference kernel.",
        discussion: """
            N sources play through the full per-source chain (source gain, session bus with \
            gate and duck envelope, master volume) at 48 kHz stereo; every block is timed. The \
            reference runs on the same data in the same run: without --resampler, \
            Kernels.mixAddReference (TuttiDSP's plain out[i] += g·in[i] loop, the mixing limit) \
            over the same buffers and gains; with --resampler, bare libsamplerate (src_process \
            through TuttiDSP's ResamplerKernel) on the same input, one converter per source.
            Percentiles include whatever else the machine does: run it on a quiet machine.
            """)

    @Option(help: "Number of sources playing.")
    var sources = 128

    @Option(help: "Block size in frames (one render call).")
    var block = 256

    @Option(
        help: ArgumentHelp(
            "Resample every source in real time from 44.1 kHz (stream sources) at this quality.",
            discussion: "Without it, the sources are buffers already at 48 kHz (mixing only)."))
    var resampler: ResamplerArgument?

    @Option(help: "Seconds of measuring the engine (the reference renders as many blocks).")
    var seconds = 2.0

    @Flag(help: "Print one JSON object (for scripts) instead of the report.")
    var json = false

    func validate() throws {
        guard (1...4096).contains(sources) else { throw ValidationError("--sources must be 1…4096") }
        guard (16...16_384).contains(block) else { throw ValidationError("--block must be 16…16384 frames") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
    }

    func run() throws {
        let setup: BenchSetup
        do {
            setup = try BenchSetup(sources: sources, block: block, quality: resampler?.quality)
        } catch {
            throw fail(error)
        }
        let result = setup.measure(seconds: seconds)
        if json {
            print(result.json)
        } else {
            print(result.report)
        }
        guard result.outputEnergy > 0 else {
            throw fail(BenchError("the engine rendered only silence: the measurement is not valid"))
        }
    }
}

enum ResamplerArgument: String, ExpressibleByArgument, CaseIterable {
    case sincBest, sincMedium, sincFastest, linear, zeroOrderHold
    var quality: ResamplerQuality { ResamplerQuality(rawValue: rawValue)! }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Monotonic nanoseconds (vDSO clock_gettime: no system call, no allocation).
@inline(__always) func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// The engine and the reference, built on the same data.
final class BenchSetup {
    static let sampleRate = 48_000
    static let channelCount = 2
    static let inputRate = 44_100.0
    static let maxBuses = 8
    /// Frames of staged input offered per resampler call (as the engine's stream node does).
    static let stagingFrames = 512

    let sourceCount: Int
    let block: Int
    let quality: ResamplerQuality?
    let engine: Engine
    let output: UnsafeMutablePointer<Float>
    let referenceOutput: UnsafeMutablePointer<Float>
    let gains: [Float]
    // Mixing only: looped buffers, a multiple of the block long (no loop point inside a block).
    let loopFrames: Int
    let buffers: [AudioBuffer]
    let bufferBases: [UnsafePointer<Float>]
    var referencePosition = 0
    // Streams: one input recording, each source reading it from its own offset.
    var streams: [StreamSource] = []
    let input: [Float]
    let inputFrames: Int
    var writePositions: [Int]
    var framesFed = 0.0
    var framesRendered = 0
    let bareResamplers: [StreamingResampler]
    @exclusivity(unchecked) var barePositions: [Int]
    @exclusivity(unchecked) var bareStaged: [Int]

    init(sources: Int, block: Int, quality: ResamplerQuality?) throws {
        sourceCount = sources
        self.block = block
        self.quality = quality
        var config = EngineConfiguration(sampleRate: BenchSetup.sampleRate, channelCount: BenchSetup.channelCount)
        config.maxSources = max(sources, 8)
        config.maxBuses = BenchSetup.maxBuses
        config.maxBlockFrames = max(config.maxBlockFrames, block)
        engine = try Engine(configuration: config)
        let samples = block * BenchSetup.channelCount
        output = .allocate(capacity: samples)
        output.initialize(repeating: 0, count: samples)
        referenceOutput = .allocate(capacity: samples)
        referenceOutput.initialize(repeating: 0, count: samples)
        gains = (0..<sources).map { 0.25 + 0.5 * Float($0) / Float(sources) }

        let loop = block * max(1, (4_096 + block - 1) / block)
        loopFrames = loop
        if quality == nil {
            buffers = (0..<sources).map {
                AudioBuffer(
                    interleaved: BenchSetup.material(frames: loop, seed: $0, rate: Double(BenchSetup.sampleRate)),
                    channelCount: BenchSetup.channelCount, sampleRate: Double(BenchSetup.sampleRate))
            }
            input = []
            inputFrames = 0
        } else {
            buffers = []
            inputFrames = Int(BenchSetup.inputRate) * 2
            input = BenchSetup.material(frames: inputFrames, seed: 99, rate: BenchSetup.inputRate)
        }
        bufferBases = buffers.map { $0.samples.baseAddress! }
        // The reference walks the same loop half a loop away from the engine, so neither reads
        // data the other has just brought into the cache.
        referencePosition = (loop / 2 / block) * block
        writePositions = (0..<(quality == nil ? 0 : sources)).map { ($0 &* 7_919) % (Int(BenchSetup.inputRate) * 2 - 1_024) }
        barePositions = writePositions
        bareStaged = Array(repeating: 0, count: writePositions.count)
        bareResamplers = try (0..<(quality == nil ? 0 : sources)).map { _ in
            try StreamingResampler(
                quality: quality!, channelCount: BenchSetup.channelCount,
                fromRate: BenchSetup.inputRate, toRate: Double(BenchSetup.sampleRate))
        }

        // The full chain: sources spread over up to 8 session buses, each with its gate open
        // and its duck envelope settled at −6 dB; master (system) volume 0.8.
        var buses: [BusID] = []
        for _ in 0..<max(1, min(sources, BenchSetup.maxBuses)) { buses.append(try engine.addBus()) }
        var ids: [SourceID] = []
        for k in 0..<sources {
            let kind: SourceKind =
                quality == nil
                ? .buffer(buffers[k])
                : .stream(
                    sampleRate: BenchSetup.inputRate, channelCount: BenchSetup.channelCount,
                    capacityFrames: max(16_384, 2 * block + 2_048), quality: quality!)
            let id = try engine.addSource(kind, bus: buses[k % buses.count], gain: gains[k], loop: true)
            ids.append(id)
            if let stream = engine.stream(id) { streams.append(stream) }
        }
        for id in ids { try engine.send(.play(id)) }
        for bus in buses { try engine.send(.setBusDuck(bus, targetDB: -6, dBPerFrame: 0)) }
        try engine.send(.setMasterVolume(gain: 0.8, rampFrames: 0))
    }

    deinit {
        output.deallocate()
        referenceOutput.deallocate()
    }

    static func material(frames: Int, seed: Int, rate: Double) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channelCount)
        var rng = UInt64(0x9E37_79B9_7F4A_7C15) &* UInt64(seed &+ 1)
        let f = 110.0 * Double(1 + seed % 17)
        for i in 0..<frames {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Int32(truncatingIfNeeded: rng >> 32)) / Float(Int32.max) * 0.01
            let s = Float(0.2 * sin(2 * Double.pi * f * Double(i) / rate))
            out[2 * i] = s + noise
            out[2 * i + 1] = s - noise
        }
        return out
    }

    /// Producer side (untimed): keep each stream's ring ~1024 input frames ahead of what the
    /// next `blocks` blocks consume.
    func feed(blocks: Int) {
        guard !streams.isEmpty else { return }
        let target = Double(framesRendered + blocks * block) * BenchSetup.inputRate / Double(BenchSetup.sampleRate) + 1_024
        let need = Int((target - framesFed).rounded(.up))
        guard need > 0 else { return }
        input.withUnsafeBufferPointer { input in
            for (k, stream) in streams.enumerated() {
                var left = need
                while left > 0 {
                    var pos = writePositions[k]
                    if pos + left > inputFrames { pos = 0 }
                    let n = min(left, inputFrames - pos)
                    let wrote = stream.write(UnsafeBufferPointer(rebasing: input[pos * 2..<(pos + n) * 2]))
                    writePositions[k] = pos + wrote
                    left -= wrote
                    if wrote < n { break }
                }
            }
        }
        framesFed += Double(need)
    }

    @inline(__always) func renderEngine() {
        engine.render(into: output, frameCount: block)
        framesRendered += block
    }

    /// The reference for one block.
    func renderReference() {
        let ch = BenchSetup.channelCount
        let samples = block * ch
        if quality == nil {
            // out = Σ g·in, one pass per source: the least any mixer has to do. The plain loop
            // of Kernels.mixAddReference; the compiler vectorizes it (with a run-time overlap
            // check), as clang does the C reference of Benchmarks/.
            referenceOutput.update(repeating: 0, count: samples)
            let offset = referencePosition * ch
            for k in 0..<sourceCount {
                Kernels.mixAddReference(referenceOutput, bufferBases[k] + offset, count: samples, gain: gains[k])
            }
            referencePosition += block
            if referencePosition >= loopFrames { referencePosition = 0 }
        } else {
            input.withUnsafeBufferPointer { input in
                let base = input.baseAddress!
                for k in 0..<sourceCount {
                    let kernel = bareResamplers[k].kernel
                    var produced = 0
                    var stalls = 0
                    while produced < block {
                        if bareStaged[k] == 0 {
                            if inputFrames - barePositions[k] < BenchSetup.stagingFrames { barePositions[k] = 0 }
                            bareStaged[k] = BenchSetup.stagingFrames
                        }
                        let r = kernel.process(
                            input: base + barePositions[k] * ch, inputFrameCount: bareStaged[k],
                            output: referenceOutput + produced * ch, outputFrameCount: block - produced)
                        barePositions[k] += r.used
                        bareStaged[k] -= r.used
                        produced += r.generated
                        if r.used == 0 && r.generated == 0 {
                            stalls += 1
                            if stalls > 2 { break }
                        }
                    }
                }
            }
        }
    }

    func measure(seconds: Double) -> BenchResult {
        // Warm up (install the nodes, hand them back, fill caches and converters), then
        // collect what the render side handed back before measuring.
        let warmup = max(16, BenchSetup.sampleRate / 5 / block)
        for _ in 0..<warmup {
            feed(blocks: 1)
            renderEngine()
            renderReference()
        }
        engine.pollEvents()

        var engineTimes = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var referenceTimes = engineTimes
        var engineTotal: UInt64 = 0
        var referenceTotal: UInt64 = 0
        let round = 32
        let budget = UInt64(seconds * 1e9)
        var blocks = 0
        var energy: Float = 0
        while engineTotal < budget {
            for _ in 0..<round {
                feed(blocks: 1)
                let t0 = monotonicNanoseconds()
                renderEngine()
                let t = monotonicNanoseconds() &- t0
                engineTimes.record(t)
                engineTotal &+= t
            }
            for _ in 0..<round {
                let t0 = monotonicNanoseconds()
                renderReference()
                let t = monotonicNanoseconds() &- t0
                referenceTimes.record(t)
                referenceTotal &+= t
            }
            blocks += round
            engine.pollEvents()
            for i in 0..<block * BenchSetup.channelCount { energy += output[i] * output[i] }
        }
        return BenchResult(
            setup: self, blocks: blocks, engine: engineTimes, reference: referenceTimes,
            engineTotal: engineTotal, referenceTotal: referenceTotal, outputEnergy: energy)
    }

    var referenceName: String {
        quality == nil
            ? "Kernels.mixAddReference (TuttiDSP's plain loop out[i] += g*in[i], vectorized by the compiler) over the same buffers and gains, into a zeroed block"
            : "bare src_process (libsamplerate through TuttiDSP's ResamplerKernel.process), one converter per source, same input and 512-frame chunks, no ring, no mixing"
    }
}

struct BenchResult {
    struct Latency: Encodable {
        var p50, p90, p99, p999, max: UInt64
        var mean: Double

        init(_ h: Histogram<UInt64>) {
            p50 = h.valueAtPercentile(50)
            p90 = h.valueAtPercentile(90)
            p99 = h.valueAtPercentile(99)
            p999 = h.valueAtPercentile(99.9)
            max = h.max
            mean = h.mean
        }

        enum CodingKeys: String, CodingKey {
            case p50, p90, p99
            case p999 = "p99.9"
            case max, mean
        }
    }

    struct Reference: Encodable {
        var kernel: String
        var latencyNs: Latency
        var nsPerSourceFrame: Double
    }

    struct JSONReport: Encodable {
        var command = "tutti bench"
        var sources: Int
        var blockFrames: Int
        var sampleRate: Int
        var channels: Int
        var mode: String
        var resampler: String?
        var inputSampleRate: Double?
        var blocks: Int
        var measuredSeconds: Double
        var deadlineNs: Double
        var latencyNs: Latency
        var deadlineShareP99: Double
        var nsPerSourceFrame: Double
        var reference: Reference
        var ratioToReferenceP50: Double
        var ratioToReferenceMean: Double
        var overheadPerSourcePerBlockNs: Double
    }

    let sources: Int
    let block: Int
    let quality: ResamplerQuality?
    let referenceName: String
    let blocks: Int
    let engine: Latency
    let reference: Latency
    let engineTotal: UInt64
    let referenceTotal: UInt64
    let outputEnergy: Float

    init(
        setup: BenchSetup, blocks: Int, engine: Histogram<UInt64>, reference: Histogram<UInt64>,
        engineTotal: UInt64, referenceTotal: UInt64, outputEnergy: Float
    ) {
        sources = setup.sourceCount
        block = setup.block
        quality = setup.quality
        referenceName = setup.referenceName
        self.blocks = blocks
        self.engine = Latency(engine)
        self.reference = Latency(reference)
        self.engineTotal = engineTotal
        self.referenceTotal = referenceTotal
        self.outputEnergy = outputEnergy
    }

    var deadlineNs: Double { Double(block) / Double(BenchSetup.sampleRate) * 1e9 }
    var sourceFrames: Double { Double(sources * block) }
    var ratioP50: Double { Double(engine.p50) / Double(max(reference.p50, 1)) }
    var ratioMean: Double { engine.mean / max(reference.mean, 1) }
    var overheadPerSource: Double { (Double(engine.p50) - Double(reference.p50)) / Double(sources) }

    var jsonObject: JSONReport {
        JSONReport(
            sources: sources, blockFrames: block, sampleRate: BenchSetup.sampleRate, channels: BenchSetup.channelCount,
            mode: quality == nil ? "mix" : "stream", resampler: quality?.rawValue,
            inputSampleRate: quality == nil ? nil : BenchSetup.inputRate,
            blocks: blocks, measuredSeconds: Double(engineTotal) / 1e9, deadlineNs: deadlineNs,
            latencyNs: engine, deadlineShareP99: Double(engine.p99) / deadlineNs,
            nsPerSourceFrame: Double(engine.p50) / sourceFrames,
            reference: Reference(
                kernel: referenceName, latencyNs: reference,
                nsPerSourceFrame: Double(reference.p50) / sourceFrames),
            ratioToReferenceP50: ratioP50, ratioToReferenceMean: ratioMean,
            overheadPerSourcePerBlockNs: overheadPerSource)
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(jsonObject)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    var report: String {
        func us(_ ns: UInt64) -> String { String(format: "%9.1f µs", Double(ns) / 1000) }
        let what = quality.map { "stream sources resampled 44.1 → 48 kHz at \($0.rawValue)" } ?? "buffer sources (mixing only)"
        var s = "tutti bench: \(sources) sources × \(block)-frame blocks, \(BenchSetup.sampleRate) Hz stereo, \(what)\n"
        s += "chain: source gain → session bus (gate, duck envelope) → master volume; up to 8 buses\n"
        s += String(
            format: "measured %d blocks of the engine (%.2f s) and as many of the reference, interleaved in rounds of 32\n\n",
            blocks, Double(engineTotal) / 1e9)
        s += "per-block render time, Engine.render(into:frameCount:):\n"
        s += "  p50   \(us(engine.p50))\n  p90   \(us(engine.p90))\n  p99   \(us(engine.p99))\n"
        s += "  p99.9 \(us(engine.p999))\n  max   \(us(engine.max))\n"
        s += String(
            format: "deadline %.1f µs per block: p99 uses %.2f %% of it\n", deadlineNs / 1000, Double(engine.p99) / deadlineNs * 100)
        s += String(format: "%.3f ns per source-frame (p50)\n\n", Double(engine.p50) / sourceFrames)
        s += "reference: \(referenceName)\n"
        s += String(
            format: "  p50 %.1f µs, p99 %.1f µs, %.3f ns per source-frame\n",
            Double(reference.p50) / 1000, Double(reference.p99) / 1000, Double(reference.p50) / sourceFrames)
        s += String(format: "engine / reference: %.2f× (p50), %.2f× (mean)\n", ratioP50, ratioMean)
        s += String(format: "engine overhead over the reference: %.1f ns per source per block (p50)", overheadPerSource)
        return s
    }
}
