import TuttiDSP

/// What a new source plays (control-side description).
public enum SourceKind {
    /// Must already be at the engine rate and channel count (see `AudioBuffer.converted`).
    case buffer(AudioBuffer)
    case tone(frequency: Double, amplitude: Float)
    case silence
    case stream(StreamSource)
}

/// The control side of the engine.
///
/// Thread: one control thread at a time calls its methods (it is the single producer of the
/// command ring and the single consumer of the event ring). The render side is `renderer`,
/// driven by whoever owns the audio clock: `render(into:frameCount:)` (pull mode, offline
/// loop) or a backend thread. Resources (buffers, converters, nodes) are built here, handed
/// to the render side by command, and released here when the render side hands them back.
public final class Engine: @unchecked Sendable {
    public let configuration: EngineConfiguration
    public let renderer: Renderer
    let commandStorage: RingStorage<RenderCommand>
    let eventStorage: RingStorage<RenderEvent>
    let commands: CommandRing
    let events: EventRing

    // Control-side bookkeeping.
    private var nextSourceIndex: Int32 = 0
    private var freeSourceIndices: [Int32] = []
    private var nextBusIndex: Int32 = 0
    /// Keeps what a source's node points at alive until the render side lets go of it.
    private var retained: [SourceID: AnyObject] = [:]

    public init(configuration: EngineConfiguration = EngineConfiguration()) throws {
        try configuration.validate()
        self.configuration = configuration
        commandStorage = RingStorage(capacity: configuration.commandQueueCapacity)
        eventStorage = RingStorage(capacity: configuration.eventQueueCapacity)
        commands = CommandRing(commandStorage)
        events = EventRing(eventStorage)
        renderer = Renderer(configuration: configuration, commands: commands, events: events)
    }

    public var sampleRate: Int { configuration.sampleRate }
    public var channelCount: Int { configuration.channelCount }

    // MARK: Graph

    /// A new bus (one per session). Takes effect at `frame` (default: now).
    public func addBus(volumeClass: VolumeClass = .system, gateOpen: Bool = true, gain: Float = 1, at frame: Int64 = 0) throws -> BusID {
        guard Int(nextBusIndex) < configuration.maxBuses else { throw EngineError.tooManyBuses(limit: configuration.maxBuses) }
        let id = BusID(nextBusIndex)
        let node = UnsafeMutablePointer<BusNode>.allocate(capacity: 1)
        node.initialize(to: BusNode(id: id, volumeClass: volumeClass, gateOpen: gateOpen, gain: gain))
        do { try send(.installBus(node), at: frame) } catch {
            node.deallocate()
            throw error
        }
        nextBusIndex += 1
        return id
    }

    /// A new source on `bus`, stopped at position 0. Takes effect at `frame` (default: now).
    public func addSource(_ kind: SourceKind, bus: BusID, gain: Float = 1, loop: Bool = false, at frame: Int64 = 0) throws -> SourceID {
        guard bus.index >= 0 && bus.index < nextBusIndex else { throw EngineError.unknownBus(Int(bus.index)) }
        let index: Int32
        if let reused = freeSourceIndices.popLast() {
            index = reused
        } else {
            guard Int(nextSourceIndex) < configuration.maxSources else { throw EngineError.tooManySources(limit: configuration.maxSources) }
            index = nextSourceIndex
            nextSourceIndex += 1
        }
        let id = SourceID(index)
        let content: SourceContent
        var keep: AnyObject?
        switch kind {
        case .buffer(let buffer):
            guard buffer.sampleRate == Double(configuration.sampleRate), buffer.channelCount == configuration.channelCount else {
                freeSourceIndices.append(index)
                throw EngineError.formatMismatch(
                    "buffer is \(buffer.sampleRate) Hz × \(buffer.channelCount) ch, the engine runs \(configuration.sampleRate) Hz × \(configuration.channelCount) ch: convert it first"
                )
            }
            content = .buffer(UnsafePointer(buffer.storage.baseAddress!), frameCount: buffer.frameCount)
            keep = buffer
        case .tone(let frequency, let amplitude):
            content = .tone(SineOscillator(frequency: frequency, amplitude: amplitude, sampleRate: Double(configuration.sampleRate)))
        case .silence:
            content = .silence
        case .stream(let stream):
            guard stream.channelCount == configuration.channelCount else {
                freeSourceIndices.append(index)
                throw EngineError.formatMismatch("stream has \(stream.channelCount) channels, the engine \(configuration.channelCount)")
            }
            content = .stream(stream.node)
            keep = stream
        }
        let node = UnsafeMutablePointer<SourceNode>.allocate(capacity: 1)
        node.initialize(to: SourceNode(id: id, bus: bus, content: content, gain: gain, loop: loop))
        do { try send(.installSource(node), at: frame) } catch {
            node.deallocate()
            freeSourceIndices.append(index)
            throw error
        }
        if let keep { retained[id] = keep }
        return id
    }

    // MARK: Commands

    /// Queue a command for the render thread, to apply at output frame `frame` (0: as soon as possible).
    /// Commands must be sent in non-decreasing frame order. Throws when the ring is full.
    public func send(_ action: RenderCommand.Action, at frame: Int64 = 0) throws {
        guard commands.push(RenderCommand(at: frame, action)) else { throw EngineError.commandQueueFull }
    }

    /// Frames (at the engine rate) for a duration in seconds.
    public func frames(forSeconds seconds: Double) -> Int { configuration.frames(forSeconds: seconds) }

    public func rampFrames(_ seconds: Double) -> Int32 { Int32(clamping: frames(forSeconds: seconds)) }

    // MARK: Events

    /// Drain what the render side reported. Frees retired nodes and released resources
    /// here (control thread); passes the rest to `handler` in order.
    public func pollEvents(_ handler: (RenderEvent) -> Void = { _ in }) {
        while let event = events.pop() {
            switch event.kind {
            case .retiredSourceNode(let node):
                node.deinitialize(count: 1).deallocate()
            case .retiredBusNode(let node):
                node.deinitialize(count: 1).deallocate()
            case .sourceRemoved(let id):
                retained[id] = nil
                freeSourceIndices.append(id.index)
                handler(event)
            default:
                handler(event)
            }
        }
    }

    // MARK: Rendering (pull mode)

    /// Render on the caller's thread; the same path a backend's real-time thread calls.
    @inlinable
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        renderer.render(into: output, frameCount: frameCount)
    }

    deinit {
        // Free nodes still in flight (never installed or never collected).
        var c = RenderCommand(.setMasterVolume(gain: 1, rampFrames: 0))
        while renderer.takePendingCommand(into: &c) || commands.pop(into: &c) {
            if case .installSource(let n) = c.action { n.deinitialize(count: 1).deallocate() }
            if case .installBus(let n) = c.action { n.deinitialize(count: 1).deallocate() }
        }
        pollEvents()
    }
}
