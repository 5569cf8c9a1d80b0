import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Streaming file sources: same samples as a loaded file, no stale data after a seek,
/// failures counted and reported, nothing allocated on the render thread.
@Suite struct FileStreamTests {
    /// An engine that streams files longer than 1 s through a ring of `ringSeconds`.
    func makeEngine(transportFade: Double = 0.010, ringSeconds: Double = 0.5) throws -> (Engine, BusID) {
        var config = EngineConfiguration()
        config.streamingThresholdSeconds = 1
        config.streamingRingSeconds = ringSeconds
        config.transportFadeSeconds = transportFade
        let engine = try Engine(configuration: config)
        return (engine, try engine.addBus())
    }

    /// A looping 44.1 kHz stereo file (converted with soxrHQ) and a 48 kHz mono one (mapped to
    /// stereo): streamed and rendered offline, bit for bit what the loaded files give, across
    /// two loop wraps.
    @Test(arguments: [(44_100, 2), (48_000, 1)])
    func streamedEqualsLoaded(rate: Int, channels: Int) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/long.wav"
        writeWAV(path, musicLikeSamples(seconds: 3.3, rate: rate, channels: channels), rate: rate, channels: channels)

        let (engine, bus) = try makeEngine()
        let kind = try AudioFile.sourceKind(path: path, configuration: engine.configuration, quality: .soxrHQ)
        guard case .file(let stream) = kind else {
            Issue.record("a 3.3 s file should stream above a 1 s threshold")
            return
        }
        let streamed = try engine.addSource(kind, bus: bus, loop: true)
        try engine.send(.play(streamed))
        let frames = stream.frameCount * 2 + 12_345
        let a = renderAll(engine, frameCount: frames, block: 1_000, waitingForFiles: true)
        #expect(engine.status(streamed)?.underrunFrames == 0)

