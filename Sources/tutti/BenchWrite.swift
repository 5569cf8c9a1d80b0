import Foundation
import Synchronization
import Tutti
import TuttiEngine

#if canImport(Glibc)
    import Glibc
#endif

/// `tutti bench --write`: the cost of the calls a host makes from its own audio threads — a
/// stream write (`SourceHandle.write`, the C ABI's `tutti_stream_write`) and a status read
/// (`SourceHandle.position`) — timed call by call on the main thread while a render thread
/// pulls blocks and a control thread changes the source's gain and polls events (both take the
/// engine's lock). The reference, measured in the same run under the same load, is a call that
/// does take the engine's lock (`SourceHandle.info`).
enum WriteBench {
    struct Figures: Encodable {
        var calls: Int
        var medianNs: Double
        var p99Ns: Double
        var p999Ns: Double
        var maxNs: Double
    }

    struct Report: Encodable {
        var command = "tutti bench --write"
        var framesPerWrite: Int
        var write: Figures
        var position: Figures
        var lockedInfo: Figures
        var framesWritten: Int
        var renderBlocks: Int
        var controlCalls: Int
    }

    static func figures(_ samples: inout [UInt64], count: Int) -> Figures {
        guard count > 0 else { return Figures(calls: 0, medianNs: 0, p99Ns: 0, p999Ns: 0, maxNs: 0) }
        samples[0..<count].sort()
        func at(_ q: Double) -> Double { Double(samples[min(count - 1, Int(Double(count - 1) * q + 0.5))]) }
        return Figures(calls: count, medianNs: at(0.5), p99Ns: at(0.99), p999Ns: at(0.999), maxNs: Double(samples[count - 1]))
    }

    static func run(seconds: Double, blockFrames: Int) throws -> Report {
        var configuration = AudioEngineConfiguration()
        configuration.channelCount = 2
        let engine = try AudioEngine(configuration: configuration)
        let session = try engine.makeSession(named: "feed", category: .playback)
        try session.setActive(true)
        let stream = try session.makeStreamSource(sampleRate: 48_000, channelCount: 2, capacityFrames: 8 * blockFrames)
        try stream.play()
        let stop = Atomic<Bool>(false)
        let blocks = Atomic<Int>(0)
        let controlCalls = Atomic<Int>(0)
        // The render thread: a block, then a pause of a quarter of its period (4× real time).
        let pauseMicroseconds = UInt32(blockFrames * 1_000_000 / 48_000 / 4)
        let renderer = try startThread(name: "tutti-bench-rd") {
            let out = UnsafeMutablePointer<Float>.allocate(capacity: 2 * blockFrames)
            defer { out.deallocate() }
            while !stop.load(ordering: .relaxed) {
                engine.render(into: out, frameCount: blockFrames)
                blocks.wrappingAdd(1, ordering: .relaxed)
                usleep(pauseMicroseconds)
            }
        }
        // The control thread: a gain change and an event poll every 200 µs (the engine's lock).
        let control = try startThread(name: "tutti-bench-ct") {
            var k = 0
            while !stop.load(ordering: .relaxed) {
                try? stream.setGain(Float(k % 8) / 8 + 0.1, rampFrames: 64)
                _ = engine.pollEvents()
                controlCalls.wrappingAdd(1, ordering: .relaxed)
                k += 1
                usleep(200)
            }
        }
        defer {
            stop.store(true, ordering: .relaxed)
            pthread_join(renderer, nil)
            pthread_join(control, nil)
        }
        let frames = blockFrames / 4
        let data = [Float](repeating: 0.1, count: 2 * frames)
        let capacity = 4_000_000
        var writes = [UInt64](repeating: 0, count: capacity)
        var reads = [UInt64](repeating: 0, count: capacity)
        var locked = [UInt64](repeating: 0, count: capacity)
        var (nw, nr, nl, written) = (0, 0, 0, 0)
        try data.withUnsafeBufferPointer { samples in
            let end = monotonicNanoseconds() &+ UInt64(seconds * 1e9)
            while monotonicNanoseconds() < end, nw < capacity {
                let t0 = monotonicNanoseconds()
                let n = try stream.write(samples)
                let t1 = monotonicNanoseconds()
                _ = try stream.position
                let t2 = monotonicNanoseconds()
                writes[nw] = t1 &- t0
                reads[nr] = t2 &- t1
                nw += 1
                nr += 1
                written += n
                if nw % 16 == 0, nl < capacity {
                    let t3 = monotonicNanoseconds()
                    _ = try stream.info
                    locked[nl] = monotonicNanoseconds() &- t3
                    nl += 1
                }
                // A full ring: wait a little for the render side (not timed), as a feeder would.
                if n < frames { usleep(20) }
            }
        }
        return Report(
            framesPerWrite: frames, write: figures(&writes, count: nw), position: figures(&reads, count: nr),
            lockedInfo: figures(&locked, count: nl), framesWritten: written, renderBlocks: blocks.load(ordering: .relaxed),
            controlCalls: controlCalls.load(ordering: .relaxed))
    }

    static func text(_ r: Report) -> String {
        func line(_ name: String, _ f: Figures) -> String {
            "  " + name.padding(toLength: 30, withPad: " ", startingAt: 0)
                + String(
                    format: "%9d calls  median %7.0f ns  p99 %8.0f ns  p99.9 %8.0f ns  max %9.0f ns\n", f.calls, f.medianNs, f.p99Ns,
                    f.p999Ns, f.maxNs)
        }
        return "tutti bench --write: \(r.framesPerWrite)-frame stereo writes from this thread while a render thread pulls "
            + "(\(r.renderBlocks) blocks) and a control thread changes the gain (\(r.controlCalls) calls)\n"
            + line("write (no lock)", r.write) + line("position (no lock)", r.position)
            + line("info (engine lock, reference)", r.lockedInfo)
            + String(format: "  write median / locked info median: %.2f\n", r.write.medianNs / max(r.lockedInfo.medianNs, 1))
    }
}
