import CALSA
import Glibc
import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiOutput

/// The PCM of one output bus past main, with its render scratch, its clock correction (a drift
/// controller and the resampler it drives) and a small ring of converted frames its PCM has
/// not taken yet.
///
/// Thread: the atomics are shared. `pcm`, the buffers, the ring, the clock correction and
/// the quantizer belong to the render thread while `state == running`, to the supervisor
/// while `lost`, and to the control thread before start and after the threads stopped; the
/// `state` store/load (release/acquire) hands them over. The `supervisor…` fields are the supervisor's.
final class BusPCM: @unchecked Sendable { // render-side memory: PCM and buffers handed over by `state`
    enum State: Int, AtomicRepresentable {
        /// The render thread writes it.
        case running
        /// Gone (or stalled past the restart limit): the supervisor reopens it; its bus is
        /// rendered and dropped meanwhile.
        case lost
    }

    let name: String
    let device: String
    let state = Atomic<State>(.running)
    /// Set by the supervisor's watchdog: give the PCM up at the next flush.
    let handOverRequested = Atomic<Bool>(false)
    let xrunCount = Atomic<Int>(0)
    let framesWritten = Atomic<Int64>(0)
    /// The error that made the render thread give it up (negative alsa-lib code).
    let lastError = Atomic<Int32>(0)
    /// Monotonic ns of the first write attempt at frames the PCM has not taken; 0 after progress.
    let blockedSince = Atomic<UInt64>(0)

    var opened: PCMDevice?
    var pcm: OpaquePointer?
    let floatBuffer: UnsafeMutablePointer<Float>
    let deviceBuffer: UnsafeMutableRawPointer
    let ditherScratch: UnsafeMutablePointer<Float>
    var quantizer: TPDFQuantizer
    /// Clock correction (`ALSAOutputConfiguration.busClockCorrection`): the loop, measured
    /// once per period, and the resampler between the bus's render and its ring; with the
    /// counters of frames dropped and corrected.
    let correctsClock: Bool
    let correction: BusClockCorrection
    /// `correction` without reference counting (the render path).
    let correctionRef: Unmanaged<BusClockCorrection>
    let ring: UnsafeMutableRawPointer
    let ringFrames: Int
    var ringRead = 0
    var ringCount = 0

    var supervisorXruns = 0
    var supervisorLostReported = false
    var supervisorNextAttempt: UInt64 = 0
    var supervisorDelay = 0.0
    var supervisorLastFailure = ""
    /// The `blockedSince` stamp reported as a stall (0: none).
    var supervisorStallSince: UInt64 = 0

    init(name: String, device: PCMDevice, deviceName: String, periodFrames: Int, channelCount: Int, configuration: ALSAOutputConfiguration)
    {
        self.name = name
        self.device = deviceName
        opened = device
        pcm = device.handle
        let n = device.negotiated
        let samples = periodFrames * channelCount
        floatBuffer = allocateAudio(Float.self, capacity: samples)
        floatBuffer.initialize(repeating: 0, count: samples)
        correctsClock = configuration.busClockCorrection
        correction = BusClockCorrection(
            channelCount: channelCount, maximumInputFrames: periodFrames, periodFrames: periodFrames, sampleRate: Double(n.sampleRate))
        correctionRef = .passUnretained(correction)
        // The resampler makes up to `maximumOutputFrames` per period.
        let converted = correction.maximumOutputFrames
        deviceBuffer = n.format == .float32 ? UnsafeMutableRawPointer(floatBuffer) : allocateAudioBytes(converted * n.frameBytes)
        ditherScratch = allocateAudio(Float.self, capacity: converted * channelCount)
        quantizer = TPDFQuantizer(
            format: n.format.quantizerFormat ?? .s16, seed: configuration.ditherSeed, dither: configuration.dither)
        ringFrames = periodFrames * (BusSet.slackPeriods + 1)
        ring = allocateAudioBytes(ringFrames * n.frameBytes)
    }

    // MARK: Render thread

