import Testing
import TuttiTestSupport

@testable import TuttiEngine

/// `SampleRing` through `SampleRingBuffer` (what a backend's feed between two callbacks
/// uses): what is written comes out in order, whole, across the wrap, and a full ring takes
/// no more than its capacity.
@Suite struct SampleRingTests {
    @Test func readCopiesAcrossTheWrapInOrder() {
        let buffer = SampleRingBuffer(capacity: 100) // rounded up to 128 samples
        let ring = buffer.ring
        defer { withExtendedLifetime(buffer) {} }
        #expect(ring.indices.capacity == 128)
        var next: Float = 0
        var expected: Float = 0
        var out = [Float](repeating: -1, count: 128)
        // Chunks of 90 written and 70 read: the read position crosses the wrap in most rounds.
        for round in 0..<40 {
            let chunk = (0..<90).map { Float($0) + next }
            let stored = chunk.withUnsafeBufferPointer { ring.write(from: $0.baseAddress!, count: 90) }
            next += Float(stored)
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, count: 70) }
            #expect(got == min(70, ring.indices.count + got), "round \(round)")
            for i in 0..<got {
                #expect(out[i] == expected, "round \(round), sample \(i)")
                expected += 1
            }
        }
        // What is left comes out whole, then nothing.
        let left = ring.indices.count
        let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, count: 128) }
        #expect(got == left)
        for i in 0..<got { #expect(out[i] == expected + Float(i)) }
        #expect(out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, count: 8) } == 0)
    }

    @Test func aFullRingTakesNoMoreThanItsCapacity() {
        let buffer = SampleRingBuffer(capacity: 64)
        let ring = buffer.ring
        defer { withExtendedLifetime(buffer) {} }
        let samples = [Float](repeating: 0.5, count: 100)
        #expect(samples.withUnsafeBufferPointer { ring.write(from: $0.baseAddress!, count: 100) } == 64)
        #expect(samples.withUnsafeBufferPointer { ring.write(frames: $0.baseAddress!, frameCount: 2, channelCount: 2) } == 0)
    }
}
