import Synchronization
import TuttiDSP

/// The render side of an engine: sources → session buses (gate, duck, gain) → master (system
/// and ringer volume) → interleaved float output.
///
/// Thread: owned by the render thread (a backend's real-time thread, a host's audio callback,
/// or the offline loop) — one thread at a time. Everything it touches is preallocated;
/// changes arrive as commands through a ring, wait in a fixed-capacity heap ordered by frame,
/// and apply at their exact frame, splitting the block there. `render(into:frameCount:)` is
/// compiler-checked `@_noLocks`: no allocation, lock, reference counting or unknown call.
/// What it publishes (frames rendered, source status) is read race-free through
/// `StatusBoard`.
public final class Renderer: @unchecked Sendable { // render-side memory: the render thread's graph
    /// The settings it was built with.
    public let configuration: EngineConfiguration
    @usableFromInline let channelCount: Int
    @usableFromInline let maxChunk: Int
    @usableFromInline let transportFadeFrames: Int
    @usableFromInline let maxSources: Int
    @usableFromInline let maxBuses: Int
    /// Output buses (`configuration.outputBuses.count`, 1…8). Any thread.
    public let outputBusCount: Int
    /// `outputBusCount` under its old name. Any thread.
    @available(*, deprecated, renamed: "outputBusCount")
    public var routeCount: Int { outputBusCount }
    /// Where each route mixes the current chunk: the caller's buffers, or `routeScratch`
    /// for routes the caller did not ask for (mixed and dropped, so sources advance alike).
    /// Past `maxOutputBusCount` entries, one per bus (`busMixBase + slot`): where the main-bus
    /// sources of that bus mix — main's own pointer, or the caller's per-bus mix while a
    /// render call splits them (`render(outputBuses:busCount:busMixes:busMixCount:joiningMain:frameCount:)`).
    @usableFromInline let routeTargets: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// The index in `routeTargets` of bus 0's mix target.
    @usableFromInline let busMixBase = EngineConfiguration.maxOutputBusCount
    /// Per bus: the current chunk mixes it into the caller's buffer of its own (joined to main
    /// at the end of the chunk).
    @usableFromInline let busMixGiven: UnsafeMutablePointer<Bool>
    /// The current span splits main into per-bus mixes.
    @usableFromInline @exclusivity(unchecked) var busMixActive = false
    /// The current span adds the per-bus mixes to main at the end of each chunk.
    @usableFromInline @exclusivity(unchecked) var busMixJoins = true
    /// The highest `busHighWater` so far: the bus entries of `routeTargets` kept current
    /// (a settled plan may hold one of them).
    @usableFromInline @exclusivity(unchecked) var busMixSeen = 0
    /// One chunk per route past main (`maxBlockFrames × channelCount` each, `routeStride`
    /// apart so each starts on an `audioBufferAlignment` boundary).
    @usableFromInline let routeScratch: UnsafeMutablePointer<Float>
    /// Floats from one route's chunk to the next in `routeScratch` and `masterBuffers`:
    /// `maxBlockFrames × channelCount` rounded up to a multiple of 16 (64 bytes).
    @usableFromInline let routeStride: Int
    /// Floats from one bus's row to the next in `busGains`: `maxBlockFrames` rounded up to a
    /// multiple of 16 (64 bytes).
    @usableFromInline let busGainStride: Int

