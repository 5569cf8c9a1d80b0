import Foundation
import Glibc
import Testing
import Tutti
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// The engine driven by the backend's render thread while this (control) thread streams
/// commands and drains events: the result must not depend on how the two threads
/// interleave. Run under `--sanitize=thread` too (filter `EngineThread`).
@Suite struct EngineThreadTests {
    static let frames = 96_000

    /// A dense command stream: one command every 10 frames, far more than the ring holds.
    static let stream: [(frame: Int64, command: EngineCommand)] = (0..<9_600).map { k in
        let frame = Int64(10 * k + 5)
        switch k {
        case 0: return (frame, .play(SourceID(slot: 1, generation: 1)))
        case 1: return (frame, .play(SourceID(slot: 2, generation: 1)))
        default: break
        }
        let x = Double(k)
        switch k % 4 {
        case 0: return (frame, .setSourceGain(SourceID(slot: 0, generation: 1), gain: Float(0.2 + 0.1 * sin(x)), rampFrames: 7))
        case 1: return (frame, .setBusGain(BusID(slot: 1, generation: 1), gain: Float(0.5 + 0.3 * cos(x)), rampFrames: 9))
        case 2: return (frame, .setSourceGain(SourceID(slot: 2, generation: 1), gain: Float(0.4 + 0.2 * sin(x / 3)), rampFrames: 3))
        default: return (frame, .setBusDuck(BusID(slot: 0, generation: 1), targetDB: -Float(k % 12), dBPerFrame: 0.01))
        }
    }

    static func offline() throws -> [Float] {
        let engine = try makeEngine(scheduleChanges: false, commandCapacity: 512)
        var out = [Float](repeating: 0, count: frames * 2)
        var next = 0
        var done = 0
        try out.withUnsafeMutableBufferPointer { p in
            while done < frames {
                let n = min(333, frames - done)
                while next < stream.count, stream[next].frame < Int64(done + n) {
                    try engine.send(stream[next].command, at: .frame(stream[next].frame))
                    next += 1
                }
                engine.render(into: p.baseAddress! + done * 2, frameCount: n)
                engine.pollEvents()
                done += n
            }
        }
        return out
    }

    @Test func commandsStreamedFromTheControlThreadLandOnTheirFrames() throws {
        let device = MockDevice(uniqueName("engine-thread"))
        device.pace = 4 * 48_000
        let engine = try makeEngine(scheduleChanges: false, commandCapacity: 512)
        let output = try ALSAOutput(engine: engine, configuration: mockConfiguration(device.name), functions: .mock, log: { _ in })
        let stream = EngineThreadTests.stream
        var next = 0
        var ringWasFull = false
        output.renderHorizon = 0
        try output.start(frameLimit: Int64(EngineThreadTests.frames))
        let deadline = monotonic() + 30
        while !output.isFinished, monotonic() < deadline {
            while next < stream.count {
                do { try engine.send(stream[next].command, at: .frame(stream[next].frame)) } catch {
                    ringWasFull = true
                    break
                }
                next += 1
            }
            output.renderHorizon = next < stream.count ? stream[next].frame : .max
            engine.pollEvents()
            usleep(100)
        }
        #expect(output.waitUntilFinished(timeoutSeconds: 1))
        output.stop(drain: true)
        engine.pollEvents()
        #expect(next == stream.count)
        #expect(ringWasFull, "the ring should have filled, or this tests little")
        #expect(firstDifference(device.floats, try EngineThreadTests.offline()) == nil)
    }

    @Test func renderEventsReachTheControlThreadWithTheirFrames() throws {
        let device = MockDevice(uniqueName("engine-events"))
        device.pace = 4 * 48_000
        let engine = try makeEngine(scheduleChanges: false)
        let blip = AudioBuffer(interleaved: [Float](repeating: 0.1, count: 2 * 4_801), channelCount: 2, sampleRate: 48_000)
        let bus = try engine.addBus()
        let s = try engine.addSource(.buffer(blip), bus: bus)
        try engine.send(.play(s), at: .frame(10_000))
        try engine.send(.play(s), at: .frame(30_000))
        let output = try ALSAOutput(engine: engine, configuration: mockConfiguration(device.name), functions: .mock, log: { _ in })
        try output.start(frameLimit: 48_000)
        var ended: [Int64] = []
        let deadline = monotonic() + 20
        while !output.isFinished, monotonic() < deadline {
            for e in engine.pollEvents() { if case .sourceEnded(let id) = e.kind, id == s { ended.append(e.frame) } }
            usleep(500)
        }
        output.stop()
        for e in engine.pollEvents() { if case .sourceEnded(let id) = e.kind, id == s { ended.append(e.frame) } }
        #expect(ended == [14_801, 34_801])
    }
}
