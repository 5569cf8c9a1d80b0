import Foundation
import TuttiBenchSupport
import TuttiDSP

/// `tutti bench voices`: how many playing sources fit in half a block's period on one core,
/// for each `VoiceCounter.Mode`, next to the same count for the bare reference. Runs on the
/// main thread.
enum VoicesReport {
    struct Row: Encodable {
        var mode: String
        var what: String
        var voices: Int
        var blockNs: Double
        var referenceVoices: Int
        var referenceBlockNs: Double
        var reference: String
    }

    struct JSONReport: Encodable {
        var command = "tutti bench voices"
        var kernels = KernelVariant.active.name
        var blockFrames: Int
        var sampleRate = BenchSetup.sampleRate
        var budgetNs: Double
        var distinctBuffers = VoiceCounter.distinctBuffers
        var fileQuality = ResamplerQuality.fileDefault.rawValue
        var modes: [Row]
    }

    static func describe(_ mode: VoiceCounter.Mode) -> (what: String, reference: String) {
        switch mode {
        case .mix:
            ("buffer sources at 48 kHz, mixing only", "bare C kernel, one call per voice")
        case .pan:
            ("buffer sources at 48 kHz, each with a pan of its own, mixed", "bare C kernel, one call per voice (no pan)")
        case .linear:
            ("stream sources converted 44.1 → 48 kHz on the render thread (linear)", "bare src_process (linear) + bare C kernel")
        case .fileDefault:
            (
                "file sources converted 44.1 → 48 kHz at \(ResamplerQuality.fileDefault.rawValue) (ChunkedResampler) + mixed",
                "bare soxr_process + bare C kernel"
            )
        }
    }

    static func run(blockFrames: Int, secondsPerStep: Double, json: Bool) throws {
        let budget = Double(blockFrames) / Double(BenchSetup.sampleRate) * 1e9 / 2
        if !json {
            print(
                String(
                    format: "tutti bench voices: voices that fit in half a %d-frame period at 48 kHz (%.0f µs) on one core",
                    blockFrames, budget / 1000))
            print(
                "mix kernels: \(KernelVariant.active.name); voices share \(VoiceCounter.distinctBuffers) looped buffers (data in cache)\n")
        }
        var rows: [Row] = []
        for mode in VoiceCounter.Mode.allCases {
            let (engine, reference) = try VoiceCounter.count(
                mode, blockFrames: blockFrames, budgetNs: budget, secondsPerStep: secondsPerStep)
            let d = describe(mode)
            rows.append(
                Row(
                    mode: mode.rawValue, what: d.what, voices: engine.voices, blockNs: engine.blockNs,
                    referenceVoices: reference.voices, referenceBlockNs: reference.blockNs, reference: d.reference))
            if !json {
                print("\(mode.rawValue): \(d.what)")
                print(
                    String(
                        format: "  engine     %7d voices (%.0f µs per block, %.1f ns per voice)", engine.voices, engine.blockNs / 1000,
                        engine.blockNs / Double(max(engine.voices, 1))))
                print(
                    String(
                        format: "  reference  %7d voices (%.0f µs per block, %.1f ns per voice): %@", reference.voices,
                        reference.blockNs / 1000, reference.blockNs / Double(max(reference.voices, 1)), d.reference))
                print(
                    String(format: "  engine / reference: %.2f of the voices\n", Double(engine.voices) / Double(max(reference.voices, 1))))
            }
        }
        if !json, let mix = rows.first(where: { $0.mode == "mix" }), let pan = rows.first(where: { $0.mode == "pan" }) {
            let perVoice = (pan.blockNs / Double(max(pan.voices, 1))) / (mix.blockNs / Double(max(mix.voices, 1)))
            print(
                String(
                    format: "pan on every voice: %.2f of the voices without, %.2f× the time per voice (goal ≥ 0.90 of the voices)",
                    Double(pan.voices) / Double(max(mix.voices, 1)), perVoice))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(JSONReport(blockFrames: blockFrames, budgetNs: budget, modes: rows))
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