    /// Resample the rendered period at the clock correction's ratio (passed through while
    /// that is 1), convert it to the device format and append it to the ring; a period that
    /// does not fit replaces what the ring held (dropped, counted).
    @_noLocks
    func queue(frameCount rendered: Int, format: OutputSampleFormat, channelCount: Int, frameBytes: Int) {
        let input = floatBuffer
        let corrects = correctsClock
        let (frames, n) = correctionRef._withUnsafeGuaranteedRef { $0.resample(input, frameCount: rendered, corrects: corrects) }
        let samples = n &* channelCount
        var converted = UnsafeRawPointer(deviceBuffer)
        switch format {
        case .float32:
            converted = UnsafeRawPointer(frames)
        case .s32:
            var q = quantizer
            q.quantizeLeftJustified(frames, count: samples, scratch: ditherScratch, into: deviceBuffer.assumingMemoryBound(to: Int32.self))
            quantizer = q
        case .s16:
            var q = quantizer
            q.quantize(frames, count: samples, scratch: ditherScratch, into: deviceBuffer.assumingMemoryBound(to: Int16.self))
            quantizer = q
        }
        let capacity = ringFrames
        if n > capacity &- ringCount {
            // The ring overflowed (the PCM stalled, or drifts past the correction's range): what
            // it held is dropped and the new period kept, so the bus's latency goes back to one
            // period of ring rather than staying full (a slower device would overflow it again
            // and again). A step in the fill, not drift: the correction keeps its ratio and
            // re-anchors once the fill holds still.
            let held = ringCount
            correctionRef._withUnsafeGuaranteedRef {
                $0.framesDropped.add(Int64(held), ordering: .relaxed)
                $0.restart()
            }
            ringRead = (ringRead &+ held) % capacity
            ringCount = 0
        }
        let take = min(n, capacity)
        var at = (ringRead &+ ringCount) % capacity
        var done = 0
        let source = converted
        while done < take {
            let chunk = min(take &- done, capacity &- at)
            (ring + at &* frameBytes).copyMemory(from: source + done &* frameBytes, byteCount: chunk &* frameBytes)
            done &+= chunk
            at = (at &+ chunk) % capacity
        }
        ringCount &+= take
    }

    /// One clock-correction measurement, once per period after `queue`: the frames waiting for
    /// the device (the ring plus the PCM's delay) feed the controller, whose ratio resamples
    /// the next period. A PCM that cannot say its delay (an error) skips the period.
    @_noLocks
    func measure(delay: @convention(c) (OpaquePointer?, UnsafeMutablePointer<snd_pcm_sframes_t>?) -> Int32) {
        let device = pcm
        var queued: snd_pcm_sframes_t = 0
        let rc = withUnsafeMutablePointer(to: &queued) { p in _unsafePerformance { delay(device, p) } }
        guard rc >= 0 else { return }
        let fill = Double(ringCount &+ max(Int(queued), 0))
        correctionRef._withUnsafeGuaranteedRef { $0.update(fillFrames: fill) }
    }

    /// Clock correction back to its start (warm-up, ratio 1, pass-through): the PCM was lost.
    /// Supervisor, while the PCM is `lost`.
    func resetClockCorrection() {
        correction.reset()
    }

    /// Non-blocking writes of the ring until the PCM is full or the ring empty. 0, or the
    /// error that loses the PCM. An underrun is recovered in place and counted.
    @_noLocks
    func write(
        writei: @convention(c) (OpaquePointer?, UnsafeRawPointer?, snd_pcm_uframes_t) -> snd_pcm_sframes_t,
        recover: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32, frameBytes: Int
    ) -> Int32 {
        let device = pcm
        while ringCount > 0 {
            let chunk = min(ringCount, ringFrames &- ringRead)
            let data = UnsafeRawPointer(ring + ringRead &* frameBytes)
            let count = snd_pcm_uframes_t(chunk)
            let written = _unsafePerformance { writei(device, data, count) }
            if written > 0 {
                let n = Int(written)
                ringRead = (ringRead &+ n) % ringFrames
                ringCount &-= n
                framesWritten.add(Int64(n), ordering: .relaxed)
                blockedSince.store(0, ordering: .relaxed)
                continue
            }
            let err = written == 0 ? -EAGAIN : Int32(truncatingIfNeeded: written)
            if err == -EAGAIN || err == -EINTR {
                // Watchdog stamp, as main's: from the first attempt at frames it does not take.
                if blockedSince.load(ordering: .relaxed) == 0 { blockedSince.store(monotonicNanoseconds(), ordering: .relaxed) }
                return 0
            }
            if err == -EPIPE {
                xrunCount.add(1, ordering: .relaxed)
                // The device starts again empty (then full): a step in the fill, not drift;
                // the correction keeps its ratio and re-anchors once the fill holds still.
                correctionRef._withUnsafeGuaranteedRef { $0.restart() }
                let rc = _unsafePerformance { recover(device, -EPIPE, 1) }
                return rc >= 0 ? 0 : rc
            }
            // ESTRPIPE too: resuming may sleep; the supervisor reopens it instead.
            return err
        }
        return 0
    }