    // Graph storage (render thread only after construction).
    @usableFromInline let sources: UnsafeMutablePointer<SourceNode>
    @usableFromInline let sourceOccupied: UnsafeMutablePointer<Bool>
    @usableFromInline @exclusivity(unchecked) var sourceHighWater = 0
    /// Per source slot: how it mixes while settled (`SettledPlan`), valid while its epoch is
    /// `planEpoch`.
    @usableFromInline let plans: UnsafeMutablePointer<SettledPlan>
    /// Bumped whenever a settled plan may no longer hold: a command applied, a bus ramping or
    /// its duck moved by a sidechain, a bus or source removed. Render thread.
    @usableFromInline @exclusivity(unchecked) var planEpoch = 1
    /// Every occupied source slot in slot order, when each of them is settled
    /// (`SettledEntry`): `renderChunk` walks it instead of the slots while `settledEpoch` is
    /// `planEpoch` (0: not made). Capacity `maxSources`. Render thread.
    @usableFromInline let settledList: UnsafeMutablePointer<SettledEntry>
    @usableFromInline @exclusivity(unchecked) var settledCount = 0
    @usableFromInline @exclusivity(unchecked) var settledEpoch = 0
    /// The latest `SettledPlan.since` of the list's sources (moved by a wrap): a render call
    /// that started after it has no source status to publish while the list holds.
    @usableFromInline @exclusivity(unchecked) var settledSince: Int64 = 0
    /// Bytes from a `SourceNode` to its `position` (where a list entry's `node_position`
    /// points, so the batch kernel moves the node's position with the entry's).
    @usableFromInline let nodePositionOffset: Int
    @usableFromInline let buses: UnsafeMutablePointer<BusNode>
    @usableFromInline let busOccupied: UnsafeMutablePointer<Bool>
    @usableFromInline @exclusivity(unchecked) var busHighWater = 0
    /// Per bus: its gain for the current chunk, a scalar when settled, per frame while ramping
    /// (`busGains`: one row of `maxBlockFrames` per bus, `busGainStride` apart).
    @usableFromInline let busScalar: UnsafeMutablePointer<Float>
    @usableFromInline let busRamping: UnsafeMutablePointer<Bool>
    @usableFromInline let busGains: UnsafeMutablePointer<Float>
    @usableFromInline let systemVolumeGains: UnsafeMutablePointer<Float>
    @usableFromInline let ringerVolumeGains: UnsafeMutablePointer<Float>
    /// Per-frame gains of the source being mixed, and its samples when it generates them
    /// (room for stereo whatever the engine's channel count: a stereo stream into a mono engine).
    @usableFromInline let frameGains: UnsafeMutablePointer<Float>
    /// Per-sample gains (frame gain × pan gain of each channel) of a panned source while its
    /// gains or pan ramp: `maxBlockFrames × 2`.
    @usableFromInline let sampleGains: UnsafeMutablePointer<Float>
    @usableFromInline let scratch: UnsafeMutablePointer<Float>
    /// A source of a key bus (a sidechain's) renders here first, to be measured, then joins
    /// its target: `maxBlockFrames × channelCount`.
    @usableFromInline let keyScratch: UnsafeMutablePointer<Float>
    /// Frames of a sidechain's measuring window: 10 ms at the engine rate (at least 1).
    @usableFromInline let sidechainWindowFrames: Int
    /// Buses with a sidechain armed (render thread): while > 0, chunks end on window bounds.
    @usableFromInline @exclusivity(unchecked) var sidechainCount = 0
    @usableFromInline @exclusivity(unchecked) var volume = LinearRamp(value: 1)
    @usableFromInline @exclusivity(unchecked) var ringerVolume = LinearRamp(value: 1)

    // Voice limits.
    /// Voices the engine may have at once (0: no limit).
    @usableFromInline @exclusivity(unchecked) var maxVoices = 0
    /// Fade of a stolen voice, frames.
    @usableFromInline let stealFadeFrames: Int
    /// Counts voice starts (orders voices by age).
    @usableFromInline @exclusivity(unchecked) var voiceCounter: UInt64 = 0

    /// The main output's levels since the engine started, as rendered (after the limiter and
    /// the system volume): the largest |sample| as `Float` bits, and the samples beyond full
    /// scale. The render thread folds each chunk into `meterPeakBits` / `meterClipped` and
    /// stores them once per render call; any thread reads them (`outputLevels`).
    @usableFromInline let meteredLevels: UnsafeMutablePointer<Atomic<UInt64>>
    @usableFromInline @exclusivity(unchecked) var meterPeakBits: UInt32 = 0
    @usableFromInline @exclusivity(unchecked) var meterClipped = 0

    /// One peak limiter per route when `configuration.limiter` is set (nil: none).
    @usableFromInline let limiters: UnsafeMutablePointer<PeakLimiter>?
    /// Frames the limiter delays the output by (its lookahead; 0 without a limiter or with no
    /// lookahead). Any thread.
    public let limiterLatencyFrames: Int

