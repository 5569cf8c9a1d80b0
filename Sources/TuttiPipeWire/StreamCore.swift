import CPipeWire
import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiOutput

/// The real-time half of `PipeWireOutput`: the stream's `process` callback (on PipeWire's
/// real-time data thread) renders the engine straight into the buffer PipeWire hands out,
/// interleaved float32. No allocation, lock, log or wait there: a control thread late with
/// commands gets silence played (counted), not a wait.
///
/// Threads: `process` on PipeWire's data thread; the atomics are read by the control thread
/// and the supervisor. `frameLimit` is written by the control thread before the stream is
/// connected (the connection orders it with the data thread).
final class StreamCore: @unchecked Sendable {
    /// What the process callback does. An enum: it holds under @_noLocks on 6.3.1.
    enum Phase: Int, AtomicRepresentable {
        /// Silence, the engine does not advance: until the stream is linked and running.
        case idle
        case rendering
        /// The frame limit was reached (or a drain began): silence from then on.
        case finished
    }

    let phase = Atomic<Phase>(.idle)
    /// Process cycles run (any phase).
    let cycleCount = Atomic<Int64>(0)
    /// Engine frames rendered: the engine clock.
    let framesRendered = Atomic<Int64>(0)
    /// Frames at or past this one are not rendered. Int64.max: no limit.
    let horizon = Atomic<Int64>(Int64.max)
    /// Frames of silence played because the horizon held the engine back.
    let lateFrames = Atomic<Int64>(0)
    /// Cycles that found no free buffer to fill (the stream's underruns).
    let missedCycles = Atomic<Int>(0)
    /// Frames PipeWire asked for in the last cycle (the quantum, at the stream's rate).
    let cycleFrames = Atomic<Int>(0)
    /// Frames to render before finishing; negative: no limit.
    var frameLimit: Int64 = -1

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
        var rendered = 0
        if phase.load(ordering: .acquiring) == .rendering {
            let done = framesRendered.load(ordering: .relaxed)
            var wanted = Int64(frameCount)
            if frameLimit >= 0 { wanted = min(wanted, frameLimit &- done) }
            let allowed = max(0, min(wanted, horizon.load(ordering: .acquiring) &- done))
            rendered = Int(allowed)
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
            framesRendered.store(done &+ allowed, ordering: .releasing)
            if allowed < wanted { lateFrames.add(wanted &- allowed, ordering: .relaxed) }
            if frameLimit >= 0, done &+ allowed >= frameLimit { phase.store(.finished, ordering: .releasing) }
        }
        if rendered < frameCount {
            (output + rendered &* channelCount).update(repeating: 0, count: (frameCount &- rendered) &* channelCount)
        }
        if hasScope { _unsafePerformance { exit() } }
        cycleFrames.store(frameCount, ordering: .relaxed)
        cycleCount.add(1, ordering: .releasing)
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
