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
    /// Frames PipeWire asked for in the last cycle (the quantum, at the stream's rate).
    let cycleFrames = Atomic<Int>(0)
    /// The thread that ran the last cycle (its `pthread_t`; 0 before the first): PipeWire's
    /// data thread, whose scheduling the control thread reads for `schedulingNote`.
    let dataThread = Atomic<UInt>(0)

    let renderer: Renderer
    let channelCount: Int
    /// The engine's output buses: only main (route 0) plays; the others are rendered into
    /// scratch and dropped.
    let routeCount: Int
    /// Per-route render scratch for an engine with several routes (nil with one: main is
    /// rendered straight into PipeWire's buffer).
    let scratch: UnsafeMutablePointer<Float>?
    let scratchFrames: Int
    let routeStride: Int
    let routeScratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    /// Brackets each cycle (`OutputSettings.realtimeScope`; `.inactive` when none).
    let scope: RealtimeScope
    let hasScope: Bool

    init(renderer: Renderer, scope: RealtimeScope?) {
        self.renderer = renderer
        channelCount = renderer.configuration.channelCount
        routeCount = renderer.routeCount
        scratchFrames = min(1024, renderer.configuration.maxBlockFrames)
        routeStride = alignedAudioStride(scratchFrames * channelCount, of: Float.self)
        if routeCount > 1 {
            let s = allocateAudio(Float.self, capacity: routeStride * routeCount)
            s.initialize(repeating: 0, count: routeStride * routeCount)
            let table = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: routeCount)
            for r in 0..<routeCount { (table + r).initialize(to: s + r * routeStride) }
            scratch = s
            routeScratch = table
        } else {
            scratch = nil
            routeScratch = nil
        }
        self.scope = scope ?? .inactive
        hasScope = scope != nil
    }

    deinit {
        if let scratch { deallocateAudio(scratch) }
        routeScratch?.deallocate()
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
        if let routeScratch, let scratch {
            var offset = 0
            while offset < rendered {
                let n = min(rendered &- offset, scratchFrames)
                renderer.render(routes: routeScratch, routeCount: routeCount, frameCount: n)
                let to = output + offset &* channelCount
                for i in 0..<n &* channelCount { to[i] = scratch[i] }
                offset &+= n
            }
        } else if rendered > 0 {
            renderer.render(into: output, frameCount: rendered)
        }
        clock.endCycle(grant)
        if rendered < frameCount {
            (output + rendered &* channelCount).update(repeating: 0, count: (frameCount &- rendered) &* channelCount)
        }
        if hasScope { _unsafePerformance { exit() } }
        cycleFrames.store(frameCount, ordering: .relaxed)
        // pthread_self reads the thread pointer: no call into the kernel.
        let thread = _unsafePerformance { pthread_self() }
        dataThread.store(UInt(thread), ordering: .releasing)
        clock.countCycle()
    }
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
