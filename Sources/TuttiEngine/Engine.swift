import TuttiDSP

/// What a new source plays (control-side description).
public enum SourceKind {
    /// Decoded audio; it must already be at the engine rate and channel count
    /// (see `AudioBuffer.converted`).
    case buffer(AudioBuffer)
    /// A sine on every channel: `frequency` Hz (finite, > 0, below Nyquist), `amplitude` 0…1.
    case tone(frequency: Double, amplitude: Float)
    /// Plays nothing, advances like any source.
    case silence
    /// Frames pushed by the host at `sampleRate` Hz with `channelCount` channels (1 or 2);
    /// the ring holds `capacityFrames`. Converted to the engine rate with `quality` while
    /// playing, mapped to the engine's channels.
    case stream(sampleRate: Double, channelCount: Int, capacityFrames: Int, quality: ResamplerQuality = .sincMedium)
    /// A long file streamed from disk at the engine rate and channel count (see `FileStream`;
    /// `AudioFile.sourceKind` picks it for files above the streaming threshold). One source
    /// per stream.
    case file(FileStream)
    /// Captured audio (a microphone) pushed by the host at the engine rate with
    /// `channelCount` channels (1 or 2) into a ring of `capacityFrames`; mixed at the source's
    /// gain while it plays (monitoring), discarded while it does not. `tapCapacityFrames` > 0
    /// adds a recording tap of that many frames (see `InputSource`). One producer per input.
    case input(channelCount: Int, capacityFrames: Int, tapCapacityFrames: Int = 0)
}

/// The control side of the render graph: builds resources, sends commands, collects what
/// the render side reports.
///
/// Thread: one control thread at a time calls its methods (it is the single producer of the
/// command ring and the single consumer of the event ring); it is not `Sendable` — wrap it
/// (as `Tutti.AudioEngine` does) to share it. The render side is `renderer`, driven by whoever
/// owns the audio clock: `render(into:frameCount:)` (pull mode, offline loop) or a backend's
/// thread. Resources (buffers, converters, nodes) are built here, handed over by command, and
/// released here once the render side hands them back.
///
/// Flow control: at most `commandQueueCapacity` commands are in flight (sent, not yet
/// applied); beyond that `send` throws `capacity`. Every call drains the render side's event
/// ring into a control-side list, so the ring, sized for the worst case, never fills: no event
/// is ever dropped.
public final class Engine {
    /// The settings it was built with.
    public let configuration: EngineConfiguration
    /// The render side. Hand it to exactly one render thread at a time.
    public let renderer: Renderer
    /// Lock-free id → stream / input lookup for producer threads (`SourceDirectory`).
    public let directory: SourceDirectory
    var commands: CommandRing { renderer.commands }
    var events: EventRing { renderer.events }
    var board: StatusBoard { renderer.board }

    // Control-side bookkeeping.
    private var sequence: UInt64 = 0
    private var sourceSlots: SlotTable
    private var busSlots: SlotTable
    /// Per source slot: what its node points at (an `AudioBuffer`, a `StreamSource`), kept
    /// alive until the render side reports the source removed.
    private var retainedObjects: [AnyObject?]
    /// The effect chain last given to each bus slot (control side; empty: none).
    private var busEffectSettings: [[EffectSettings]]
    /// Whether each bus slot was last given a host effect (control side; its bus then keeps a
    /// chain, an empty one if need be, for the host effect to run on).
    private var busHasHostEffect: [Bool]
    /// The bus of each live source (for removing a bus's sources on the control side too).
    private var busOfSource: [BusID?]
    /// Render events drained from the ring and not yet handed out by `pollEvents`.
    private var undelivered: [EngineEvent] = []
    /// Probes handed to the render side (kept alive while it may write them).
    private var probes: [RenderProbe] = []
    /// Fills the rings of streaming file sources; started with the first one.
    private var fileWorker: FileStreamWorker { renderer.fileWorker }
    /// Live streaming file sources (to report a file that fails while it streams).
    private var fileStreams: [SourceID: FileStream] = [:]
    /// Streams and inputs detached from the directory while a writer was inside their slot:
    /// released by a later drain, once no writer is.
    private var directoryReleases: [(slot: Int, bits: UInt)] = []

    /// A new engine: every slot, buffer and queue allocated now. Throws `invalidArgument`
    /// for a configuration out of range. Control thread.
    public init(configuration: EngineConfiguration = EngineConfiguration()) throws(TuttiError) {
        try configuration.validate()
        self.configuration = configuration
        renderer = Renderer(configuration: configuration)
        sourceSlots = SlotTable(count: configuration.maxSources)
        directory = SourceDirectory(count: configuration.maxSources)
        busSlots = SlotTable(count: configuration.maxBuses)
        retainedObjects = Array(repeating: nil, count: configuration.maxSources)
        busOfSource = Array(repeating: nil, count: configuration.maxSources)
        busEffectSettings = Array(repeating: [], count: configuration.maxBuses)
        busHasHostEffect = Array(repeating: false, count: configuration.maxBuses)
    }

