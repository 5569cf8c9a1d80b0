import Synchronization
import TuttiDSP
import TuttiEngine

/// One output bus past main that plays through its own PipeWire stream: main's `process`
/// callback renders it with every other bus, resamples it at its clock correction's ratio and
/// writes it into a preallocated single-producer/single-consumer ring; the bus stream's
/// `process` callback reads the ring into its buffer. The bus stream may follow another
/// driver than main's (another sink, another clock): once per main cycle the frames waiting
/// in the ring are fed to a `DriftController` (as ALSA's output buses past main do), whose ratio
/// (1 ± 0.5 % at most) resamples the bus's next cycle (`DriftResampler`), so the ring neither
/// fills up nor runs dry. Driven by main's driver, the fill stays put and the ratio stays 1
/// (frames pass bit for bit).
///
/// The bus stream starts reading once the ring holds its cycle plus main's plus half a
/// controller period (the correction's dead band: primed); a cycle
/// the ring cannot fill is completed with silence (`framesInserted`, an underrun), after
/// which it primes again and the correction re-anchors (a step in the fill, not drift: its ratio
/// holds).
///
/// The ring overflows (the bus stream stalled, or its clock drifts past the correction's range)
/// when a cycle would leave less than two chunks of room (`overflowFrames`): as ALSA's output
/// buses do, the older frames are dropped and the new ones kept, so the bus's latency goes back to
/// what the stream primes rather than staying at a full ring (which a slower sink would overflow
/// again and again). The ring is single-producer/single-consumer and only the consumer may move
/// its read index, so the producer writes the cycle (it fits: the room held back) and asks the
/// consumer to discard (`discardRequested`); the bus stream's next callback, before reading,
/// drops all but the newest frames its priming needs (counted in `framesDropped`). Both sides
/// only ever add to what the other sees (the producer frames, the consumer room), so running at
/// once they cannot lose a frame or discard a new one: the consumer keeps the newest of what it
/// sees, and what the producer adds meanwhile comes after them. Only a stream stalled long enough
/// to fill the held-back room too makes the producer drop what it cannot store (the newest:
/// nothing else is possible without moving the read index). Either way the correction keeps
/// its ratio and re-anchors once the fill holds still.
///
/// Threads: `push` and `measure` on PipeWire's data thread in main's callback (the producer:
/// the controller and the resampler are its), `pull` on the data thread in the bus's callback
/// (the consumer: `primed` is its); the ring is the engine's `SampleRing` (its indices are
/// atomics). `reset` on the control thread or the supervisor while no stream exists. The
/// counters: any thread.
final class BusFeed: @unchecked Sendable { // render-side memory: the producer's and the consumer's state, each touched by one callback
    /// The bus's name and its index among the renderer's output buses (a session's feed:
    /// the session's name, and 0). A free session feed gets its name, slot and bus on the
    /// control thread before it is made live (`StreamCore.prepareSessionFeed`). Any thread
    /// but a real-time one (the render path never reads it).
    var name: String {
        get { nameStore.withLock { $0 } }
        set { nameStore.withLock { $0 = newValue } }
    }
    private let nameStore: Mutex<String>
    let index: Int
    /// A session's feed (`OutputSettings.sessionStreams`): the slot of its engine bus, whose
    /// mix it plays; -1 for an output bus past main.
    @exclusivity(unchecked) var sessionSlot: Int
    /// A session's feed: the buffer the renderer writes its bus's mix into (nil otherwise),
    /// 64-byte aligned, owned by the feed.
    let mixBuffer: UnsafeMutablePointer<Float>?
    private let mixSamples: Int
    /// A session's feed: its engine bus (`BusID.rawValue`), and whether the data thread has
    /// seen that bus in the renderer (false: waiting for it to appear): the data thread's.
    @exclusivity(unchecked) var sessionBus: UInt64
    @exclusivity(unchecked) var sessionPlaying = false

