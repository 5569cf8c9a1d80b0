import Testing
import TuttiBenchSupport

/// `tutti bench voices` counts past the engine's source limit by splitting the voices into
/// engines that each stay within it (issue 24: a fast machine asked one engine for 80 004).
@Suite struct VoiceCounterPlanTests {
    @Test("the voices split into engines within the source limit, as few as hold them, sizes within one")
    func batchesStayWithinTheLimit() {
        let limit = VoiceCounter.sourcesPerEngine
        for voices in [1, 256, limit - 1, limit, limit + 1, 80_004, 90_883, 3 * limit + 7] {
            let b = VoiceCounter.batches(voices)
            #expect(b.reduce(0, +) == voices, "\(voices): \(b)")
            #expect(b.allSatisfy { $0 >= 1 && $0 <= limit }, "\(voices): \(b)")
            #expect(b.count == (voices + limit - 1) / limit, "\(voices): \(b)")
            #expect((b.max() ?? 0) - (b.min() ?? 0) <= 1, "\(voices): \(b)")
        }
        #expect(VoiceCounter.batches(80_004) == [40_002, 40_002])
        #expect(VoiceCounter.batches(10, limit: 4) == [4, 3, 3])
    }

    @Test("an engine holds the limit's worth of sources (the largest batch builds)")
    func largestBatchBuilds() throws {
        let fixture = try EngineFixture(bufferSources: VoiceCounter.sourcesPerEngine, blockFrames: 64, distinctBuffers: 4)
        #expect(fixture.bufferSourceCount == VoiceCounter.sourcesPerEngine)
        fixture.render()
    }
}