    /// Output rate, Hz.
    public var sampleRate: Int { configuration.sampleRate }
    /// Output channels.
    public var channelCount: Int { configuration.channelCount }
    /// Frames rendered so far (the engine clock), as the render side last published. Any thread.
    public var framesRendered: Int64 { renderer.framesRendered }
    /// Commands that may be in flight at once (the configured capacity, rounded up to a power of two).
    public var commandCapacity: Int { commands.indices.capacity }
    /// Commands sent and not yet applied by the render side.
    public var commandsInFlight: Int {
        Int(Int64(truncatingIfNeeded: sequence) &- board.commandsApplied.pointee.load(ordering: .acquiring))
    }
    /// Events the render side could not report (0 unless something is badly wrong: the ring is
    /// sized so it cannot fill).
    public var eventsDropped: Int { Int(board.eventsDropped.pointee.load(ordering: .relaxed)) }
    /// Live sources (added, not removed).
    public var sourceCount: Int { sourceSlots.liveCount }
    /// Live buses (added, not removed).
    public var busCount: Int { busSlots.liveCount }

    // MARK: Graph

    /// A new bus (one per session). Takes effect at `time`. Throws `capacity` when every bus
    /// slot is in use. Control thread.
    /// `limitsVoices`: its sources count as voices and obey voice limits (the engine's own
    /// buses for call audio and system sounds pass false); `maxVoices`: its own limit (0: none).
    public func addBus(
        volumeClass: VolumeClass = .system, gateOpen: Bool = true, gain: Float = 1, limitsVoices: Bool = true, maxVoices: Int = 0,
        at time: EngineTime = .now
    ) throws(TuttiError) -> BusID {
        try checkGain(gain, name: "bus gain")
        try checkMaxVoices(maxVoices)
        drainEvents()
        try checkRoom(1)
        guard let slot = busSlots.peekFree() else {
            throw TuttiError(.capacity, "too many sessions: the engine was configured for \(configuration.maxBuses) buses")
        }
        let id = BusID(slot: slot, generation: busSlots.nextGeneration(slot))
        let node = UnsafeMutablePointer<BusNode>.allocate(capacity: 1)
        node.initialize(
            to: BusNode(id: id, volumeClass: volumeClass, gateOpen: gateOpen, gain: gain, limitsVoices: limitsVoices, maxVoices: maxVoices))
        push(.installBus(node), at: time)
        busSlots.occupy(slot)
        busEffectSettings[slot] = []
        busHasHostEffect[slot] = false
        return id
    }

    /// Replace the effect chain of `bus` at `time` with `effects`, in order (empty: none; the
    /// bus then mixes as if it never had one). The sources of the bus on the main route mix
    /// into the chain; its output joins main with the bus's gate, gain, duck and volume
    /// (sources on other routes bypass it). The chain is built here and handed over by
    /// command; the one it replaces stops at once (its tail with it). A host effect on the bus
    /// (`setBusHostEffect`) stays, after the new chain. Throws `invalidArgument`
    /// naming `effects[i].field` (see `EffectSettings.problem`), `notFound` for a stale bus;
    /// a failed call changes nothing. Control thread.
    public func setBusEffects(_ bus: BusID, _ effects: [EffectSettings], at time: EngineTime = .now) throws(TuttiError) {
        guard contains(bus) else { throw TuttiError(.notFound, "no bus \(bus)") }
        for (i, e) in effects.enumerated() {
            if let problem = e.problem(place: "effects[\(i)]", sampleRate: configuration.sampleRate) { throw .invalid(problem) }
        }
        drainEvents()
        try checkRoom(1)
        let chain =
            effects.isEmpty && !busHasHostEffect[bus.slot]
            ? nil
            : EffectChain.make(
                effects, sampleRate: configuration.sampleRate, channelCount: configuration.channelCount,
                maxFrames: configuration.maxBlockFrames)
        push(.setBusEffects(bus, chain), at: time)
        busEffectSettings[bus.slot] = effects
    }

