// Render cost per block, next to the limit (docs/performance.md).
//
// Every timed benchmark measures ONE block per sample (scalingFactor .one), so the
// wall-clock percentiles are per-block latencies. The control side (feeding stream sources,
// scheduling ramps, collecting events) runs before `startMeasurement()` and is not timed.
//
// Families (names are what `--filter` matches, as a whole-name regex):
//   Mix N=… B=…        the engine, buffer sources, full chain, gains settled; in each sample
//                      also two references on the same buffers and gains: the plain C loop
//                      out[i] += g·in[i] built -O3 for the baseline target (half a loop away:
//                      see ReferenceFixture) and the same loop built -O3 -march=native (a
//                      quarter loop away): the goal is the engine within 1.2× of the latter
//   Moving N=… B=…     the engine with every gain stage ramping (per-frame paths)
//   Stream Q N=… B=…   the engine, stream sources resampled 44.1→48 kHz at quality Q; in each
//                      sample also bare src_process on the same input, same chunking
//   ZeroMalloc …       mallocs per render, asserted 0 (Thresholds/)
//   Convert Q          whole-file conversion (resampleBuffer = ChunkedResampler) of 1 s of
//                      stereo 44.1 kHz to 48 kHz at quality Q: wall clock / 48 000 = ns per
//                      output frame
//
// Environment: TUTTI_BENCH_SMOKE=1 runs a tiny subset briefly (scripts/bench-smoke.sh);
// TUTTI_BENCH_INJECT_MALLOC=1 makes ZeroMalloc allocate (to show that its check catches it).

import Benchmark
import CNativeKernel
import CReferenceKernel
import Foundation
import Tutti
import TuttiBenchSupport
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

let smoke = ProcessInfo.processInfo.environment["TUTTI_BENCH_SMOKE"] != nil
/// TUTTI_BENCH_INJECT_MALLOC=1: ZeroMalloc allocates once per sample, so its check must fail.
let injectMalloc = ProcessInfo.processInfo.environment["TUTTI_BENCH_INJECT_MALLOC"] != nil

let sourceCounts = smoke ? [8, 128] : [1, 8, 32, 128, 512]
let blockSizes = smoke ? [256] : [64, 256, 1024]
let streamSourceCounts = smoke ? [8] : [8, 128]
let qualities: [ResamplerQuality] = smoke ? [.sincFastest] : ResamplerQuality.allCases.filter { $0.libsamplerateConverter != nil }
let conversionQualities: [ResamplerQuality] = smoke ? [.fileDefault] : ResamplerQuality.allCases

/// Timing configuration: wall clock only (cpu metrics add syscalls and mallocs to each sample).
func timing(_ seconds: Int = 1) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: smoke ? 2 : 20,
        scalingFactor: .one,
        maxDuration: smoke ? .milliseconds(40) : .seconds(seconds),
        maxIterations: smoke ? 200 : 100_000)
}

/// Per-block times measured inside the closure with the same clock for the engine and its
/// reference, so that both come from the same samples: interleaved block by block, they see
/// the same machine (this matters on a shared machine; docs/performance.md).
let engineNs = BenchmarkMetric.custom("engine (ns)", polarity: .prefersSmaller, useScalingFactor: false)
let referenceNs = BenchmarkMetric.custom("C -O3 reference (ns)", polarity: .prefersSmaller, useScalingFactor: false)
let nativeNs = BenchmarkMetric.custom("C native reference (ns)", polarity: .prefersSmaller, useScalingFactor: false)
let bareNs = BenchmarkMetric.custom("bare src_process (ns)", polarity: .prefersSmaller, useScalingFactor: false)

struct MixPair {
    let engine: EngineFixture
    let reference: ReferenceFixture
    let native: ReferenceFixture
}

struct StreamPair {
    let engine: EngineFixture
    let bare: BareResamplerFixture
}

