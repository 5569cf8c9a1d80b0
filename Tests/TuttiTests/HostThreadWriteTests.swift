import Foundation
import Synchronization
import Testing
import TuttiTestSupport

@testable import Tutti

#if canImport(Glibc)
    import Glibc
#endif

/// Stream and input writes and status reads (`write`, `state`, `position`, `underrunFrames`)
/// go straight to the source's ring and the render side's status board: no engine lock, no
/// allocation, from any thread — while another thread holds the engine's lock, while a render
/// thread pulls, and while the control thread removes and re-creates sources in the same
/// slots. Run under `--sanitize=thread` too (filter `HostThread`).
@Suite struct HostThreadWriteTests {
    @Test func writesAndStatusReadsAllocateNothing() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 2
        let engine = try AudioEngine(configuration: config)
        let session = try engine.makeSession(named: "call", category: .playAndRecord)
        try session.setActive(true)
        let stream = try session.makeStreamSource(sampleRate: 48_000, channelCount: 2, capacityFrames: 4_096)
        let input = try session.makeInputSource(channelCount: 1, capacityFrames: 4_096)
        try stream.play()
        try input.play()
        let block = [Float](repeating: 0.25, count: 2 * 64)
        let mono = UnsafeMutableBufferPointer<Float>.allocate(capacity: 64)
        mono.initialize(repeating: 0.25)
        defer { mono.deallocate() }
        var taken = 0
        var allocations: UInt64 = 0
        for _ in 0..<2_000 {
            _ = render(engine, frames: 64)
            block.withUnsafeBufferPointer { b in
                let a = countMallocs {
                    taken += (try? stream.write(b)) ?? -1_000_000
                    taken += (try? input.write(UnsafeBufferPointer(mono))) ?? -1_000_000
                    _ = try? stream.state
                    _ = try? stream.position
                    _ = try? input.underrunFrames
                    _ = try? stream.write(interleaved: b.baseAddress!, frameCount: 0)
                }
                allocations += a
            }
        }
        #expect(allocations == 0, "\(allocations) allocations in 2000 rounds of writes and reads")
        // Every frame offered fit (the render consumed 64 of each per round): 64 + 64 per round.
        #expect(taken == 2_000 * 128, "frames taken: \(taken)")
        #expect(try stream.position == 2_000 * 64)
    }

    @Test func writesAndReadsDoNotWaitForTheEngineLock() throws {
        let (engine, music, _, _, _) = try makeEngine(channels: 2)
        let stream = try music.makeStreamSource(sampleRate: 44_100, channelCount: 2, capacityFrames: 4_096)
        try stream.play()
        _ = render(engine, frames: 256)
        let locked = Atomic<Bool>(false)
        let writerDone = Atomic<Bool>(false)
        let doneWhileLocked = Atomic<Bool>(false)
        // Another thread holds the engine's lock until the writer is done (or 5 s).
        let holder = Thread {
            _ = try? engine.withCore { _ in
                locked.store(true, ordering: .releasing)
                let deadline = Date().addingTimeInterval(5)
                while !writerDone.load(ordering: .acquiring), Date() < deadline { usleep(200) }
                doneWhileLocked.store(writerDone.load(ordering: .acquiring), ordering: .releasing)
            }
            locked.store(false, ordering: .releasing)
        }
        holder.start()
        while !locked.load(ordering: .acquiring) { usleep(100) }
        let frames = [Float](repeating: 0.5, count: 2 * 32)
        var taken = 0
        for _ in 0..<16 { taken += try frames.withUnsafeBufferPointer { try stream.write($0) } }
        let state = try stream.state
        let position = try stream.position
        writerDone.store(true, ordering: .releasing)
        while locked.load(ordering: .acquiring) { usleep(100) }
        let wroteWhileLocked = doneWhileLocked.load(ordering: .acquiring)
        #expect(wroteWhileLocked, "a write or a status read waited for the engine's lock")
        #expect(taken == 16 * 32)
        #expect(state == .playing && position == 256)
    }

    @Test func removalsRacingAWriterNeverReachAnotherSource() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.maxSources = 16
        let engine = try AudioEngine(configuration: config)
        let session = try engine.makeSession(named: "feed", category: .playback)
        try session.setActive(true)
        // The id the writer uses (0: none yet): an atomic, so the writer takes no lock at all
        // (ThreadSanitizer cannot see through Synchronization's futex-based Mutex).
        let current = Atomic<UInt64>(0)
        let stop = Atomic<Bool>(false)
        let stale = Atomic<Int>(0)
        let written = Atomic<Int>(0)
        let other = Atomic<Int>(0)
        // The writer: whatever handle it last saw, as fast as it can; a removed one must say
        // notFound and nothing else.
        let writer = Thread {
            let frames = [Float](repeating: 0.1, count: 32)
            while !stop.load(ordering: .acquiring) {
                let raw = current.load(ordering: .acquiring)
                guard raw != 0 else { continue }
                let handle = SourceHandle(engine: engine, id: SourceID(rawValue: raw))
                for _ in 0..<50 {
                    let result = frames.withUnsafeBufferPointer { b in Result { () throws(TuttiError) in try handle.write(b) } }
                    switch result {
                    case .success(let n): written.wrappingAdd(n, ordering: .relaxed)
                    case .failure(let error) where error.code == .notFound: stale.wrappingAdd(1, ordering: .relaxed)
                    case .failure: other.wrappingAdd(1, ordering: .relaxed)
                    }
                }
            }
        }
        writer.start()
        var previous: SourceHandle?
        var reused = 0
        for _ in 0..<100 {
            let handle = try session.makeStreamSource(sampleRate: 48_000, channelCount: 1, capacityFrames: 256)
            if let previous {
                // The slot is reused: the older handle reaches nothing, the new source is untouched.
                if previous.id.slot == handle.id.slot { reused += 1 }
                let error = #expect(throws: TuttiError.self) {
                    _ = try [Float](repeating: 0, count: 4).withUnsafeBufferPointer { try previous.write($0) }
                }
                #expect(error?.code == .notFound)
                #expect(throws: TuttiError.self) { _ = try previous.position }
            }
            try handle.play()
            // The writer writes to this one, then meets it removed (each waited for, up to 5 s).
            let (before, staleBefore) = (written.load(ordering: .relaxed), stale.load(ordering: .relaxed))
            current.store(handle.id.rawValue, ordering: .releasing)
            let deadline = Date().addingTimeInterval(5)
            while written.load(ordering: .relaxed) == before, Date() < deadline {
                _ = render(engine, frames: 64)
                usleep(50)
            }
            try handle.remove()
            while stale.load(ordering: .relaxed) == staleBefore, Date() < deadline { usleep(50) }
            _ = render(engine, frames: 1_024) // past the removal fade: the render side lets go of the slot
            _ = engine.pollEvents()
            previous = handle
        }
        stop.store(true, ordering: .releasing)
        while !writer.isFinished { usleep(1_000) }
        let (otherErrors, frames, staleWrites) = (
            other.load(ordering: .relaxed), written.load(ordering: .relaxed), stale.load(ordering: .relaxed)
        )
        #expect(otherErrors == 0, "errors other than notFound")
        #expect(staleWrites >= 100, "the writer met each removed source: \(staleWrites) stale writes")
        #expect(frames >= 100 * 32, "the writer wrote to each source: \(frames) frames")
        #expect(reused == 99, "slots reused: \(reused) of 99")
        #expect(engine.statistics.sourceCount == 0)
    }
}