    /// Move the biquad at `index` of `bus`'s chain (as last given to `setBusEffects`) to
    /// `settings` — another biquad, of any form — at `time`, gliding over `glideFrames`
    /// frames without zipper noise (the new filter starts from the old one's state and the
    /// output crossfades linearly; 0: a step). Throws `invalidArgument` naming
    /// `effects[index]` when it is not a biquad or out of the chain, or the bad field;
    /// `notFound` for a stale bus; a failed call changes nothing. Control thread.
    public func setBusEffect(
        _ bus: BusID, index: Int, to settings: EffectSettings, glideFrames: Int, at time: EngineTime = .now
    ) throws(TuttiError) {
        guard contains(bus) else { throw TuttiError(.notFound, "no bus \(bus)") }
        let chain = busEffectSettings[bus.slot]
        guard chain.indices.contains(index) else {
            throw .invalid("effects[\(index)]: the bus's chain has \(chain.count) effect\(chain.count == 1 ? "" : "s")")
        }
        guard case .biquad = chain[index], case .biquad(let kind, let f, let q, let g) = settings else {
            throw .invalid(
                "effects[\(index)]: only a biquad's parameters change in place, to another biquad (replace the chain with setBusEffects)")
        }
        if let problem = settings.problem(place: "effects[\(index)]", sampleRate: configuration.sampleRate) { throw .invalid(problem) }
        guard (0...Int(Int32.max)).contains(glideFrames) else { throw .invalid("glideFrames must be ≥ 0, got \(glideFrames)") }
        drainEvents()
        try checkRoom(1)
        let target = UnsafeMutablePointer<BiquadCoefficients>.allocate(capacity: 1)
        target.initialize(to: BiquadCoefficients(kind, frequencyHz: f, q: q, gainDB: g, sampleRate: Double(configuration.sampleRate)))
        push(.glideBusBiquad(bus, index: Int32(index), frames: Int32(glideFrames), target), at: time)
        busEffectSettings[bus.slot][index] = settings
    }

    /// Replace the host effect of `bus` at `time` with `effect` (made by `HostEffectSlot.make`;
    /// nil: none). It runs on the render thread after the bus's chain (`setBusEffects`), on
    /// the mix of the bus's main-route sources, before the bus's gate, gain, duck and volume;
    /// a bus without a chain gets an empty one while the host effect is on it (and loses it
    /// with the host effect, so it then mixes exactly as before). From `time` on the one it
    /// replaces is no longer called; it is released (`HostEffectSlot.destroy`) on the control
    /// side by a later call once the render side has handed it back (or when the engine is
    /// freed). On success the engine owns `effect`; on a throw the caller still does. Throws
    /// `notFound` for a stale bus, `capacity` when the command queue is full; a failed call
    /// changes nothing. Control thread.
    public func setBusHostEffect(_ bus: BusID, _ effect: UnsafeMutablePointer<HostEffectSlot>?, at time: EngineTime = .now)
        throws(TuttiError)
    {
        guard contains(bus) else { throw TuttiError(.notFound, "no bus \(bus)") }
        drainEvents()
        let hadHost = busHasHostEffect[bus.slot]
        let noChain = busEffectSettings[bus.slot].isEmpty
        // An empty chain gives the host effect a buffer to run on; it goes with the host effect.
        let addsChain = effect != nil && !hadHost && noChain
        let dropsChain = effect == nil && hadHost && noChain
        try checkRoom(addsChain || dropsChain ? 2 : 1)
        if addsChain {
            let empty = EffectChain.make(
                [], sampleRate: configuration.sampleRate, channelCount: configuration.channelCount,
                maxFrames: configuration.maxBlockFrames)
            push(.setBusEffects(bus, empty), at: time)
        }
        push(.setBusHostEffect(bus, effect), at: time)
        if dropsChain { push(.setBusEffects(bus, nil), at: time) }
        busHasHostEffect[bus.slot] = effect != nil
    }

    /// Replace the master's host effect at `time` with `effect` (made by
    /// `HostEffectSlot.make`; nil: none). It runs on the render thread after the master chain
    /// (`EngineConfiguration.effects`), on the main route's master-stage mix (every non-ringer
    /// bus on main), before the system volume and the limiter. The engine needs a master stage:
    /// `configuration.effects` set (an empty list will do). Replacement and release as in
    /// `setBusHostEffect`; on success the engine owns `effect`, on a throw the caller still
    /// does. Throws `state` without a master stage, `capacity` when the command queue is
    /// full; a failed call changes nothing. Control thread.
    public func setMasterHostEffect(_ effect: UnsafeMutablePointer<HostEffectSlot>?, at time: EngineTime = .now) throws(TuttiError) {
        guard configuration.effects != nil else {
            throw TuttiError(
                .state, "the engine has no master stage for a host effect: configure master effects (an empty list will do)")
        }
        drainEvents()
        try checkRoom(1)
        push(.setMasterHostEffect(effect), at: time)
    }

