import CALSA
import Glibc
import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiOutput

/// The capture half of full duplex: a capture PCM opened next to the playback PCM at its
/// rate, format and period, read by the render thread right before it renders each period,
/// into the input source's capture ring — one captured frame per rendered frame, as JACK's
/// process callback does it. Never a wait, and never a captured frame thrown away to keep time.
///
/// Start: linked to the playback PCM (`snd_pcm_link`) where the plugin supports it, so both
/// start together; otherwise (the `pulse` plugin) started by the render thread at the first
/// period after the playback started. Reading begins once the PCM holds the slack, two periods
/// at first; until then the input gets silence (not counted: the capture has not started).
///
/// Adaptive slack: a sound server delivers in bursts, so the fill the render thread finds
/// varies. When it finds less than the period it needs (a short read), it reads nothing: the
/// input gets a period of silence and the PCM keeps what it has, so from then on the capture
/// runs a period later (the slack grew by a period: `slackFrames`, reported by the supervisor
/// as `OutputEvent.captureSlackGrown`). No captured frame is lost, and once the slack covers
/// the server's jitter reads are never short again. The slack stops growing at
/// `maximumSlackFrames` (the smaller of 100 ms rounded up to whole periods and the capture
/// buffer less two periods, at least two periods); a read short at the maximum is data
/// really late: what the PCM has is read, the rest is silence, counted in `missingFrames`
/// (`OutputEvent.captureFramesMissing`). The slack lasts until the PCM is reopened (an
/// overrun keeps it). An overrun re-prepares the capture (with the playback when linked) and
/// counts an xrun; a lost capture PCM parks the render thread like a lost playback PCM, and
/// the supervisor reopens both.
///
/// `CaptureSide` is the control half (open, negotiate, link, close; owned by `ALSAOutput`);
/// `CaptureReader`, a plain value inside `RenderCore` (no reference counting on the render
/// thread), is what the render thread runs.
///
/// Thread: like `RenderCore`'s device fields — the control thread opens and closes the PCM
/// before start and after stop, the render thread reads it while running, the supervisor
/// reopens it while the render thread is parked. The counters and `info` are for any thread.
final class CaptureSide: @unchecked Sendable { // render-side memory: the capture PCM, handed over like RenderCore's
    /// What the capture PCM granted, and how it starts.
    struct Info {
        var device: String
        var negotiated: ALSANegotiated?
        var linked = false
        /// The bound of the slack, in frames (0: not open).
        var maximumSlackFrames = 0
    }

    /// The input fed (kept alive while the render thread writes its ring).
    let input: InputSource
    let functions: ALSAFunctions
    let info: Mutex<Info>
    /// The counters the render thread keeps (one allocation, shared with `CaptureReader`).
    let counters: UnsafeMutablePointer<CaptureCounters>
    private var pcm: OpaquePointer?
    private var linked = false
    private var negotiated: ALSANegotiated?
    private var floatBuffer: UnsafeMutablePointer<Float>?
    private var deviceBuffer: UnsafeMutableRawPointer?

    init(input: InputSource, device: String, functions: ALSAFunctions) {
        self.input = input
        self.functions = functions
        info = Mutex(Info(device: device))
        counters = .allocate(capacity: 1)
        counters.initialize(to: CaptureCounters())
    }

    deinit {
        freeBuffers()
        counters.deinitialize(count: 1)
        counters.deallocate()
    }

    /// The slack's bound for a capture of `periodFrames` at `sampleRate` in a buffer of
    /// `bufferFrames`: 100 ms rounded up to whole periods, no more than the buffer less two
    /// periods (room for the period being read and a late render thread), at least two periods.
    static func maximumSlack(periodFrames: Int, sampleRate: Int, bufferFrames: Int) -> Int {
        let periods = (sampleRate / 10 + periodFrames - 1) / periodFrames
        return max(2, min(periods, bufferFrames / periodFrames - 2)) * periodFrames
    }