    /// Per bus slot: its effect chain (nil: none, the bus mixes straight into the output as
    /// before). Installed and retired by command (`RenderCommand.Action.setBusEffects`).
    @usableFromInline let busEffects: UnsafeMutablePointer<UnsafeMutablePointer<EffectChain>?>
    /// Per bus slot: its host effect (nil: none), run on the chain's buffer after the chain.
    /// The control side installs one only on a bus with a chain (an empty one if need be).
    /// Installed and retired by command (`RenderCommand.Action.setBusHostEffect`).
    @usableFromInline let busHostEffects: UnsafeMutablePointer<UnsafeMutablePointer<HostEffectSlot>?>
    /// The master's host effect (nil: none), run on main's master-stage buffer after the
    /// master chain (render thread; installed and retired by command).
    @usableFromInline @exclusivity(unchecked) var masterHostEffect: UnsafeMutablePointer<HostEffectSlot>?
    /// Buses with an effect chain (render thread).
    @usableFromInline @exclusivity(unchecked) var busEffectCount = 0
    /// The master effect chain when `configuration.effects` is set (nil: no master stage).
    @usableFromInline let masterEffects: UnsafeMutablePointer<EffectChain>?
    /// With a master stage: per route, the mix of every non-ringer bus before the system
    /// volume (`maxChunk × channelCount` each, `routeStride` apart); the master chain runs on
    /// route 0's.
    @usableFromInline let masterBuffers: UnsafeMutablePointer<Float>?

    /// Filled after every chunk when attached (offline inspection).
    @usableFromInline @exclusivity(unchecked) var probe: ProbeStorage?

    // Queues: commands in, events out, status published. The renderer owns their memory, so a
    // backend that holds only the renderer never reads freed storage.
    let commandStorage: RingStorage<RenderCommand>
    let eventStorage: RingStorage<RenderEvent>
    @usableFromInline let commands: CommandRing
    @usableFromInline let events: EventRing
    @usableFromInline @exclusivity(unchecked) var pending: PendingCommands
    @usableFromInline let board: StatusBoard

    /// Output frames rendered so far: the clock commands are scheduled against (render thread's
    /// copy; other threads read `framesRendered`).
    @usableFromInline @exclusivity(unchecked) var framePosition: Int64 = 0
    /// The thread that fills the rings of streaming file sources (started with the first);
    /// here so a pull render that waits for it needs only the renderer.
    let fileWorker = FileStreamWorker()