let benchmarks: @Sendable () -> Void = {
    // MARK: Mix-only render next to the reference kernel
    // The wall clock is the engine's block alone; the custom metrics are the engine and the
    // two C references, each timed once per sample, one after the other.
    for n in sourceCounts {
        for b in blockSizes {
            var config = timing()
            config.metrics += [engineNs, referenceNs, nativeNs]
            Benchmark("Mix N=\(n) B=\(b)", configuration: config) { (benchmark: Benchmark, pair: MixPair) in
                pair.engine.prepare(blocks: 1)
                benchmark.startMeasurement()
                let e = timed { pair.engine.render() }
                benchmark.stopMeasurement()
                benchmark.measurement(engineNs, Int(e))
                benchmark.measurement(referenceNs, Int(timed { pair.reference.render() }))
                benchmark.measurement(nativeNs, Int(timed { pair.native.render() }))
            } setup: {
                let engine = try EngineFixture(bufferSources: n, blockFrames: b)
                // The same buffers and gains as the engine's sources.
                return MixPair(
                    engine: engine,
                    reference: ReferenceFixture(sharing: engine, kernelName: "C -O3", kernel: { bench_ref_mix_block($0, $1, $2, $3, $4) }),
                    native: ReferenceFixture(
                        sharing: engine, kernelName: "C -O3 -march=native", phase: 0.25,
                        kernel: { bench_native_mix_block($0, $1, $2, $3, $4) }))
            }
        }
    }

    // MARK: Everything moving (gain ramps, duck envelopes, master volume ramp)
    for n in smoke ? [8] : [8, 128] {
        Benchmark("Moving N=\(n) B=256", configuration: timing()) { benchmark, fixture in
            fixture.prepare(blocks: 1)
            benchmark.startMeasurement()
            fixture.render()
        } setup: {
            try EngineFixture(bufferSources: n, blockFrames: 256, moving: true)
        }
    }

    // MARK: Real-time resampling (stream sources) next to bare src_process
    for q in qualities {
        for n in streamSourceCounts {
            let b = 256
            var config = timing()
            config.metrics += [engineNs, bareNs]
            Benchmark("Stream \(q.rawValue) N=\(n) B=\(b)", configuration: config) { (benchmark: Benchmark, pair: StreamPair) in
                pair.engine.prepare(blocks: 1)
                benchmark.startMeasurement()
                let e = timed { pair.engine.render() }
                benchmark.stopMeasurement()
                benchmark.measurement(engineNs, Int(e))
                benchmark.measurement(bareNs, Int(timed { pair.bare.render() }))
            } setup: {
                StreamPair(
                    engine: try EngineFixture(bufferSources: 0, streamSources: n, quality: q, blockFrames: b),
                    bare: try BareResamplerFixture(sources: n, quality: q, blockFrames: b))
            }
        }
    }

    // MARK: 0 mallocs per render
    // Only .wallClock, .mallocCountTotal and .throughput here: .cpuTotal / .instructions add
    // mallocs of their own to every sample, ARC metrics crash on this toolchain.
    // Each sample renders 50 blocks (120 buffer sources + 8 stream sources, every gain stage
    // ramping, ramps re-aimed mid-block by commands scheduled ahead); with at most 10 samples
    // the p90 that `thresholds check` compares against Thresholds/ (0) is the maximum.
    let mallocBlocks = 50
    Benchmark(
        "ZeroMalloc N=128 B=256 x50",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .throughput],
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(smoke ? 1 : 2),
            maxIterations: 8,
            thresholds: [
                .mallocCountTotal: .init(
                    relative: BenchmarkThresholds.Relative.strict,
                    absolute: BenchmarkThresholds.Absolute.strict)
            ])
    ) { benchmark, fixture in
        fixture.prepare(blocks: mallocBlocks)
        benchmark.startMeasurement()
        for _ in 0..<mallocBlocks { fixture.render() }
        if injectMalloc { blackHole(malloc(16)) } // self-test of the check (see the smoke script)
    } setup: {
        try EngineFixture(bufferSources: 120, streamSources: 8, quality: .sincFastest, blockFrames: 256, moving: true)
    }

    // MARK: File conversion quality cost (ns per output frame, stereo 44.1 → 48 kHz)
    let convertInput = BenchSetup.material(frames: 44_100, seed: 5, rate: 44_100)
    for q in conversionQualities {
        var config = timing(2)
        config.timeUnits = .microseconds
        Benchmark("Convert \(q.rawValue)", configuration: config) { benchmark in
            blackHole(try! resampleBuffer(convertInput, channelCount: 2, fromRate: 44_100, toRate: 48_000, quality: q))
        }
    }
}
