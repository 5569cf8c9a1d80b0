import ArgumentParser
import Foundation
import Histogram
import TuttiBenchSupport
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// `tutti bench effects`: each effect's cost in ns per frame on a stereo bus, next to a plain C
/// biquad compiled for this CPU in the same run (`EffectsBench`). Main thread.
struct BenchEffectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "effects",
        abstract: "Measure each effect in ns per frame on a stereo bus, next to a C biquad compiled for this CPU.",
        discussion: """
            Each effect (biquad lowpass and peaking, compressor, delay, limiter without and with \
            lookahead) processes 48 kHz stereo float blocks in place; every block's process call \
            is timed. The reference is a plain C biquad (transposed direct form II, double \
            state, the same coefficients) compiled with the system C compiler ($CC, else cc) at \
            -O3 -march=native at start-up; its output is checked equal to the engine's biquad \
            (within 1e-6) before anything is timed. The effects are measured in turn within \
            each repetition, so that all see the same machine; the report gives the median of \
            the repetitions' ns per frame and the p90 of the blocks.
            Percentiles include whatever else the machine does: run it on a quiet machine.
            """)

    @Option(help: "Block size in frames (one process call).")
    var block = 256

    @Option(help: "Seconds of measuring per effect (shared among the repetitions).")
    var seconds = 1.0

    @Option(help: "Repetitions (the figure is their median).")
    var repetitions = 5

    @Flag(help: "Print one JSON object (for scripts) instead of the report.")
    var json = false

    func validate() throws {
        guard (16...16_384).contains(block) else { throw ValidationError("--block must be 16…16384 frames") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
        guard (1...101).contains(repetitions) else { throw ValidationError("--repetitions must be 1…101") }
    }

    func run() throws {
        let report = EffectsBench.run(blockFrames: block, seconds: seconds, repetitions: repetitions)
        print(json ? report.json : report.text)
        if report.cReference.agrees == false { throw ExitCode(1) }
    }
}

/// The measurements of `tutti bench effects`. Main thread.
enum EffectsBench {
    /// One measured effect.
    struct Row: Encodable {
        /// A short key: lowpass, peaking, c-lowpass, c-peaking, compressor, delay, limiter, limiter-lookahead.
        var name: String
        /// The effect and its settings.
        var what: String
        /// Median over the repetitions of (time in process / frames processed), ns.
        var nsPerFrameMedian: Double
        /// p90 over the blocks of (block time / block frames), ns.
        var nsPerFrameP90: Double
        /// Blocks timed (all repetitions).
        var blocks: Int
        /// Engine biquads: their median over the C biquad's on the same coefficients.
        var ratioToCReference: Double?
    }

    /// The C reference: how it was built and whether its output matched the engine's biquad.
    struct CReference: Encodable {
        var name = CBiquadReference.name
        /// The compiler command line and its `--version` (nil when unavailable).
        var compiler: String?
        /// Why there is no C reference (no compiler, the compile failed).
        var unavailable: String?
        /// Its output equals the engine biquad's within `tolerance` for every kind measured
        /// (nil when unavailable).
        var agrees: Bool?
        /// The largest |engine − C| sample difference over 1 s of input, every kind measured.
        var maxDifference: Double?
        var tolerance = 1e-6
    }

    struct Goals: Encodable {
        /// Engine biquad ≤ 1.3 × the C biquad (every kind).
        var biquadRatioMax = 1.3
        var biquadMet: Bool?
        /// Limiter (with and without lookahead) ≤ 3 ns per frame.
        var limiterNsPerFrameMax = 3.0
        var limiterMet: Bool
    }

    struct Report: Encodable {
        var command = "tutti bench effects"
        var cpuModel = BenchSetup.cpuModel
        var kernelRelease: String
        var kernels = KernelVariant.active.name
        var sampleRate = BenchSetup.sampleRate
        var channels = 2
        var blockFrames: Int
        var secondsPerEffect: Double
        var repetitions: Int
        var cReference: CReference
        var effects: [Row]
        var goals: Goals

        var json: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
            return String(decoding: data, as: UTF8.self)
        }