    deinit {
        if deviceBuffer != UnsafeMutableRawPointer(floatBuffer) { deviceBuffer.deallocate() }
        deallocateAudio(floatBuffer)
        deallocateAudio(ditherScratch)
        ring.deallocate()
    }
}

/// The PCMs of the output buses past main (`ALSAOutputConfiguration.busDevices`), all written
/// from the one render thread: each period is rendered for every output bus at once
/// (`Renderer.render(outputBuses:…)`); main's PCM paces the thread (it waits on it), the others are
/// written without blocking, as much as each takes. What a bus's PCM has not taken waits in
/// its ring (up to `slackPeriods` periods); a period past that replaces what the ring held
/// (dropped and counted: the bus's latency goes back to one period of ring). A bus's PCM that fails (or stalls past `stallRestartSeconds`) is given to the
/// supervisor, which reopens it with backoff while main plays on.
///
/// Clock correction (`ALSAOutputConfiguration.busClockCorrection`): a bus's device runs on
/// its own clock, so each period the frames waiting for it (ring + `snd_pcm_delay`) are
/// measured and fed to its `DriftController`, whose ratio (1 ± 0.5 % at most) resamples the
/// bus's next period (`DriftResampler`, between the render and the ring). The fill held is
/// the mean measured over 0.25 s after a second of warm-up; within half a period of it
/// nothing is resampled (a device on main's clock plays bit for bit, as without correction);
/// past that the loop engages and keeps the fill at that edge, locking in within about 10 s
/// for a 0.1 % drift; the interpolator then delays the bus by 2 frames more. A PCM that
/// underruns or overflows its ring (frames dropped) makes a step in the fill, not drift: the
/// correction keeps its ratio and re-anchors the fill it holds once the fill holds still (as
/// for any jump of more than a period it measures, `DriftController`). A PCM that is lost
/// starts again from warm-up (its reference is measured anew).
///
/// Thread: `render` and `flush` run on the render thread; `supervise` on the supervisor;
/// `init`, `status` and `close` on the control thread (`status`: any thread).
final class BusSet: @unchecked Sendable { // render-side memory: its buses, handed over by their `state`
    /// Periods a bus's PCM may fall behind main before its frames are dropped.
    static let slackPeriods = 2

