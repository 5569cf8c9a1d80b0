import CLibSampleRate
import CReferenceKernel
import Tutti
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// The engine set-ups the benchmarks measure, and the reference computations on the same
/// data. Everything here is built before measuring; the measured calls are `render()`.
///
/// The chain every source goes through (as in a real session):
/// source (gain 0.25…0.75, not unity, so the multiply is real) → its session bus (gate open,
/// duck envelope settled at −6 dB) → master (system volume 0.8) → interleaved stereo output.
/// Sources are spread round-robin over `min(N, 8)` buses.
public enum BenchSetup {
    public static let sampleRate = 48_000
    public static let channelCount = 2
    /// Length of each source's buffer (looped): a multiple of every block size measured, so
    /// loop points fall on block edges and never split a block. 32 KiB per stereo source.
    public static let loopFrames = 4_096
    public static let streamInputRate = 44_100.0
    public static let maxBuses = 8

    public static func busCount(forSources n: Int) -> Int { max(1, min(n, maxBuses)) }

    /// Source k's constant gain.
    public static func gain(_ k: Int, of n: Int) -> Float { 0.25 + 0.5 * Float(k) / Float(max(n, 1)) }

    /// Deterministic material: a sine plus a little noise, different per source.
    public static func material(frames: Int, seed: Int, rate: Double) -> [Float] {
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
}

/// A whole engine with N sources playing through the full chain.
public final class EngineFixture {
    public let engine: Engine
    public let blockFrames: Int
    public let bufferSourceCount: Int
    public let streamSourceCount: Int
    /// Source buffers (at the engine rate), in source order: the data the engine reads.
    public let buffers: [AudioBuffer]
    public let gains: [Float]
    public let streams: [StreamSource]
    public private(set) var sourceIDs: [SourceID] = []
    public private(set) var busIDs: [BusID] = []
    public let output: UnsafeMutablePointer<Float>
    /// With `moving`, every gain stage ramps all the time (source gains, bus ducks, master
    /// volume, 1 s ramps re-aimed every second): the per-frame paths, the worst case.
    public let moving: Bool
    /// Output frames rendered (the engine's clock as this fixture knows it).
    public private(set) var framesRendered: Int64 = 0
    private var nextMotionFrame: Int64 = 0
    private var motionPhase = false
    // Stream producer state.
    private let streamInput: [Float]
    private let streamInputFrames: Int
    private var writePositions: [Int]
    private var framesFed: Double = 0

    public init(
        bufferSources: Int, streamSources: Int = 0, quality: ResamplerQuality = .sincFastest,
        blockFrames: Int, moving: Bool = false
    ) throws {
        let total = bufferSources + streamSources
        precondition(total > 0)
        self.blockFrames = blockFrames
        bufferSourceCount = bufferSources
        streamSourceCount = streamSources
        self.moving = moving
        var config = EngineConfiguration(sampleRate: BenchSetup.sampleRate, channelCount: BenchSetup.channelCount)
        config.maxSources = max(total, 8)
        config.maxBuses = BenchSetup.maxBuses
        config.maxBlockFrames = max(blockFrames, 16)
        engine = try Engine(configuration: config)
        output = .allocate(capacity: blockFrames * BenchSetup.channelCount)
        output.initialize(repeating: 0, count: blockFrames * BenchSetup.channelCount)

        for _ in 0..<BenchSetup.busCount(forSources: total) { busIDs.append(try engine.addBus()) }
        buffers = (0..<bufferSources).map {
            AudioBuffer(
                interleaved: BenchSetup.material(frames: BenchSetup.loopFrames, seed: $0, rate: Double(BenchSetup.sampleRate)),
                channelCount: BenchSetup.channelCount, sampleRate: Double(BenchSetup.sampleRate))
        }
        gains = (0..<total).map { BenchSetup.gain($0, of: total) }
        streams = try (0..<streamSources).map { _ in
            try StreamSource(
                sampleRate: BenchSetup.streamInputRate, channelCount: BenchSetup.channelCount,
                engineSampleRate: Double(BenchSetup.sampleRate), quality: quality, bufferFrames: 16_384)
        }
        streamInputFrames = Int(BenchSetup.streamInputRate) * 2
        streamInput = streamSources > 0 ? BenchSetup.material(frames: streamInputFrames, seed: 99, rate: BenchSetup.streamInputRate) : []
        writePositions = (0..<streamSources).map { ($0 &* 7_919) % (Int(BenchSetup.streamInputRate) * 2 - 1_024) }

        for k in 0..<total {
            let kind: SourceKind = k < bufferSources ? .buffer(buffers[k]) : .stream(streams[k - bufferSources])
            let id = try engine.addSource(kind, bus: busIDs[k % busIDs.count], gain: gains[k], loop: true)
            sourceIDs.append(id)
        }
        for id in sourceIDs { try engine.send(.play(id)) }
        for bus in busIDs { try engine.send(.setBusDuck(bus, targetDB: -6, dBPerFrame: 0)) }
        try engine.send(.setMasterVolume(gain: 0.8, rampFrames: 0))

        // Warm up: install the nodes, hand them back, fill the caches.
        feed(blocks: 64)
        for _ in 0..<64 { render() }
        engine.pollEvents()
        nextMotionFrame = framesRendered
        prepare(blocks: 1)
    }