    /// A new source on `bus`, stopped at position 0, with a voice-stealing `priority`
    /// (0…255). Takes effect at `time`. Validates everything first (a failed call changes
    /// nothing and consumes no id). Control thread.
    public func addSource(
        _ kind: SourceKind, bus: BusID, gain: Float = 1, loop: Bool = false, priority: UInt8 = 128, at time: EngineTime = .now
    ) throws(TuttiError) -> SourceID {
        try checkGain(gain, name: "gain")
        guard busSlots.isLive(slot: bus.slot, generation: bus.generation) else { throw TuttiError(.notFound, "no bus \(bus)") }
        drainEvents()
        try checkRoom(1)
        guard let slot = sourceSlots.peekFree() else {
            throw TuttiError(.capacity, "too many sources: the engine was configured for \(configuration.maxSources)")
        }
        let content: SourceContent
        var keep: AnyObject?
        switch kind {
        case .buffer(let buffer):
            guard buffer.sampleRate == Double(sampleRate), buffer.channelCount == channelCount else {
                throw TuttiError(
                    .invalidArgument,
                    "buffer is \(buffer.sampleRate) Hz × \(buffer.channelCount) ch, the engine runs \(sampleRate) Hz × \(channelCount) ch: convert it first"
                )
            }
            content = .buffer(UnsafePointer(buffer.storage.baseAddress!), frameCount: buffer.frameCount)
            keep = buffer
        case .tone(let frequency, let amplitude):
            guard frequency.isFinite, frequency > 0, frequency < Double(sampleRate) / 2 else {
                throw .invalid("tone frequency must be finite, > 0 and below \(sampleRate / 2) Hz (Nyquist), got \(frequency)")
            }
            guard amplitude.isFinite, (0...1).contains(amplitude) else {
                throw .invalid("tone amplitude must be finite and in [0, 1], got \(amplitude)")
            }
            content = .tone(SineOscillator(frequency: frequency, amplitude: amplitude, sampleRate: Double(sampleRate)))
        case .silence:
            content = .silence
        case .stream(let rate, let channels, let capacity, let quality):
            let engineRate = Double(sampleRate)
            guard rate.isFinite, rate >= engineRate / 256, rate <= engineRate * 256 else {
                throw .invalid("stream sampleRate must be finite and within 1/256…256× the engine's \(sampleRate) Hz, got \(rate)")
            }
            guard (1...2).contains(channels) else { throw .invalid("stream channelCount must be 1 or 2, got \(channels)") }
            guard (1...(1 << 24)).contains(capacity) else {
                throw .invalid("stream capacityFrames must be in 1…16777216, got \(capacity)")
            }
            let stream = try StreamSource(
                sampleRate: rate, channelCount: channels, engineSampleRate: engineRate, quality: quality, capacityFrames: capacity)
            content = .stream(stream.node)
            keep = stream
        case .input(let channels, let capacity, let tapCapacity):
            guard (1...2).contains(channels) else { throw .invalid("input channelCount must be 1 or 2, got \(channels)") }
            guard (1...(1 << 24)).contains(capacity) else {
                throw .invalid("input capacityFrames must be in 1…16777216, got \(capacity)")
            }
            guard (0...(1 << 24)).contains(tapCapacity) else {
                throw .invalid("input tapCapacityFrames must be in 0…16777216, got \(tapCapacity)")
            }
            let input = InputSource(channelCount: channels, capacityFrames: capacity, tapCapacityFrames: tapCapacity)
            content = .input(input.node)
            keep = input
        case .file(let stream):
            guard stream.sampleRate == sampleRate, stream.channelCount == channelCount else {
                throw TuttiError(
                    .invalidArgument,
                    "file stream is \(stream.sampleRate) Hz × \(stream.channelCount) ch, the engine runs \(sampleRate) Hz × \(channelCount) ch"
                )
            }
            guard !stream.isAttached else { throw .invalid("file stream \(stream.path) already plays in another source") }
            content = .file(stream.node(dryFadeFrames: configuration.frames(forSeconds: 0.002)))
            keep = stream
        }
        // What pan does to it: balance stereo material, place mono material (`PanLaw`).
        let stereoContent: Bool
        switch kind {
        case .buffer(let buffer): stereoContent = buffer.contentChannelCount == 2
        case .stream(_, let channels, _, _), .input(let channels, _, _): stereoContent = channels == 2
        case .file(let stream): stereoContent = stream.fileChannelCount == 2 && channelCount == 2
        case .tone, .silence: stereoContent = false
        }
        let id = SourceID(slot: slot, generation: sourceSlots.nextGeneration(slot))
        let node = UnsafeMutablePointer<SourceNode>.allocate(capacity: 1)
        node.initialize(
            to: SourceNode(
                id: id, bus: bus, content: content, gain: gain, loop: loop,
                fadeOutFrames: configuration.frames(forSeconds: configuration.transportFadeSeconds), priority: priority,
                stereoContent: stereoContent))
        push(.installSource(node), at: time)
        sourceSlots.occupy(slot)
        retainedObjects[slot] = keep
        directory.publish(id, object: keep)
        busOfSource[slot] = bus
        if case .file(let stream) = kind {
            // The first fill here (play starts at once), then the worker keeps it full.
            stream.isAttached = true
            stream.prefill(frames: configuration.frames(forSeconds: EngineConfiguration.streamingPrefillSeconds))
            fileStreams[id] = stream
            fileWorker.add(stream)
        }
        return id
    }

