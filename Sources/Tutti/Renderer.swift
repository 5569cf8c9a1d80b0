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
    @usableFromInline var sourceHighWater = 0
    @usableFromInline let buses: UnsafeMutablePointer<BusNode>
    @usableFromInline let busOccupied: UnsafeMutablePointer<Bool>
    @usableFromInline var busHighWater = 0
    @usableFromInline let busBuffers: UnsafeMutablePointer<Float>
    @usableFromInline let scratch: UnsafeMutablePointer<Float>
    @usableFromInline let ringerSum: UnsafeMutablePointer<Float>
    @usableFromInline var volume = LinearRamp(value: 1)
    @usableFromInline var ringerVolume = LinearRamp(value: 1)

    // Queues: commands in, events out.
    @usableFromInline let commands: CommandRing
    @usableFromInline let events: EventRing
    /// The next command, taken off the ring but not yet due.
    @usableFromInline var nextCommand = RenderCommand(.setMasterVolume(gain: 1, rampFrames: 0))
    @usableFromInline var hasNextCommand = false

    /// Output frames rendered so far: the clock commands are scheduled against.
    public private(set) var framePosition: Int64 = 0
    /// Events that could not be reported because the event ring was full.
    public private(set) var droppedEventCount = 0

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
        busBuffers = .allocate(capacity: chunkSamples * configuration.maxBuses)
        busBuffers.initialize(repeating: 0, count: chunkSamples * configuration.maxBuses)
        scratch = .allocate(capacity: chunkSamples)
        scratch.initialize(repeating: 0, count: chunkSamples)
        ringerSum = .allocate(capacity: chunkSamples)
        ringerSum.initialize(repeating: 0, count: chunkSamples)
    }

    deinit {
        sources.deinitialize(count: configuration.maxSources).deallocate()
        sourceOccupied.deallocate()
        buses.deinitialize(count: configuration.maxBuses).deallocate()
        busOccupied.deallocate()
        busBuffers.deallocate()
        scratch.deallocate()
        ringerSum.deallocate()
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

    @_noLocks
    func renderChunk(into output: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let samples = n &* channelCount
        output.update(repeating: 0, count: samples)
        var ringerUsed = false
        for b in 0..<busHighWater { buses[b].hasSignal = false }

        for i in 0..<sourceHighWater {
            if sourceOccupied[i], sources[i].running { renderSource(&sources[i], frameCount: n) }
        }

        // Buses → master sums.
        let stride = maxChunk &* channelCount
        for b in 0..<busHighWater where busOccupied[b] {
            let buffer = busBuffers + b &* stride
            let toRinger = buses[b].isRinger
            if !buses[b].hasSignal {
                advanceSilent(&buses[b], frameCount: n)
                continue
            }
            if toRinger, !ringerUsed {
                ringerSum.update(repeating: 0, count: samples)
                ringerUsed = true
            }
            mixBus(&buses[b], from: buffer, into: toRinger ? ringerSum : output, frameCount: n)
        }

        // Master: system volume is the last gain stage; the ringer class uses the ringer volume.
        applyVolume(&volume, to: output, frameCount: n)
        if ringerUsed {
            mixWithRamp(from: ringerSum, into: output, frameCount: n, ramp: &ringerVolume)
        } else {
            ringerVolume.skip(n)
        }
    }

    @inline(__always) @_noLocks
    func busBuffer(for bus: BusID, frameCount: Int) -> UnsafeMutablePointer<Float> {
        let b = Int(bus.index)
        let buffer = busBuffers + b &* maxChunk &* channelCount
        if !buses[b].hasSignal {
            buffer.update(repeating: 0, count: frameCount &* channelCount)
            buses[b].hasSignal = true
        }
        return buffer
    }

    @_noLocks
    func renderSource(_ node: inout SourceNode, frameCount n: Int) {
        let ch = channelCount
        guard busOccupied[Int(node.bus.index)] else { return }
        let bus = busBuffer(for: node.bus, frameCount: n)
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
                        mixSegment(&node, from: data + node.position &* ch, into: bus + offset &* ch, frameCount: seg)
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
                    mixSegment(&node, from: scratch, into: bus + offset &* ch, frameCount: seg)
                    node.position &+= seg
                case .stream(var s):
                    s.render(into: scratch, frameCount: seg)
                    node.content = .stream(s)
                    mixSegment(&node, from: scratch, into: bus + offset &* ch, frameCount: seg)
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

    /// dst += gain · fade · src, per frame while either ramps.
    @inline(__always) @_noLocks
    func mixSegment(_ node: inout SourceNode, from src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, frameCount: Int) {
        let ch = channelCount
        var f = 0
        if node.gain.isRamping || node.fade.isRamping {
            let rampFrames = min(frameCount, max(node.gain.framesRemaining, node.fade.framesRemaining))
            while f < rampFrames {
                let g = node.gain.next() * node.fade.next()
                for c in 0..<ch { dst[f &* ch &+ c] += g * src[f &* ch &+ c] }
                f &+= 1
            }
        }
        let rest = frameCount &- f
        guard rest > 0 else { return }
        let g = node.gain.value * node.fade.value
        if g == 1 {
            Kernels.add(dst + f &* ch, src + f &* ch, count: rest &* ch)
        } else if g != 0 {
            Kernels.mixAdd(dst + f &* ch, src + f &* ch, count: rest &* ch, gain: g)
        }
    }

    @inline(__always) @_noLocks
    func mixBus(_ bus: inout BusNode, from src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, frameCount: Int) {
        let ch = channelCount
        var f = 0
        while f < frameCount, bus.gate.isRamping || bus.gain.isRamping || bus.duck.isMoving {
            let g = bus.gate.next() * bus.gain.next() * bus.duck.next()
            for c in 0..<ch { dst[f &* ch &+ c] += g * src[f &* ch &+ c] }
            f &+= 1
        }
        let rest = frameCount &- f
        guard rest > 0 else { return }
        let g = bus.gate.value * bus.gain.value * bus.duck.gain
        if g == 1 {
            Kernels.add(dst + f &* ch, src + f &* ch, count: rest &* ch)
        } else if g != 0 {
            Kernels.mixAdd(dst + f &* ch, src + f &* ch, count: rest &* ch, gain: g)
        }
    }

    /// Keep a silent bus's envelopes moving so they are where they should be when sound comes.
    @inline(__always) @_noLocks
    func advanceSilent(_ bus: inout BusNode, frameCount: Int) {
        bus.gate.skip(frameCount)
        bus.gain.skip(frameCount)
        bus.duck.skip(frameCount)
    }

    @inline(__always) @_noLocks
    func applyVolume(_ ramp: inout LinearRamp, to buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
        let ch = channelCount
        var f = 0
        while f < frameCount, ramp.isRamping {
            let g = ramp.next()
            for c in 0..<ch { buffer[f &* ch &+ c] *= g }
            f &+= 1
        }
        if f < frameCount { Kernels.scale(buffer + f &* ch, count: (frameCount &- f) &* ch, gain: ramp.value) }
    }

    @inline(__always) @_noLocks
    func mixWithRamp(from src: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>, frameCount: Int, ramp: inout LinearRamp) {
        Kernels.mixAddRamp(dst, src, frameCount: frameCount, channelCount: channelCount, ramp: &ramp)
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
