import CPipeWire
import Glibc
import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiOutput

/// The real-time half of `PipeWireOutput`: the stream's `process` callback (on PipeWire's
/// real-time data thread) renders the engine straight into the buffer PipeWire hands out,
/// interleaved float32. No allocation, lock, log or wait there: a control thread late with
/// commands gets silence played (counted), not a wait.
///
/// Threads: `process` on PipeWire's data thread; the clock's and the counters' atomics are
/// read by the control thread and the supervisor.
final class StreamCore: @unchecked Sendable { // render-side memory: the data thread's, handed over by atomics
    /// The engine clock: phase, frames rendered, horizon, frame limit, late frames, cycles.
    let clock = CallbackClock()
    /// Cycles that found no free buffer to fill (the stream's underruns).
    let missedCycles = Atomic<Int>(0)
    /// Graph cycles main's stream gave nothing to (`tpw_gap_fn`: cycles the graph ran without
    /// calling it, and a callback that ended after the next cycle's start), and their frames.
    let lostCycles = Atomic<Int>(0)
    let lostFrames = Atomic<Int64>(0)
    /// Frames PipeWire asked for in the last cycle (the quantum, at the stream's rate).
    let cycleFrames = Atomic<Int>(0)
    /// The thread that ran the last cycle (its `pthread_t`; 0 before the first): PipeWire's
    /// data thread, whose scheduling the control thread reads for `schedulingNote`.
    let dataThread = Atomic<UInt>(0)

    let renderer: Renderer
    let channelCount: Int
    /// The engine's output buses: main (bus 0) plays in this stream's buffer; those with a
    /// destination through their own stream (`buses`); the others are rendered into scratch
    /// and dropped.
    let outputBusCount: Int
    /// The buses past main that have a stream, in the order of their streams (`tpw_config`'s
    /// `buses`): fed from `process`, read by `pullBus`.
    let buses: [BusFeed]
    let busSlots: UnsafeMutablePointer<Unmanaged<BusFeed>>
    let busCount: Int
    /// The render memory per output bus, used when the engine has several output buses or
    /// session streams (`splitsOutput`); otherwise main is rendered straight into PipeWire's
    /// buffer.
    let buffers: OutputBusBuffers
    var splitsOutput: Bool {
        if outputBusCount > 1 { return true }
        return sessionMixStorage != nil
    }
    /// Brackets each cycle (`OutputSettings.realtimeScope`; `.inactive` when none).
    let scope: RealtimeScope
    let hasScope: Bool
    /// The capture stream's counters (the data thread adds, any thread reads).
    let captureCounts = CaptureCounts()
    /// The input the capture stream feeds (kept alive while the data thread writes its ring),
    /// its ring and channels; nil and 0 without capture.
    let capture: InputSource?
    let captureRing: SampleRing?
    let captureChannels: Int

    /// What each cycle hands the renderer, per engine bus slot below `sessionMixCount`: the
    /// buffer of the live session feed on that bus (nil: the bus mixes into main). Rebuilt by
    /// the data thread every cycle; nil without session streams.
    let renderMixes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
    let sessionMixCount: Int
    /// One mix buffer per session feed (live or spare), `buffers.strideSamples` apart.
    let sessionMixStorage: UnsafeMutablePointer<Float>?
    /// The feeds in use (`buses.prefix(liveCount)`): output buses, then sessions in the order
    /// their streams were made; the rest are spares for sessions made while playing. Raised
    /// by the control thread once a spare is ready and its stream exists.
    let liveCount = Atomic<Int>(0)
    /// The feeds in use. Any thread.
    var liveBuses: ArraySlice<BusFeed> { buses.prefix(liveCount.load(ordering: .acquiring)) }

    /// Frames a bus's ring holds: 4 of PipeWire's largest quanta (8192 frames) at most.
    static let busRingFrames = 32_768