    init(configuration: EngineConfiguration) {
        self.configuration = configuration
        commandStorage = RingStorage(capacity: configuration.commandQueueCapacity)
        eventStorage = RingStorage(capacity: configuration.eventQueueCapacity)
        commands = CommandRing(commandStorage)
        events = EventRing(eventStorage)
        board = StatusBoard(slots: configuration.maxSources)
        channelCount = configuration.channelCount
        maxChunk = configuration.maxBlockFrames
        transportFadeFrames = configuration.frames(forSeconds: configuration.transportFadeSeconds)
        stealFadeFrames = configuration.frames(forSeconds: configuration.voiceStealFadeSeconds)
        maxVoices = configuration.maxVoices
        maxSources = configuration.maxSources
        maxBuses = configuration.maxBuses
        outputBusCount = max(configuration.outputBuses.count, 1)
        // Every float buffer below comes from `allocateAudio` (64-byte aligned); buffers carved
        // per route or per bus are strided so each part starts aligned too.
        let routeChunk = alignedAudioStride(configuration.maxBlockFrames * configuration.channelCount, of: Float.self)
        routeStride = routeChunk
        busGainStride = alignedAudioStride(configuration.maxBlockFrames, of: Float.self)
        routeScratch = allocateAudio(Float.self, capacity: max(outputBusCount - 1, 1) * routeChunk)
        routeScratch.initialize(repeating: 0, count: max(outputBusCount - 1, 1) * routeChunk)
        routeTargets = .allocate(capacity: EngineConfiguration.maxOutputBusCount + configuration.maxBuses)
        routeTargets.initialize(repeating: routeScratch, count: EngineConfiguration.maxOutputBusCount + configuration.maxBuses)
        busMixGiven = .allocate(capacity: configuration.maxBuses)
        busMixGiven.initialize(repeating: false, count: configuration.maxBuses)
        pending = PendingCommands(capacity: commands.indices.capacity)
        let placeholder = SourceNode(
            id: SourceID(rawValue: 0), bus: BusID(rawValue: 0), content: .silence, gain: 0, loop: false, fadeOutFrames: 0)
        sources = .allocate(capacity: maxSources)
        sources.initialize(repeating: placeholder, count: maxSources)
        plans = .allocate(capacity: maxSources)
        plans.initialize(repeating: SettledPlan(), count: maxSources)
        settledList = .allocate(capacity: maxSources)
        settledList.initialize(repeating: SettledEntry(), count: maxSources)
        nodePositionOffset = MemoryLayout<SourceNode>.offset(of: \SourceNode.position)!
        sourceOccupied = .allocate(capacity: maxSources)
        sourceOccupied.initialize(repeating: false, count: maxSources)
        buses = .allocate(capacity: maxBuses)
        buses.initialize(repeating: BusNode(id: BusID(rawValue: 0), volumeClass: .system, gateOpen: false, gain: 0), count: maxBuses)
        busOccupied = .allocate(capacity: maxBuses)
        busOccupied.initialize(repeating: false, count: maxBuses)
        // One slot past the buses: a settled gain of 1 (sources mixing into a bus's effect chain).
        busScalar = .allocate(capacity: maxBuses + 1)
        busScalar.initialize(repeating: 1, count: maxBuses + 1)
        busRamping = .allocate(capacity: maxBuses + 1)
        busRamping.initialize(repeating: false, count: maxBuses + 1)
        busGains = allocateAudio(Float.self, capacity: busGainStride * maxBuses)
        busGains.initialize(repeating: 0, count: busGainStride * maxBuses)
        busEffects = .allocate(capacity: maxBuses)
        busEffects.initialize(repeating: nil, count: maxBuses)
        busHostEffects = .allocate(capacity: maxBuses)
        busHostEffects.initialize(repeating: nil, count: maxBuses)
        if let effects = configuration.effects {
            masterEffects = EffectChain.make(
                effects, sampleRate: configuration.sampleRate, channelCount: configuration.channelCount, maxFrames: 1)
            let buffers = allocateAudio(Float.self, capacity: outputBusCount * routeChunk)
            buffers.initialize(repeating: 0, count: outputBusCount * routeChunk)
            masterBuffers = buffers
        } else {
            masterEffects = nil
            masterBuffers = nil
        }
        systemVolumeGains = allocateAudio(Float.self, capacity: maxChunk)
        systemVolumeGains.initialize(repeating: 0, count: maxChunk)
        ringerVolumeGains = allocateAudio(Float.self, capacity: maxChunk)
        ringerVolumeGains.initialize(repeating: 0, count: maxChunk)
        frameGains = allocateAudio(Float.self, capacity: maxChunk)
        frameGains.initialize(repeating: 0, count: maxChunk)
        sampleGains = allocateAudio(Float.self, capacity: maxChunk * 2)
        sampleGains.initialize(repeating: 0, count: maxChunk * 2)
        scratch = allocateAudio(Float.self, capacity: maxChunk * 2)
        scratch.initialize(repeating: 0, count: maxChunk * 2)
        keyScratch = allocateAudio(Float.self, capacity: maxChunk * configuration.channelCount)
        keyScratch.initialize(repeating: 0, count: maxChunk * configuration.channelCount)
        sidechainWindowFrames = max(1, configuration.sampleRate / 100)
        meteredLevels = .allocate(capacity: 2)
        meteredLevels.initialize(to: Atomic(0))
        (meteredLevels + 1).initialize(to: Atomic(0))
        if let settings = configuration.limiter {
            let limiters = UnsafeMutablePointer<PeakLimiter>.allocate(capacity: outputBusCount)
            for r in 0..<outputBusCount {
                (limiters + r).initialize(
                    to: PeakLimiter(settings: settings, sampleRate: configuration.sampleRate, channelCount: configuration.channelCount))
            }
            self.limiters = limiters
            limiterLatencyFrames = limiters[0].lookaheadFrames
        } else {
            limiters = nil
            limiterLatencyFrames = 0
        }
    }