    deinit { output.deallocate() }

    /// The measured call: one block through `Engine.render(into:frameCount:)`.
    @inline(__always)
    public func render() {
        engine.render(into: output, frameCount: blockFrames)
        framesRendered &+= Int64(blockFrames)
    }

    /// Control side, before measuring the next `blocks` blocks: feed the stream sources and
    /// (with `moving`) schedule the ramps that fall in them. Also collects render events.
    public func prepare(blocks: Int) {
        feed(blocks: blocks)
        if moving { scheduleMotion(until: framesRendered + Int64(blocks * blockFrames)) }
        engine.pollEvents()
    }

    /// Producer: keep every stream ring `prefill` input frames ahead of what the next
    /// `blocks` blocks consume.
    public func feed(blocks: Int) {
        guard streamSourceCount > 0 else { return }
        let prefill = 1_024.0
        let ratio = BenchSetup.streamInputRate / Double(BenchSetup.sampleRate)
        let target = (Double(framesRendered) + Double(blocks * blockFrames)) * ratio + prefill
        let need = Int((target - framesFed).rounded(.up))
        guard need > 0 else { return }
        streamInput.withUnsafeBufferPointer { input in
            for (k, stream) in streams.enumerated() {
                var left = need
                while left > 0 {
                    var pos = writePositions[k]
                    if pos + left > streamInputFrames { pos = 0 }
                    let n = min(left, streamInputFrames - pos)
                    let wrote = stream.write(UnsafeBufferPointer(rebasing: input[pos * 2..<(pos + n) * 2]))
                    writePositions[k] = pos + wrote
                    left -= wrote
                    if wrote < n { break } // ring full: it is far enough ahead
                }
            }
        }
        framesFed += Double(need)
    }

    private func scheduleMotion(until end: Int64) {
        let period = Int64(BenchSetup.sampleRate) // 1 s ramps, re-aimed every second
        while nextMotionFrame < end {
            let at = nextMotionFrame
            motionPhase.toggle()
            let frames = Int32(period)
            do {
                for (k, id) in sourceIDs.enumerated() {
                    try engine.send(.setSourceGain(id, gain: motionPhase ? gains[k] * 0.5 : gains[k], rampFrames: frames), at: at)
                }
                for bus in busIDs {
                    try engine.send(.setBusDuck(bus, targetDB: motionPhase ? -15 : -3, dBPerFrame: 12 / Float(period)), at: at)
                }
                try engine.send(.setMasterVolume(gain: motionPhase ? 0.6 : 0.8, rampFrames: frames), at: at)
            } catch {
                fatalError("command ring full: \(error)")
            }
            nextMotionFrame += period
        }
    }

    /// Sum of squares of the last block (to check that sound came out).
    public var lastBlockEnergy: Float {
        var e: Float = 0
        for i in 0..<blockFrames * BenchSetup.channelCount { e += output[i] * output[i] }
        return e
    }
}

/// The reference kernel (C, -O3) on the same buffers and gains as a mix-only `EngineFixture`:
/// out = Σ gain[k] · source[k], one pass per source, walking through the looped buffers the
/// same way the engine does.
///
/// Where in the loop: when the reference and the engine take turns (one block each), the
/// reference stays half a loop away from the engine, so the slice each of them reads was last
/// touched equally long ago (by the other): neither gets the data warm from the other's pass.
/// Right behind the engine, the reference would read from L1/L2 what the engine just
/// brought in from L3, and look faster than it is.
public final class ReferenceFixture {
    public let blockFrames: Int
    let bases: [UnsafePointer<Float>]
    let pointers: UnsafeMutablePointer<UnsafePointer<Float>?>
    let gains: UnsafeMutablePointer<Float>
    public let output: UnsafeMutablePointer<Float>
    let count: Int
    var position = 0
    public let avx2: Bool
    public static var hasAVX2: Bool { tutti_ref_has_avx2() != 0 }