    /// Open the capture PCM (`captureDevice`, else `device`) matching `playback`, link it
    /// when the plugin allows it, and hand it to `core`'s render thread (which is not running
    /// or is parked). Throws `ALSAError.capture` naming the PCM.
    func open(_ configuration: ALSAOutputConfiguration, playback: PCMDevice, core: RenderCore) throws {
        let name = configuration.captureDevice ?? configuration.device
        let f = functions
        var opened: OpaquePointer?
        // The playback's local configuration (if any) is alive while this opens: a PCM does
        // not keep it after the open.
        let rc = f.open(&opened, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK, config: playback.localConfig)
        guard rc >= 0, let handle = opened else {
            let code = rc < 0 ? rc : -ENODEV
            throw ALSAError.capture(device: name, reason: "snd_pcm_open failed: \(f.message(code)) (\(code))")
        }
        let n: ALSANegotiated
        do {
            n = try negotiate(handle, name: name, matching: playback.negotiated)
        } catch {
            _ = f.pcm_close(handle)
            throw error
        }
        linked = f.link(playback.handle, handle) == 0
        pcm = handle
        freeBuffers() // the previous open's, by the previous format
        negotiated = n
        let samples = n.periodFrames * input.channelCount
        let float = allocateAudio(Float.self, capacity: samples)
        float.initialize(repeating: 0, count: samples)
        floatBuffer = float
        deviceBuffer = n.format == .float32 ? UnsafeMutableRawPointer(float) : allocateAudioBytes(n.periodFrames * n.frameBytes)
        let maximum = CaptureSide.maximumSlack(periodFrames: n.periodFrames, sampleRate: n.sampleRate, bufferFrames: n.bufferFrames)
        counters.pointee.slackFrames.store(2 * n.periodFrames, ordering: .relaxed)
        info.withLock {
            $0.negotiated = n
            $0.linked = linked
            $0.maximumSlackFrames = maximum
        }
        core.capture = CaptureReader(
            pcm: handle, linked: linked, format: n.format, periodFrames: n.periodFrames, frameBytes: n.frameBytes,
            deviceBuffer: deviceBuffer!, floatBuffer: float, ring: input.captureRing, channelCount: input.channelCount,
            counters: counters, maximumSlackFrames: maximum, seenXruns: core.xrunCount.load(ordering: .relaxed), functions: f)
        prepareForStart(core)
    }

    private func freeBuffers() {
        if let d = deviceBuffer, negotiated?.format != .float32 { d.deallocate() }
        if let floatBuffer { deallocateAudio(floatBuffer) }
        floatBuffer = nil
        deviceBuffer = nil
    }