    deinit {
        fileWorker.stop()
        sources.deinitialize(count: maxSources).deallocate()
        sourceOccupied.deallocate()
        plans.deallocate()
        settledList.deallocate()
        buses.deinitialize(count: maxBuses).deallocate()
        busOccupied.deallocate()
        busScalar.deallocate()
        busRamping.deallocate()
        deallocateAudio(busGains)
        for b in 0..<maxBuses { if let chain = busEffects[b] { EffectChain.destroy(chain) } }
        busEffects.deallocate()
        for b in 0..<maxBuses { if let slot = busHostEffects[b] { HostEffectSlot.destroy(slot) } }
        busHostEffects.deallocate()
        if let masterHostEffect { HostEffectSlot.destroy(masterHostEffect) }
        if let masterEffects { EffectChain.destroy(masterEffects) }
        if let masterBuffers { deallocateAudio(masterBuffers) }
        deallocateAudio(systemVolumeGains)
        deallocateAudio(ringerVolumeGains)
        deallocateAudio(frameGains)
        deallocateAudio(sampleGains)
        deallocateAudio(scratch)
        deallocateAudio(keyScratch)
        deallocateAudio(routeScratch)
        routeTargets.deallocate()
        busMixGiven.deallocate()
        if let limiters {
            for r in 0..<outputBusCount { limiters[r].deallocate() }
            limiters.deinitialize(count: outputBusCount).deallocate()
        }
        pending.deallocate()
        board.deallocate()
        meteredLevels.deinitialize(count: 2).deallocate()
    }

    /// Any thread: the main output's peak (largest |sample|, linear: 1 is 0 dBFS) and the
    /// samples beyond full scale (they clip on a device or in an integer format) over
    /// everything rendered so far, as of the last render call. No lock, no allocation.
    public var outputLevels: (peak: Float, clippedSampleCount: Int) {
        let peak = meteredLevels[0].load(ordering: .relaxed)
        let clipped = meteredLevels[1].load(ordering: .relaxed)
        return (Float(bitPattern: UInt32(truncatingIfNeeded: peak)), Int(clipped))
    }

    /// Render thread: fold `count` samples of the output into the meter (the sign bit
    /// cleared, floats order as their bits: an integer max and count) with the active
    /// variant's C meter (`Kernels.meter`: every variant gives the same peak and count).
    @inlinable @inline(__always) @_noLocks
    func meter(_ samples: UnsafePointer<Float>, count: Int) {
        var clipped = meterClipped
        meterPeakBits = Kernels.meter(samples, count: count, peakBits: meterPeakBits, clipped: &clipped)
        meterClipped = clipped
    }

