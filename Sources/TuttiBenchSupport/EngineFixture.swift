import Tutti
import TuttiDSP
import TuttiEngine

/// A whole engine with N sources playing through the full chain (see `BenchSetup`): buffer
/// sources (looped, at the engine rate) and stream sources (fed 44.1 kHz input here, converted
/// by the engine on the render thread). Everything is built before measuring; the measured
/// call is `render()`. Owned by the benchmarking thread (control side and render side both:
/// the fixture calls `Engine.render` itself).
public final class EngineFixture {
    /// The engine under test.
    public let engine: Engine
    /// Frames per render call.
    public let blockFrames: Int
    /// Buffer sources (the first ones), stream sources (the rest).
    public let bufferSourceCount: Int
    /// Stream sources (fed by `feed(blocks:)`), after the buffer sources.
    public let streamSourceCount: Int
    /// Frames in each buffer's loop (a multiple of `blockFrames`).
    public let loopFrames: Int
    /// The distinct source buffers (at the engine rate); source k plays `buffers[k % count]`.
    public let buffers: [AudioBuffer]
    /// Source gains, in source order.
    public let gains: [Float]
    /// The stream sources, fed by `feed(blocks:)`.
    public private(set) var streams: [StreamSource] = []
    /// Every source and bus, in creation order.
    public private(set) var sourceIDs: [SourceID] = []
    /// The buses, in creation order.
    public private(set) var busIDs: [BusID] = []
    /// The last rendered block (interleaved stereo, `blockFrames` frames).
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
    private let streamRingFrames: Int

    /// `distinctBuffers`: how many different buffers the buffer sources play (nil: one each;
    /// fewer keeps the data in cache, as many voices of a few samples do).
    /// `streamRingFrames`: input frames each stream's ring holds. `panned`: every source gets
    /// a pan of its own (−0.9…0.9, none at the centre) before it plays.
    public init(
        bufferSources: Int, streamSources: Int = 0, quality: ResamplerQuality = .sincFastest,
        blockFrames: Int, moving: Bool = false, distinctBuffers: Int? = nil, streamRingFrames: Int = 16_384, panned: Bool = false
    ) throws {
        let total = bufferSources + streamSources
        precondition(total > 0)
        self.blockFrames = blockFrames
        bufferSourceCount = bufferSources
        streamSourceCount = streamSources
        self.moving = moving
        self.streamRingFrames = streamRingFrames
        loopFrames = BenchSetup.loopFrames(forBlock: blockFrames)
        var config = EngineConfiguration(sampleRate: BenchSetup.sampleRate, channelCount: BenchSetup.channelCount)
        config.maxSources = max(total, 8)
        config.maxBuses = BenchSetup.maxBuses
        config.maxBlockFrames = max(config.maxBlockFrames, blockFrames)
        // Installing and starting every source goes through the command ring at once.
        config.commandQueueCapacity = max(config.commandQueueCapacity, (panned ? 3 : 2) * total + 256)
        engine = try Engine(configuration: config)
        output = allocateAudio(Float.self, capacity: blockFrames * BenchSetup.channelCount)
        output.initialize(repeating: 0, count: blockFrames * BenchSetup.channelCount)

        for _ in 0..<BenchSetup.busCount(forSources: total) { busIDs.append(try engine.addBus()) }
        buffers = BenchSetup.loopBuffers(count: min(bufferSources, distinctBuffers ?? bufferSources), blockFrames: blockFrames)
        gains = (0..<total).map { BenchSetup.gain($0, of: total) }
        streamInputFrames = Int(BenchSetup.streamInputRate) * 2
        streamInput = streamSources > 0 ? BenchSetup.material(frames: streamInputFrames, seed: 99, rate: BenchSetup.streamInputRate) : []
        writePositions = (0..<streamSources).map { ($0 &* 7_919) % (Int(BenchSetup.streamInputRate) * 2 - 1_024) }

        for k in 0..<total {
            let kind: SourceKind =
                k < bufferSources
                ? .buffer(buffers[k % buffers.count])
                : .stream(
                    sampleRate: BenchSetup.streamInputRate, channelCount: BenchSetup.channelCount,
                    capacityFrames: streamRingFrames, quality: quality)
            let id = try engine.addSource(kind, bus: busIDs[k % busIDs.count], gain: gains[k], loop: true)
            sourceIDs.append(id)
            if let stream = engine.stream(id) { streams.append(stream) }
        }
        if panned {
            for (k, id) in sourceIDs.enumerated() {
                let pan = Float(-0.9 + 1.8 * Double(k % 19) / 18)
                try engine.send(.setSourcePan(id, pan: pan == 0 ? 0.1 : pan, rampFrames: 0))
            }
        }
        for id in sourceIDs { try engine.send(.play(id)) }
        for bus in busIDs { try engine.send(.setBusDuck(bus, targetDB: -6, dBPerFrame: 0)) }
        try engine.send(.setMasterVolume(gain: 0.8, rampFrames: 0))

        // Warm up a whole number of loops (so the fixture stands at a loop start): install the
        // nodes, hand them back, fill the caches.
        let blocksPerLoop = loopFrames / blockFrames
        let warmup = blocksPerLoop * max(1, (64 + blocksPerLoop - 1) / blocksPerLoop)
        for _ in 0..<warmup {
            feed(blocks: 1)
            render()
        }
        engine.pollEvents()
        nextMotionFrame = framesRendered
        prepare(blocks: 1)
    }

    deinit { deallocateAudio(output) }

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

    /// Producer: keep every stream ring 1024 input frames ahead of what the next `blocks`
    /// blocks consume.
    public func feed(blocks: Int) {
        guard streamSourceCount > 0 else { return }
        let prefill = 1_024.0
        let ratio = BenchSetup.streamInputRate / Double(BenchSetup.sampleRate)
        // Every ring must take all that is fed, or the sources would run dry unseen.
        precondition(Double(blocks * blockFrames) * ratio + prefill + 1 < Double(streamRingFrames), "feeding more than a ring holds")
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
                    try engine.send(.setSourceGain(id, gain: motionPhase ? gains[k] * 0.5 : gains[k], rampFrames: frames), at: .frame(at))
                }
                for bus in busIDs {
                    try engine.send(.setBusDuck(bus, targetDB: motionPhase ? -15 : -3, dBPerFrame: 12 / Float(period)), at: .frame(at))
                }
                try engine.send(.setMasterVolume(gain: motionPhase ? 0.6 : 0.8, rampFrames: frames), at: .frame(at))
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