    /// Output buses past main that have a PCM (bus `k + 1` is `slots[k]`).
    let count: Int
    let slots: UnsafeMutablePointer<Unmanaged<BusPCM>>
    /// The render targets for `Renderer.render(outputBuses:…)`: main's buffer, then each bus's.
    let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let pcms: [BusPCM]
    let channelCount: Int
    let frameBytes: Int
    let format: OutputSampleFormat
    let writei: @convention(c) (OpaquePointer?, UnsafeRawPointer?, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    let recover: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let delay: @convention(c) (OpaquePointer?, UnsafeMutablePointer<snd_pcm_sframes_t>?) -> Int32
    let wakeSupervisor: UnsafeMutablePointer<sem_t>
    private let negotiated: Mutex<[ALSANegotiated]>

    /// Open every bus's PCM to agree with main's (`main`, granted by `configuration.device`).
    /// Throws `ALSAError.bus` naming the first that fails; nothing stays open then.
    /// Control thread.
    init(
        configuration: ALSAOutputConfiguration, busNames: [String], main: ALSANegotiated, functions: ALSAFunctions,
        wakeSupervisor: UnsafeMutablePointer<sem_t>
    ) throws {
        guard !configuration.busDevices.isEmpty, configuration.busDevices.count < busNames.count else {
            throw ALSAError.invalidConfiguration(
                "busDevices names \(configuration.busDevices.count) PCMs, the engine has \(busNames.count - 1) output buses past main"
            )
        }
        var opened: [PCMDevice] = []
        for (k, device) in configuration.busDevices.enumerated() {
            do {
                opened.append(
                    try BusSet.open(
                        device: device, configuration: configuration, main: main, mainDevice: configuration.device,
                        functions: functions))
            } catch let error as ALSAError {
                for d in opened { d.close(functions) }
                throw ALSAError.bus(busNames[k + 1], device: device, error)
            }
        }
        count = opened.count
        channelCount = main.channelCount
        frameBytes = main.frameBytes
        format = main.format
        pcms = opened.enumerated().map { k, d in
            BusPCM(
                name: busNames[k + 1], device: d, deviceName: configuration.busDevices[k], periodFrames: main.periodFrames,
                channelCount: main.channelCount, configuration: configuration)
        }
        slots = .allocate(capacity: max(count, 1))
        for (k, r) in pcms.enumerated() { (slots + k).initialize(to: .passUnretained(r)) }
        outputs = .allocate(capacity: count + 1)
        outputs.initialize(to: pcms[0].floatBuffer) // main's, set at each render
        for (k, r) in pcms.enumerated() { (outputs + k + 1).initialize(to: r.floatBuffer) }
        writei = functions.writei
        recover = functions.recover
        delay = functions.delay
        self.wakeSupervisor = wakeSupervisor
        negotiated = Mutex(opened.map(\.negotiated))
    }

    deinit {
        slots.deallocate()
        outputs.deallocate()
    }

    /// A bus's configuration: main's format, period and buffer asked for.
    static func agreeing(_ configuration: ALSAOutputConfiguration, with main: ALSANegotiated, device: String)
        -> ALSAOutputConfiguration
    {
        var c = configuration
        c.device = device
        c.formats = [main.format]
        c.periodFrames = main.periodFrames
        c.periodCount = max(2, main.bufferFrames / max(main.periodFrames, 1))
        return c
    }

    /// Open `device` asking for main's settings; `busMismatch` when it grants another
    /// format or period. `waitedOn`: main's own PCM (reopened). Control thread or supervisor.
    static func open(
        device: String, configuration: ALSAOutputConfiguration, main: ALSANegotiated, mainDevice: String,
        functions: ALSAFunctions, waitedOn: Bool = false
    ) throws -> PCMDevice {
        // A bus's PCM is never waited on: it takes frames whenever it has room, not only
        // whole periods (main's, which paces the thread, keeps period wake-ups).
        let d = try PCMDevice.open(
            agreeing(configuration, with: main, device: device), sampleRate: main.sampleRate, channelCount: main.channelCount,
            functions: functions, wakeAnyRoom: !waitedOn)
        let n = d.negotiated
        if n.format != main.format || n.periodFrames != main.periodFrames {
            d.close(functions)
            throw ALSAError.busMismatch(
                "PCM \"\(device)\" granted \(n.format.rawValue), period \(n.periodFrames) frames; main's PCM \"\(mainDevice)\" "
                    + "\(main.format.rawValue), period \(main.periodFrames) frames: every output bus's PCM must run with the same format and period"
            )
        }
        return d
    }

    // MARK: Render thread

    /// Render `frameCount` frames of every output bus (main into `main`), resample (clock
    /// correction), convert and queue each output bus past main for its PCM, measure what waits for
    /// each PCM (the correction's next ratio), then write what each PCM takes.
    @_noLocks
    func render(_ renderer: Unmanaged<Renderer>, main: UnsafeMutablePointer<Float>, frameCount n: Int) {
        let targets = outputs
        targets[0] = main
        let busCount = count &+ 1
        renderer._withUnsafeGuaranteedRef { $0.render(outputBuses: UnsafePointer(targets), busCount: busCount, frameCount: n) }
        let format = self.format
        let channels = channelCount
        let bytes = frameBytes
        let queued = delay
        for k in 0..<count {
            slots[k]._withUnsafeGuaranteedRef { r in
                if r.state.load(ordering: .acquiring) == .running {
                    r.queue(frameCount: n, format: format, channelCount: channels, frameBytes: bytes)
                    if r.correctsClock { r.measure(delay: queued) }
                } else {
                    _ = r.correctionRef._withUnsafeGuaranteedRef { $0.framesDropped.add(Int64(n), ordering: .relaxed) }
                }
            }
        }
        flush()
    }

    /// Write what each running bus's PCM takes now, without blocking; hand a failed one to
    /// the supervisor.
    @_noLocks
    func flush() {
        let write = writei
        let prepareAgain = recover
        let bytes = frameBytes
        let wake = wakeSupervisor
        for k in 0..<count {
            slots[k]._withUnsafeGuaranteedRef { r in
                guard r.state.load(ordering: .acquiring) == .running else { return }
                var rc: Int32 = 0
                if r.handOverRequested.exchange(false, ordering: .acquiringAndReleasing) {
                    rc = -ETIMEDOUT
                } else {
                    rc = r.write(writei: write, recover: prepareAgain, frameBytes: bytes)
                }
                if rc < 0 {
                    r.lastError.store(rc, ordering: .relaxed)
                    r.state.store(.lost, ordering: .releasing)
                    _ = _unsafePerformance { sem_post(wake) }
                }
            }
        }
    }

    // MARK: Supervisor thread

    /// One supervisor round: report xruns, watch for stalls (only while main plays:
    /// `mainRunning`), and close and reopen lost PCMs with backoff. Never gives up: a bus's
    /// PCM does not end playback.
    func supervise(
        mainRunning: Bool, main: ALSANegotiated, configuration: ALSAOutputConfiguration, functions: ALSAFunctions,
        emit: (OutputEvent) -> Void, log: (String) -> Void
    ) {
        let now = monotonicNanoseconds()
        for (k, r) in pcms.enumerated() {
            let x = r.xrunCount.load(ordering: .relaxed)
            while r.supervisorXruns < x {
                r.supervisorXruns += 1
                emit(.bus(r.name, .xrun(total: r.supervisorXruns)))
            }
            if r.state.load(ordering: .acquiring) == .lost {
                reopen(r, index: k, now: now, main: main, configuration: configuration, functions: functions, emit: emit, log: log)
                continue
            }
            // Watchdog: frames waiting that the PCM has not taken for a while, while main
            // plays on (the render thread offers them every period).
            let since = r.blockedSince.load(ordering: .relaxed)
            if r.supervisorStallSince != 0, since != r.supervisorStallSince {
                emit(.bus(r.name, .stallEnded(seconds: Double(now &- r.supervisorStallSince) / 1e9)))
                r.supervisorStallSince = 0
            }
            guard mainRunning, since != 0, now > since else { continue }
            let age = Double(now - since) / 1e9
            let threshold = max(Double(configuration.watchdogPeriods) * main.periodSeconds, configuration.watchdogMinimumSeconds)
            if age > threshold, r.supervisorStallSince != since {
                r.supervisorStallSince = since
                emit(.bus(r.name, .stalled(seconds: age)))
                log("watchdog: output bus \(r.name)'s PCM \"\(r.device)\" has taken nothing for \(Int((age * 1000).rounded())) ms")
            }
            if r.supervisorStallSince == since, let restart = configuration.stallRestartSeconds, age > restart {
                r.handOverRequested.store(true, ordering: .releasing)
            }
        }
    }

    private func reopen(
        _ r: BusPCM, index: Int, now: UInt64, main: ALSANegotiated, configuration: ALSAOutputConfiguration,
        functions: ALSAFunctions, emit: (OutputEvent) -> Void, log: (String) -> Void
    ) {
        if !r.supervisorLostReported {
            let code = r.lastError.load(ordering: .relaxed)
            let message = code == -ETIMEDOUT ? "the device stopped consuming" : functions.message(code)
            emit(.bus(r.name, .deviceLost(reason: message, code: code)))
            log("output bus \(r.name): PCM \"\(r.device)\" lost: \(message); reopening (main plays on)")
            if let d = r.opened {
                _ = functions.drop(d.handle)
                d.close(functions)
            }
            r.opened = nil
            r.pcm = nil
            // What it never got counts as dropped: written + dropped = rendered + corrected, always.
            r.correction.framesDropped.add(Int64(r.ringCount), ordering: .relaxed)
            r.ringRead = 0
            r.ringCount = 0
            r.resetClockCorrection()
            r.supervisorLostReported = true
            r.supervisorStallSince = 0
            r.supervisorDelay = configuration.reconnect.backoffInitial.inSeconds
            r.supervisorNextAttempt = now &+ UInt64(r.supervisorDelay * 1e9)
            r.supervisorLastFailure = ""
            return
        }
        guard now >= r.supervisorNextAttempt else { return }
        do {
            let d = try BusSet.open(
                device: r.device, configuration: configuration, main: main, mainDevice: configuration.device, functions: functions)
            r.opened = d
            r.pcm = d.handle
            r.supervisorLostReported = false
            r.blockedSince.store(0, ordering: .relaxed)
            negotiated.withLock { $0[index] = d.negotiated }
            emit(.bus(r.name, .deviceRestored(d.negotiated.status(device: r.device))))
            log("output bus \(r.name): PCM \"\(r.device)\" reopened: \(d.negotiated)")
            r.state.store(.running, ordering: .releasing)
        } catch {
            let text = "\(error)"
            if text != r.supervisorLastFailure {
                log("output bus \(r.name): reopen failed: \(text); retrying")
                r.supervisorLastFailure = text
            }
            r.supervisorDelay = min(r.supervisorDelay * 2, configuration.reconnect.backoffMax.inSeconds)
            r.supervisorNextAttempt = monotonicNanoseconds() &+ UInt64(r.supervisorDelay * 1e9)
        }
    }

    // MARK: Control thread

    /// Each bus's status (main not included). Any thread.
    func status() -> [ALSABusStatus] {
        let granted = negotiated.withLock { $0 }
        return pcms.enumerated().map { k, r in
            ALSABusStatus(
                bus: r.name, device: r.device, negotiated: granted[k], xrunCount: r.xrunCount.load(ordering: .relaxed),
                framesWritten: r.framesWritten.load(ordering: .relaxed), framesDropped: r.correction.framesDropped.load(ordering: .relaxed),
                isLost: r.state.load(ordering: .acquiring) == .lost,
                clockRatio: r.correction.clockRatio,
                framesCorrected: r.correction.framesCorrected.load(ordering: .relaxed))
        }
    }

    /// After the threads stopped: with `drain`, write what each healthy PCM's ring still
    /// holds and play it out (blocking); then close them all. Control thread.
    func close(drain: Bool, functions: ALSAFunctions) {
        for r in pcms {
            guard let d = r.opened else { continue }
            r.opened = nil
            r.pcm = nil
            if drain, r.state.load(ordering: .acquiring) == .running {
                _ = functions.pcm_nonblock(d.handle, 0)
                while r.ringCount > 0 {
                    let chunk = min(r.ringCount, r.ringFrames - r.ringRead)
                    let written = functions.writei(d.handle, r.ring + r.ringRead * frameBytes, snd_pcm_uframes_t(chunk))
                    if written == -snd_pcm_sframes_t(EPIPE), functions.recover(d.handle, -EPIPE, 1) >= 0 { continue }
                    guard written > 0 else { break }
                    r.ringRead = (r.ringRead + Int(written)) % r.ringFrames
                    r.ringCount -= Int(written)
                    r.framesWritten.add(Int64(written), ordering: .relaxed)
                }
                _ = functions.drain(d.handle)
            } else {
                _ = functions.drop(d.handle)
            }
            d.close(functions)
        }
    }
}
