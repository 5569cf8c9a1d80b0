import CALSA
import Glibc
import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiOutput

/// The render thread's loop: render a period with the engine, convert it to the device
/// format, write it; handle EAGAIN / EINTR / EPIPE in place and hand everything that can
/// block (ESTRPIPE, a lost device, a long stall) to the supervisor while it parks.
///
/// Thread: the atomics are shared. The device fields (`pcm`, buffers, format) belong to
/// the render thread while `state == running`, to the supervisor while the render thread is
/// parked, and to the control thread before start and after the render thread exited; the
/// `state` store/load (release/acquire) hands them over.
final class RenderCore: @unchecked Sendable { // render-side memory: device fields handed over by `state`
    /// Who has the device, and why the render thread is parked when it is.
    enum State: Int, AtomicRepresentable {
        /// The render thread renders and writes.
        case running
        /// Parked: the system suspended the device (ESTRPIPE); the supervisor resumes it.
        case parkedSuspended
        /// Parked: the device is gone (ENODEV, EIO, a failed recovery); the supervisor reopens it.
        case parkedLost
        /// Parked: the device stopped consuming (watchdog); the supervisor reopens it.
        case parkedStalled
        /// The frame limit is written.
        case finished
        /// The render thread has returned.
        case exited
    }

    /// What one render-and-write step ended with.
    enum CycleResult {
        case proceed
        case reachedLimit
        /// The control side has not queued commands this far yet (the horizon).
        case starved
        case park(State)
    }

    /// The device's sample format (what `convert` writes).
    enum DeviceFormat {
        case float32, s32, s16
    }

    let state = Atomic<State>(.running)
    let stopRequested = Atomic<Bool>(false)
    /// Set by the supervisor's watchdog: park at the next chance and give up the device.
    let handOverRequested = Atomic<Bool>(false)
    let xrunCount = Atomic<Int>(0)
    /// Of `xrunCount`: the server ran dry and the plugin did not say so (`ConsumptionWatch`).
    let unreportedUnderrunCount = Atomic<Int>(0)
    /// Monotonic ns of the first write attempt at data the device has not taken yet; 0 after progress.
    let blockedSince = Atomic<UInt64>(0)
    let framesWritten = Atomic<Int64>(0)
    /// Engine frames rendered (the engine clock the control side schedules against).
    let framesRendered = Atomic<Int64>(0)
    /// The render thread does not render frames at or past this one (the control side moves
    /// it forward once every command before it is queued). Int64.max: no limit.
    let horizon = Atomic<Int64>(Int64.max)
    /// The error that made the render thread park (negative alsa-lib code).
    let lastError = Atomic<Int32>(0)
    /// errno of the SCHED_FIFO request made by the render thread; -1 not asked.
    let schedulingResult = Atomic<Int32>(-1)