    /// Who may touch the feed (`Use`): the handshake by which a session's feed is retired and
    /// reused. `free` → `preparing` (the control thread takes it and writes its session) →
    /// `live` (released to the data thread with it) → `ending` (the data thread saw the
    /// session's bus gone, dropped its claim on the bus slot and never touches the feed again:
    /// its acknowledgement) → `free` (the supervisor closed its stream, after which no bus
    /// callback reads it). Output buses' feeds are `live` for good.
    let use: Atomic<Int>
    /// The values of `use`.
    enum Use {
        static var free: Int { @_noLocks get { 0 } }
        static var preparing: Int { @_noLocks get { 1 } }
        static var live: Int { @_noLocks get { 2 } }
        static var ending: Int { @_noLocks get { 3 } }
    }
    /// Whether main's callback feeds it this cycle (`use` read once at the cycle's start): the
    /// data thread's.
    @exclusivity(unchecked) var renderLive = false
    /// The session's bus has gone (its stream is being closed): nothing is pushed any more.
    /// Any thread.
    var isEnding: Bool { use.load(ordering: .acquiring) == Use.ending }
    /// Whether it has a stream that plays (live or ending, not free or being prepared). Any thread.
    var hasStream: Bool {
        let u = use.load(ordering: .acquiring)
        return u == Use.live || u == Use.ending
    }
    /// Times the feed was taken for another session (`recycle`). Any thread.
    let generation = Atomic<Int>(0)
    /// Its stream's `target.object`.
    let destination: String
    let channelCount: Int
    let sampleRate: Double
    /// The interleaved frames between the two callbacks, and their memory.
    private let ringBuffer: SampleRingBuffer
    let ring: SampleRing
    /// The consumer asks the producer to restart the correction (after an underrun).
    let restartRequested = Atomic<Bool>(false)
    /// The producer asks the consumer to drop the ring's older frames (it overflowed).
    let discardRequested = Atomic<Bool>(false)
    /// The most frames the ring holds before a cycle overflows it: its room less two chunks
    /// (after the correction), held back so that the cycle that overflows, and the next one
    /// before the consumer has discarded, are stored whole.
    let overflowFrames: Int

    /// Cycles of the bus stream that found no free buffer to fill.
    let missedCycles = Atomic<Int>(0)
    /// Graph cycles the bus stream was not called in, or ended too late for (`tpw_gap_fn`), and
    /// their frames: the bus's sink got nothing from it then.
    let lostCycles = Atomic<Int>(0)
    let lostFrames = Atomic<Int64>(0)
    /// Bus cycles the ring could not fill (completed with silence).
    let underruns = Atomic<Int>(0)
    /// Silent frames played in those cycles.
    let framesInserted = Atomic<Int64>(0)
    /// Frames the bus stream has played from the ring.
    let framesPlayed = Atomic<Int64>(0)
    /// When the bus stream's last cycle took frames from the ring (monotonic nanoseconds) and
    /// how many: the producer's measure of what its sink has not played yet.
    let lastPullTime = Atomic<UInt64>(0)
    let lastPullFrames = Atomic<Int>(0)
    /// The frames of the bus stream's last cycle (its buffer, which its sink plays after the
    /// frames before it: a part of the latency of every frame that enters the ring); 0 before
    /// its first cycle.
    let streamCycleFrames = Atomic<Int>(0)

    /// The clock correction (the producer's) with its counters: frames rendered (after the
    /// correction) the ring dropped on an overflow, the older ones discarded by the consumer or
    /// new ones that found no room (`framesDropped`: both sides add to it), frames it added or
    /// removed (`framesCorrected`), its ratio.
    let correction: BusClockCorrection
    /// `correction` without reference counting (the render path).
    private let correctionRef: Unmanaged<BusClockCorrection>
    // The producer's.
    /// Frames main played since the controller's last update, and its period.
    private var pendingFrames = 0
    private let controllerPeriod: Int
    // The consumer's.
    private var primed = false
    /// Frames primed beyond the two cycles: the dead band (half a controller period) the
    /// correction may let the fill sink by before it engages, so that it never runs dry.
    private let primeMarginFrames: Int

