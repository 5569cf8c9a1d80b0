import CJACK
import Glibc
import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiOutput

/// The real-time half of `JACKOutput`: JACK's process callback renders the engine into a
/// small interleaved scratch buffer and de-interleaves it into the output ports' buffers. No
/// thread of its own, no allocation, lock, log or wait: a control thread that is late with
/// commands gets silence played (counted), not a wait.
///
/// Thread: `process` runs on JACK's process thread. The notification callbacks (xrun,
/// buffer size, shutdown) run on libjack's other threads and touch only atomics, the
/// shutdown-reason buffer and the supervisor's semaphore. `client` and the port table are
/// written by the control thread or the supervisor only while no client is active:
/// `jack_activate` and `jack_deactivate` / `jack_client_close` order those writes with the
/// process thread.
final class ProcessCore: @unchecked Sendable { // render-side memory: the process callback's, ordered by jack_activate
    /// The engine clock: phase, frames rendered, horizon, frame limit, late frames, cycles.
    let clock = CallbackClock()
    let xrunCount = Atomic<Int>(0)
    /// Frames per cycle as JACK last announced them.
    let bufferFrames = Atomic<Int>(0)
    /// `jack_last_frame_time` of the cycle that rendered engine frame 0 (at offset 0 of that
    /// cycle); -1 until then.
    let startFrameTime = Atomic<Int64>(-1)
    /// Set by the shutdown callback; the supervisor reconnects.
    let lost = Atomic<Bool>(false)
    let renderer: Renderer
    let channelCount: Int
    /// The engine's output buses: one port group each (main first).
    var busCount: Int { buffers.busCount }
    /// The render memory, one stretch per output bus; cycles longer than its capacity are
    /// rendered in pieces, so any buffer size JACK picks later is served without reallocating.
    let buffers: OutputBusBuffers
    /// One `jack_port_t` per output channel of each output bus, bus-major: bus r's channel c
    /// is `outputPorts[r × channelCount + c]` (input ports for capture get a table of their own).
    let outputPorts: UnsafeMutablePointer<OpaquePointer?>
    var client: OpaquePointer?
    /// Capture: the input fed from the input ports (nil: none), one port per its channel, and
    /// an interleaving buffer of `buffers.frameCapacity` frames.
    let capture: InputSource?
    let captureRing: SampleRing?
    let captureChannels: Int
    let inputPorts: UnsafeMutablePointer<OpaquePointer?>
    let captureScratch: UnsafeMutablePointer<Float>
    /// libjack's reason for the last shutdown, NUL-terminated (copied in the callback).
    static let reasonCapacity = 256
    let shutdownReason: UnsafeMutablePointer<CChar>
    let shutdownStatus = Atomic<UInt32>(0)
    let wakeSupervisor: UnsafeMutablePointer<sem_t>
    /// Brackets each cycle (`JACKOutputConfiguration.realtimeScope`; `.inactive` when none).
    let scope: RealtimeScope
    let hasScope: Bool
    /// libjack's functions (the callbacks are registered through them).
    let functions: JACKFunctions
    /// The two the process thread calls, copied out of the table: a plain load of a C
    /// function pointer each cycle, no lock, no reference count.
    let portGetBuffer: @convention(c) (OpaquePointer?, jack_nframes_t) -> UnsafeMutableRawPointer?
    let lastFrameTime: @convention(c) (OpaquePointer?) -> jack_nframes_t

    init(
        renderer: Renderer, channelCount: Int, functions: JACKFunctions, scope: RealtimeScope?,
        wakeSupervisor: UnsafeMutablePointer<sem_t>, capture: InputSource? = nil
    ) {
        self.functions = functions
        portGetBuffer = functions.port_get_buffer
        lastFrameTime = functions.last_frame_time
        self.renderer = renderer
        self.channelCount = channelCount
        let busCount = renderer.outputBusCount
        buffers = OutputBusBuffers(
            busCount: busCount, frameCapacity: min(1024, renderer.configuration.maxBlockFrames), channelCount: channelCount)
        outputPorts = .allocate(capacity: channelCount * busCount)
        outputPorts.initialize(repeating: nil, count: channelCount * busCount)
        self.capture = capture
        captureRing = capture?.captureRing
        captureChannels = capture?.channelCount ?? 0
        inputPorts = .allocate(capacity: max(captureChannels, 1))
        inputPorts.initialize(repeating: nil, count: max(captureChannels, 1))
        let captureSamples = buffers.frameCapacity * max(captureChannels, 1)
        captureScratch = allocateAudio(Float.self, capacity: captureSamples)
        captureScratch.initialize(repeating: 0, count: captureSamples)
        shutdownReason = .allocate(capacity: ProcessCore.reasonCapacity)
        shutdownReason.initialize(repeating: 0, count: ProcessCore.reasonCapacity)
        self.wakeSupervisor = wakeSupervisor
        self.scope = scope ?? .inactive
        hasScope = scope != nil
    }

    deinit {
        outputPorts.deallocate()
        inputPorts.deallocate()
        deallocateAudio(captureScratch)
        shutdownReason.deallocate()
    }

    var reason: String { String(cString: shutdownReason) }

    // MARK: Process thread

