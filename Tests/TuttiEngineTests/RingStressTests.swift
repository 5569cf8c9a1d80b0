import Foundation
import Glibc
import Testing

@testable import TuttiEngine

/// 10^7 items through each of the engine's rings, a real producer thread against a real
/// consumer thread, with a small ring so it wraps and fills constantly: nothing lost,
/// nothing reordered, payloads intact. Run under `--sanitize=thread` too (filter `RingStress`).
@Suite struct RingStressTests {
    static let items = 10_000_000

    /// Spin politely: two cores, and the other side may be descheduled.
    @inline(__always) static func backoff(_ spins: inout Int) {
        spins += 1
        if spins > 64 {
            sched_yield()
            spins = 0
        }
    }

    @Test func commandRingKeepsEveryCommandInOrder() throws {
        let storage = RingStorage<RenderCommand>(capacity: 256)
        let ring = CommandRing(storage)
        let total = RingStressTests.items
        let producer = try TestThread {
            var spins = 0
            for i in 0..<total {
                let c = RenderCommand(
                    at: Int64(i),
                    .setSourceGain(
                        SourceID(Int32(truncatingIfNeeded: i)), gain: Float(i & 0xFFFF), rampFrames: Int32(truncatingIfNeeded: i >> 3)))
                while !ring.push(c) { RingStressTests.backoff(&spins) }
            }
        }
        var received = 0
        var firstBad: Int?
        var c = RenderCommand(.setMasterVolume(gain: 0, rampFrames: 0))
        var spins = 0
        while received < total {
            guard ring.pop(into: &c) else {
                RingStressTests.backoff(&spins)
                continue
            }
            if firstBad == nil {
                let i = received
                if c.frame != Int64(i) { firstBad = i }
                if case .setSourceGain(let id, let gain, let ramp) = c.action {
                    if id.index != Int32(truncatingIfNeeded: i) || gain != Float(i & 0xFFFF) || ramp != Int32(truncatingIfNeeded: i >> 3) {
                        firstBad = i
                    }
                } else {
                    firstBad = i
                }
            }
            received += 1
        }
        producer.join()
        #expect(received == total)
        #expect(firstBad == nil)
        #expect(!ring.pop(into: &c), "nothing extra")
    }

    @Test func eventRingKeepsEveryEventInOrder() throws {
        let storage = RingStorage<RenderEvent>(capacity: 256)
        let ring = EventRing(storage)
        let total = RingStressTests.items
        let producer = try TestThread {
            var spins = 0
            for i in 0..<total {
                let e = RenderEvent(
                    frame: Int64(i),
                    kind: i & 1 == 0
                        ? .sourceEnded(SourceID(Int32(truncatingIfNeeded: i))) : .sourceHalted(SourceID(Int32(truncatingIfNeeded: ~i))))
                while !ring.push(e) { RingStressTests.backoff(&spins) }
            }
        }
        var received = 0
        var firstBad: Int?
        var spins = 0
        while received < total {
            guard let e = ring.pop() else {
                RingStressTests.backoff(&spins)
                continue
            }
            if firstBad == nil {
                let i = received
                let expected: RenderEvent.Kind =
                    i & 1 == 0
                    ? .sourceEnded(SourceID(Int32(truncatingIfNeeded: i))) : .sourceHalted(SourceID(Int32(truncatingIfNeeded: ~i)))
                if e.frame != Int64(i) || e.kind != expected { firstBad = i }
            }
            received += 1
        }
        producer.join()
        #expect(received == total)
        #expect(firstBad == nil)
        #expect(ring.pop() == nil)
    }
}

/// A joinable pthread for tests (Foundation's Thread has no join). Owned by the test that starts it.
final class TestThread: @unchecked Sendable {
    private var thread = pthread_t()
    private final class Box {
        let body: () -> Void
        init(_ b: @escaping () -> Void) { body = b }
    }

    init(_ body: @escaping () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(
            &thread, nil,
            { arg in
                Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
                return nil
            }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL)
        }
    }

    func join() { pthread_join(thread, nil) }
}