    /// A feed for chunks of up to `maximumChunkFrames`, whose ring holds at least `ringFrames`, its
    /// correction updated every `controllerPeriod` frames (its dead band: half that).
    /// Allocates: control thread.
    init(
        name: String, index: Int, destination: String, channelCount: Int, sampleRate: Int, maximumChunkFrames: Int, ringFrames: Int,
        controllerPeriod: Int, sessionSlot: Int = -1, sessionBus: UInt64 = 0, mixFrames: Int = 0, use: Int = Use.live
    ) {
        nameStore = Mutex(name)
        self.index = index
        self.sessionSlot = sessionSlot
        self.sessionBus = sessionBus
        self.use = Atomic(use)
        mixSamples = mixFrames * channelCount
        if mixFrames > 0 {
            let buffer = allocateAudio(Float.self, capacity: mixFrames * channelCount)
            buffer.initialize(repeating: 0, count: mixFrames * channelCount)
            mixBuffer = buffer
        } else {
            mixBuffer = nil
        }
        self.destination = destination
        self.channelCount = channelCount
        self.sampleRate = Double(sampleRate)
        ringBuffer = SampleRingBuffer(capacity: ringFrames * channelCount)
        ring = ringBuffer.ring
        correction = BusClockCorrection(
            channelCount: channelCount, maximumInputFrames: maximumChunkFrames, periodFrames: controllerPeriod,
            sampleRate: Double(sampleRate))
        correctionRef = .passUnretained(correction)
        overflowFrames = max(ringBuffer.ring.indices.capacity / channelCount - 2 * correction.maximumOutputFrames, 0)
        self.controllerPeriod = controllerPeriod
        primeMarginFrames = controllerPeriod / 2
    }

    deinit { if let mixBuffer { deallocateAudio(mixBuffer) } }

    /// The clock correction's ratio now. Any thread.
    var clockRatio: Double { correction.clockRatio }

    /// The bus's xruns: its stream's cycles without a buffer, its ring's underruns and the
    /// graph cycles its stream lost. Any thread.
    var xrunCount: Int {
        missedCycles.load(ordering: .relaxed) + underruns.load(ordering: .relaxed) + lostCycles.load(ordering: .relaxed)
    }

    /// Frames waiting in the ring now. Any thread.
    var fill: Int { max(ring.indices.count, 0) / channelCount }

    /// Empties the ring (what it held counts as dropped) and restarts the correction. Only
    /// while no stream exists (no callback runs): control thread or supervisor.
    func reset() {
        let waiting = fill
        if waiting > 0 { correction.framesDropped.add(Int64(waiting), ordering: .relaxed) }
        emptyRing()
    }

    /// The ring emptied, its requests and its stream's timing forgotten, the correction
    /// restarted (`reset`, `recycle`). Only while no callback reads the feed: control thread or
    /// supervisor.
    private func emptyRing() {
        ring.release(ring.indices.count)
        restartRequested.store(false, ordering: .relaxed)
        discardRequested.store(false, ordering: .relaxed)
        lastPullTime.store(0, ordering: .relaxed)
        lastPullFrames.store(0, ordering: .relaxed)
        streamCycleFrames.store(0, ordering: .relaxed)
        primed = false
        pendingFrames = 0
        correction.reset()
    }

    /// Takes the feed for session `name` on engine bus `bus` (slot `slot`): its ring
    /// emptied, its correction and its counters back to zero, its mix silent. Only while
    /// `use` is `preparing` (no callback reads it): control thread.
    func recycle(name: String, slot: Int, bus: UInt64) {
        self.name = name
        sessionSlot = slot
        sessionBus = bus
        sessionPlaying = false
        emptyRing()
        missedCycles.store(0, ordering: .relaxed)
        lostCycles.store(0, ordering: .relaxed)
        underruns.store(0, ordering: .relaxed)
        lostFrames.store(0, ordering: .relaxed)
        framesInserted.store(0, ordering: .relaxed)
        framesPlayed.store(0, ordering: .relaxed)
        correction.framesDropped.store(0, ordering: .relaxed)
        correction.framesCorrected.store(0, ordering: .relaxed)
        mixBuffer?.update(repeating: 0, count: mixSamples)
        generation.add(1, ordering: .releasing)
    }

    // MARK: Main's callback (producer)

    /// Resamples `frameCount` (≤ the chunk size) frames at the correction's ratio and appends
    /// them to the ring. Past `overflowFrames` the ring has overflowed: the consumer is asked to
    /// drop the older frames (`discardRequested`) and the correction restarts (a step, not
    /// drift); frames that find no room at all (the consumer stalled) are dropped (counted).
    @_noLocks
    func push(_ input: UnsafePointer<Float>, frameCount: Int) {
        let (frames, n) = correctionRef._withUnsafeGuaranteedRef { $0.resample(input, frameCount: frameCount) }
        let ch = channelCount
        let room = ring.indices.writable().count / ch
        let held = ring.indices.capacity / ch &- room
        let overflows = held &+ n > overflowFrames
        let stored = ring.write(frames: frames, frameCount: n, channelCount: ch)
        // After the write: the consumer that sees the request sees the new frames too.
        if overflows { discardRequested.store(true, ordering: .releasing) }
        if overflows || stored < n {
            correctionRef._withUnsafeGuaranteedRef {
                if stored < n { $0.framesDropped.add(Int64(n &- stored), ordering: .relaxed) }
                $0.restart()
            }
        }
    }

