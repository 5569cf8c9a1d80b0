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
    /// destination through their own stream; the others are rendered into scratch and dropped.
    let outputBusCount: Int
    /// The feeds, by their streams' indices (`tpw_config`'s `buses`, `tpw_bus_add`): the buses
    /// past main that have a stream, then the session feeds — those of the sessions' streams
    /// made at open, the spares built with them, then those built while playing. A table of
    /// fixed capacity (`feedCapacity`: the buses, plus one per engine bus slot a session may
    /// use); the first `feedCount` entries are built, each on the control thread, and stay
    /// until the core goes (`feedOwner` holds them). The data thread reads entries below
    /// `feedCount` only.
    let busSlots: UnsafeMutablePointer<Unmanaged<BusFeed>>
    let feedCapacity: Int
    let feedCount = Atomic<Int>(0)
    private let feedOwner: Mutex<[BusFeed]>
    /// The output buses' feeds (`busSlots.prefix(busFeedCount)`), live for good.
    let busFeedCount: Int
    /// The render memory per output bus, used when the engine has several output buses or
    /// session streams (`splitsOutput`); otherwise main is rendered straight into PipeWire's
    /// buffer.
    let buffers: OutputBusBuffers
    var splitsOutput: Bool {
        if outputBusCount > 1 { return true }
        return renderMixes != nil
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
    /// With `OutputSettings.periodCount`: the ring a thread of Tutti's own renders into ahead
    /// of the graph, which main's callback copies from (`RenderAhead`); nil: main's callback
    /// renders its cycle itself.
    let ahead: RenderAhead?

    /// What each cycle hands the renderer, per engine bus slot below `sessionMixCount`: the
    /// buffer of the live session feed on that bus (nil: the bus mixes into main). Rebuilt by
    /// the data thread every cycle; nil without session streams.
    let renderMixes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
    let sessionMixCount: Int
    /// What a session feed is built with (its stream's target, its rate, its chunk, its ring,
    /// its correction's period).
    private let sessionTarget: String
    private let sampleRate: Int
    private let controllerPeriod: Int

    /// The feeds built (`busSlots.prefix(feedCount)`). Any thread but a real-time one.
    var feeds: [BusFeed] { feedOwner.withLock { $0 } }
    /// Each feed with a stream that plays (`BusFeed.hasStream`: output buses, live sessions and
    /// sessions whose stream is being closed) and its index, in index order. Any thread but a
    /// real-time one.
    var streamFeeds: [(index: Int, feed: BusFeed)] {
        feeds.enumerated().filter { $0.element.hasStream }.map { ($0.offset, $0.element) }
    }
    /// The live feeds (output buses and sessions playing). Any thread but a real-time one.
    var liveFeeds: [(index: Int, feed: BusFeed)] {
        feeds.enumerated().filter { $0.element.use.load(ordering: .acquiring) == BusFeed.Use.live }.map { ($0.offset, $0.element) }
    }

    /// Frames a bus's ring holds: 4 of PipeWire's largest quanta (8192 frames) at most.
    static let busRingFrames = 32_768

    /// `busDestinations`: for each bus past main that plays, its name and target (the buses
    /// past main without one are rendered and dropped); `busPeriodFrames`: the frames between
    /// two updates of their clock correction; `sessionStreams` the sessions whose streams are
    /// made at open, with `spareSessionStreams` free feeds built ahead for sessions made while
    /// playing, and room (`perSession`) for one session feed per engine bus slot. Allocates:
    /// control thread.
    init(
        renderer: Renderer, scope: RealtimeScope?, capture: InputSource? = nil, busDestinations: [(name: String, target: String)] = [],
        busPeriodFrames: Int = 1_024, sessionStreams: [SessionStream] = [], sessionTarget: String = "default",
        spareSessionStreams: Int = 0, perSession: Bool = false, renderAhead: (periodFrames: Int, periodCount: Int)? = nil
    ) {
        self.renderer = renderer
        ahead = renderAhead.map {
            RenderAhead(
                periodFrames: $0.periodFrames, periodCount: $0.periodCount, maxBlockFrames: renderer.configuration.maxBlockFrames,
                channelCount: renderer.configuration.channelCount, sampleRate: renderer.configuration.sampleRate)
        }
        self.capture = capture
        captureRing = capture?.captureRing
        captureChannels = capture?.channelCount ?? 0
        channelCount = renderer.configuration.channelCount
        outputBusCount = renderer.outputBusCount
        buffers = OutputBusBuffers(
            busCount: outputBusCount, frameCapacity: min(1024, renderer.configuration.maxBlockFrames), channelCount: channelCount)
        let slotLimit = min(renderer.configuration.maxBuses, Self.maxSessionSlots)
        let sessions = sessionStreams.filter { $0.busSlot >= 0 && $0.busSlot < slotLimit }
        let hasSessions = perSession || !sessions.isEmpty || spareSessionStreams > 0
        self.scope = scope ?? .inactive
        hasScope = scope != nil
        self.sessionTarget = sessionTarget
        sampleRate = renderer.configuration.sampleRate
        controllerPeriod = busPeriodFrames
        let names = renderer.configuration.outputBuses
        let rate = renderer.configuration.sampleRate
        let busFeeds = busDestinations.compactMap { bus -> BusFeed? in
            guard let index = names.firstIndex(of: bus.name), index > 0, index < renderer.outputBusCount else { return nil }
            return BusFeed(
                name: bus.name, index: index, destination: bus.target, channelCount: renderer.configuration.channelCount,
                sampleRate: rate, maximumChunkFrames: min(1024, renderer.configuration.maxBlockFrames), ringFrames: Self.busRingFrames,
                controllerPeriod: busPeriodFrames)
        }
        busFeedCount = busFeeds.count
        feedCapacity = busFeeds.count + (hasSessions ? slotLimit : 0)
        if hasSessions {
            let table = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: slotLimit)
            table.initialize(repeating: nil, count: slotLimit)
            renderMixes = table
            sessionMixCount = slotLimit
        } else {
            renderMixes = nil
            sessionMixCount = 0
        }
        busSlots = .allocate(capacity: max(feedCapacity, 1))
        // The sessions' feeds after the buses' (their streams follow the buses' in `tpw_config`),
        // then the spares (free; their streams are made by `tpw_bus_add` when they are taken).
        let make = { (name: String, slot: Int, bus: UInt64, use: Int) in
            Self.sessionFeed(
                name: name, slot: slot, bus: bus, use: use, target: sessionTarget, channelCount: renderer.configuration.channelCount,
                sampleRate: rate, chunkFrames: min(1024, renderer.configuration.maxBlockFrames), controllerPeriod: busPeriodFrames)
        }
        var built = busFeeds
        for session in sessions where built.count < feedCapacity {
            built.append(make(session.name, session.busSlot, session.bus.rawValue, BusFeed.Use.live))
        }
        for _ in 0..<spareSessionStreams where built.count < feedCapacity { built.append(make("", -1, 0, BusFeed.Use.free)) }
        feedOwner = Mutex(built)
        for (k, b) in built.enumerated() { (busSlots + k).initialize(to: .passUnretained(b)) }
        feedCount.store(built.count, ordering: .releasing)
    }

    /// A session feed (its mix buffer, ring and correction). Allocates: control thread.
    private static func sessionFeed(
        name: String, slot: Int, bus: UInt64, use: Int, target: String, channelCount: Int, sampleRate: Int, chunkFrames: Int,
        controllerPeriod: Int
    ) -> BusFeed {
        BusFeed(
            name: name, index: 0, destination: target, channelCount: channelCount, sampleRate: sampleRate,
            maximumChunkFrames: chunkFrames, ringFrames: busRingFrames, controllerPeriod: controllerPeriod, sessionSlot: slot,
            sessionBus: bus, mixFrames: chunkFrames, use: use)
    }

    /// The engine bus slots a session stream may use (below the engine's `maxBuses`).
    static let maxSessionSlots = 256

    /// Takes a feed for session `name` on `bus`: a free one (a removed session's, once retired,
    /// or a spare), else one built now (on this thread, published to the data thread through
    /// `feedCount`), `preparing` and recycled (`BusFeed.recycle`). Its index (its stream's), or
    /// nil when the bus's slot is past `maxSessionSlots` or every entry of the table holds a
    /// feed in use. The caller makes its stream, then `makeLive` (or `release` on failure).
    /// Control thread, one call at a time (the output's control lock).
    func prepareSessionFeed(name: String, bus: BusID) -> Int? {
        guard bus.slot >= 0, bus.slot < sessionMixCount else { return nil }
        let count = feedCount.load(ordering: .acquiring)
        var taken: Int?
        for k in busFeedCount..<count {
            let feed = busSlots[k].takeUnretainedValue()
            if feed.use.compareExchange(expected: BusFeed.Use.free, desired: BusFeed.Use.preparing, ordering: .acquiringAndReleasing)
                .exchanged
            {
                taken = k
                break
            }
        }
        if taken == nil, count < feedCapacity {
            let feed = Self.sessionFeed(
                name: name, slot: bus.slot, bus: bus.rawValue, use: BusFeed.Use.preparing, target: sessionTarget,
                channelCount: channelCount, sampleRate: sampleRate, chunkFrames: buffers.frameCapacity, controllerPeriod: controllerPeriod)
            feedOwner.withLock { $0.append(feed) }
            (busSlots + count).initialize(to: .passUnretained(feed))
            feedCount.store(count + 1, ordering: .releasing)
            taken = count
        }
        guard let k = taken else { return nil }
        busSlots[k].takeUnretainedValue().recycle(name: name, slot: bus.slot, bus: bus.rawValue)
        return k
    }

    /// Feed `k` (prepared, its stream made) takes part from the data thread's next cycle.
    /// Control thread.
    func makeLive(_ k: Int) { busSlots[k].takeUnretainedValue().use.store(BusFeed.Use.live, ordering: .releasing) }

    /// Feed `k` (prepared or retired: no stream of it plays, the data thread does not touch
    /// it) is free for another session. Control thread or supervisor.
    func release(_ k: Int) { busSlots[k].takeUnretainedValue().use.store(BusFeed.Use.free, ordering: .releasing) }

    deinit {
        busSlots.deinitialize(count: feedCount.load(ordering: .acquiring))
        busSlots.deallocate()
        renderMixes?.deallocate()
    }

    // MARK: PipeWire's data thread

    /// One cycle: `frameCount` interleaved frames into `output` (PipeWire's mapped buffer).
    @_noLocks
    func process(into output: UnsafeMutablePointer<Float>, frameCount: Int, renderer: Renderer) {
        render(into: output, frameCount: frameCount, renderer: renderer)
        countCycle(frameCount: frameCount)
    }

    /// One cycle of main's stream rendering ahead: `frameCount` frames copied from the ring
    /// into `output`; a ring short while rendering is an underrun (counted; silence for the
    /// rest).
    @_noLocks
    func play(from ahead: RenderAhead, into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        let enter = scope.enter
        let exit = scope.exit
        if hasScope { _unsafePerformance { enter() } }
        let got = ahead.take(into: output, frameCount: frameCount)
        if got < frameCount, clock.phase.load(ordering: .acquiring) == .rendering { ahead.underruns.add(1, ordering: .relaxed) }
        if hasScope { _unsafePerformance { exit() } }
        countCycle(frameCount: frameCount)
    }

    /// The end of one of main's cycles (whatever it played): its frames, its thread, the
    /// clock's cycle count.
    @_noLocks
    private func countCycle(frameCount: Int) {
        cycleFrames.store(frameCount, ordering: .relaxed)
        // pthread_self reads the thread pointer: no call into the kernel.
        let thread = _unsafePerformance { pthread_self() }
        dataThread.store(UInt(thread), ordering: .releasing)
        clock.countCycle()
    }

    /// Renders `frameCount` frames of the engine (as far as the clock grants) into `output`,
    /// feeding the buses' and sessions' streams: main's cycle, or (rendering ahead) a chunk on
    /// the ahead thread.
    @_noLocks
    func render(into output: UnsafeMutablePointer<Float>, frameCount: Int, renderer: Renderer) {
        let enter = scope.enter
        let exit = scope.exit
        if hasScope { _unsafePerformance { enter() } }
        let grant = clock.beginCycle(frameCount: frameCount)
        let rendered = grant.count
        let feeds = busSlots
        let feedCount = feedCount.load(ordering: .acquiring)
        // Which feeds this cycle feeds: `use` read once (the control thread makes a feed live,
        // the supervisor frees one, at any time; only this thread ends a live one).
        for k in 0..<feedCount {
            feeds[k]._withUnsafeGuaranteedRef { $0.renderLive = $0.use.load(ordering: .acquiring) == BusFeed.Use.live }
        }
        if splitsOutput {
            let busScratch = buffers.table
            let scratch = buffers.samples
            let mixes = renderMixes
            if let mixes {
                // A session whose bus has gone (removed; perhaps added and removed between two
                // cycles: `busHasLeft`) stops being split: its slot mixes into
                // main again (another session may take it), and its feed is retired (`ending`:
                // this thread's last touch; the supervisor closes its stream and frees it). One
                // still waiting for its bus claims the slot only when no other feed holds it (a
                // removed session's bus on that slot may still be fading out).
                for k in 0..<feedCount {
                    let (live, slot, bus, playing, mix) = feeds[k]._withUnsafeGuaranteedRef {
                        ($0.renderLive, $0.sessionSlot, $0.sessionBus, $0.sessionPlaying, $0.mixBuffer)
                    }
                    guard live, slot >= 0, let buffer = mix else { continue }
                    let id = BusID(rawValue: bus)
                    let present = renderer.hasBus(id)
                    var gone = false
                    if !present { gone = playing ? true : renderer.busHasLeft(id) }
                    if present {
                        if !playing { feeds[k]._withUnsafeGuaranteedRef { $0.sessionPlaying = true } }
                        mixes[slot] = buffer
                    } else if gone {
                        if mixes[slot] == buffer { mixes[slot] = nil }
                        feeds[k]._withUnsafeGuaranteedRef {
                            $0.renderLive = false
                            $0.use.store(BusFeed.Use.ending, ordering: .releasing)
                        }
                    } else if mixes[slot] == nil || mixes[slot] == buffer {
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
                        guard feed.renderLive else { return }
                        if feed.sessionSlot >= 0, let buffer = feed.mixBuffer {
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
                    for k in 0..<feedCount {
                        feeds[k]._withUnsafeGuaranteedRef { if $0.renderLive { $0.push(silence, frameCount: n) } }
                    }
                    offset &+= n
                }
            }
        }
        if feedCount > 0, clock.phase.load(ordering: .acquiring) != .idle {
            // clock_gettime(CLOCK_MONOTONIC) is answered in the vDSO: no call into the kernel.
            let now = monotonicNanoseconds()
            for k in 0..<feedCount {
                feeds[k]._withUnsafeGuaranteedRef { if $0.renderLive { $0.measure(cycleFrames: frameCount, now: now) } }
            }
        }
        if hasScope { _unsafePerformance { exit() } }
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
    /// One cycle of bus stream `bus` (its feed's index): `frameCount` frames from its ring
    /// into `output` (NULL: the cycle found no free buffer, counted); silence from a feed not
    /// live yet (a session stream just added, its feed still being prepared). A retired
    /// feed's stream (`ending`) plays out its ring (`draining`: the session's fade-out) until
    /// the supervisor closes it.
    /// PipeWire's data thread.
    @_noLocks
    func pullBus(_ bus: Int, into output: UnsafeMutablePointer<Float>?, frameCount: Int) {
        guard bus >= 0, bus < feedCount.load(ordering: .acquiring) else {
            output?.update(repeating: 0, count: frameCount &* channelCount)
            return
        }
        let mainCycle = cycleFrames.load(ordering: .relaxed)
        let samples = frameCount &* channelCount
        busSlots[bus]._withUnsafeGuaranteedRef { feed in
            let use = feed.use.load(ordering: .acquiring)
            guard use == BusFeed.Use.live || use == BusFeed.Use.ending else {
                output?.update(repeating: 0, count: samples)
                return
            }
            guard let output else {
                feed.missedCycles.add(1, ordering: .relaxed)
                return
            }
            feed.pull(
                into: output, frameCount: frameCount, mainCycle: mainCycle, now: monotonicNanoseconds(),
                draining: use == BusFeed.Use.ending)
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
            guard stream >= 0, stream < feedCount.load(ordering: .acquiring) else { return }
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
    if let ahead = core.ahead {
        core.play(from: ahead, into: samples, frameCount: Int(frames))
    } else {
        core.process(into: samples, frameCount: Int(frames), renderer: core.renderer)
    }
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
