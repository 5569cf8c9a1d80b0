import Foundation
import Synchronization
import Testing
import Tutti
import TuttiTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A render thread pulls audio while control threads change things and read what the render
/// side publishes (positions, states, the clock). Run under `--sanitize=thread` too (filter
/// `HostThread`): no data race, and the reads are coherent.
@Suite struct HostThreadTests {
    @Test func controlAndRenderThreadsShareAnEngine() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 2
        let engine = try AudioEngine(configuration: config)
        let session = try engine.makeSession(named: "s", category: .playback)
        try session.setActive(true)
        let sources = try (0..<8).map { k in try session.makeToneSource(frequency: 200 + 50 * Double(k), amplitude: 0.05) }
        for s in sources { try s.play() }
        let rendered = Counter()
        let renderThread = Thread {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512)
            defer { buffer.deallocate() }
            var n = 0
            while n < 4_000 {
                if engine.render(into: buffer, frameCount: 256) { n += 1 }
            }
            rendered.value.store(n, ordering: .releasing)
        }
        renderThread.start()
        var lastClock: Int64 = 0
        var positionsMonotonic = true
        var lastPosition: [Int64] = Array(repeating: 0, count: sources.count)
        var k = 0
        var queueFull = 0
        while engine.framesRendered < 4_000 * 256 {
            let clock = engine.framesRendered
            #expect(clock >= lastClock)
            lastClock = clock
            let i = k % sources.count
            // The command queue holds 4096 commands; when a loaded machine holds the render
            // thread off, a full queue is what the engine reports (`capacity`): wait and go on.
            do {
                try sources[i].setGain(Float(k % 7) / 10, rampFrames: 64)
            } catch {
                guard error.code == .capacity else { throw error }
                queueFull += 1
                usleep(1_000)
            }
            let p = try sources[i].position
            if p < lastPosition[i] { positionsMonotonic = false }
            lastPosition[i] = p
            _ = engine.pollEvents()
            _ = engine.statistics
            k += 1
            if k % 64 == 0 { usleep(100) }
        }
        while rendered.value.load(ordering: .acquiring) == 0 { usleep(1_000) }
        #expect(positionsMonotonic)
        #expect(queueFull < k, "every command found the queue full")
        #expect(rendered.value.load(ordering: .acquiring) == 4_000)
        #expect(engine.framesRendered == 4_000 * 256)
        #expect(try sources[0].position == 4_000 * 256)
    }
}

/// A count shared between test threads.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