    /// `busDestinations`: for each bus past main that plays, its name and target (the buses
    /// past main without one are rendered and dropped); `busPeriodFrames`: the frames between
    /// two updates of their clock correction. Allocates: control thread.
    init(
        renderer: Renderer, scope: RealtimeScope?, capture: InputSource? = nil, busDestinations: [(name: String, target: String)] = [],
        busPeriodFrames: Int = 1_024, sessionStreams: [SessionStream] = [], sessionTarget: String = "default",
        spareSessionStreams: Int = 0
    ) {
        self.renderer = renderer
        self.capture = capture
        captureRing = capture?.captureRing
        captureChannels = capture?.channelCount ?? 0
        channelCount = renderer.configuration.channelCount
        outputBusCount = renderer.outputBusCount
        buffers = OutputBusBuffers(
            busCount: outputBusCount, frameCapacity: min(1024, renderer.configuration.maxBlockFrames), channelCount: channelCount)
        let busStride = buffers.strideSamples
        let slotLimit = min(renderer.configuration.maxBuses, Self.maxSessionSlots)
        let sessions = sessionStreams.filter { $0.busSlot >= 0 && $0.busSlot < slotLimit }
        let sessionFeedCount = sessions.count + spareSessionStreams
        self.scope = scope ?? .inactive
        hasScope = scope != nil
        let names = renderer.configuration.outputBuses
        let rate = renderer.configuration.sampleRate
        let busFeeds = busDestinations.compactMap { bus -> BusFeed? in
            guard let index = names.firstIndex(of: bus.name), index > 0, index < renderer.outputBusCount else { return nil }
            return BusFeed(
                name: bus.name, index: index, destination: bus.target, channelCount: renderer.configuration.channelCount,
                sampleRate: rate, maximumChunkFrames: min(1024, renderer.configuration.maxBlockFrames), ringFrames: Self.busRingFrames,
                controllerPeriod: busPeriodFrames)
        }
        // The sessions' feeds after the buses' (their streams follow the buses' in `tpw_config`),
        // then the spares (their streams are added by `tpw_bus_add` when they are used).
        let sessionFeeds = (0..<sessionFeedCount).map { k in
            BusFeed(
                name: k < sessions.count ? sessions[k].name : "", index: 0, destination: sessionTarget,
                channelCount: renderer.configuration.channelCount, sampleRate: rate,
                maximumChunkFrames: min(1024, renderer.configuration.maxBlockFrames), ringFrames: Self.busRingFrames,
                controllerPeriod: busPeriodFrames, sessionSlot: k < sessions.count ? sessions[k].busSlot : -1,
                sessionBus: k < sessions.count ? sessions[k].bus.rawValue : 0)
        }
        buses = busFeeds + sessionFeeds
        firstSpare = busFeeds.count + sessions.count
        if sessionFeedCount == 0 {
            renderMixes = nil
            sessionMixCount = 0
            sessionMixStorage = nil
        } else {
            let storage = allocateAudio(Float.self, capacity: busStride * sessionFeedCount)
            storage.initialize(repeating: 0, count: busStride * sessionFeedCount)
            for (k, feed) in sessionFeeds.enumerated() { feed.mixBuffer = storage + k * busStride }
            let table = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: slotLimit)
            table.initialize(repeating: nil, count: slotLimit)
            renderMixes = table
            sessionMixCount = slotLimit
            sessionMixStorage = storage
        }
        busCount = buses.count
        busSlots = .allocate(capacity: max(buses.count, 1))
        for (k, b) in buses.enumerated() { (busSlots + k).initialize(to: .passUnretained(b)) }
        liveCount.store(firstSpare, ordering: .releasing)
    }

    /// The engine bus slots a session stream may use (below the engine's `maxBuses`).
    static let maxSessionSlots = 256
    /// The first spare session feed (`buses`); spares are used in order.
    let firstSpare: Int

    /// Prepares the next spare feed for session `name` on `bus` (its ring emptied, its
    /// correction restarted): its index in `buses`, or nil when none is left or the bus's
    /// slot is past `maxSessionSlots`. The caller adds its stream, then `makeLive`. Control
    /// thread.
    func prepareSpare(name: String, bus: BusID) -> Int? {
        let k = liveCount.load(ordering: .acquiring)
        guard k < buses.count, k >= firstSpare, bus.slot >= 0, bus.slot < sessionMixCount else { return nil }
        let feed = buses[k]
        feed.name = name
        feed.sessionSlot = bus.slot
        feed.sessionBus = bus.rawValue
        feed.sessionState = 0
        feed.reset()
        return k
    }

    /// Feed `k` (prepared) takes part from the data thread's next cycle. Control thread.
    func makeLive(_ k: Int) { liveCount.store(k + 1, ordering: .releasing) }

    deinit {
        busSlots.deallocate()
        renderMixes?.deallocate()
        if let sessionMixStorage { deallocateAudio(sessionMixStorage) }
    }

    // MARK: PipeWire's data thread

    /// One cycle: `frameCount` interleaved frames into `output` (PipeWire's mapped buffer).
    @_noLocks
    func process(into output: UnsafeMutablePointer<Float>, frameCount: Int, renderer: Renderer) {
        let enter = scope.enter
        let exit = scope.exit
        if hasScope { _unsafePerformance { enter() } }
        let grant = clock.beginCycle(frameCount: frameCount)
        let rendered = grant.count
        let feeds = busSlots
        let feedCount = liveCount.load(ordering: .acquiring)
        if splitsOutput {
            let busScratch = buffers.table
            let scratch = buffers.samples
            let mixes = renderMixes
            if let mixes {
                // A session whose bus has gone (removed) stops being split: its slot mixes into
                // main again (another session may take it), and its stream is closed.
                for k in 0..<feedCount {
                    let (slot, bus, state, buffer) = feeds[k]._withUnsafeGuaranteedRef {
                        ($0.sessionSlot, $0.sessionBus, $0.sessionState, $0.mixBuffer)
                    }
                    if slot < 0 { continue }
                    var next = state
                    if state != 2 {
                        if renderer.hasBus(BusID(rawValue: bus)) {
                            next = 1
                        } else if state == 1 {
                            next = 2
                        }
                    }
                    if next != state {
                        feeds[k]._withUnsafeGuaranteedRef {
                            $0.sessionState = next
                            if next == 2 { $0.ended.store(true, ordering: .releasing) }
                        }
                    }
                    if next == 2 {
                        if mixes[slot] == buffer { mixes[slot] = nil }
                    } else {
                        mixes[slot] = buffer
                    }
                }
            }
            var offset = 0
            while offset < rendered {
                let n = min(rendered &- offset, buffers.frameCapacity)
                if let mixes {
                    // Each session's mix to its own stream; main's stream plays the rest.
                    renderer.render(
                        outputBuses: busScratch, busCount: outputBusCount, busMixes: mixes, busMixCount: sessionMixCount,
                        joiningMain: false, frameCount: n)
                } else {
                    renderer.render(outputBuses: busScratch, busCount: outputBusCount, frameCount: n)
                }
                let to = output + offset &* channelCount
                for i in 0..<n &* channelCount { to[i] = scratch[i] }
                for k in 0..<feedCount {
                    feeds[k]._withUnsafeGuaranteedRef { feed in
                        if feed.isEnded { return }
                        let slot = feed.sessionSlot
                        if slot >= 0, let buffer = feed.mixBuffer {
                            feed.push(buffer, frameCount: n)
                        } else {
                            feed.push(busScratch[feed.index], frameCount: n)
                        }
                    }
                }
                offset &+= n
            }
        } else if rendered > 0 {
            renderer.render(into: output, frameCount: rendered)
        }
        clock.endCycle(grant)
        if rendered < frameCount {
            (output + rendered &* channelCount).update(repeating: 0, count: (frameCount &- rendered) &* channelCount)
            // The buses get the same silence (their streams stay in step with main's), once
            // rendering has begun (before, the bus streams wait for their first frames).
            if feedCount > 0, splitsOutput, clock.phase.load(ordering: .acquiring) != .idle {
                let silence = buffers.bus(outputBusCount &- 1) // a bus's scratch, cleared here
                var offset = rendered
                while offset < frameCount {
                    let n = min(frameCount &- offset, buffers.frameCapacity)
                    silence.update(repeating: 0, count: n &* channelCount)
                    for k in 0..<feedCount { feeds[k]._withUnsafeGuaranteedRef { if !$0.isEnded { $0.push(silence, frameCount: n) } } }
                    offset &+= n
                }
            }
        }
        if feedCount > 0, clock.phase.load(ordering: .acquiring) != .idle {
            // clock_gettime(CLOCK_MONOTONIC) is answered in the vDSO: no call into the kernel.
            let now = monotonicNanoseconds()
            for k in 0..<feedCount {
                feeds[k]._withUnsafeGuaranteedRef { if !$0.isEnded { $0.measure(cycleFrames: frameCount, now: now) } }
            }
        }
        if hasScope { _unsafePerformance { exit() } }
        cycleFrames.store(frameCount, ordering: .relaxed)
        // pthread_self reads the thread pointer: no call into the kernel.
        let thread = _unsafePerformance { pthread_self() }
        dataThread.store(UInt(thread), ordering: .releasing)
        clock.countCycle()
    }
}