    /// Remove a source at `time`: it fades out (its fade-out length) if it plays, then leaves
    /// the graph. The id is stale at once. Control thread.
    public func removeSource(_ id: SourceID, at time: EngineTime = .now) throws(TuttiError) {
        try checkLive(id)
        drainEvents()
        try checkRoom(1)
        push(.removeSource(id), at: time)
        sourceSlots.kill(id.slot)
        directory.revoke(slot: id.slot)
    }

    /// Remove a bus and every source on it at `time` (a short gate fade if anything sounds).
    /// The ids are stale at once. Control thread.
    public func removeBus(_ id: BusID, at time: EngineTime = .now) throws(TuttiError) {
        guard busSlots.isLive(slot: id.slot, generation: id.generation) else { throw TuttiError(.notFound, "no bus \(id)") }
        drainEvents()
        try checkRoom(1)
        push(.removeBus(id), at: time)
        busSlots.kill(id.slot)
        for slot in 0..<configuration.maxSources where busOfSource[slot] == id && sourceSlots.isLiveSlot(slot) {
            sourceSlots.kill(slot)
            directory.revoke(slot: slot)
        }
    }

    /// Start filling `probe` with what the renderer applies, from `time` on (offline
    /// inspection; the engine keeps it alive). Throws `invalidArgument` when its bus slots do
    /// not cover the engine's. Control thread.
    public func attachProbe(_ probe: RenderProbe, at time: EngineTime = .now) throws(TuttiError) {
        guard probe.busSlots >= configuration.maxBuses else {
            throw .invalid("the probe has \(probe.busSlots) bus slots, the engine \(configuration.maxBuses)")
        }
        drainEvents()
        try checkRoom(1)
        probes.append(probe)
        push(.attachProbe(probe.storage), at: time)
    }

    /// Whether `id` names a live source (added, not removed).
    public func contains(_ id: SourceID) -> Bool { sourceSlots.isLive(slot: id.slot, generation: id.generation) }

    /// Whether `id` names a live bus.
    public func contains(_ id: BusID) -> Bool { busSlots.isLive(slot: id.slot, generation: id.generation) }

    /// The stream behind a live stream source (for the producer thread), nil otherwise.
    public func stream(_ id: SourceID) -> StreamSource? {
        guard contains(id) else { return nil }
        return retainedObjects[id.slot] as? StreamSource
    }

    /// The capture rings behind a live input source (for the capture and recorder threads),
    /// nil otherwise.
    public func input(_ id: SourceID) -> InputSource? {
        guard contains(id) else { return nil }
        return retainedObjects[id.slot] as? InputSource
    }

    /// The buffer behind a live buffer source, nil otherwise.
    public func buffer(_ id: SourceID) -> AudioBuffer? {
        guard contains(id) else { return nil }
        return retainedObjects[id.slot] as? AudioBuffer
    }

    /// What the render side last published about a live source (stopped at 0 until its
    /// install is rendered); nil for an unknown or removed id. Any thread may read the
    /// status board, but this checks liveness, so: control thread.
    public func status(_ id: SourceID) -> SourceStatus? {
        guard contains(id) else { return nil }
        return board.read(id) ?? .initial
    }

    // MARK: Commands

    /// Queue a command for the render thread, to apply at `time`. Throws `notFound` for a
    /// removed or unknown id, `invalidArgument` for a gain that is not finite in [0, 16], a pan
    /// that is not finite in [-1, 1], a rate that is not finite in [0.25, 4], a negative length, or a loop region that starts below 0,
    /// is empty or reversed or has a count below 1 (other than -1), `capacity` when `commandQueueCapacity` commands are already in flight.
    /// Control thread.
    public func send(_ command: EngineCommand, at time: EngineTime = .now) throws(TuttiError) {
        try validate(command)
        drainEvents()
        try checkRoom(1)
        push(.command(command), at: time)
    }

    /// Throws unless `count` more commands fit now.
    public func checkRoom(_ count: Int) throws(TuttiError) {
        guard count <= commands.indices.capacity else {
            throw TuttiError(
                .capacity,
                "this change needs room for \(count) commands, more than the command queue holds (\(commands.indices.capacity)): "
                    + "raise commandQueueCapacity")
        }
        guard commandsInFlight + count <= commands.indices.capacity else {
            throw TuttiError(
                .capacity,
                "the command queue is full (\(commands.indices.capacity) commands in flight; the render side applies them as it renders)")
        }
    }

    private func push(_ action: RenderCommand.Action, at time: EngineTime) {
        sequence &+= 1
        // Cannot fail: in-flight commands never exceed the ring's capacity (checked first).
        let pushed = commands.push(RenderCommand(frame: time.commandFrame, sequence: sequence, action: action))
        precondition(pushed, "command ring overflow despite flow control")
    }