    /// One process cycle of `frameCount` frames.
    @_noLocks
    func process(frameCount: Int, renderer: Renderer) -> Int32 {
        let enter = scope.enter
        let exit = scope.exit
        if hasScope { _unsafePerformance { enter() } }
        let nframes = jack_nframes_t(truncatingIfNeeded: frameCount)
        let grant = clock.beginCycle(frameCount: frameCount)
        let rendered = grant.count
        if grant.start == 0, rendered > 0 {
            let c = client
            let frameTime = lastFrameTime
            let time = _unsafePerformance { frameTime(c) }
            startFrameTime.store(Int64(time), ordering: .relaxed)
        }
        var offset = 0
        while offset < rendered {
            let n = min(rendered &- offset, buffers.frameCapacity)
            if captureChannels > 0 { interleaveCapture(frameCount: n, nframes: nframes, offset: offset) }
            if busCount == 1 {
                renderer.render(into: buffers.samples, frameCount: n)
            } else {
                renderer.render(outputBuses: buffers.table, busCount: buffers.busCount, frameCount: n)
            }
            deinterleave(frameCount: n, nframes: nframes, offset: offset)
            offset &+= n
        }
        clock.endCycle(grant)
        if rendered < frameCount { silence(from: rendered, to: frameCount, nframes: nframes) }
        if hasScope { _unsafePerformance { exit() } }
        clock.countCycle()
        return 0
    }

    /// The input ports' frames at `offset` → the capture input's ring (the frames about to be
    /// rendered: one captured frame per rendered frame).
    @inline(__always) @_noLocks
    func interleaveCapture(frameCount: Int, nframes: jack_nframes_t, offset: Int) {
        let channels = captureChannels
        let getBuffer = portGetBuffer
        for c in 0..<channels {
            let port = inputPorts[c]
            guard let raw = _unsafePerformance({ getBuffer(port, nframes) }) else { continue }
            let input = UnsafePointer(raw.assumingMemoryBound(to: Float.self)) + offset
            var i = c
            for f in 0..<frameCount {
                captureScratch[i] = input[f]
                i &+= channels
            }
        }
        if let ring = captureRing { _ = ring.write(frames: UnsafePointer(captureScratch), frameCount: frameCount, channelCount: channels) }
    }

    /// Scratch (interleaved, `frameCount` frames per bus) → each port's buffer at `offset`.
    @inline(__always) @_noLocks
    func deinterleave(frameCount: Int, nframes: jack_nframes_t, offset: Int) {
        let channels = channelCount
        let getBuffer = portGetBuffer
        for r in 0..<busCount {
            let source = buffers.bus(r)
            for c in 0..<channels {
                let port = outputPorts[r &* channels &+ c]
                guard let raw = _unsafePerformance({ getBuffer(port, nframes) }) else { continue }
                let out = raw.assumingMemoryBound(to: Float.self) + offset
                var i = c
                for f in 0..<frameCount {
                    out[f] = source[i]
                    i &+= channels
                }
            }
        }
    }

    @inline(__always) @_noLocks
    func silence(from start: Int, to end: Int, nframes: jack_nframes_t) {
        let getBuffer = portGetBuffer
        for c in 0..<channelCount &* busCount {
            let port = outputPorts[c]
            guard let raw = _unsafePerformance({ getBuffer(port, nframes) }) else { continue }
            (raw.assumingMemoryBound(to: Float.self) + start).update(repeating: 0, count: end &- start)
        }
    }

    // MARK: Notification threads

    /// The shutdown callback's body: async-signal-safe (no allocation, no lock).
    func markLost(status: UInt32, reason: UnsafePointer<CChar>?) {
        var i = 0
        if let reason {
            while i < ProcessCore.reasonCapacity - 1, reason[i] != 0 {
                shutdownReason[i] = reason[i]
                i += 1
            }
        }
        shutdownReason[i] = 0
        shutdownStatus.store(status, ordering: .relaxed)
        lost.store(true, ordering: .releasing)
        sem_post(wakeSupervisor)
    }

    /// Register the callbacks on `client` (before activating it).
    func install(on client: OpaquePointer) throws {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let f = functions
        var rc = f.set_process_callback(client, jackProcess, me)
        if rc != 0 { throw JACKError.call("jack_set_process_callback", code: rc) }
        rc = f.set_xrun_callback(client, jackXrun, me)
        if rc != 0 { throw JACKError.call("jack_set_xrun_callback", code: rc) }
        rc = f.set_buffer_size_callback(client, jackBufferSize, me)
        if rc != 0 { throw JACKError.call("jack_set_buffer_size_callback", code: rc) }
        f.on_info_shutdown(client, jackShutdown, me)
    }
}

// C entry points. `arg` is the `ProcessCore`, kept alive by its `JACKOutput` for as long as a
// client with these callbacks exists.

private func core(_ arg: UnsafeMutableRawPointer?) -> ProcessCore {
    Unmanaged<ProcessCore>.fromOpaque(arg!).takeUnretainedValue()
}

private let jackProcess: JackProcessCallback = { nframes, arg in
    let c = core(arg)
    return c.process(frameCount: Int(nframes), renderer: c.renderer)
}

private let jackXrun: JackXRunCallback = { arg in
    let c = core(arg)
    c.xrunCount.add(1, ordering: .relaxed)
    sem_post(c.wakeSupervisor)
    return 0
}

private let jackBufferSize: JackBufferSizeCallback = { nframes, arg in
    let c = core(arg)
    c.bufferFrames.store(Int(nframes), ordering: .relaxed)
    sem_post(c.wakeSupervisor)
    return 0
}

private let jackShutdown: JackInfoShutdownCallback = { status, reason, arg in
    core(arg).markLost(status: status.rawValue, reason: reason)
}
