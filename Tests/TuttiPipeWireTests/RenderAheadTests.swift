import Foundation
import Glibc
import Synchronization
import Testing
import TuttiEngine
import TuttiOutput

@testable import TuttiPipeWire

/// `RenderAhead` without a daemon: its thread renders a counting signal (sample k of the
/// stream is k) and a consumer on another thread takes cycles as PipeWire's data thread would.
/// Every sample arrives once, in order (the copy out of the ring and the wrap are exact), the
/// ring tops up to its target, and a graph running larger cycles than the period raises the
/// target to `periodCount` of them.
@Suite struct RenderAheadTests {
    /// The frames to keep rendered: `periodCount` periods, or of the graph's cycles when they
    /// are longer, within the ring's capacity.
    @Test func theTargetFollowsTheGraphsQuantum() {
        let ahead = RenderAhead(periodFrames: 128, periodCount: 4, maxBlockFrames: 4_096, channelCount: 2, sampleRate: 48_000)
        #expect(ahead.chunkFrames == 128 && ahead.targetFrames == 512)
        #expect(ahead.target(cycleFrames: 0) == 512)
        #expect(ahead.target(cycleFrames: 64) == 512)
        #expect(ahead.target(cycleFrames: 1_024) == 4_096)
        #expect(ahead.target(cycleFrames: 8_192) == 32_768)
        #expect(ahead.target(cycleFrames: 65_536) == ahead.capacityFrames)
        // A quarter chunk between looks: 128 frames at 48 kHz is 2.67 ms.
        #expect(ahead.pollNanoseconds == 666_666)
        // A period larger than the engine's largest block is rendered a block at a time.
        let big = RenderAhead(periodFrames: 8_192, periodCount: 2, maxBlockFrames: 4_096, channelCount: 1, sampleRate: 48_000)
        #expect(big.chunkFrames == 4_096 && big.targetFrames == 16_384)
    }

    /// The ahead thread renders a chunk only when the horizon lets it render the whole chunk
    /// (or the frame limit comes first, or the clock is not rendering: silence): past the
    /// horizon it waits instead of rendering silence for a late control thread.
    @Test func aChunkPastTheHorizonWaitsForIt() {
        let clock = CallbackClock()
        let idle = clock.mayRender(frameCount: 128)
        clock.phase.store(.rendering, ordering: .releasing)
        let unbounded = clock.mayRender(frameCount: 128)
        clock.horizon.store(100, ordering: .releasing)
        let past = clock.mayRender(frameCount: 128)
        let within = clock.mayRender(frameCount: 100)
        clock.frameLimit.store(50, ordering: .relaxed)
        let limitFirst = clock.mayRender(frameCount: 128)
        clock.framesRendered.store(60, ordering: .releasing)
        clock.frameLimit.store(-1, ordering: .relaxed)
        let pastLater = clock.mayRender(frameCount: 64)
        let withinLater = clock.mayRender(frameCount: 40)
        #expect(idle, "idle: silence is rendered")
        #expect(unbounded, "no horizon")
        #expect(!past && within)
        #expect(limitFirst, "the frame limit comes before the horizon")
        #expect(!pastLater && withinLater)
    }

    /// 6 000 cycles of 64, 128 and then 1024 frames taken from a ring rendered ahead on its
    /// own thread: the samples count up without a gap or a repeat across every wrap; once the
    /// graph runs 1024-frame cycles the ring holds more than the 512 frames asked for. The
    /// first 1024-frame cycle finds the ring short (it held 512: the thread learns the longer
    /// quantum from that cycle), and only that one.
    @Test func everyRenderedSampleIsTakenOnceInOrder() throws {
        let channels = 2
        let ahead = RenderAhead(periodFrames: 128, periodCount: 4, maxBlockFrames: 4_096, channelCount: channels, sampleRate: 48_000)
        let next = Atomic<Int>(0) // the producer's next sample value (its thread only)
        let thread = try startThread(name: "ahead-test") {
            ahead.run { output, frames in
                var k = next.load(ordering: .relaxed)
                for i in 0..<frames * channels {
                    output[i] = Float(k & 0xFF_FFFF) // exact in a Float
                    k += 1
                }
                next.store(k, ordering: .relaxed)
                return true
            }
        }
        defer {
            ahead.stopRequested.store(true, ordering: .releasing)
            pthread_join(thread, nil)
        }
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 1_024 * channels)
        defer { output.deallocate() }
        var expected = 0
        var short = 0
        var largest = 0
        for cycle in 0..<6_000 {
            let frames = cycle < 3_000 ? (cycle % 2 == 0 ? 64 : 128) : 1_024
            // The ring must hold a cycle: wait for the thread (as a graph would not: here the
            // order of the samples is what is checked).
            let deadline = Date().addingTimeInterval(cycle == 3_000 ? 0.05 : 5)
            while ahead.fill < frames, Date() < deadline { usleep(50) }
            largest = max(largest, ahead.fill)
            let got = ahead.take(into: output, frameCount: frames)
            if got < frames { short += 1 }
            for i in 0..<got * channels {
                if output[i] != Float(expected & 0xFF_FFFF) {
                    Issue.record("cycle \(cycle), sample \(i): \(output[i]), expected \(expected & 0xFF_FFFF)")
                    return
                }
                expected += 1
            }
        }
        #expect(short == 1, "\(short) cycles found the ring short")
        #expect(expected > 0)
        // 4 × 1024 once the cycles are 1024 frames (the 512 asked for would not hold one).
        #expect(largest > 1_024, "the ring held at most \(largest) frames")
        #expect(largest <= 4_096 + 128, "the ring held \(largest) frames")
    }
}