    private func validate(_ command: EngineCommand) throws(TuttiError) {
        switch command {
        case .play(let id), .pause(let id), .stop(let id), .setLoop(let id, _), .setPriority(let id, _):
            try checkLive(id)
        case .seek(let id, let position):
            try checkLive(id)
            guard position >= 0 else { throw .invalid("seek position must be ≥ 0 frames, got \(position)") }
        case .setLoopRegion(let id, let start, let end, let count):
            try checkLive(id)
            guard start >= 0 else { throw .invalid("loop startFrame must be ≥ 0, got \(start)") }
            guard end > start else { throw .invalid("loop endFrame must be > startFrame (\(start)), got \(end)") }
            guard count >= 1 || count == -1 else { throw .invalid("loop count must be ≥ 1 (or -1: endless), got \(count)") }
        case .crossfade(let id, let from, let frames):
            try checkLive(id)
            try checkLive(from)
            guard from != id else { throw .invalid("crossfade from must be another source than \(id)") }
            guard frames > 0 else { throw .invalid("crossfade frames must be > 0, got \(frames)") }
            guard busOfSource[id.slot] == busOfSource[from.slot] else {
                throw .invalid("crossfade from \(from) belongs to another bus than \(id)")
            }
        case .setSourceGain(let id, let gain, let frames):
            try checkLive(id)
            try checkGain(gain, name: "gain")
            try checkFrames(frames, name: "rampFrames")
        case .setSourceRate(let id, let rate, let frames):
            try checkLive(id)
            guard rate.isFinite, rate >= 0.25, rate <= 4 else { throw .invalid("rate must be finite and in [0.25, 4], got \(rate)") }
            try checkFrames(frames, name: "rampFrames")
        case .setSourcePan(let id, let pan, let frames):
            try checkLive(id)
            guard pan.isFinite, (-1...1).contains(pan) else { throw .invalid("pan must be finite and in [-1, 1], got \(pan)") }
            try checkFrames(frames, name: "rampFrames")
        case .setFades(let id, let fadeIn, let fadeOut):
            try checkLive(id)
            guard fadeIn >= -1 else { throw .invalid("fadeInFrames must be ≥ 0, got \(fadeIn)") }
            try checkFrames(fadeOut, name: "fadeOutFrames")
        case .setBusGate(let id, let gain, let frames), .setBusGain(let id, let gain, let frames):
            guard contains(id) else { throw TuttiError(.notFound, "no bus \(id)") }
            try checkGain(gain, name: "bus gain")
            try checkFrames(frames, name: "rampFrames")
        case .setBusDuck(let id, let target, let rate):
            guard contains(id) else { throw TuttiError(.notFound, "no bus \(id)") }
            guard target.isFinite, target <= 0, rate.isFinite, rate >= 0 else {
                throw .invalid("duck target must be finite and ≤ 0 dB and its rate finite and ≥ 0, got \(target) dB at \(rate) dB/frame")
            }
        case .setBusSidechain(let id, let sc):
            guard contains(id) else { throw TuttiError(.notFound, "no bus \(id)") }
            guard contains(sc.key) else { throw TuttiError(.notFound, "no key bus \(sc.key)") }
            guard sc.key != id else { throw .invalid("a bus cannot key its own sidechain") }
            guard sc.thresholdMeanSquare.isFinite, sc.thresholdMeanSquare >= 0 else {
                throw .invalid("thresholdMeanSquare must be finite and ≥ 0, got \(sc.thresholdMeanSquare)")
            }
            guard sc.holdFrames >= 0 else { throw .invalid("holdFrames must be ≥ 0, got \(sc.holdFrames)") }
            guard sc.targetDB.isFinite, sc.targetDB <= 0 else { throw .invalid("targetDB must be finite and ≤ 0, got \(sc.targetDB)") }
            for (name, rate) in [("attackDBPerFrame", sc.attackDBPerFrame), ("releaseDBPerFrame", sc.releaseDBPerFrame)]
            where !(rate.isFinite && rate >= 0) {
                throw .invalid("\(name) must be finite and ≥ 0, got \(rate)")
            }
        case .clearBusSidechain(let id):
            guard contains(id) else { throw TuttiError(.notFound, "no bus \(id)") }
        case .setMasterVolume(let gain, let frames), .setRingerVolume(let gain, let frames):
            try checkGain(gain, name: "volume gain")
            try checkFrames(frames, name: "rampFrames")
        case .setBusMaxVoices(let id, let limit):
            guard contains(id) else { throw TuttiError(.notFound, "no bus \(id)") }
            try checkMaxVoices(Int(limit))
        case .setMaxVoices(let limit):
            try checkMaxVoices(Int(limit))
        case .setOutputBus(let id, let route):
            try checkLive(id)
            guard route >= 0, Int(route) < configuration.outputBuses.count else {
                throw .invalid(
                    "output bus must be in 0…\(configuration.outputBuses.count - 1) (output buses \(configuration.outputBuses)), got \(route)"
                )
            }
        }
    }