    /// One correction measurement after main's cycle of `cycleFrames`, at `now` (monotonic
    /// nanoseconds): the frames waiting for the bus's sink — the ring's fill plus what is left
    /// of the bus stream's last buffer, played out at the engine's rate since that cycle (as
    /// ALSA's output buses add the PCM's delay: without it the fill moves by whole cycles as the
    /// two drivers' phases slide, not smoothly) — feed the controller once per
    /// `controllerPeriod` frames main played (the graph's quantum may be shorter or longer
    /// than the controller's period: its time constants stay in seconds), whose ratio
    /// resamples the next cycle.
    @_noLocks
    func measure(cycleFrames: Int, now: UInt64) {
        if restartRequested.exchange(false, ordering: .acquiringAndReleasing) {
            correctionRef._withUnsafeGuaranteedRef { $0.restart() }
        }
        pendingFrames &+= cycleFrames
        let period = controllerPeriod
        guard pendingFrames >= period else { return }
        let lastFrames = Double(lastPullFrames.load(ordering: .acquiring))
        let pulledAt = lastPullTime.load(ordering: .acquiring)
        let since = now >= pulledAt ? Double(now &- pulledAt) : 0
        let filled = Double(fill) + max(lastFrames - since * sampleRate / 1e9, 0)
        let periods = pendingFrames / period
        pendingFrames &-= periods &* period
        correctionRef._withUnsafeGuaranteedRef { $0.update(fillFrames: filled, periods: periods) }
    }

    // MARK: The bus stream's callback (consumer)

    /// Fills `output` with `frameCount` frames from the ring at `now` (monotonic
    /// nanoseconds): silence until the ring holds this cycle plus `mainCycle` frames plus
    /// half a controller period (primed), then what it holds; a shortfall is completed with silence (counted) and
    /// primes again. `draining` (a retired session's feed: nothing more is pushed): what the
    /// ring holds plays out, then silence, neither waiting to prime nor counted. After the
    /// ring overflowed (`discardRequested`), first drops all but the newest frames priming
    /// takes (counted in `framesDropped`).
    @_noLocks
    func pull(into output: UnsafeMutablePointer<Float>, frameCount: Int, mainCycle: Int, now: UInt64, draining: Bool = false) {
        let ch = channelCount
        streamCycleFrames.store(frameCount, ordering: .relaxed)
        let primedFrames = frameCount &+ max(mainCycle, frameCount) &+ primeMarginFrames
        if discardRequested.load(ordering: .relaxed), discardRequested.exchange(false, ordering: .acquiringAndReleasing) {
            // The older frames go: what the producer adds meanwhile lands after the ones kept.
            let held = ring.indices.readable().count / ch
            if held > primedFrames {
                ring.release((held &- primedFrames) &* ch)
                _ = correctionRef._withUnsafeGuaranteedRef { $0.framesDropped.add(Int64(held &- primedFrames), ordering: .relaxed) }
            }
        }
        let available = ring.indices.readable().count / ch
        if !primed {
            // Draining (the session's bus has gone, nothing more comes): what is left plays.
            if !draining, available < primedFrames {
                output.update(repeating: 0, count: frameCount &* ch)
                return
            }
            primed = true
        }
        let take = ring.read(into: output, count: min(available, frameCount) &* ch) / ch
        lastPullTime.store(now, ordering: .releasing)
        lastPullFrames.store(take, ordering: .releasing)
        framesPlayed.add(Int64(take), ordering: .relaxed)
        if take < frameCount {
            (output + take &* ch).update(repeating: 0, count: (frameCount &- take) &* ch)
            if draining { return } // the end of the session's audio, not an underrun
            framesInserted.add(Int64(frameCount &- take), ordering: .relaxed)
            underruns.add(1, ordering: .relaxed)
            primed = false
            restartRequested.store(true, ordering: .releasing)
        }
    }
}
