import Glibc
import Synchronization
import TuttiEngine

/// Rendering ahead of PipeWire's graph (`OutputSettings.periodCount` given): a thread of
/// Tutti's own ("tutti-pw-ahead") renders the engine in chunks of a period into a ring and
/// keeps `periodCount` periods there — periods of `periodFrames`, or of the graph's quantum
/// when the graph runs larger cycles than that (another client asked for more latency), up to
/// the ring's `capacityFrames`; main's process callback only copies its cycle out of the
/// ring. The graph's cycle then costs a copy, as a client that queues buffers ahead does
/// (`pw-play`), and a cycle that comes early (the graph catching up after a stall) finds its
/// frames ready; the price is the ring's frames of latency (reported in the output's status).
/// A cycle that finds the ring short plays what it holds and silence for the rest, counted
/// (`underruns`).
///
/// Threads: the ahead thread writes the ring (`run(_:)`), PipeWire's data thread reads it
/// (`take(into:frameCount:)`), the control thread and the supervisor read `fill` and the
/// counters and start and stop the thread.
final class RenderAhead: @unchecked Sendable { // render-side memory: a ring, SPSC by atomics
    /// The frames the thread keeps rendered at the period asked for: `periodCount` periods.
    let targetFrames: Int
    let periodCount: Int
    /// The most the ring holds: `periodCount` of PipeWire's largest quanta (8192 frames), or
    /// of the period asked for when larger.
    let capacityFrames: Int
    /// The frames the graph's last cycle took (0 before the first): PipeWire's data thread
    /// writes, the ahead thread reads.
    let graphCycleFrames = Atomic<Int>(0)
    /// The frames rendered at a time: a period (at most the engine's largest block).
    let chunkFrames: Int
    let channelCount: Int
    /// How long the thread sleeps between two looks at the ring, nanoseconds: a quarter of a
    /// chunk (at least 100 µs), so a cycle taken is replaced within a quarter period.
    let pollNanoseconds: Int
    /// Cycles that found fewer frames in the ring than they needed while rendering (the rest
    /// played as silence).
    let underruns = Atomic<Int>(0)
    /// Set by the control thread to end the thread's loop.
    let stopRequested = Atomic<Bool>(false)
    /// What `pthread_setschedparam` returned in the thread (0: real-time; -1: not asked yet).
    let schedulingResult = Atomic<Int32>(-1)
    private let buffer: SampleRingBuffer
    private let ring: SampleRing
    private let scratch: UnsafeMutablePointer<Float>

    /// A ring of `periodCount` periods of `periodFrames` frames of `channelCount` channels,
    /// rendered `chunkFrames` at a time, at `sampleRate`. Allocates: control thread.
    init(periodFrames: Int, periodCount: Int, maxBlockFrames: Int, channelCount: Int, sampleRate: Int) {
        chunkFrames = max(1, min(periodFrames, maxBlockFrames))
        targetFrames = max(periodCount * periodFrames, 2 * chunkFrames)
        self.periodCount = periodCount
        capacityFrames = max(targetFrames, periodCount * Self.largestQuantumFrames)
        self.channelCount = channelCount
        pollNanoseconds = max(100_000, chunkFrames * 250_000_000 / max(sampleRate, 1))
        buffer = SampleRingBuffer(capacity: capacityFrames * channelCount)
        ring = buffer.ring
        scratch = .allocate(capacity: chunkFrames * channelCount)
        scratch.initialize(repeating: 0, count: chunkFrames * channelCount)
    }

    deinit { scratch.deallocate() }

    /// PipeWire's largest quantum (`default.clock.max-quantum`).
    static let largestQuantumFrames = 8_192

    /// The frames to keep rendered when the graph's cycles are `cycleFrames` long:
    /// `periodCount` of them when they are longer than the period asked for, else
    /// `targetFrames`; at most `capacityFrames`. Any thread.
    func target(cycleFrames: Int) -> Int { min(capacityFrames, max(targetFrames, periodCount &* cycleFrames)) }

    /// Frames rendered and not yet taken. Any thread (exact when neither side runs).
    var fill: Int { max(ring.indices.count, 0) / channelCount }

    /// PipeWire's data thread: copies `frameCount` frames into `output` from the ring (silence
    /// for what it lacks); the frames it had.
    @_noLocks
    func take(into output: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        graphCycleFrames.store(frameCount, ordering: .relaxed)
        let samples = frameCount &* channelCount
        let got = ring.read(into: output, count: samples)
        if got < samples { (output + got).update(repeating: 0, count: samples &- got) }
        return got / channelCount
    }

    /// The ahead thread: renders with `render` (a chunk of interleaved frames into the scratch
    /// buffer; false when it cannot render the chunk yet: nothing is stored, the thread sleeps)
    /// until the ring holds `target(cycleFrames:)` of the graph's last cycle, then sleeps
    /// `pollNanoseconds`; until `stopRequested`. The sleep is the thread's only system call:
    /// the render path itself makes none.
    func run(_ render: (UnsafeMutablePointer<Float>, Int) -> Bool) {
        var pause = timespec(tv_sec: pollNanoseconds / 1_000_000_000, tv_nsec: pollNanoseconds % 1_000_000_000)
        while !stopRequested.load(ordering: .acquiring) {
            let target = self.target(cycleFrames: graphCycleFrames.load(ordering: .relaxed)) &* channelCount
            // The producer's view of the fill: its own tail against the consumer's head.
            while ring.indices.capacity &- ring.indices.writable().count + chunkFrames &* channelCount <= target {
                guard render(scratch, chunkFrames) else { break }
                _ = ring.write(frames: scratch, frameCount: chunkFrames, channelCount: channelCount)
            }
            nanosleep(&pause, nil)
        }
    }
}