    private func checkMaxVoices(_ limit: Int) throws(TuttiError) {
        guard (0...65_536).contains(limit) else { throw .invalid("maxVoices must be in 0…65536 (0: no limit), got \(limit)") }
    }

    private func checkLive(_ id: SourceID) throws(TuttiError) {
        guard contains(id) else { throw TuttiError(.notFound, "no source \(id) (removed, or never added)") }
    }

    private func checkGain(_ gain: Float, name: String) throws(TuttiError) {
        guard gain.isFinite, gain >= 0, gain <= 16 else { throw .invalid("\(name) must be finite and in [0, 16], got \(gain)") }
    }

    private func checkFrames(_ frames: Int32, name: String) throws(TuttiError) {
        guard frames >= 0 else { throw .invalid("\(name) must be ≥ 0, got \(frames)") }
    }

    // MARK: Events

    /// What the render side reported since the last call, in the order it happened. Frees
    /// retired nodes and releases what removed sources owned. Control thread.
    @discardableResult
    public func pollEvents() -> [EngineEvent] {
        drainEvents()
        defer { undelivered.removeAll(keepingCapacity: true) }
        return undelivered
    }

    /// Empty the event ring into `undelivered`, freeing what comes back.
    private func drainEvents() {
        while let event = events.pop() {
            switch event.kind {
            case .retiredSourceNode(let node):
                node.deinitialize(count: 1).deallocate()
            case .retiredBusNode(let node):
                node.deinitialize(count: 1).deallocate()
            case .retiredEffects(let chain):
                EffectChain.destroy(chain)
            case .retiredCoefficients(let c):
                c.deinitialize(count: 1).deallocate()
            case .retiredHostEffect(let slot):
                HostEffectSlot.destroy(slot)
            case .sourceRemoved(let id):
                if let stream = fileStreams.removeValue(forKey: id) { fileWorker.remove(stream) }
                retainedObjects[id.slot] = nil
                busOfSource[id.slot] = nil
                let detached = directory.takeObject(slot: id.slot)
                if detached.bits != 0 {
                    if detached.unused { directory.releaseNow(detached.bits) } else { directoryReleases.append((id.slot, detached.bits)) }
                }
                sourceSlots.free(id.slot)
                undelivered.append(EngineEvent(frame: event.frame, kind: .sourceRemoved(id)))
            case .busRemoved(let id):
                busSlots.free(id.slot)
                undelivered.append(EngineEvent(frame: event.frame, kind: .busRemoved(id)))
            case .sidechainDuck(let id, let began):
                undelivered.append(EngineEvent(frame: event.frame, kind: .sidechainDuck(id, began: began)))
            case .sourceEnded(let id):
                undelivered.append(EngineEvent(frame: event.frame, kind: .sourceEnded(id)))
            case .sourceUnderrun(let id, let frames):
                board.acknowledgeUnderrun(slot: id.slot)
                undelivered.append(EngineEvent(frame: event.frame, kind: .sourceUnderrun(id, frames: frames)))
            case .sourceHalted(let id):
                undelivered.append(EngineEvent(frame: event.frame, kind: .sourceHalted(id)))
            case .voiceStolen(let id, let by):
                undelivered.append(EngineEvent(frame: event.frame, kind: .voiceStolen(id, by: by)))
            case .voiceRefused(let id):
                undelivered.append(EngineEvent(frame: event.frame, kind: .voiceRefused(id)))
            }
        }
        if !directoryReleases.isEmpty {
            directoryReleases.removeAll { directory.releaseIfUnused(slot: $0.slot, bits: $0.bits) }
        }
        for (id, stream) in fileStreams where !stream.failureReported {
            guard let reason = stream.failure else { continue }
            stream.failureReported = true
            undelivered.append(EngineEvent(frame: framesRendered, kind: .sourceFailed(id, reason: "\(stream.path): \(reason)")))
        }
    }

    // MARK: Rendering (pull mode)

