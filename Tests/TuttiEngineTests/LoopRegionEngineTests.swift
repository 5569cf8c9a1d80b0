import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Loop regions on the render side: wrapping through short regions (many seams per block),
/// with counts running out and seeks crossfading through a region, allocates nothing; a
/// region the content cannot take is ignored there.
@Suite struct LoopRegionEngineTests {
    @Test func noMallocsWhileWrappingRegions() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let buffer = sineBuffer(330, seconds: 0.5)
        var ids: [SourceID] = []
        for i in 0..<8 {
            let id = try engine.addSource(.buffer(buffer), bus: bus, gain: 0.1, loop: true)
            // Regions of 37 … 2,000 frames; every other source with a count.
            let start = Int64(100 * i)
            try engine.send(
                .setLoopRegion(id, startFrame: start, endFrame: start + [37, 90, 500, 2_000][i % 4], count: i % 2 == 0 ? -1 : 50))
            try engine.send(.play(id))
            ids.append(id)
        }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        for _ in 0..<8 { engine.render(into: out, frameCount: 256) }
        _ = engine.pollEvents()
        // Seeks while playing: the old position's crossfade tail wraps through the region too.
        for (k, id) in ids.enumerated() {
            try engine.send(.seek(id, position: Int64(120 * k)), at: .frame(engine.framesRendered + Int64(1_000 * (k + 1))))
        }
        let mallocs = countMallocs {
            for _ in 0..<2_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
    }

    /// The render side ignores a region outside a buffer (the control side refuses it first):
    /// the buffer plays on as before, whole; the engine refuses what it can tell is bad.
    @Test func aRegionTheContentCannotTakeIsIgnored() throws {
        var config = EngineConfiguration(sampleRate: 48_000, channelCount: 1)
        config.transportFadeSeconds = 0
        let engine = try Engine(configuration: config)
        let bus = try engine.addBus()
        let ramp = AudioBuffer(interleaved: (0..<100).map { Float($0 + 1) }, channelCount: 1, sampleRate: 48_000)
        let id = try engine.addSource(.buffer(ramp), bus: bus, loop: true)
        try engine.send(.setLoopRegion(id, startFrame: 50, endFrame: 101, count: -1))
        // What the engine itself refuses: a negative start, an empty region, a count of 0.
        #expect(throws: TuttiError.self) { try engine.send(.setLoopRegion(id, startFrame: -1, endFrame: 10, count: -1)) }
        #expect(throws: TuttiError.self) { try engine.send(.setLoopRegion(id, startFrame: 10, endFrame: 10, count: -1)) }
        #expect(throws: TuttiError.self) { try engine.send(.setLoopRegion(id, startFrame: 0, endFrame: 10, count: 0)) }
        try engine.send(.play(id))
        var out = [Float](repeating: 0, count: 250)
        out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frameCount: 250) }
        let expected = (0..<250).map { Float($0 % 100 + 1) }
        #expect(out == expected)
    }
}
