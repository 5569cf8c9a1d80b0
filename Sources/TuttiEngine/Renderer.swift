import TuttiDSP

/// The render graph: sources → session buses (gate, duck, gain) → master (system and ringer
/// volume) → interleaved float output.
///
/// Thread: owned by the render thread (the ALSA thread, a host's audio callback or the
/// offline loop). Everything it touches is preallocated; changes arrive as `RenderCommand`s
/// through an SPSC ring and are applied at their exact frame, splitting the block there.
/// `render(into:frameCount:)` is compiler-checked `@_noLocks`: no allocation, no lock,
/// no reference counting.
public final class Renderer: @unchecked Sendable {
    public let configuration: EngineConfiguration
    @usableFromInline let channelCount: Int
    @usableFromInline let maxChunk: Int
    @usableFromInline let transportFadeFrames: Int
    @usableFromInline let maxSources: Int
    @usableFromInline let maxBuses: Int

    // Graph storage (render thread only after construction).
    @usableFromInline let sources: UnsafeMutablePointer<SourceNode>
    @usableFromInline let sourceOccupied: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) @usableFromInline var sourceHighWater = 0
    @usableFromInline let buses: UnsafeMutablePointer<BusNode>
    @usableFromInline let busOccupied: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) @usableFromInline var busHighWater = 0
    /// Per bus: its gain for the current chunk, a scalar when settled, per frame while ramping.
    @usableFromInline let busScalar: UnsafeMutablePointer<Float>
    @usableFromInline let busRamping: UnsafeMutablePointer<Bool>
    @usableFromInline let busGains: UnsafeMutablePointer<Float>
    @usableFromInline let systemVolumeGains: UnsafeMutablePointer<Float>
    @usableFromInline let ringerVolumeGains: UnsafeMutablePointer<Float>
    /// Per-frame gains of the source being mixed, and its samples when it generates them.
    @usableFromInline let frameGains: UnsafeMutablePointer<Float>
    @usableFromInline let scratch: UnsafeMutablePointer<Float>
    @exclusivity(unchecked) @usableFromInline var volume = LinearRamp(value: 1)
    @exclusivity(unchecked) @usableFromInline var ringerVolume = LinearRamp(value: 1)

    // Queues: commands in, events out.
    @usableFromInline let commands: CommandRing
    @usableFromInline let events: EventRing
    /// The next command, taken off the ring but not yet due.
    @exclusivity(unchecked) @usableFromInline var nextCommand = RenderCommand(.setMasterVolume(gain: 1, rampFrames: 0))
    @exclusivity(unchecked) @usableFromInline var hasNextCommand = false

    /// Output frames rendered so far: the clock commands are scheduled against.
    @exclusivity(unchecked) public private(set) var framePosition: Int64 = 0
    /// Events that could not be reported because the event ring was full.
    @exclusivity(unchecked) public private(set) var droppedEventCount = 0

    init(configuration: EngineConfiguration, commands: CommandRing, events: EventRing) {
        self.configuration = configuration
        channelCount = configuration.channelCount
        maxChunk = configuration.maxBlockFrames
        transportFadeFrames = configuration.frames(forSeconds: configuration.transportFadeSeconds)
        maxSources = configuration.maxSources
        maxBuses = configuration.maxBuses
        self.commands = commands
        self.events = events
        let placeholder = SourceNode(id: SourceID(-1), bus: BusID(-1), content: .silence)
        sources = .allocate(capacity: configuration.maxSources)
        sources.initialize(repeating: placeholder, count: configuration.maxSources)
        sourceOccupied = .allocate(capacity: configuration.maxSources)
        sourceOccupied.initialize(repeating: false, count: configuration.maxSources)
        buses = .allocate(capacity: configuration.maxBuses)
        buses.initialize(repeating: BusNode(id: BusID(-1)), count: configuration.maxBuses)
        busOccupied = .allocate(capacity: configuration.maxBuses)
        busOccupied.initialize(repeating: false, count: configuration.maxBuses)
        let chunkSamples = maxChunk * channelCount
        busScalar = .allocate(capacity: configuration.maxBuses)
        busScalar.initialize(repeating: 1, count: configuration.maxBuses)
        busRamping = .allocate(capacity: configuration.maxBuses)
        busRamping.initialize(repeating: false, count: configuration.maxBuses)
        busGains = .allocate(capacity: maxChunk * configuration.maxBuses)
        busGains.initialize(repeating: 0, count: maxChunk * configuration.maxBuses)
        systemVolumeGains = .allocate(capacity: maxChunk)
        systemVolumeGains.initialize(repeating: 0, count: maxChunk)
        ringerVolumeGains = .allocate(capacity: maxChunk)
        ringerVolumeGains.initialize(repeating: 0, count: maxChunk)
        frameGains = .allocate(capacity: maxChunk)
        frameGains.initialize(repeating: 0, count: maxChunk)
        scratch = .allocate(capacity: chunkSamples)
        scratch.initialize(repeating: 0, count: chunkSamples)
    }

    deinit {
        sources.deinitialize(count: configuration.maxSources).deallocate()
        sourceOccupied.deallocate()
        buses.deinitialize(count: configuration.maxBuses).deallocate()
        busOccupied.deallocate()
        busScalar.deallocate()
        busRamping.deallocate()
        busGains.deallocate()
        systemVolumeGains.deallocate()
        ringerVolumeGains.deallocate()
        frameGains.deallocate()
        scratch.deallocate()
    }

    /// Render `frameCount` interleaved frames into `output`, applying every command due in
    /// this span at its exact frame.
    @_noLocks
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            applyDueCommands()
            var n = min(frameCount &- done, maxChunk)
            if hasNextCommand, nextCommand.frame < framePosition &+ Int64(n) {
                n = Int(nextCommand.frame &- framePosition)
            }
            renderChunk(into: output + done &* channelCount, frameCount: n)
            framePosition &+= Int64(n)
            done &+= n
        }
        applyDueCommands()
    }

    // MARK: - Commands

    @inline(__always) @_noLocks
    func applyDueCommands() {
        while true {
            if !hasNextCommand {
                hasNextCommand = commands.pop(into: &nextCommand)
                if !hasNextCommand { return }
            }
            if nextCommand.frame > framePosition { return }
            hasNextCommand = false
            apply(nextCommand.action)
        }
    }

    @inline(__always) @_noLocks
    func report(_ kind: RenderEvent.Kind) {
        if !events.push(RenderEvent(frame: framePosition, kind: kind)) { droppedEventCount &+= 1 }
    }

    @inline(__always) @_noLocks
    func sourceIndex(_ id: SourceID) -> Int? {
        let i = Int(id.index)
        guard i >= 0, i < maxSources, sourceOccupied[i] else { return nil }
        return i
    }

    @inline(__always) @_noLocks
    func busIndex(_ id: BusID) -> Int? {
        let i = Int(id.index)
        guard i >= 0, i < maxBuses, busOccupied[i] else { return nil }
        return i
    }

    @_noLocks
    func apply(_ action: RenderCommand.Action) {
        switch action {
        case .installSource(let node):
            let i = Int(node.pointee.id.index)
            let b = Int(node.pointee.bus.index)
            if i >= 0, i < maxSources, b >= 0, b < maxBuses, busOccupied[b] {
                sources[i] = node.pointee
                sourceOccupied[i] = true
                if i >= sourceHighWater { sourceHighWater = i &+ 1 }
            } else {
                report(.rejectedCommand)
            }
            report(.retiredSourceNode(node))
        case .installBus(let node):
            let i = Int(node.pointee.id.index)
            if i >= 0, i < maxBuses {
                buses[i] = node.pointee
                busOccupied[i] = true
                if i >= busHighWater { busHighWater = i &+ 1 }
            } else {
                report(.rejectedCommand)
            }
            report(.retiredBusNode(node))
        case .removeSource(let id):
            guard let i = sourceIndex(id) else { return report(.rejectedCommand) }
            sourceOccupied[i] = false
            report(.sourceRemoved(id))
        case .play(let id):
            guard let i = sourceIndex(id) else { return report(.rejectedCommand) }
            play(&sources[i])
        case .pause(let id):
            guard let i = sourceIndex(id) else { return report(.rejectedCommand) }
            halt(&sources[i], then: SourceNode.Pending.pause)
        case .stop(let id):
            guard let i = sourceIndex(id) else { return report(.rejectedCommand) }
            halt(&sources[i], then: SourceNode.Pending.stop)
        case .setSourceGain(let id, let gain, let frames):
            guard let i = sourceIndex(id) else { return report(.rejectedCommand) }
            sources[i].gain.ramp(to: gain, frameCount: Int(frames))
        case .setLoop(let id, let loop):
            guard let i = sourceIndex(id) else { return report(.rejectedCommand) }
            sources[i].loop = loop
        case .setBusGate(let id, let gain, let frames):
            guard let i = busIndex(id) else { return report(.rejectedCommand) }
            buses[i].gate.ramp(to: gain, frameCount: Int(frames))
        case .setBusGain(let id, let gain, let frames):
            guard let i = busIndex(id) else { return report(.rejectedCommand) }
            buses[i].gain.ramp(to: gain, frameCount: Int(frames))
        case .setBusDuck(let id, let target, let rate):
            guard let i = busIndex(id) else { return report(.rejectedCommand) }
            buses[i].duck.move(to: target, dBPerFrame: rate)
        case .setMasterVolume(let gain, let frames):
            volume.ramp(to: gain, frameCount: Int(frames))
        case .setRingerVolume(let gain, let frames):
            ringerVolume.ramp(to: gain, frameCount: Int(frames))
        }
    }

    @inline(__always) @_noLocks
    func play(_ node: inout SourceNode) {
        if node.running {
            if node.pending == SourceNode.Pending.stop {
                // Let the fade-out finish, rewind, then start from the top.
                node.pending = SourceNode.Pending.restart
            } else if node.pending == SourceNode.Pending.pause {
                // Cancel the pause: come back up from where it is.
                node.pending = SourceNode.Pending.none
                node.fade.ramp(to: 1, frameCount: transportFadeFrames)
            }
            return
        }
        node.running = true
        node.pending = SourceNode.Pending.none
        if node.position == 0 {
            // Starting from the top: the material's own start, no fade (keeps mixing exact).
            node.fade.ramp(to: 1, frameCount: 0)
        } else {
            node.fade.ramp(to: 0, frameCount: 0)
            node.fade.ramp(to: 1, frameCount: transportFadeFrames)
        }
    }

    @inline(__always) @_noLocks
    func halt(_ node: inout SourceNode, then pending: UInt8) {
        if node.running {
            node.pending = pending
            node.fade.ramp(to: 0, frameCount: transportFadeFrames)
            if !node.fade.isRamping { finishHalt(&node, at: framePosition) }
        } else if pending == SourceNode.Pending.stop {
            rewind(&node)
        }
    }

    @inline(__always) @_noLocks
    func finishHalt(_ node: inout SourceNode, at frame: Int64) {
        let pending = node.pending
        node.pending = SourceNode.Pending.none
        if pending == SourceNode.Pending.restart {
            rewind(&node)
            node.fade.ramp(to: 1, frameCount: 0)
            return
        }
        node.running = false
        if pending == SourceNode.Pending.stop { rewind(&node) }
        if !events.push(RenderEvent(frame: frame, kind: .sourceHalted(node.id))) { droppedEventCount &+= 1 }
    }

    @inline(__always) @_noLocks
    func rewind(_ node: inout SourceNode) {
        node.position = 0
        switch node.content {
        case .tone(var osc):
            osc.reset()
            node.content = .tone(osc)
        case .stream(var s):
            s.reset()
            node.content = .stream(s)
        case .buffer, .silence:
            break
        }
    }

    // MARK: - Rendering

    /// One pass per source: each source mixes straight into the output with
    /// source gain × fade × (gate × bus gain × duck × volume of its class). The bus and
    /// master factors are worked out once per bus per chunk: a scalar when settled, a
    /// per-frame gain array while any of them ramps. Both paths compute the same product
    /// per frame, so the samples do not depend on where a block is split.
    @_noLocks
    func renderChunk(into output: UnsafeMutablePointer<Float>, frameCount n: Int) {
        output.update(repeating: 0, count: n &* channelCount)
        let systemRamping = volume.isRamping
        if systemRamping { for f in 0..<n { systemVolumeGains[f] = volume.next() } }
        let ringerRamping = ringerVolume.isRamping
        if ringerRamping { for f in 0..<n { ringerVolumeGains[f] = ringerVolume.next() } }
        for b in 0..<busHighWater {
            if busOccupied[b] {
                computeBusGain(b, frameCount: n, volumeRamping: buses[b].isRinger ? ringerRamping : systemRamping)
            }
        }
        for i in 0..<sourceHighWater {
            if sourceOccupied[i], sources[i].running { renderSource(&sources[i], into: output, frameCount: n) }
        }
    }

    @inline(__always) @_noLocks
    func computeBusGain(_ b: Int, frameCount n: Int, volumeRamping: Bool) {
        let isRinger = buses[b].isRinger
        let volumeGains = isRinger ? ringerVolumeGains : systemVolumeGains
        let volumeValue = isRinger ? ringerVolume.value : volume.value
        if !volumeRamping, !buses[b].gate.isRamping, !buses[b].gain.isRamping, !buses[b].duck.isMoving {
            busRamping[b] = false
            busScalar[b] = buses[b].gate.value * buses[b].gain.value * buses[b].duck.gain * volumeValue
            return
        }
        busRamping[b] = true
        let gains = busGains + b &* maxChunk
        for f in 0..<n {
            let v = volumeRamping ? volumeGains[f] : volumeValue
            gains[f] = buses[b].gate.next() * buses[b].gain.next() * buses[b].duck.next() * v
        }
    }

    @_noLocks
    func renderSource(_ node: inout SourceNode, into output: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let ch = channelCount
        let b = Int(node.bus.index)
        guard busOccupied[b] else { return }
        var offset = 0
        while offset < n, node.running {
            var seg = n &- offset
            if node.pending != SourceNode.Pending.none { seg = min(seg, node.fade.framesRemaining) }
            if seg > 0 {
                switch node.content {
                case .buffer(let data, let count):
                    let avail = count &- node.position
                    seg = min(seg, avail)
                    if seg > 0 {
                        mixSegment(&node, from: data + node.position &* ch, into: output, bus: b, offset: offset, frameCount: seg)
                        node.position &+= seg
                    }
                    if node.position >= count {
                        if node.loop, count > 0 {
                            node.position = 0
                        } else {
                            node.running = false
                            node.pending = SourceNode.Pending.none
                            node.position = 0
                            if !events.push(RenderEvent(frame: framePosition &+ Int64(offset &+ seg), kind: .sourceEnded(node.id))) {
                                droppedEventCount &+= 1
                            }
                        }
                    }
                case .tone(var osc):
                    osc.render(into: scratch, frameCount: seg, channelCount: ch)
                    node.content = .tone(osc)
                    mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: seg)
                    node.position &+= seg
                case .stream(var s):
                    s.render(into: scratch, frameCount: seg)
                    node.content = .stream(s)
                    mixSegment(&node, from: scratch, into: output, bus: b, offset: offset, frameCount: seg)
                    node.position &+= seg
                case .silence:
                    node.gain.skip(seg)
                    node.fade.skip(seg)
                    node.position &+= seg
                }
            }
            offset &+= seg
            if node.running, node.pending != SourceNode.Pending.none, !node.fade.isRamping {
                finishHalt(&node, at: framePosition &+ Int64(offset))
            }
        }
    }

    /// output[offset…] += (gain · fade) · busGain · src over `frameCount` frames.
    @inline(__always) @_noLocks
    func mixSegment(
        _ node: inout SourceNode, from src: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
        bus b: Int, offset: Int, frameCount: Int
    ) {
        let ch = channelCount
        let dst = output + offset &* ch
        if !busRamping[b], !node.gain.isRamping, !node.fade.isRamping {
            let g = node.gain.value * node.fade.value * busScalar[b]
            if g == 1 {
                Kernels.add(dst, src, count: frameCount &* ch)
            } else if g != 0 {
                Kernels.mixAdd(dst, src, count: frameCount &* ch, gain: g)
            }
            return
        }
        let gains = frameGains
        if busRamping[b] {
            let busGain = busGains + (b &* maxChunk &+ offset)
            for f in 0..<frameCount { gains[f] = node.gain.next() * node.fade.next() * busGain[f] }
        } else {
            let busGain = busScalar[b]
            for f in 0..<frameCount { gains[f] = node.gain.next() * node.fade.next() * busGain }
        }
        Kernels.mixAddGains(dst, src, gains: gains, frameCount: frameCount, channelCount: ch)
    }
}

extension Renderer {
    /// Control side, once the render side is gone (engine teardown): hand back a command
    /// taken off the ring but never applied, so its resources can be freed.
    func takePendingCommand(into command: inout RenderCommand) -> Bool {
        guard hasNextCommand else { return false }
        command = nextCommand
        hasNextCommand = false
        return true
    }
}