    private func negotiate(_ pcm: OpaquePointer, name: String, matching p: ALSANegotiated) throws -> ALSANegotiated {
        let f = functions
        let channelCount = input.channelCount
        func check(_ rc: Int32, _ what: String) throws {
            if rc < 0 { throw ALSAError.capture(device: name, reason: "\(what) failed: \(f.message(rc)) (\(rc))") }
        }
        func mismatch(_ reason: String) -> ALSAError { ALSAError.capture(device: name, reason: reason) }
        var hw: OpaquePointer?
        try check(f.hw_params_malloc(&hw), "snd_pcm_hw_params_malloc")
        defer { f.hw_params_free(hw) }
        try check(f.hw_params_any(pcm, hw), "snd_pcm_hw_params_any")
        try check(f.hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access (interleaved)")
        guard f.hw_params_test_format(pcm, hw, p.format.alsa) == 0 else {
            throw mismatch("does not take \(p.format.rawValue), the playback PCM's format")
        }
        try check(f.hw_params_set_format(pcm, hw, p.format.alsa), "snd_pcm_hw_params_set_format \(p.format.rawValue)")
        var channels = UInt32(channelCount)
        try check(f.hw_params_set_channels_near(pcm, hw, &channels), "snd_pcm_hw_params_set_channels_near")
        var rate = UInt32(p.sampleRate)
        var dir: Int32 = 0
        try check(f.hw_params_set_rate_near(pcm, hw, &rate, &dir), "snd_pcm_hw_params_set_rate_near")
        var period = snd_pcm_uframes_t(p.periodFrames)
        dir = 0
        try check(f.hw_params_set_period_size_near(pcm, hw, &period, &dir), "snd_pcm_hw_params_set_period_size_near")
        // Room for the largest slack (100 ms), the period being read and a late render thread,
        // and at least twice the playback buffer.
        let slackPeriods = (p.sampleRate / 10 + p.periodFrames - 1) / p.periodFrames
        var buffer = snd_pcm_uframes_t(max(2 * p.bufferFrames, (max(slackPeriods, 2) + 2) * p.periodFrames))
        try check(f.hw_params_set_buffer_size_near(pcm, hw, &buffer), "snd_pcm_hw_params_set_buffer_size_near")
        try check(f.hw_params(pcm, hw), "snd_pcm_hw_params")
        var grantedChannels: UInt32 = 0
        var grantedRate: UInt32 = 0
        try check(f.hw_params_get_channels(hw, &grantedChannels), "snd_pcm_hw_params_get_channels")
        try check(f.hw_params_get_rate(hw, &grantedRate, &dir), "snd_pcm_hw_params_get_rate")
        try check(f.hw_params_get_period_size(hw, &period, &dir), "snd_pcm_hw_params_get_period_size")
        try check(f.hw_params_get_buffer_size(hw, &buffer), "snd_pcm_hw_params_get_buffer_size")
        guard Int(grantedChannels) == channelCount else {
            throw mismatch("granted \(grantedChannels) channels, the input has \(channelCount)")
        }
        guard Int(grantedRate) == p.sampleRate else { throw mismatch("runs at \(grantedRate) Hz, the playback at \(p.sampleRate) Hz") }
        guard Int(period) == p.periodFrames else {
            throw mismatch("granted a period of \(period) frames, the playback PCM \(p.periodFrames) (they must match)")
        }
        guard Int(buffer) >= 3 * p.periodFrames else {
            throw mismatch("granted a buffer of \(buffer) frames; capture needs at least 3 periods (\(3 * p.periodFrames))")
        }
        var sw: OpaquePointer?
        try check(f.sw_params_malloc(&sw), "snd_pcm_sw_params_malloc")
        defer { f.sw_params_free(sw) }
        try check(f.sw_params_current(pcm, sw), "snd_pcm_sw_params_current")
        // Reads never start it (they ask at most a period): the link or the render thread does.
        try check(f.sw_params_set_start_threshold(pcm, sw, buffer), "snd_pcm_sw_params_set_start_threshold")
        try check(f.sw_params_set_avail_min(pcm, sw, period), "snd_pcm_sw_params_set_avail_min")
        try check(f.sw_params(pcm, sw), "snd_pcm_sw_params")
        return ALSANegotiated(
            sampleRate: p.sampleRate, channelCount: channelCount, format: p.format, periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// Drop what the PCM captured since it was opened (a sound server buffers from the open
    /// on) and prepare it: the capture starts with the playback. The render thread is not running.
    func prepareForStart(_ core: RenderCore) {
        guard let pcm else { return }
        _ = functions.drop(pcm)
        _ = functions.prepare(pcm)
        core.capture?.phase = .waitingForPlayback
    }

    /// Unlink and close the PCM; the render thread (not running, or parked) stops capturing.
    func close(_ core: RenderCore) {
        core.capture = nil
        guard let handle = pcm else { return }
        pcm = nil
        if linked { _ = functions.unlink(handle) }
        _ = functions.drop(handle)
        _ = functions.pcm_close(handle)
    }
}

/// The capture's counters: the render thread adds to them, any thread reads them. One
/// allocation owned by `CaptureSide` (atomics stay at a fixed address: ~Copyable).
struct CaptureCounters: ~Copyable {
    /// Frames given to the input as silence because the PCM had none ready with the slack at
    /// its maximum (data really late), once it had started delivering.
    let missingFrames = Atomic<Int64>(0)
    /// The slack now kept, in frames (the fill at which reading starts; two periods at the
    /// open, a period more for each short read, at most the reader's bound). 0: not open.
    let slackFrames = Atomic<Int>(0)
    /// Capture overruns recovered.
    let overruns = Atomic<Int>(0)
}

/// The render thread's side of the capture: plain values and C function pointers (no
/// reference counting). Belongs to the render thread while it runs (see `CaptureSide`).
struct CaptureReader {
    /// Where the capture stands relative to the playback.
    enum Phase {
        /// The playback has not started yet (prefill): silence.
        case waitingForPlayback
        /// Started; waiting until the slack is ready: silence.
        case filling
        /// Each period is read.
        case delivering
    }

    /// What a read ended with.
    enum Outcome {
        case ok
        /// The capture buffer overflowed; re-prepared.
        case overrun
        /// The capture PCM is gone (negative alsa-lib code).
        case lost(Int32)
    }

    /// The capture PCM, and whether it is linked to the playback (it starts and stops with it).
    let pcm: OpaquePointer
    let linked: Bool
    /// The device's sample format and frame size, and a period in frames.
    let format: OutputSampleFormat
    let frameBytes: Int
    let periodFrames: Int
    /// A period as the device delivers it, and as floats (the same memory for float32).
    let deviceBuffer: UnsafeMutableRawPointer
    let floatBuffer: UnsafeMutablePointer<Float>
    /// The input's ring (this thread writes it) and its channel count.
    let ring: SampleRing
    let channelCount: Int
    /// `CaptureSide.counters`: this thread adds to them.
    let counters: UnsafeMutablePointer<CaptureCounters>
    /// The slack kept (`CaptureCounters.slackFrames`): this thread's copy, published to the
    /// atomic; and its bound.
    var slack: Int
    let maximumSlackFrames: Int
    var phase = Phase.waitingForPlayback
    /// The render core's xrun count when last seen: a playback xrun restarts the capture.
    var seenXruns: Int
    /// The alsa-lib calls (C function pointers: no reference counting); this thread calls
    /// `readi`, `avail_update`, `state`, `start`, `prepare` and `drop`.
    let alsa: ALSAFunctions

    init(
        pcm: OpaquePointer, linked: Bool, format: OutputSampleFormat, periodFrames: Int, frameBytes: Int,
        deviceBuffer: UnsafeMutableRawPointer, floatBuffer: UnsafeMutablePointer<Float>, ring: SampleRing, channelCount: Int,
        counters: UnsafeMutablePointer<CaptureCounters>, maximumSlackFrames: Int, seenXruns: Int, functions: ALSAFunctions
    ) {
        (self.pcm, self.linked, self.format, self.periodFrames, self.frameBytes) = (pcm, linked, format, periodFrames, frameBytes)
        (self.deviceBuffer, self.floatBuffer, self.ring, self.channelCount) = (deviceBuffer, floatBuffer, ring, channelCount)
        (self.counters, self.seenXruns, alsa) = (counters, seenXruns, functions)
        self.maximumSlackFrames = max(maximumSlackFrames, 2 * periodFrames)
        slack = 2 * periodFrames
    }

    /// The hook in `RenderCore.cycle`: feed the input for the `frameCount` frames (at most a
    /// period) about to be rendered. nil: render; a parked state: the capture PCM is lost
    /// (nothing was rendered, nothing fed).
    @inline(__always) @_noLocks
    mutating func beforeRender(_ core: RenderCore, frameCount: Int) -> RenderCore.CycleResult? {
        switch read(frameCount: frameCount, playback: core.pcm, xruns: core.xrunCount.load(ordering: .relaxed)) {
        case .ok:
            return nil
        case .overrun:
            seenXruns = core.xrunCount.add(1, ordering: .relaxed).newValue
            let wake = core.wakeSupervisor
            _ = _unsafePerformance { sem_post(wake) }
            return nil
        case .lost(let code):
            core.lastError.store(code, ordering: .relaxed)
            return .park(.parkedLost)
        }
    }

    /// Captured frames while delivering, silence before; `playback` is the playback PCM,
    /// `xruns` the render core's xrun count (a playback xrun restarts the capture). A short
    /// read grows the slack by a period (silence, nothing read) until its maximum; at the
    /// maximum what is there is read and the rest is silence, counted in `missingFrames`.
    @_noLocks
    mutating func read(frameCount n: Int, playback: OpaquePointer?, xruns: Int) -> Outcome {
        let device = pcm
        if xruns != seenXruns {
            seenXruns = xruns
            restart()
        }
        if case .waitingForPlayback = phase {
            let state = alsa.state
            let playbackState = _unsafePerformance { state(playback) }
            if playbackState == SND_PCM_STATE_RUNNING {
                if !linked {
                    let start = alsa.start
                    let rc = _unsafePerformance { start(device) }
                    // EBADFD: a plugin that started it already.
                    if rc < 0 && rc != -EBADFD { return .lost(rc) }
                }
                phase = .filling
            }
        }
        if case .filling = phase {
            let update = alsa.avail_update
            let available = _unsafePerformance { update(device) }
            if available < 0 { return failed(Int32(truncatingIfNeeded: available), frameCount: n) }
            if available >= slack { phase = .delivering }
        } else if case .delivering = phase {
            let update = alsa.avail_update
            let available = _unsafePerformance { update(device) }
            if available < 0 { return failed(Int32(truncatingIfNeeded: available), frameCount: n) }
            if available < n && slack < maximumSlackFrames {
                // Short: hold what the PCM has and run a period later from now on.
                slack = min(slack &+ periodFrames, maximumSlackFrames)
                counters.pointee.slackFrames.store(slack, ordering: .relaxed)
                _ = ring.writeZeros(count: n &* channelCount)
                return .ok
            }
        }
        guard case .delivering = phase else {
            _ = ring.writeZeros(count: n &* channelCount)
            return .ok
        }
        let readFrames = alsa.readi
        let buffer = deviceBuffer
        let bytes = frameBytes
        var got = 0
        while got < n {
            let r = _unsafePerformance { readFrames(device, buffer + got &* bytes, snd_pcm_uframes_t(n &- got)) }
            if r > 0 {
                got &+= Int(r)
                continue
            }
            if r == 0 || r == -snd_pcm_sframes_t(EAGAIN) { break }
            if r == -snd_pcm_sframes_t(EINTR) { continue }
            return failed(Int32(truncatingIfNeeded: r), frameCount: n)
        }
        convert(frameCount: got)
        _ = ring.write(frames: UnsafePointer(floatBuffer), frameCount: got, channelCount: channelCount)
        if got < n {
            _ = ring.writeZeros(count: (n &- got) &* channelCount)
            counters.pointee.missingFrames.add(Int64(n &- got), ordering: .relaxed)
        }
        return .ok
    }

    /// A read or avail error: an overrun is recovered here (the input gets silence for this
    /// period), anything else is a lost PCM.
    @_noLocks
    private mutating func failed(_ code: Int32, frameCount n: Int) -> Outcome {
        guard code == -EPIPE else { return .lost(code) }
        counters.pointee.overruns.add(1, ordering: .relaxed)
        // Linked: this prepares the playback too; both start again once it is refilled.
        let prepare = alsa.prepare
        let device = pcm
        let rc = _unsafePerformance { prepare(device) }
        if rc < 0 { return .lost(rc) }
        phase = .waitingForPlayback
        _ = ring.writeZeros(count: n &* channelCount)
        return .overrun
    }

    /// After a playback xrun: a linked capture was re-prepared with it, an unlinked one is
    /// out of step; either way start again with the playback.
    @_noLocks
    private mutating func restart() {
        if !linked {
            let drop = alsa.drop
            let prepare = alsa.prepare
            let device = pcm
            _ = _unsafePerformance { drop(device) }
            _ = _unsafePerformance { prepare(device) }
        }
        phase = .waitingForPlayback
    }

    /// Device format → float for `frameCount` frames of `deviceBuffer`.
    @inline(__always) @_noLocks
    private func convert(frameCount: Int) {
        let samples = frameCount &* channelCount
        switch format {
        case .float32:
            return
        case .s16:
            let source = deviceBuffer.assumingMemoryBound(to: Int16.self)
            for i in 0..<samples { floatBuffer[i] = Float(source[i]) * (1 / 32_768) }
        case .s32:
            let source = deviceBuffer.assumingMemoryBound(to: Int32.self)
            for i in 0..<samples { floatBuffer[i] = Float(source[i]) * (1 / 2_147_483_648) }
        }
    }
}

extension ALSAOutput {
    /// What the capture PCM granted (last opened; nil without capture). Any thread.
    public var captureNegotiated: ALSANegotiated? { capture?.info.withLock { $0.negotiated } }
    /// The capture PCM's name (nil without capture). Any thread.
    public var captureDevice: String? { capture?.info.withLock { $0.device } }
    /// Whether capture and playback are linked (`snd_pcm_link`: they start together); false
    /// means the render thread starts the capture at the first period after the playback
    /// started (plugins such as `pulse`). Any thread.
    public var captureLinked: Bool { capture?.info.withLock { $0.linked } ?? false }
    /// Frames the input got as silence because captured data was really late: the capture PCM
    /// had less than a period ready with the slack at its maximum (`captureMaximumSlackFrames`),
    /// once it had started delivering. The capture's start-up and the periods that grew the
    /// slack are not counted (no captured frame was lost there); an overrun's period is counted
    /// in `captureOverrunCount`. Any thread (an atomic).
    public var captureMissingFrames: Int64 { capture?.counters.pointee.missingFrames.load(ordering: .relaxed) ?? 0 }
    /// The capture's slack now, in frames: what the capture PCM holds before a period is read
    /// (two periods at the start; a period more after each short read). Any thread (an atomic);
    /// 0 without capture.
    public var captureSlackFrames: Int { capture?.counters.pointee.slackFrames.load(ordering: .relaxed) ?? 0 }
    /// The bound of the slack, in frames: 100 ms rounded up to whole periods, no more than the
    /// capture buffer less two periods, at least two periods (0 without capture). Any thread.
    public var captureMaximumSlackFrames: Int { capture?.info.withLock { $0.maximumSlackFrames } ?? 0 }
    /// The latency the grown slack added to the capture, in frames: `captureSlackFrames` less
    /// the two periods it starts with (0 without capture). Any thread.
    public var captureAddedLatencyFrames: Int {
        guard let capture, let n = capture.info.withLock({ $0.negotiated }) else { return 0 }
        return max(0, capture.counters.pointee.slackFrames.load(ordering: .relaxed) - 2 * n.periodFrames)
    }
    /// Capture overruns recovered (each is also counted in `xrunCount`). Any thread (an atomic).
    public var captureOverrunCount: Int { capture?.counters.pointee.overruns.load(ordering: .relaxed) ?? 0 }
}