    /// `avx2`: use the AVX2+FMA build of the same loop (for information; not the reference).
    /// Call it right after building `fixture` (both then stand at the start of the loop).
    public init(sharing fixture: EngineFixture, avx2: Bool = false) {
        precondition(fixture.streamSourceCount == 0)
        blockFrames = fixture.blockFrames
        count = fixture.bufferSourceCount
        bases = fixture.buffers.map { $0.samples.baseAddress! }
        pointers = .allocate(capacity: count)
        pointers.initialize(repeating: nil, count: count)
        gains = .allocate(capacity: count)
        gains.initialize(from: fixture.gains, count: count)
        output = .allocate(capacity: blockFrames * BenchSetup.channelCount)
        output.initialize(repeating: 0, count: blockFrames * BenchSetup.channelCount)
        self.avx2 = avx2 && ReferenceFixture.hasAVX2
        for _ in 0..<BenchSetup.loopFrames / blockFrames { render() }
        // The engine's warm-up was a whole number of loops: it stands at 0; stand opposite.
        precondition(fixture.framesRendered % Int64(BenchSetup.loopFrames) == 0)
        position = (BenchSetup.loopFrames / 2 / blockFrames) * blockFrames
    }

    deinit {
        pointers.deallocate()
        gains.deallocate()
        output.deallocate()
    }

    @inline(__always)
    public func render() {
        let ch = BenchSetup.channelCount
        for k in 0..<count { pointers[k] = bases[k] + position &* ch }
        let samples = blockFrames * ch
        if avx2 {
            tutti_ref_mix_block_avx2(output, pointers, gains, count, samples)
        } else {
            tutti_ref_mix_block(output, pointers, gains, count, samples)
        }
        position &+= blockFrames
        if position >= BenchSetup.loopFrames { position = 0 }
    }
}

/// Bare libsamplerate: one `SRC_STATE` per source at `quality`, `src_process` straight
/// from the same input material a stream `EngineFixture` is fed, block by block, with the
/// same input chunking (up to 512 frames offered per call) and no engine around it.
public final class BareResamplerFixture {
    public let blockFrames: Int
    let states: [OpaquePointer]
    let input: UnsafeMutablePointer<Float>
    let inputFrames: Int
    // Unchecked: as class `var`s touched once per source per block, these would cost two
    // dynamic exclusivity checks (swift_beginAccess, ≈ 600 instructions) per source per
    // block, work the engine's render path does not do, making the reference look slower.
    @exclusivity(unchecked) var positions: [Int]
    @exclusivity(unchecked) var staged: [Int]
    public let output: UnsafeMutablePointer<Float>
    let ratio: Double

    public init(sources: Int, quality: ResamplerQuality, blockFrames: Int) {
        self.blockFrames = blockFrames
        var states: [OpaquePointer] = []
        for _ in 0..<sources {
            var error: Int32 = 0
            guard let s = src_new(quality.converterType, Int32(BenchSetup.channelCount), &error) else {
                fatalError("src_new: \(String(cString: src_strerror(error)))")
            }
            states.append(s)
        }
        self.states = states
        inputFrames = Int(BenchSetup.streamInputRate) * 2
        let material = BenchSetup.material(frames: inputFrames, seed: 99, rate: BenchSetup.streamInputRate)
        input = .allocate(capacity: material.count)
        input.initialize(from: material, count: material.count)
        positions = (0..<sources).map { ($0 &* 7_919) % (Int(BenchSetup.streamInputRate) * 2 - 1_024) }
        staged = Array(repeating: 0, count: sources)
        output = .allocate(capacity: blockFrames * BenchSetup.channelCount)
        output.initialize(repeating: 0, count: blockFrames * BenchSetup.channelCount)
        ratio = Double(BenchSetup.sampleRate) / BenchSetup.streamInputRate
        for _ in 0..<64 { render() }
    }

    deinit {
        for s in states { src_delete(s) }
        input.deallocate()
        output.deallocate()
    }

    /// The measured call: every source converts one block's worth of output. The input is
    /// offered the way the engine's stream node offers it (chunks of up to 512 frames, the
    /// rest of a chunk on the next call), minus the ring copy.
    public func render() {
        let ch = BenchSetup.channelCount
        var data = SRC_DATA()
        data.src_ratio = ratio
        data.end_of_input = 0
        for k in 0..<states.count {
            var produced = 0
            while produced < blockFrames {
                if staged[k] == 0 {
                    if inputFrames - positions[k] < 512 { positions[k] = 0 }
                    staged[k] = 512
                }
                data.data_in = UnsafePointer(input + positions[k] * ch)
                data.input_frames = staged[k]
                data.data_out = output + produced * ch
                data.output_frames = blockFrames - produced
                if src_process(states[k], &data) != 0 { fatalError("src_process failed") }
                positions[k] += data.input_frames_used
                staged[k] -= data.input_frames_used
                produced += data.output_frames_gen
            }
        }
    }
}