    /// Render on the caller's thread; the same path a backend's real-time thread calls.
    /// Render thread (one at a time).
    @inlinable
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        renderer.render(into: output, frameCount: frameCount)
    }

    /// Render every output bus on the caller's thread: `outputs[b]` receives `frameCount`
    /// interleaved frames of bus `b` (`configuration.outputBuses[b]`), for `b` below `busCount`;
    /// buses past `busCount` are mixed and dropped. Render thread (one at a time); the
    /// real-time multi-bus entry (see `Renderer.render(outputBuses:busCount:frameCount:)`).
    @inlinable
    public func render(outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int, frameCount: Int) {
        renderer.render(outputBuses: outputs, busCount: busCount, frameCount: frameCount)
    }

    /// `render(outputBuses:busCount:frameCount:)` under its old labels. Render thread.
    @available(*, deprecated, renamed: "render(outputBuses:busCount:frameCount:)")
    @inlinable
    public func render(routes outputs: UnsafePointer<UnsafeMutablePointer<Float>>, routeCount: Int, frameCount: Int) {
        renderer.render(outputBuses: outputs, busCount: routeCount, frameCount: frameCount)
    }

    /// `render(outputBuses:busCount:frameCount:)` the offline way: waits for the file worker
    /// like `renderWaitingForFiles(into:frameCount:)`. Not real-time (it blocks).
    public func renderWaitingForFiles(outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int, frameCount: Int) {
        renderer.renderWaitingForFiles(outputBuses: outputs, busCount: busCount, frameCount: frameCount)
    }

    /// `renderWaitingForFiles(outputBuses:busCount:frameCount:)` under its old labels. Not
    /// real-time (it blocks).
    @available(*, deprecated, renamed: "renderWaitingForFiles(outputBuses:busCount:frameCount:)")
    public func renderWaitingForFiles(routes outputs: UnsafePointer<UnsafeMutablePointer<Float>>, routeCount: Int, frameCount: Int) {
        renderer.renderWaitingForFiles(outputBuses: outputs, busCount: routeCount, frameCount: frameCount)
    }

    /// Render on the caller's thread like `render(into:frameCount:)`, but wait for the file
    /// worker whenever a playing streaming file source lacks data (see
    /// `Renderer.renderWaitingForFiles`): the offline way. Not real-time (it blocks).
    public func renderWaitingForFiles(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        renderer.renderWaitingForFiles(into: output, frameCount: frameCount)
    }

    /// The file stream behind a live streaming file source, nil otherwise.
    public func fileStream(_ id: SourceID) -> FileStream? {
        guard contains(id) else { return nil }
        return retainedObjects[id.slot] as? FileStream
    }

    /// The render side must have stopped (a backend's thread joined) before the engine goes:
    /// it frees here what was still in flight.
    deinit {
        fileWorker.stop()
        // Free nodes still in flight (never applied), then what came back.
        var c = RenderCommand(frame: 0, sequence: 0, action: .command(.setMasterVolume(gain: 1, rampFrames: 0)))
        while renderer.takeUnappliedCommand(into: &c) || commands.pop(into: &c) {
            if case .installSource(let n) = c.action { n.deinitialize(count: 1).deallocate() }
            if case .installBus(let n) = c.action { n.deinitialize(count: 1).deallocate() }
            if case .setBusEffects(_, let chain?) = c.action { EffectChain.destroy(chain) }
            if case .glideBusBiquad(_, _, _, let p) = c.action { p.deinitialize(count: 1).deallocate() }
            if case .setBusHostEffect(_, let slot?) = c.action { HostEffectSlot.destroy(slot) }
            if case .setMasterHostEffect(let slot?) = c.action { HostEffectSlot.destroy(slot) }
        }
        drainEvents()
        for pending in directoryReleases { directory.releaseNow(pending.bits) }
    }
}

/// Slot allocation with generations: a slot is reused only after the render side let go of
/// its previous occupant, and every reuse gets a new generation. Control thread.
struct SlotTable {
    private var generations: [UInt32]
    private var live: [Bool]
    private var free: [Int]
    private var isFree: [Bool]
    private(set) var liveCount = 0

    init(count: Int) {
        generations = Array(repeating: 0, count: count)
        live = Array(repeating: false, count: count)
        free = Array((0..<count).reversed())
        isFree = Array(repeating: true, count: count)
    }

    func peekFree() -> Int? { free.last }

    /// The generation the next occupant of `slot` gets (never 0).
    func nextGeneration(_ slot: Int) -> UInt32 {
        let g = generations[slot] &+ 1
        return g == 0 ? 1 : g
    }

    mutating func occupy(_ slot: Int) {
        let popped = free.removeLast()
        precondition(popped == slot)
        isFree[slot] = false
        generations[slot] = nextGeneration(slot)
        live[slot] = true
        liveCount += 1
    }

    /// Stale at once; the slot comes back with `free` when the render side reports it empty.
    mutating func kill(_ slot: Int) {
        guard live[slot] else { return }
        live[slot] = false
        liveCount -= 1
    }

    mutating func free(_ slot: Int) {
        guard slot >= 0, slot < live.count, !live[slot], !isFree[slot] else { return }
        isFree[slot] = true
        free.append(slot)
    }

    func isLive(slot: Int, generation: UInt32) -> Bool {
        slot >= 0 && slot < live.count && live[slot] && generations[slot] == generation
    }

    func isLiveSlot(_ slot: Int) -> Bool { live[slot] }
}