        var text: String {
            var s = String(
                format: "tutti bench effects: %d-frame blocks, %d Hz stereo float, %.2f s per effect, median of %d repetitions\n",
                blockFrames, sampleRate, secondsPerEffect, repetitions)
            s += "CPU: \(cpuModel); mix kernels picked at load: \(kernels) (best on this CPU: \(KernelVariant.best.name)); "
            s += "Linux \(kernelRelease)\n"
            if let compiler = cReference.compiler, let agrees = cReference.agrees {
                s += "reference: \(cReference.name)\n  \(compiler)\n"
                s += String(
                    format: "  its output %@ the engine biquad's within %.0e (max difference %.2e over 1 s, each kind)\n\n",
                    agrees ? "equals" : "DIFFERS FROM", cReference.tolerance, cReference.maxDifference ?? .nan)
            } else {
                s += "reference: none (\(cReference.unavailable ?? "unavailable"))\n\n"
            }
            s += "effect                                                  ns/frame (median)   p90\n"
            for row in effects {
                let label = row.what.count > 55 ? String(row.what.prefix(55)) : row.what.padding(toLength: 55, withPad: " ", startingAt: 0)
                s += String(format: "%@ %8.3f %10.3f", label, row.nsPerFrameMedian, row.nsPerFrameP90)
                if let ratio = row.ratioToCReference { s += String(format: "   %.2f× the C biquad", ratio) }
                s += "\n"
            }
            s += "\ngoals: biquad ≤ 1.3× the C biquad: "
            s += goals.biquadMet.map { $0 ? "met" : "not met" } ?? "no C reference"
            s += "; limiter ≤ 3 ns per frame: \(goals.limiterMet ? "met" : "not met")"
            return s
        }
    }

    /// An effect to time: processes `frames` interleaved stereo frames in place.
    struct Case {
        var name: String
        var what: String
        var process: (UnsafeMutablePointer<Float>, Int) -> Void
    }

    static let lowpass = EffectSettings.biquad(.lowpass, frequencyHz: 1000, q: 0.707, gainDB: 0)
    static let peaking = EffectSettings.biquad(.peaking, frequencyHz: 1000, q: 1, gainDB: 6)

    /// An engine effect as a case (its state lives until the process ends).
    static func unit(_ settings: EffectSettings, name: String, what: String) -> Case {
        let p = UnsafeMutablePointer<EffectUnit>.allocate(capacity: 1)
        p.initialize(to: EffectUnit(settings, sampleRate: BenchSetup.sampleRate, channelCount: 2))
        return Case(name: name, what: what) { p.pointee.process($0, frameCount: $1) }
    }

    static func limiter(lookaheadSeconds: Double, name: String, what: String) -> Case {
        let p = UnsafeMutablePointer<PeakLimiter>.allocate(capacity: 1)
        p.initialize(
            to: PeakLimiter(
                settings: LimiterSettings(ceilingDB: -1, releaseSeconds: 0.1, lookaheadSeconds: lookaheadSeconds),
                sampleRate: BenchSetup.sampleRate, channelCount: 2))
        return Case(name: name, what: what) { p.pointee.process($0, frameCount: $1) }
    }

    static func cBiquad(_ c: CBiquadReference.Compiled, _ settings: EffectSettings, name: String, what: String) -> Case {
        guard case .biquad(let kind, let f, let q, let g) = settings else { preconditionFailure("not a biquad") }
        let coefficients = CBiquadReference.array(
            BiquadCoefficients(kind, frequencyHz: f, q: q, gainDB: g, sampleRate: Double(BenchSetup.sampleRate)))
        let k = UnsafeMutablePointer<Double>.allocate(capacity: 5)
        k.initialize(from: coefficients, count: 5)
        let z = UnsafeMutablePointer<Double>.allocate(capacity: 4)
        z.initialize(repeating: 0, count: 4)
        let function = c.function
        return Case(name: name, what: what) { function($0, $1, k, z) }
    }

    /// The largest |engine − C| difference over `input` processed block by block from rest.
    static func difference(_ c: CBiquadReference.Compiled, _ settings: EffectSettings, input: [Float], blockFrames: Int) -> Double {
        let engine = unit(settings, name: "", what: "")
        let reference = cBiquad(c, settings, name: "", what: "")
        var a = input
        var b = input
        let frames = input.count / 2
        a.withUnsafeMutableBufferPointer { pa in
            b.withUnsafeMutableBufferPointer { pb in
                var f = 0
                while f < frames {
                    let n = min(blockFrames, frames - f)
                    engine.process(pa.baseAddress! + 2 * f, n)
                    reference.process(pb.baseAddress! + 2 * f, n)
                    f += n
                }
            }
        }
        var worst = 0.0
        for i in 0..<a.count { worst = max(worst, Double(abs(a[i] - b[i]))) }
        return a.allSatisfy(\.isFinite) ? worst : .infinity
    }

    static func run(blockFrames: Int, seconds: Double, repetitions: Int) -> Report {
        // 1 s of loud stereo material (a sine peaking near full scale plus a little noise):
        // the compressor compresses and the limiter limits.
        let loopFrames = BenchSetup.sampleRate
        let input = BenchSetup.material(frames: loopFrames, seed: 0, rate: Double(BenchSetup.sampleRate)).map { $0 * 5 }
        let compiled = Result { try CBiquadReference.compile() }
        var reference = CReference()
        var cases: [Case] = [
            unit(lowpass, name: "lowpass", what: "biquad lowpass 1 kHz, Q 0.707"),
            unit(peaking, name: "peaking", what: "biquad peaking 1 kHz, Q 1, +6 dB"),
        ]
        switch compiled {
        case .success(let c):
            reference.compiler = "\(c.commandLine) (\(c.compilerVersion))"
            let worst = [lowpass, peaking].map { difference(c, $0, input: input, blockFrames: blockFrames) }.max() ?? .infinity
            reference.maxDifference = worst
            reference.agrees = worst <= reference.tolerance
            cases += [
                cBiquad(c, lowpass, name: "c-lowpass", what: "C biquad lowpass 1 kHz, Q 0.707"),
                cBiquad(c, peaking, name: "c-peaking", what: "C biquad peaking 1 kHz, Q 1, +6 dB"),
            ]
        case .failure(let error):
            reference.unavailable = "\(error)"
        }
        cases += [
            unit(
                .compressor(thresholdDB: -20, ratio: 4, attackSeconds: 0.005, releaseSeconds: 0.1, makeupDB: 0), name: "compressor",
                what: "compressor −20 dB, 4:1, 5 ms / 100 ms"),
            unit(.delay(timeSeconds: 0.25, feedback: 0.4, mix: 0.3), name: "delay", what: "delay 250 ms, feedback 0.4, mix 0.3"),
            limiter(lookaheadSeconds: 0, name: "limiter", what: "limiter −1 dB, release 100 ms, no lookahead"),
            limiter(lookaheadSeconds: 0.005, name: "limiter-lookahead", what: "limiter −1 dB, release 100 ms, lookahead 5 ms"),
        ]

        let work = UnsafeMutablePointer<Float>.allocate(capacity: 2 * blockFrames)
        defer { work.deallocate() }
        let blocksInLoop = max(1, loopFrames / blockFrames)
        let budgetNs = UInt64(seconds / Double(repetitions) * 1e9)
        var histograms = cases.map { _ in Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three) }
        var perRepetition = cases.map { _ in [Double]() }
        var blocks = cases.map { _ in 0 }
        input.withUnsafeBufferPointer { source in
            // Warm up: every case a few blocks, untimed.
            for c in cases {
                for b in 0..<16 {
                    work.update(from: source.baseAddress! + 2 * (b % blocksInLoop) * blockFrames, count: 2 * blockFrames)
                    c.process(work, blockFrames)
                }
            }
            for _ in 0..<repetitions {
                for (k, c) in cases.enumerated() {
                    var total: UInt64 = 0
                    var count = 0
                    while total < budgetNs || count < 8 {
                        work.update(from: source.baseAddress! + 2 * (blocks[k] % blocksInLoop) * blockFrames, count: 2 * blockFrames)
                        let t0 = monotonicNanoseconds()
                        c.process(work, blockFrames)
                        let dt = monotonicNanoseconds() &- t0
                        histograms[k].record(dt)
                        total &+= dt
                        count += 1
                        blocks[k] += 1
                    }
                    perRepetition[k].append(Double(total) / Double(count * blockFrames))
                }
            }
        }
        func median(_ values: [Double]) -> Double {
            let s = values.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        var rows = cases.indices.map { k in
            Row(
                name: cases[k].name, what: cases[k].what, nsPerFrameMedian: median(perRepetition[k]),
                nsPerFrameP90: Double(histograms[k].valueAtPercentile(90)) / Double(blockFrames), blocks: blocks[k])
        }
        for k in rows.indices {
            if let r = rows.first(where: { $0.name == "c-" + rows[k].name }) {
                rows[k].ratioToCReference = rows[k].nsPerFrameMedian / r.nsPerFrameMedian
            }
        }
        let ratios = rows.compactMap(\.ratioToCReference)
        let goals = Goals(
            biquadMet: ratios.isEmpty ? nil : ratios.allSatisfy { $0 <= 1.3 },
            limiterMet: rows.filter { $0.name.hasPrefix("limiter") }.allSatisfy { $0.nsPerFrameMedian <= 3 })
        return Report(
            kernelRelease: BenchSetup.kernelRelease, blockFrames: blockFrames, secondsPerEffect: seconds, repetitions: repetitions,
            cReference: reference, effects: rows, goals: goals)
    }
}