    /// Render thread: render `frameCount` interleaved frames into `output`, applying every
    /// command due in this span at its exact frame, then publish the clock and source status.
    /// Any frame count (split internally into blocks of at most `maxBlockFrames`).
    @inlinable @_noLocks
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        _ = render(into: output, frameCount: frameCount, waitingForFiles: false)
    }

    /// Render thread: `render(into:frameCount:)`, but stopping before a chunk that a playing
    /// streaming file source has no data for yet (instead of playing silence for it): returns
    /// the frames rendered (`frameCount` when nothing was missing). Offline drivers call it
    /// and, when it stops short, wait for the file worker and render the rest
    /// (`Engine.renderWaitingForFiles`), so their output never depends on timing.
    @inlinable @_noLocks
    public func renderAvailable(into output: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        render(into: output, frameCount: frameCount, waitingForFiles: true)
    }

    @inlinable @_noLocks
    func render(into output: UnsafeMutablePointer<Float>, frameCount: Int, waitingForFiles: Bool) -> Int {
        renderSpan(main: output, routes: nil, routeCount: 1, offset: 0, frameCount: frameCount, waitingForFiles: waitingForFiles)
    }

    /// Render thread: `render(outputBuses:busCount:frameCount:)` with main split by bus:
    /// for each bus slot `b` below `busMixCount` whose `busMixes[b]` is not nil, what that
    /// bus mixes into main (its sources and its effect chain after its bus factor: gate × bus
    /// gain × duck × its class's volume) is written to `busMixes[b]` (`frameCount` interleaved
    /// frames) and, with `joiningMain`, joins main at the end of each block; the other buses
    /// mix into main directly. Joined, main equals the sum of the per-bus mixes and the rest
    /// within float rounding (the sum's order differs); not joined, main holds only the rest
    /// (what a backend playing each mix through a stream of its own plays on main's stream;
    /// the level meter then sees only the rest). Every bus not split mixes as without it. An
    /// engine with a master effect chain or a limiter (`supportsBusMixes` false) cannot be
    /// split (its stages act on the sum): the per-bus mixes are silence and main is rendered
    /// whole. A bus slot (`BusID.slot`) with no bus gets silence.
    @inlinable @_noLocks
    public func render(
        outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int,
        busMixes: UnsafePointer<UnsafeMutablePointer<Float>?>, busMixCount: Int, joiningMain: Bool = true, frameCount: Int
    ) {
        guard busCount > 0 else { return }
        busMixJoins = joiningMain
        _ = renderSpan(
            main: outputs[0], routes: outputs, routeCount: busCount, offset: 0, frameCount: frameCount, waitingForFiles: false,
            busMixes: busMixes, busMixCount: Swift.min(busMixCount, maxBuses))
    }

    /// Render thread: whether bus `id` is in the graph now (its slot holds that generation).
    /// A backend playing a bus's mix on a stream of its own asks it before a render, to stop
    /// splitting a bus that has gone (its slot may be given to another).
    @inlinable @_noLocks
    public func hasBus(_ id: BusID) -> Bool {
        let b = id.slot
        guard b >= 0, b < maxBuses, busOccupied[b] else { return false }
        return buses[b].id.rawValue == id.rawValue
    }

    /// Render thread: whether bus `id` has left the graph: its slot took it in (a generation at
    /// least its own was installed there) and does not hold it now — removed, or given to a
    /// later bus. False before its install command is applied (`hasBus` is false then too), so
    /// a backend waiting for a bus to appear tells it from one added and removed between two
    /// of its renders.
    @inlinable @_noLocks
    public func busHasLeft(_ id: BusID) -> Bool {
        let b = id.slot
        guard b >= 0, b < maxBuses else { return false }
        let installed = buses[b].id.generation
        guard installed >= id.generation else { return false }
        return !(busOccupied[b] && installed == id.generation)
    }

    /// Whether `render(outputBuses:busCount:busMixes:busMixCount:joiningMain:frameCount:)` can split main
    /// by bus: no master effect chain and no limiter (nonlinear stages on the sum). Any thread.
    public var supportsBusMixes: Bool { configuration.effects == nil && configuration.limiter == nil }

    /// Render thread: render every output bus at once — `outputs[b]` receives `frameCount`
    /// interleaved frames of bus `b` (`configuration.outputBuses[b]`, 0 = main), for `b` below
    /// `busCount`; buses the engine has past `busCount` are mixed into scratch and dropped,
    /// pointers past the engine's buses are not touched. Otherwise the same as
    /// `render(into:frameCount:)` (which is this with main alone).
    @inlinable @_noLocks
    public func render(outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int, frameCount: Int) {
        guard busCount > 0 else { return }
        _ = renderSpan(
            main: outputs[0], routes: outputs, routeCount: busCount, offset: 0, frameCount: frameCount, waitingForFiles: false)
    }

    /// `render(outputBuses:busCount:frameCount:)` under its old labels. Render thread.
    @available(*, deprecated, renamed: "render(outputBuses:busCount:frameCount:)")
    @inlinable @_noLocks
    public func render(routes outputs: UnsafePointer<UnsafeMutablePointer<Float>>, routeCount: Int, frameCount: Int) {
        render(outputBuses: outputs, busCount: routeCount, frameCount: frameCount)
    }

    /// Render thread: `render(outputBuses:busCount:frameCount:)` stopping where a streaming
    /// file source has no data yet (see `renderAvailable(into:frameCount:)`), writing from
    /// frame `offset` of each buffer on. Returns the frames rendered.
    @inlinable @_noLocks
    public func renderAvailable(
        outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int, offset: Int, frameCount: Int
    )
        -> Int
    {
        guard busCount > 0 else { return 0 }
        return renderSpan(
            main: outputs[0], routes: outputs, routeCount: busCount, offset: offset, frameCount: frameCount, waitingForFiles: true)
    }

    /// `renderAvailable(outputBuses:busCount:offset:frameCount:)` under its old labels. Render thread.
    @available(*, deprecated, renamed: "renderAvailable(outputBuses:busCount:offset:frameCount:)")
    @inlinable @_noLocks
    public func renderAvailable(routes outputs: UnsafePointer<UnsafeMutablePointer<Float>>, routeCount: Int, offset: Int, frameCount: Int)
        -> Int
    {
        renderAvailable(outputBuses: outputs, busCount: routeCount, offset: offset, frameCount: frameCount)
    }

    /// Frames `offset ..< offset + frameCount` of `main` (and of `routes[r]`, r < `routeCount`).
    @inlinable @_noLocks
    func renderSpan(
        main: UnsafeMutablePointer<Float>, routes: UnsafePointer<UnsafeMutablePointer<Float>>?, routeCount given: Int, offset: Int,
        frameCount: Int, waitingForFiles: Bool, busMixes: UnsafePointer<UnsafeMutablePointer<Float>?>? = nil, busMixCount: Int = 0
    ) -> Int {
        takeCommands()
        let spanStart = framePosition
        let ch = channelCount
        var done = 0
        while done < frameCount {
            applyDueCommands()
            var n = min(frameCount &- done, maxChunk)
            if !pending.isEmpty, pending.nextFrame < framePosition &+ Int64(n) {
                n = Int(pending.nextFrame &- framePosition)
            }
            if sidechainCount > 0 {
                // Sidechains decide at the end of each 10 ms window of the engine clock.
                let w = Int64(sidechainWindowFrames)
                n = min(n, Int(w &- framePosition % w))
            }
            if waitingForFiles {
                n = fileFramesReady(upTo: n)
                if n == 0 { break }
            }
            let at = (offset &+ done) &* ch
            routeTargets[0] = main + at
            if outputBusCount > 1 {
                for r in 1..<outputBusCount {
                    if let routes, r < given {
                        routeTargets[r] = routes[r] + at
                    } else {
                        routeTargets[r] = routeScratch + (r &- 1) &* routeStride
                    }
                }
            }
            // Each bus's main-bus sources mix into main, or into the caller's mix of that bus.
            let base = busMixBase
            busMixSeen = Swift.max(busMixSeen, busHighWater)
            for b in 0..<busMixSeen {
                routeTargets[base &+ b] = routeTargets[0]
                busMixGiven[b] = false
            }
            busMixActive = false
            if let busMixes {
                var splitting = masterBuffers == nil
                if limiters != nil { splitting = false }
                for b in 0..<busMixCount {
                    guard let mix = busMixes[b] else { continue }
                    let target = mix + at
                    target.update(repeating: 0, count: n &* ch)
                    if splitting, b < busMixSeen {
                        routeTargets[base &+ b] = target
                        busMixGiven[b] = true
                        busMixActive = true
                    }
                }
            }
            renderChunk(frameCount: n)
            meter(routeTargets[0], count: n &* ch)
            framePosition &+= Int64(n)
            done &+= n
        }
        applyDueCommands()
        publish(spanStart: spanStart)
        meteredLevels[0].store(UInt64(meterPeakBits), ordering: .relaxed)
        meteredLevels[1].store(UInt64(meterClipped), ordering: .relaxed)
        return done
    }

    /// How much of the next `n` frames every playing streaming file source has data for: `n`,
    /// or 0 when one must wait. A source whose fade-out ends in the chunk with a seek or a
    /// rewind (new data) shortens the chunk to end there, so the next chunk checks again.
    @inlinable @_noLocks
    func fileFramesReady(upTo frames: Int) -> Int {
        var n = frames
        for i in 0..<sourceHighWater where sourceOccupied[i] {
            guard sources[i].running, case .file(let f) = sources[i].content else { continue }
            n = min(n, f.halfCapacityFrames)
            if sources[i].isHalting, sources[i].fade.isRamping { n = min(n, max(sources[i].fade.framesRemaining, 1)) }
            if !f.isReady(frameCount: n) { return 0 }
        }
        return n
    }

    /// `renderWaitingForFiles(into:frameCount:)` for every output bus at once (see
    /// `render(outputBuses:busCount:frameCount:)`). Blocks: never on a real-time thread.
    public func renderWaitingForFiles(outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int, frameCount: Int) {
        guard busCount > 0 else { return }
        var done = 0
        while true {
            done += renderAvailable(outputBuses: outputs, busCount: busCount, offset: done, frameCount: frameCount - done)
            if done >= frameCount { return }
            if !fileWorker.waitForProgress() {
                _ = renderSpan(
                    main: outputs[0], routes: outputs, routeCount: busCount, offset: done, frameCount: frameCount - done,
                    waitingForFiles: false)
                return
            }
        }
    }

    /// `renderWaitingForFiles(outputBuses:busCount:frameCount:)` under its old labels. Blocks:
    /// never on a real-time thread.
    @available(*, deprecated, renamed: "renderWaitingForFiles(outputBuses:busCount:frameCount:)")
    public func renderWaitingForFiles(routes outputs: UnsafePointer<UnsafeMutablePointer<Float>>, routeCount: Int, frameCount: Int) {
        renderWaitingForFiles(outputBuses: outputs, busCount: routeCount, frameCount: frameCount)
    }

    /// The render thread when it is not real time (an offline loop, a host's pull render that
    /// asked to wait): `render(into:frameCount:)`, but whenever a playing streaming file
    /// source lacks data it waits for the file worker instead of playing silence, so the
    /// output does not depend on timing and equals what fully loaded files give. A file that
    /// failed is not waited for (it underruns, as live). Blocks: never on a real-time thread.
    public func renderWaitingForFiles(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        var done = 0
        while true {
            done += renderAvailable(into: output + done * channelCount, frameCount: frameCount - done)
            if done >= frameCount { return }
            if !fileWorker.waitForProgress() {
                // No worker to wait for: render the rest as a live render would (underruns).
                render(into: output + done * channelCount, frameCount: frameCount - done)
                return
            }
        }
    }

    /// Any thread: frames rendered so far (the engine clock), as last published.
    public var framesRendered: Int64 { board.framesRendered.pointee.load(ordering: .acquiring) }

    /// Any thread: what the render side last published about `id`, nil while its slot holds
    /// another source (not installed yet, or gone). No lock, no allocation (a seqlock read).
    public func publishedStatus(_ id: SourceID) -> SourceStatus? { board.read(id) }

    /// Render thread: the clock and every occupied source's status, for readers elsewhere.
    /// A slot is written only when what its readers see changed: a source playing on frame for
    /// frame with the clock is read as its last publication plus the frames rendered since
    /// (`StatusBoard`), so it is not written. A source whose settled plan was made before
    /// this render call (`spanStart`) and still holds played on that way throughout: it is not
    /// even looked at.
    @inlinable @_noLocks
    func publish(spanStart: Int64) {
        let epoch = planEpoch
        if settledEpoch == epoch {
            // Every source is settled (the dense list holds): since before this call, nothing
            // to say; otherwise only the sources whose position jumped (a wrap) or whose plan
            // was made in this call.
            if settledSince >= spanStart {
                for k in 0..<settledCount where settledList[k].since >= spanStart { publishSlot(settledList[k].slot) }
            }
            board.framesRendered.pointee.store(framePosition, ordering: .releasing)
            return
        }
        for i in 0..<sourceHighWater where sourceOccupied[i] {
            if plans[i].epoch == epoch, plans[i].since < spanStart { continue }
            publishSlot(i)
        }
        board.framesRendered.pointee.store(framePosition, ordering: .releasing)
    }

    /// Render thread: source slot `i`'s status, written to the board when what its readers
    /// see changed (its state, underrun count, or position against the clock).
    @inlinable @inline(__always) @_noLocks
    func publishSlot(_ i: Int) {
        var underruns = 0
        // Buffers, tones and silence cannot run dry: no enum projection for them.
        if sources[i].bufferData == nil {
            switch sources[i].content {
            case .stream(let s): underruns = s.underrunFrames
            case .file(let f): underruns = f.underrunFrames
            case .input(let c): underruns = c.underrunFrames
            case .buffer, .tone, .silence: break
            }
        }
        // Raw values (`PlaybackState`'s): no enum comparisons on the render path.
        let raw = sources[i].stateCode
        var key = Int64(sources[i].position)
        if raw == 1 { key &-= framePosition }
        // No `||` (its autoclosure would capture self: reference counting).
        var changed = raw != sources[i].publishedState
        if key != sources[i].publishedPosition { changed = true }
        if underruns != sources[i].publishedUnderruns { changed = true }
        if changed {
            board.publish(
                slot: i, id: sources[i].id.rawValue, state: sources[i].state, position: Int64(sources[i].position),
                underrunFrames: Int64(underruns), frame: framePosition)
            sources[i].publishedState = raw
            sources[i].publishedPosition = key
            sources[i].publishedUnderruns = underruns
        }
        if underruns > 0 {
            let missed = board.noteUnderruns(slot: i, total: Int64(underruns))
            // The missing frames end the call (the data ran out): the run began here.
            if missed > 0 { report(.sourceUnderrun(sources[i].id, frames: missed), at: framePosition &- missed) }
        }
    }
}

extension Renderer {
    /// Control side, once the render side is gone (engine teardown): hand back every command
    /// taken off the ring but never applied, so its resources can be freed.
    func takeUnappliedCommand(into command: inout RenderCommand) -> Bool {
        guard !pending.isEmpty else { return false }
        command = pending.pop()
        return true
    }
}