    let renderer: Renderer
    /// The PCMs of the output buses past main (nil: main only), written from this thread too.
    let buses: BusSet?
    /// `buses` for the render thread (no reference counting there).
    let busesRef: Unmanaged<BusSet>?
    let writei: @convention(c) (OpaquePointer?, UnsafeRawPointer?, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    let wait: @convention(c) (OpaquePointer?, Int32) -> Int32
    let recover: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let availUpdate: @convention(c) (OpaquePointer?) -> snd_pcm_sframes_t
    /// Brackets each render (`ALSAOutputConfiguration.realtimeScope`; `.inactive` when none).
    let scope: RealtimeScope
    let hasScope: Bool
    let channelCount: Int
    let wakeRender: UnsafeMutablePointer<sem_t>
    let wakeSupervisor: UnsafeMutablePointer<sem_t>
    /// Frames to play before finishing; negative: no limit. Set before the thread starts.
    var frameLimit: Int64 = -1

    // Device fields (see the ownership note above).
    var pcm: OpaquePointer?
    var periodFrames = 0
    var deviceFormat = DeviceFormat.float32
    var frameBytes = 0
    var waitTimeoutMilliseconds: Int32 = 1
    var floatBuffer: UnsafeMutablePointer<Float>
    var deviceBuffer: UnsafeMutableRawPointer
    /// The quantizer's dither values for one period (one per sample).
    var ditherScratch: UnsafeMutablePointer<Float>
    /// The rendered, converted period being written: `pendingFrames` left from `pendingOffset`.
    var pendingOffset = 0
    var pendingFrames = 0
    var quantizer: TPDFQuantizer
    let dither: Bool
    let ditherSeed: UInt32
    /// A sound server's plugin: what it consumes is watched against the clock (PCMDevice).
    var watching = false
    var watch = ConsumptionWatch(sampleRate: 48_000, periodFrames: 1, bufferFrames: 1)
    var bufferFrames = 0
    /// Frames written since the PCM was last prepared (it starts once the buffer is full).
    var writtenSincePrepare = 0
    /// Full duplex: read before each period is rendered (CaptureSide.swift); nil: none.
    var capture: CaptureReader?

    init(
        renderer: Renderer, channelCount: Int, functions: ALSAFunctions, configuration: ALSAOutputConfiguration,
        wakeRender: UnsafeMutablePointer<sem_t>, wakeSupervisor: UnsafeMutablePointer<sem_t>, buses: BusSet? = nil
    ) {
        self.renderer = renderer
        self.buses = buses
        busesRef = buses.map { .passUnretained($0) }
        self.channelCount = channelCount
        writei = functions.writei
        wait = functions.wait
        recover = functions.recover
        availUpdate = functions.avail_update
        scope = configuration.realtimeScope ?? .inactive
        hasScope = configuration.realtimeScope != nil
        self.wakeRender = wakeRender
        self.wakeSupervisor = wakeSupervisor
        dither = configuration.dither
        ditherSeed = configuration.ditherSeed
        quantizer = TPDFQuantizer(format: .s16, seed: configuration.ditherSeed, dither: configuration.dither)
        floatBuffer = allocateAudio(Float.self, capacity: 1)
        deviceBuffer = UnsafeMutableRawPointer(floatBuffer)
        ditherScratch = allocateAudio(Float.self, capacity: 1)
    }

    deinit {
        if deviceFormat != .float32 { deviceBuffer.deallocate() }
        deallocateAudio(floatBuffer)
        deallocateAudio(ditherScratch)
    }

    /// Take over an opened device (not on the render thread: before start, or while it is
    /// parked). Keeps an unwritten period when the format is unchanged, so no engine frame is lost.
    func install(_ device: PCMDevice) {
        let n = device.negotiated
        let newFormat: DeviceFormat =
            switch n.format {
            case .float32: .float32
            case .s32: .s32
            case .s16: .s16
            }
        let keep = pendingFrames > 0 && newFormat == deviceFormat && n.frameBytes == frameBytes ? pendingFrames : 0
        let capacity = max(n.periodFrames, keep)
        let samples = capacity * channelCount
        let newFloat = allocateAudio(Float.self, capacity: samples)
        newFloat.initialize(repeating: 0, count: samples)
        let newDevice = newFormat == .float32 ? UnsafeMutableRawPointer(newFloat) : allocateAudioBytes(capacity * n.frameBytes)
        if keep > 0 { newDevice.copyMemory(from: deviceBuffer + pendingOffset * frameBytes, byteCount: keep * frameBytes) }
        let newScratch = allocateAudio(Float.self, capacity: samples)
        if deviceFormat != .float32 { deviceBuffer.deallocate() }
        deallocateAudio(floatBuffer)
        deallocateAudio(ditherScratch)
        floatBuffer = newFloat
        deviceBuffer = newDevice
        ditherScratch = newScratch
        if newFormat != deviceFormat, let q = n.format.quantizerFormat {
            quantizer = TPDFQuantizer(format: q, seed: ditherSeed, dither: dither)
        }
        deviceFormat = newFormat
        frameBytes = n.frameBytes
        periodFrames = n.periodFrames
        pendingOffset = 0
        pendingFrames = keep
        waitTimeoutMilliseconds = Int32(max(1, (n.periodFrames * 1000 + n.sampleRate - 1) / n.sampleRate))
        watching = device.watchesConsumption
        watch = ConsumptionWatch(sampleRate: n.sampleRate, periodFrames: n.periodFrames, bufferFrames: n.bufferFrames)
        bufferFrames = n.bufferFrames
        writtenSincePrepare = 0
        pcm = device.handle
    }

    /// Drop the device fields' handle (the caller closes it).
    func releaseDevice() { pcm = nil }

    /// After the render thread ended, for a drained stop: write the period it had rendered
    /// but not yet (all) written, waiting for room (the device plays on, so room comes within
    /// a period; at most a second). False when the device refused it (then it is dropped,
    /// not drained). Control thread, only once the render thread is joined.
    func writePending(_ functions: ALSAFunctions) -> Bool {
        guard let device = pcm else { return false }
        let deadline = monotonicSeconds() + 1
        while pendingFrames > 0 {
            let data = UnsafeRawPointer(deviceBuffer + pendingOffset * frameBytes)
            let written = functions.writei(device, data, snd_pcm_uframes_t(pendingFrames))
            if written > 0 {
                pendingOffset += Int(written)
                pendingFrames -= Int(written)
                framesWritten.add(Int64(written), ordering: .relaxed)
                continue
            }
            guard written == 0 || written == -Int(EAGAIN) || written == -Int(EINTR), monotonicSeconds() < deadline else { return false }
            _ = functions.wait(device, waitTimeoutMilliseconds)
        }
        return true
    }

    // MARK: Render thread

    /// The thread body after scheduling set-up: cycles while running, parks otherwise.
    func run() {
        // Passed down as a guaranteed argument: no reference counting per cycle.
        let renderer = self.renderer
        while !stopRequested.load(ordering: .acquiring) {
            if state.load(ordering: .acquiring) != .running {
                // Parked: the supervisor (or stop) wakes us. No device to feed meanwhile.
                while sem_wait(wakeRender) != 0 && errno == EINTR {}
                continue
            }
            if handOverRequested.exchange(false, ordering: .acquiringAndReleasing) {
                park(.parkedStalled)
                continue
            }
            switch cycle(renderer) {
            case .proceed:
                continue
            case .starved:
                // The control side is late with commands: wait rather than render without them.
                usleep(200)
            case .reachedLimit:
                park(.finished)
            case .park(let parked):
                park(parked)
            }
        }
        blockedSince.store(0, ordering: .relaxed)
        state.store(.exited, ordering: .releasing)
        sem_post(wakeSupervisor)
    }

    @_noLocks
    func park(_ newState: State) {
        // State first: a supervisor that still sees `running` must not see the stamp cleared
        // (it would report the device consuming again just before it is reported lost).
        state.store(newState, ordering: .releasing)
        blockedSince.store(0, ordering: .relaxed)
        let wake = wakeSupervisor
        _ = _unsafePerformance { sem_post(wake) }
    }

    /// One step: render and convert a period if none is pending, then one write attempt.
    /// Returns `proceed`, `reachedLimit`, `starved`, or a parked state for the supervisor.
    @_noLocks
    func cycle(_ renderer: Renderer) -> CycleResult {
        // The other output buses' PCMs take what they can while main is waited on (BusSet).
        if let buses = busesRef { buses._withUnsafeGuaranteedRef { $0.flush() } }
        if pendingFrames == 0 {
            let done = framesRendered.load(ordering: .relaxed)
            var n = periodFrames
            if frameLimit >= 0 {
                if done >= frameLimit { return .reachedLimit }
                n = Int(min(Int64(n), frameLimit &- done))
            }
            let allowed = horizon.load(ordering: .acquiring) &- done
            if allowed <= 0 { return .starved }
            n = Int(min(Int64(n), allowed))
            if let parked = capture?.beforeRender(self, frameCount: n) { return parked }
            let enter = scope.enter
            let exit = scope.exit
            if hasScope { _unsafePerformance { enter() } }
            if let buses = busesRef {
                let main = floatBuffer
                let engine = Unmanaged.passUnretained(renderer)
                buses._withUnsafeGuaranteedRef { $0.render(engine, main: main, frameCount: n) }
            } else {
                renderer.render(into: floatBuffer, frameCount: n)
            }
            convert(frameCount: n)
            if hasScope { _unsafePerformance { exit() } }
            framesRendered.store(done &+ Int64(n), ordering: .releasing)
            pendingOffset = 0
            pendingFrames = n
        }
        // Watchdog stamp: from the first attempt at this data until the device takes some
        // (covers a write that blocks inside alsa-lib as well as EAGAIN + wait rounds).
        if blockedSince.load(ordering: .relaxed) == 0 { blockedSince.store(monotonicNanoseconds(), ordering: .relaxed) }
        let device = pcm
        if watching, writtenSincePrepare >= bufferFrames { watchConsumption(device) }
        let data = UnsafeRawPointer(deviceBuffer + pendingOffset &* frameBytes)
        let count = snd_pcm_uframes_t(pendingFrames)
        let write = writei
        let written = _unsafePerformance { write(device, data, count) }
        if written > 0 {
            let n = Int(written)
            pendingOffset &+= n
            pendingFrames &-= n
            writtenSincePrepare &+= n
            framesWritten.add(Int64(n), ordering: .relaxed)
            blockedSince.store(0, ordering: .relaxed)
            return .proceed
        }
        return handle(error: written == 0 ? -EAGAIN : Int32(truncatingIfNeeded: written))
    }

    /// The running PCM's consumed frames (written since prepare less what it still holds)
    /// against the clock: a step is an underrun the plugin did not report, counted as an xrun.
    @_noLocks
    func watchConsumption(_ device: OpaquePointer?) {
        let update = availUpdate
        let available = _unsafePerformance { update(device) }
        // An error (EPIPE) is the write's to handle.
        guard available >= 0 else { return }
        let consumed = Int64(writtenSincePrepare &- bufferFrames) &+ Int64(available)
        let now = Int64(bitPattern: monotonicNanoseconds())
        guard watch.observe(now: now, consumed: consumed) > 0 else { return }
        xrunCount.add(1, ordering: .relaxed)
        unreportedUnderrunCount.add(1, ordering: .relaxed)
        let wake = wakeSupervisor
        _ = _unsafePerformance { sem_post(wake) }
    }

    /// Error handling for a write (or the wait after EAGAIN).
    @_noLocks
    func handle(error code: Int32) -> CycleResult {
        var err = code
        if err == -EAGAIN {
            // The device is full: wait for a period of room, with a timeout so a device
            // that stops consuming cannot hold this thread (the watchdog sees `blockedSince`).
            let device = pcm
            let timeout = waitTimeoutMilliseconds
            let waitForRoom = wait
            let w = _unsafePerformance { waitForRoom(device, timeout) }
            if w >= 0 { return .proceed }
            err = w
            if err == -EAGAIN { return .proceed }
        }
        if err == -EINTR { return .proceed }
        if err == -EPIPE {
            // Underrun: count it and prepare again (for hardware a single ioctl).
            xrunCount.add(1, ordering: .relaxed)
            writtenSincePrepare = 0
            watch.reset()
            let device = pcm
            let prepareAgain = recover
            let wake = wakeSupervisor
            let r = _unsafePerformance { prepareAgain(device, -EPIPE, 1) }
            _ = _unsafePerformance { sem_post(wake) }
            if r >= 0 { return .proceed }
            lastError.store(r, ordering: .relaxed)
            return .park(.parkedLost)
        }
        lastError.store(err, ordering: .relaxed)
        // ESTRPIPE: `snd_pcm_recover` would loop `snd_pcm_resume` with 1 s sleeps here.
        if err == -ESTRPIPE { return .park(.parkedSuspended) }
        // ENODEV, EIO, EBADFD, anything else: the device is gone; reopen off this thread.
        return .park(.parkedLost)
    }

    /// Float → device format for `frameCount` frames of `floatBuffer`.
    @inline(__always) @_noLocks
    func convert(frameCount: Int) {
        let samples = frameCount &* channelCount
        let format = deviceFormat
        if case .float32 = format { return }
        // The C kernels (TuttiDSP's TPDFQuantizer → CTuttiKernels) write the device format
        // directly: s16 codes, or 24-bit codes in the top bits of s32.
        var q = quantizer
        let input = floatBuffer
        let scratch = ditherScratch
        if case .s32 = format {
            q.quantizeLeftJustified(input, count: samples, scratch: scratch, into: deviceBuffer.assumingMemoryBound(to: Int32.self))
        } else {
            q.quantize(input, count: samples, scratch: scratch, into: deviceBuffer.assumingMemoryBound(to: Int16.self))
        }
        quantizer = q
    }
}
