import ArgumentParser
import Foundation
import Histogram
import Tutti
import TuttiBenchSupport
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// `tutti bench`: the benchmarks. `tutti bench [mix]` (the default), `tutti bench voices`,
/// `tutti bench loopback`, `tutti bench scene SCENE.json` and `tutti bench effects`. `mix`'s `--voices` and
/// `--loopback` flags still work for one release (a one-line deprecation warning on stderr).
/// See docs/performance.md.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Measure the engine: synthetic sources (mix, the default), voices per core (voices), the device round trip (loopback), your own scene (scene) or each effect (effects).",
        subcommands: [BenchMix.self, BenchVoicesCommand.self, BenchLoopbackCommand.self, BenchScene.self, BenchEffectsCommand.self],
        defaultSubcommand: BenchMix.self)

    /// The one-line warning of a deprecated `tutti bench` flag, on stderr. Main thread.
    static func deprecated(_ flag: String, use replacement: String) {
        FileHandle.standardError.write(
            Data("tutti: warning: tutti bench \(flag) is deprecated, use `\(replacement)` (the flag goes in the next release)\n".utf8))
    }
}

/// `tutti bench voices`: how many playing sources fit in half a block's period on one core
/// (`VoicesReport`). Main thread.
struct BenchVoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "Count the voices that fit in half a block's period on one core, next to the bare C kernel.",
        discussion: """
            For each mode (mixing only, with linear conversion on the render thread, with file \
            conversion at the default quality): how many playing sources the engine renders in \
            half a block's period at 48 kHz on one core, next to the same count for the bare C \
            kernel. Replaces `tutti bench --voices` (still accepted for one release).
            """)

    @Option(help: "Block size in frames (one render call; the budget is half its period).")
    var block = 256

    @Option(help: "Seconds of measuring (at most 2 count: a tenth of them per search step).")
    var seconds = 2.0

    @Flag(help: "Print one JSON object (for scripts) instead of the report.")
    var json = false

    func validate() throws {
        guard (16...16_384).contains(block) else { throw ValidationError("--block must be 16…16384 frames") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
    }

    func run() throws {
        try VoicesReport.run(blockFrames: block, secondsPerStep: min(seconds, 2) / 10, json: json)
    }
}

/// `tutti bench loopback`: plays clicks and finds them in the capture, reports the round trip
/// (`LoopbackBench`). Main thread.
struct BenchLoopbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loopback",
        abstract: "Play clicks and find them in the capture: the round trip in ms.",
        discussion: """
            JACK: out_1 connected to in_1 of the same client (needs a running JACK server). \
            ALSA: playback on --device, capture from --capture-device, at --block frames per \
            period (PulseAudio: PULSE_SOURCE=SINK.monitor and the pulse PCM). Exit 1 when no \
            click came back. Replaces `tutti bench --loopback` (still accepted for one release).
            """)

    @Option(
        name: .customLong("backend"),
        help:
            "auto (default: alsa when --device or --capture-device is given, jack when --jack-server is, else jack if a server runs, else alsa; said on stderr), jack or alsa."
    )
    var backendArgument: OutputConfiguration.Backend?
    /// `--backend`, auto when not given (an optional, so that `--help` shows no raw value as
    /// the default).
    var backend: OutputConfiguration.Backend { backendArgument ?? .auto }

    @Option(help: "The JACK server (default: $JACK_DEFAULT_SERVER, else default).")
    var jackServer: String?

    @Option(help: ArgumentHelp("ALSA: the playback PCM.", valueName: "PCM"))
    var device = "default"

    @Option(name: .customLong("capture-device"), help: ArgumentHelp("ALSA: the capture PCM (default: --device).", valueName: "PCM"))
    var captureDevice: String?

    @Option(help: "ALSA: frames per period.")
    var block = 256

    @Flag(help: "Print one JSON object (for scripts) instead of the report.")
    var json = false

    func validate() throws {
        guard (16...16_384).contains(block) else { throw ValidationError("--block must be 16…16384 frames") }
        try Self.validate(backend: backend, jackServer: jackServer, device: device, captureDevice: captureDevice)
    }

    func run() throws {
        try Self.run(backend: backend, jackServer: jackServer, device: device, captureDevice: captureDevice, block: block, json: json)
    }

    /// The loopback options' usage errors (exit 64), shared with `tutti bench --loopback`.
    static func validate(backend: OutputConfiguration.Backend, jackServer: String?, device: String, captureDevice: String?) throws {
        if backend == .jack, device != "default" || captureDevice != nil {
            throw ValidationError("--device and --capture-device are for --backend alsa (JACK: --jack-server)")
        }
        if backend != .jack, jackServer != nil, backend == .alsa || device != "default" || captureDevice != nil {
            throw ValidationError("--jack-server is for --backend jack")
        }
        if backend == .pipewire { throw ValidationError("loopback takes --backend auto, alsa or jack") }
    }

    /// Measures and prints the report (or its JSON); exit 1 when no click came back. `auto`
    /// is decided here and said on stderr. Shared with `tutti bench --loopback`.
    static func run(
        backend: OutputConfiguration.Backend, jackServer: String?, device: String, captureDevice: String?, block: Int, json: Bool
    ) throws {
        var backend = backend
        if backend == .auto {
            backend =
                device != "default" || captureDevice != nil
                ? .alsa : jackServer != nil ? .jack : OutputConfiguration.Backend.detected(jackServer: nil, pipeWire: false)
            FileHandle.standardError.write(Data("tutti: backend: \(backend.name) (auto)\n".utf8))
        }
        do {
            let result =
                backend == .alsa
                ? try LoopbackBench.runALSA(device: device, captureDevice: captureDevice, periodFrames: block)
                : try LoopbackBench.run(serverName: jackServer, clientName: "tutti-loopback")
            print(json ? result.json : result.report)
            if result.roundTrips.isEmpty { throw ExitCode(1) }
        } catch let e as ExitCode {
            throw e
        } catch {
            throw fail(error)
        }
    }
}

