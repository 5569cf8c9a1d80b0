import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Input sources at the engine level: one frame taken per rendered frame, a tap aligned from
/// the first captured frame, silence while not capturing, nothing allocated on the render path.
@Suite struct InputSourceTests {
    /// Frame n of the "microphone": a ramp that encodes the frame index (exact in float).
    static func mic(_ n: Int) -> Float { Float(n % 10_000) / 10_000 }

    /// Feed exactly `frames` frames of the mic from `start`, render them, return the output.
    static func step(_ engine: Engine, _ input: InputSource, start: Int, frames: Int, out: UnsafeMutablePointer<Float>) {
        var block = [Float](repeating: 0, count: frames)
        for i in 0..<frames { block[i] = mic(start + i) }
        let taken = block.withUnsafeBufferPointer { input.write($0) }
        precondition(taken == frames)
        engine.render(into: out, frameCount: frames)
    }

    @Test func tapIsTheInputWhilePlayingAndSilenceAfter() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let id = try engine.addSource(.input(channelCount: 1, capacityFrames: 4_096, tapCapacityFrames: 65_536), bus: bus, gain: 0.25)
        let input = try #require(engine.input(id))
        #expect(engine.stream(id) == nil && input.capacityFrames == 4_096)
        try engine.send(.play(id), at: .frame(1_000))
        try engine.send(.pause(id), at: .frame(5_000))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        var output: [Float] = []
        for b in 0..<40 {
            Self.step(engine, input, start: b * 256, frames: 256, out: out)
            output += UnsafeBufferPointer(start: out, count: 512)
            #expect(input.bufferedFrames == 0, "the render takes every frame, playing or not")
        }
        #expect(input.recordingStartFrame == 1_000)
        var tap = [Float](repeating: -1, count: 40 * 256)
        let recorded = tap.withUnsafeMutableBufferPointer { input.readRecorded(into: $0) }
        #expect(recorded == 40 * 256 - 1_000)
        // Captured (the pause's 10 ms fade-out still captures): the mic, sample-exact.
        let fadeEnd = 5_000 + 480
        for f in 1_000..<fadeEnd { #expect(tap[f - 1_000] == Self.mic(f), "frame \(f)") }
        #expect(tap[(fadeEnd - 1_000)..<recorded].allSatisfy { $0 == 0 })
        // Monitored at gain 0.25 on both channels while playing (no fade from the top).
        for f in 1_000..<5_000 {
            #expect(output[2 * f] == 0.25 * Self.mic(f) && output[2 * f + 1] == 0.25 * Self.mic(f), "frame \(f)")
        }
        #expect(output[0..<2_000].allSatisfy { $0 == 0 })
        #expect(output[(2 * fadeEnd)...].allSatisfy { $0 == 0 })
        #expect(engine.status(id)?.underrunFrames == 0)
        #expect(input.droppedRecordedFrames == 0)
    }

    @Test func underrunsAreSilenceAndCountedAndAFullTapDrops() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let id = try engine.addSource(.input(channelCount: 2, capacityFrames: 1_024, tapCapacityFrames: 512), bus: bus, gain: 1)
        let input = try #require(engine.input(id))
        try engine.send(.play(id))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        let half = [Float](repeating: 0.5, count: 100 * 2)
        _ = half.withUnsafeBufferPointer { input.write($0) }
        engine.render(into: out, frameCount: 256)
        #expect(out[0] == 0.5 && out[199] == 0.5 && out[200] == 0 && out[511] == 0)
        engine.render(into: out, frameCount: 256)
        engine.render(into: out, frameCount: 256)
        let underruns = engine.status(id)?.underrunFrames ?? -1
        #expect(underruns == Int64(156 + 512))
        // 768 frames tapped into 512: 256 dropped, counted.
        #expect(input.recordedFrames == 512 && input.droppedRecordedFrames == 256)
        #expect(throws: TuttiError.self) { _ = try engine.addSource(.input(channelCount: 3, capacityFrames: 64), bus: bus) }
    }

    @Test func noMallocsWhileCapturingAndTapping() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let id = try engine.addSource(.input(channelCount: 1, capacityFrames: 4_096, tapCapacityFrames: 4_096), bus: bus, gain: 0.5)
        let input = try #require(engine.input(id))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256 * 2)
        defer { out.deallocate() }
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 256)
        defer { block.deallocate() }
        for i in 0..<256 { block[i] = Float(i) / 256 }
        let drain = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096)
        defer { drain.deallocate() }
        for _ in 0..<4 { engine.render(into: out, frameCount: 256) }
        _ = engine.pollEvents()
        let start = engine.framesRendered
        for k in 0..<40 {
            try engine.send(k % 2 == 0 ? .play(id) : .pause(id), at: .frame(start + Int64(k * 25_000 + 100)))
        }
        let mallocs = countMallocs {
            for _ in 0..<4_000 {
                input.write(UnsafeBufferPointer(block))
                engine.render(into: out, frameCount: 256)
                _ = input.readRecorded(into: drain)
            }
        }
        #expect(mallocs == 0)
        #expect(input.droppedRecordedFrames == 0 && engine.status(id)?.underrunFrames == 0)
    }
}
