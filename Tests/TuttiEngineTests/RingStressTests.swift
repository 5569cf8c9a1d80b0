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
                    frame: Int64(i), sequence: UInt64(i),
                    action: .command(
                        .setSourceGain(
                            SourceID(rawValue: UInt64(i)), gain: Float(i & 0xFFFF), rampFrames: Int32(truncatingIfNeeded: i >> 3))))
                while !ring.push(c) { RingStressTests.backoff(&spins) }
            }
        }
        var received = 0
        var firstBad: Int?
        var c = RenderCommand(frame: 0, sequence: 0, action: .command(.setMasterVolume(gain: 0, rampFrames: 0)))
        var spins = 0
        while received < total {
            guard ring.pop(into: &c) else {
                RingStressTests.backoff(&spins)
                continue
            }
            if firstBad == nil {
                let i = received
                if c.frame != Int64(i) || c.sequence != UInt64(i) { firstBad = i }
                if case .command(.setSourceGain(let id, let gain, let ramp)) = c.action {
                    if id.rawValue != UInt64(i) || gain != Float(i & 0xFFFF) || ramp != Int32(truncatingIfNeeded: i >> 3) {
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
                        ? .sourceEnded(SourceID(rawValue: UInt64(i))) : .sourceHalted(SourceID(rawValue: ~UInt64(i))))
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
                var ok = e.frame == Int64(i)
                switch e.kind {
                case .sourceEnded(let id): ok = ok && i & 1 == 0 && id.rawValue == UInt64(i)
                case .sourceHalted(let id): ok = ok && i & 1 == 1 && id.rawValue == ~UInt64(i)
                default: ok = false
                }
                if !ok { firstBad = i }
            }
            received += 1
        }
        producer.join()
        #expect(received == total)
        #expect(firstBad == nil)
        #expect(ring.pop() == nil)
    }

    /// The render side's pending heap against a sorted reference: random frames (many equal),
    /// pops in (frame, sequence) order.
    @Test func pendingCommandsPopInFrameThenSequenceOrder() {
        var heap = PendingCommands(capacity: 1024)
        defer { heap.deallocate() }
        var rng = SystemRandomNumberGenerator()
        var reference: [(Int64, UInt64)] = []
        var popped: [(Int64, UInt64)] = []
        var sequence: UInt64 = 0
        for round in 0..<200 {
            for _ in 0..<Int.random(in: 0...20, using: &rng) where heap.count < heap.capacity {
                sequence += 1
                let frame = Int64.random(in: 0...40, using: &rng) + Int64(round)
                let pushed = heap.push(
                    RenderCommand(frame: frame, sequence: sequence, action: .command(.setMasterVolume(gain: 1, rampFrames: 0))))
                #expect(pushed)
                reference.append((frame, sequence))
            }
            for _ in 0..<Int.random(in: 0...15, using: &rng) where !heap.isEmpty {
                let c = heap.pop()
                popped.append((c.frame, c.sequence))
                let i = reference.indices.min { reference[$0] < reference[$1] }!
                #expect(reference[i] == (c.frame, c.sequence))
                reference.remove(at: i)
            }
        }
        #expect(!popped.isEmpty)
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