extension StreamCore {
    /// One capture cycle: `frameCount` interleaved frames (NULL: the cycle had no buffer) into
    /// the input's ring, while the engine renders (before, nothing takes them: they would sit
    /// in the ring as latency). Frames the ring has no room for are dropped and counted.
    /// PipeWire's data thread.
    @_noLocks
    func captured(_ samples: UnsafePointer<Float>?, frameCount: Int) {
        guard let ring = captureRing else { return }
        guard let samples, frameCount > 0 else {
            captureCounts.missedCycles.add(1, ordering: .relaxed)
            return
        }
        guard clock.phase.load(ordering: .acquiring) == .rendering else { return }
        let written = ring.write(frames: samples, frameCount: frameCount, channelCount: captureChannels)
        captureCounts.capturedFrames.add(Int64(written), ordering: .relaxed)
        if written < frameCount { captureCounts.droppedFrames.add(Int64(frameCount &- written), ordering: .relaxed) }
    }
}

extension StreamCore {
    /// One cycle of bus stream `bus` (its index in `buses`): `frameCount` frames from its ring
    /// into `output` (NULL: the cycle found no free buffer, counted); silence from a feed not
    /// live yet (a session stream just added). PipeWire's data thread.
    @_noLocks
    func pullBus(_ bus: Int, into output: UnsafeMutablePointer<Float>?, frameCount: Int) {
        guard bus >= 0, bus < busCount else { return }
        if bus >= liveCount.load(ordering: .acquiring) {
            output?.update(repeating: 0, count: frameCount &* channelCount)
            return
        }
        let mainCycle = cycleFrames.load(ordering: .relaxed)
        busSlots[bus]._withUnsafeGuaranteedRef { feed in
            guard let output else {
                feed.missedCycles.add(1, ordering: .relaxed)
                return
            }
            feed.pull(into: output, frameCount: frameCount, mainCycle: mainCycle, now: monotonicNanoseconds())
        }
    }
}