        let (reference, refBus) = try makeEngine()
        let loaded = try AudioFile.load(path: path, sampleRate: 48_000, channelCount: 2, quality: .soxrHQ)
        #expect(loaded.frameCount == stream.frameCount)
        let id = try reference.addSource(.buffer(loaded), bus: refBus, loop: true)
        try reference.send(.play(id))
        let b = renderAll(reference, frameCount: frames, block: 4_096)
        #expect(a.count == b.count)
        let firstDifference = zip(a, b).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }?.offset
        #expect(firstDifference == nil, "first differing sample: \(firstDifference ?? -1)")
    }

    /// A file whose left channel is its frame index / 2^20 and right channel 1: the ratio tells
    /// which frame was played whatever the gain. Seeks at random blocks while the worker runs
    /// freely (live) or is waited for (offline): every frame heard is the one after the last
    /// (or the seek target), never data from before a seek. Live, silence (underrun) may
    /// appear; offline never.
    @Test(arguments: [false, true])
    func seeksNeverPlayStaleData(offline: Bool) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/index.wav"
        let fileFrames = 48_000 * 4
        var samples = [Float](repeating: 1, count: fileFrames * 2)
        for i in 0..<fileFrames { samples[2 * i] = Float(i + 1) / Float(1 << 20) }
        writeWAV(path, samples, rate: 48_000, channels: 2)

        let (engine, bus) = try makeEngine(transportFade: 0, ringSeconds: 0.25)
        let id = try engine.addSource(
            try AudioFile.sourceKind(path: path, configuration: engine.configuration, quality: .soxrHQ), bus: bus, loop: true)
        try engine.send(.play(id))
        var rng = XorShift32(seed: 42)
        let block = 256
        var expected = 0
        var silent = 0
        var seeks = 0
        var out = [Float](repeating: 0, count: block * 2)
        for _ in 0..<3_000 {
            if rng.nextDouble() < 0.05 {
                let target = Int(rng.nextDouble() * Double(fileFrames))
                try engine.send(.seek(id, position: Int64(target)))
                expected = target
                seeks += 1
            }
            out.withUnsafeMutableBufferPointer { o in
                if offline {
                    engine.renderWaitingForFiles(into: o.baseAddress!, frameCount: block)
                } else {
                    engine.render(into: o.baseAddress!, frameCount: block)
                }
            }
            for f in 0..<block {
                let r = Double(out[2 * f + 1])
                if r == 0 {
                    silent += 1
                    continue
                }
                let frame = Int((Double(out[2 * f]) / r * Double(1 << 20)).rounded()) - 1
                if frame != expected {
                    Issue.record("heard frame \(frame), expected \(expected) (offline: \(offline))")
                    return
                }
                expected = (expected + 1) % fileFrames
            }
            _ = engine.pollEvents()
        }
        #expect(seeks > 100)
        if offline {
            #expect(silent == 0)
            #expect(engine.status(id)?.underrunFrames == 0)
        }
        #expect(Int64(silent) <= engine.status(id)?.underrunFrames ?? 0)
    }

    /// The file shrinks while it streams: the source plays what it had, then silence counted
    /// as underruns, one `sourceFailed` event naming the file; rendering goes on.
    @Test func truncatedWhileStreaming() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/shrinks.wav"
        writeWAV(path, musicLikeSamples(seconds: 6, rate: 48_000, channels: 2), rate: 48_000, channels: 2)
        let (engine, bus) = try makeEngine()
        let id = try engine.addSource(try AudioFile.sourceKind(path: path, configuration: engine.configuration, quality: .soxrHQ), bus: bus)
        try engine.send(.play(id))
        // Keep 1.5 s of it (44-byte header + frames × 8 bytes).
        #expect(truncate(path, off_t(44 + 72_000 * 8)) == 0)
        var events: [EngineEvent] = []
        for _ in 0..<200 { _ = renderAll(engine, frameCount: 2_400, block: 480, waitingForFiles: true, events: &events) }
        let failures = events.compactMap { e -> String? in
            if case .sourceFailed(let s, let reason) = e.kind, s == id { return reason }
            return nil
        }
        #expect(failures.count == 1)
        #expect(failures.first?.contains("shrinks.wav") == true)
        let underruns = engine.status(id)?.underrunFrames ?? 0
        #expect(underruns > 48_000 * 3)
        #expect(engine.status(id)?.state == .playing)
    }

    /// Live rendering of 16 looping streaming sources, seeks included: no allocation on the
    /// render thread.
    @Test func noMallocsWhileStreaming() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/loop.wav"
        writeWAV(path, musicLikeSamples(seconds: 2, rate: 44_100, channels: 2), rate: 44_100, channels: 2)
        let (engine, bus) = try makeEngine()
        var ids: [SourceID] = []
        for _ in 0..<16 {
            let kind = try AudioFile.sourceKind(path: path, configuration: engine.configuration, quality: .soxrHQ)
            ids.append(try engine.addSource(kind, bus: bus, gain: 0.05, loop: true))
        }
        for id in ids { try engine.send(.play(id)) }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        for _ in 0..<8 { engine.render(into: out, frameCount: 256) }
        _ = engine.pollEvents()
        for (k, id) in ids.enumerated() {
            try engine.send(.seek(id, position: Int64(k * 1_000)), at: .frame(engine.framesRendered + 5_000))
        }
        let mallocs = countMallocs {
            for _ in 0..<2_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
    }

    /// A stream's memory is its ring, whatever the file's length.
    @Test func ringDoesNotGrowWithTheFile() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var capacities: [Int] = []
        for seconds in [2.0, 20.0] {
            let path = dir + "/\(Int(seconds)).wav"
            writeWAV(path, [Float](repeating: 0.1, count: Int(seconds * 44_100) * 2), rate: 44_100, channels: 2)
            let (engine, _) = try makeEngine()
            guard case .file(let s) = try AudioFile.sourceKind(path: path, configuration: engine.configuration, quality: .soxrHQ) else {
                Issue.record("should stream")
                return
            }
            capacities.append(s.capacityFrames)
        }
        #expect(capacities[0] == capacities[1])
        #expect(capacities[0] <= 48_000)
    }
}