/// `tutti bench mix` (or plain `tutti bench`): the render-latency benchmark. It times the
/// engine's real render path (`Engine.render(into:frameCount:)`, what a backend's real-time
/// thread calls) block by block, and a reference computation on the same data in the same
/// run, interleaved in rounds so that both see the same machine. See docs/performance.md.
struct BenchMix: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mix",
        abstract: "Measure the engine's render latency per block, next to a reference kernel (the default of tutti bench).",
        discussion: """
            N sources play through the full per-source chain (source gain, session bus with \
            gate and duck envelope, master volume) at 48 kHz stereo; every block is timed. The \
            reference runs on the same data in the same run: without --resampler, a plain C \
            loop (out = Σ gain·src, one pass per source into a zeroed block) compiled with \
            the system C compiler ($CC, else cc) at -O3 -march=native at start-up and loaded \
            from a temporary folder (kept to the instruction set of a kernel variant forced \
            below the CPU's best: -mno-avx512f for avx2, as on an AVX2 machine); with no C compiler, the bare C mix kernel the engine \
            uses (the variant picked for this CPU; TUTTI_KERNELS=scalar|sse2|avx2|avx512 \
            forces one), and the report says why. The report names the CPU and the kernel \
            variant; with --resampler, bare libsamplerate (src_process through TuttiDSP's \
            ResamplerKernel) on the same input, one converter per source.
            With --write: stream writes and status reads timed call by call while a render \
            thread and a control thread run, next to a call that takes the engine's lock.
            Voices per core and the device round trip are `tutti bench voices` and `tutti \
            bench loopback` (--voices and --loopback here still work for one release, with a \
            warning).
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

    @Flag(help: "Deprecated: `tutti bench voices` (the same, for one release).")
    var voices = false

    @Flag(
        help:
            "Time stream writes and status reads call by call while a render thread and a control thread run, next to a call that takes the engine's lock (--block sets the render block; writes are a quarter of it)."
    )
    var write = false

    @Flag(
        help:
            "Deprecated: `tutti bench loopback` (the same, with --backend, --jack-server, --device, --capture-device and --block, for one release)."
    )
    var loopback = false

    @Option(name: .customLong("backend"), help: ArgumentHelp("With --loopback (deprecated): as `tutti bench loopback --backend`."))
    var backendArgument: OutputConfiguration.Backend?
    /// `--backend`, auto when not given (an optional, so that `--help` shows no raw value as
    /// the default).
    var backend: OutputConfiguration.Backend { backendArgument ?? .auto }

    @Option(help: ArgumentHelp("With --loopback (deprecated): as `tutti bench loopback --jack-server`."))
    var jackServer: String?

    @Option(help: ArgumentHelp("With --loopback (deprecated): as `tutti bench loopback --device`.", valueName: "PCM"))
    var device = "default"

    @Option(
        name: .customLong("capture-device"),
        help: ArgumentHelp(
            "With --loopback (deprecated): as `tutti bench loopback --capture-device`.", valueName: "PCM"))
    var captureDevice: String?

    func validate() throws {
        guard (1...4096).contains(sources) else { throw ValidationError("--sources must be 1…4096") }
        guard (16...16_384).contains(block) else { throw ValidationError("--block must be 16…16384 frames") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
        if !loopback, backend != .auto || device != "default" || captureDevice != nil {
            throw ValidationError("--backend, --device and --capture-device are for --loopback")
        }
        try BenchLoopbackCommand.validate(backend: backend, jackServer: jackServer, device: device, captureDevice: captureDevice)
    }

    func run() throws {
        if loopback {
            Bench.deprecated("--loopback", use: "tutti bench loopback")
            try BenchLoopbackCommand.run(
                backend: backend, jackServer: jackServer, device: device, captureDevice: captureDevice, block: block, json: json)
            return
        }
        if write {
            do {
                let report = try WriteBench.run(seconds: seconds, blockFrames: block)
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    print(String(decoding: try encoder.encode(report), as: UTF8.self))
                } else {
                    print(WriteBench.text(report), terminator: "")
                }
            } catch {
                throw fail(error)
            }
            return
        }
        if voices {
            Bench.deprecated("--voices", use: "tutti bench voices")
            try VoicesReport.run(blockFrames: block, secondsPerStep: min(seconds, 2) / 10, json: json)
            return
        }
        let setup: BenchRun
        do {
            setup = try BenchRun(sources: sources, block: block, quality: resampler?.quality)
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

/// The engine and its reference, built on the same data (TuttiBenchSupport's fixtures, the
/// ones Benchmarks/ measures too).
final class BenchRun {
    let sourceCount: Int
    let block: Int
    let quality: ResamplerQuality?
    let fixture: EngineFixture
    let mixReference: ReferenceFixture?
    let bareReference: BareResamplerFixture?
    /// The compiled C loop (mix mode with a C compiler), or why there is none (nil with
    /// --resampler).
    let cLoop: Result<CLoopReference.Compiled, CLoopReference.Unavailable>?

    init(sources: Int, block: Int, quality: ResamplerQuality?) throws {
        sourceCount = sources
        self.block = block
        self.quality = quality
        if let quality {
            fixture = try EngineFixture(
                bufferSources: 0, streamSources: sources, quality: quality, blockFrames: block,
                streamRingFrames: max(16_384, 2 * block + 2_048))
            mixReference = nil
            bareReference = try BareResamplerFixture(sources: sources, quality: quality, blockFrames: block)
            cLoop = nil
        } else {
            fixture = try EngineFixture(bufferSources: sources, blockFrames: block)
            do {
                // A variant below the CPU's best (TUTTI_KERNELS) meets a C loop of its own
                // machine kind.
                let cap = CLoopReference.capFlags(variant: KernelVariant.active.name, best: KernelVariant.best.name)
                cLoop = .success(try CLoopReference.compile(extraFlags: cap))
            } catch let e as CLoopReference.Unavailable {
                cLoop = .failure(e)
            }
            switch cLoop {
            case .success(let c):
                // A plain C loop built for this CPU: the limit the engine is measured against.
                mixReference = ReferenceFixture(sharing: fixture, kernelName: CLoopReference.name, kernel: c.kernel)
            default:
                // No C compiler: the engine's own C kernel with no engine around it.
                mixReference = ReferenceFixture(
                    sharing: fixture, kernelName: "C kernel", kernel: ReferenceFixture.cKernel(KernelVariant.active))
            }
            bareReference = nil
        }
    }

    var output: UnsafeMutablePointer<Float> { fixture.output }

    @inline(__always) func renderEngine() { fixture.render() }

    /// The reference for one block.
    @inline(__always) func renderReference() {
        if let mixReference { mixReference.render() } else { bareReference!.render() }
    }

    func measure(seconds: Double) -> BenchResult {
        // Warm up (fill caches and converters), then collect what the render side handed back.
        let warmup = max(16, BenchSetup.sampleRate / 5 / block)
        for _ in 0..<warmup {
            fixture.prepare(blocks: 1)
            renderEngine()
            renderReference()
        }
        fixture.engine.pollEvents()

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
                fixture.feed(blocks: 1)
                let t = timed { renderEngine() }
                engineTimes.record(t)
                engineTotal &+= t
            }
            for _ in 0..<round {
                let t = timed { renderReference() }
                referenceTimes.record(t)
                referenceTotal &+= t
            }
            blocks += round
            fixture.engine.pollEvents()
            energy += fixture.lastBlockEnergy
        }
        return BenchResult(
            setup: self, blocks: blocks, engine: engineTimes, reference: referenceTimes,
            engineTotal: engineTotal, referenceTotal: referenceTotal, outputEnergy: energy)
    }

    /// The reference's short name: "C loop, cc -O3 -march=native", "C kernel" or "src_process".
    var referenceShortName: String {
        switch cLoop {
        case .success: CLoopReference.name
        case .failure: "C kernel"
        case nil: "src_process"
        }
    }

    var referenceName: String {
        switch cLoop {
        case .success(let c):
            return
                "\(CLoopReference.name): the plain loop out[i] += g*in[i] (Benchmarks/ reference_kernel.c), one pass per source over the same buffers and gains into a zeroed block, built by \(c.commandLine)\(c.compilerVersion.isEmpty ? "" : " (\(c.compilerVersion))")"
        case .failure(let why):
            return
                "the bare C kernel (CTuttiKernels mix_add, \(KernelVariant.active.name)), one call per source over the same buffers and gains, into a zeroed block (no C-loop reference: \(why))"
        case nil:
            return
                "bare src_process (libsamplerate through TuttiDSP's ResamplerKernel.process), one converter per source, same input and 512-frame chunks, no ring, no mixing"
        }
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
        /// "C loop, cc -O3 -march=native", "C kernel" (no C compiler) or "src_process".
        var name: String
        var kernel: String
        /// The C loop's compiler (path and first line of --version).
        var compiler: String?
        /// Why the C loop is not the reference (mix mode without a C compiler).
        var cLoopUnavailable: String?
        var latencyNs: Latency
        var nsPerSourceFrame: Double
    }

    struct JSONReport: Encodable {
        var command = "tutti bench"
        var kernels = KernelVariant.active.name
        var cpuModel = BenchSetup.cpuModel
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
        /// The same ratios when the reference is the C loop (nil otherwise).
        var ratioToCLoopP50: Double?
        var ratioToCLoopMean: Double?
        var overheadPerSourcePerBlockNs: Double
    }

    let sources: Int
    let block: Int
    let quality: ResamplerQuality?
    let referenceName: String
    let referenceShortName: String
    let cLoop: Result<CLoopReference.Compiled, CLoopReference.Unavailable>?
    let blocks: Int
    let engine: Latency
    let reference: Latency
    let engineTotal: UInt64
    let referenceTotal: UInt64
    let outputEnergy: Float

    init(
        setup: BenchRun, blocks: Int, engine: Histogram<UInt64>, reference: Histogram<UInt64>,
        engineTotal: UInt64, referenceTotal: UInt64, outputEnergy: Float
    ) {
        sources = setup.sourceCount
        block = setup.block
        quality = setup.quality
        referenceName = setup.referenceName
        referenceShortName = setup.referenceShortName
        cLoop = setup.cLoop
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

    var compiled: CLoopReference.Compiled? { if case .success(let c) = cLoop { c } else { nil } }
    var unavailable: String? { if case .failure(let why) = cLoop { why.description } else { nil } }

    var jsonObject: JSONReport {
        JSONReport(
            sources: sources, blockFrames: block, sampleRate: BenchSetup.sampleRate, channels: BenchSetup.channelCount,
            mode: quality == nil ? "mix" : "stream", resampler: quality?.rawValue,
            inputSampleRate: quality == nil ? nil : BenchSetup.streamInputRate,
            blocks: blocks, measuredSeconds: Double(engineTotal) / 1e9, deadlineNs: deadlineNs,
            latencyNs: engine, deadlineShareP99: Double(engine.p99) / deadlineNs,
            nsPerSourceFrame: Double(engine.p50) / sourceFrames,
            reference: Reference(
                name: referenceShortName, kernel: referenceName, compiler: compiled.map { "\($0.compilerPath): \($0.compilerVersion)" },
                cLoopUnavailable: unavailable, latencyNs: reference,
                nsPerSourceFrame: Double(reference.p50) / sourceFrames),
            ratioToReferenceP50: ratioP50, ratioToReferenceMean: ratioMean,
            ratioToCLoopP50: compiled == nil ? nil : ratioP50, ratioToCLoopMean: compiled == nil ? nil : ratioMean,
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
        s += "CPU: \(BenchSetup.cpuModel); mix kernels picked at load: \(KernelVariant.active.name)"
        s += " (best on this CPU: \(KernelVariant.best.name))\n"
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
        let versus = compiled == nil ? "reference" : "C loop"
        s += "engine / \(versus): " + String(format: "%.2f× (p50), %.2f× (mean)\n", ratioP50, ratioMean)
        s += "engine overhead over the \(versus): " + String(format: "%.1f ns per source per block (p50)", overheadPerSource)
        return s
    }
}