extension StreamCore {
    /// Graph cycles stream `stream` lost (-1 main, -2 capture, 0… a bus past main), counted.
    /// PipeWire's data thread.
    @_noLocks
    func lost(stream: Int, cycles: Int, frames: Int64) {
        switch stream {
        case -1:
            lostCycles.add(cycles, ordering: .relaxed)
            lostFrames.add(frames, ordering: .relaxed)
        case -2:
            captureCounts.lostCycles.add(cycles, ordering: .relaxed)
            captureCounts.lostFrames.add(frames, ordering: .relaxed)
        default:
            guard stream >= 0, stream < busCount else { return }
            busSlots[stream]._withUnsafeGuaranteedRef { feed in
                feed.lostCycles.add(cycles, ordering: .relaxed)
                feed.lostFrames.add(frames, ordering: .relaxed)
            }
        }
    }
}

/// The C gap callback: `user` is the `StreamCore` (nil for a probe's stream).
let pipeWireGap: tpw_gap_fn = { user, stream, cycles, frames in
    guard let user else { return }
    Unmanaged<StreamCore>.fromOpaque(user).takeUnretainedValue().lost(stream: Int(stream), cycles: Int(cycles), frames: Int64(frames))
}

/// The C bus callback: `user` is the `StreamCore` (nil for a probe's stream).
let pipeWireBusRender: tpw_bus_fn = { user, bus, samples, frames in
    guard let user else { return }
    Unmanaged<StreamCore>.fromOpaque(user).takeUnretainedValue().pullBus(Int(bus), into: samples, frameCount: Int(frames))
}

/// The C capture callback: `user` is the `StreamCore` (nil for a probe's stream, which never
/// connects).
let pipeWireCapture: tpw_capture_fn = { user, samples, frames in
    guard let user else { return }
    Unmanaged<StreamCore>.fromOpaque(user).takeUnretainedValue().captured(samples, frameCount: Int(frames))
}

/// The C render callback: `user` is the `StreamCore`, kept alive by its `PipeWireOutput` for as
/// long as the stream exists.
let pipeWireRender: tpw_render_fn = { user, samples, frames in
    guard let user else { return }
    let core = Unmanaged<StreamCore>.fromOpaque(user).takeUnretainedValue()
    guard let samples else {
        core.missedCycles.add(1, ordering: .relaxed)
        return
    }
    core.process(into: samples, frameCount: Int(frames), renderer: core.renderer)
}

/// What the capture stream counts. Noncopyable: its atomics live inside `StreamCore`, read in
/// place. The data thread adds; any thread reads.
struct CaptureCounts: ~Copyable {
    /// Capture cycles that had no filled buffer (the capture stream's underruns).
    let missedCycles = Atomic<Int>(0)
    /// Graph cycles the capture stream was not called in, or ended too late for, and their
    /// frames (captured data the input never got: it plays silence for them).
    let lostCycles = Atomic<Int>(0)
    let lostFrames = Atomic<Int64>(0)
    /// Captured frames the input's ring had no room for (lost: counted, never waited for).
    let droppedFrames = Atomic<Int64>(0)
    /// Captured frames given to the input's ring.
    let capturedFrames = Atomic<Int64>(0)
}
