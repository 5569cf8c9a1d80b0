import Foundation
import Glibc
import Testing

@testable import TuttiPipeWire

/// `BusFeed`'s overflow handshake between a real producer thread (main's callback: `push`) and
/// a real consumer thread (the bus stream's: `pull`), with a small ring and a consumer that
/// stalls now and then, so the ring overflows again and again while both run: the producer
/// asks for the discard and the consumer drops the older frames at once with the producer
/// writing. Every frame carries its number: what plays is in order (a discard skips ahead, it
/// never goes back or plays a frame twice), and every frame made is played or dropped. Run
/// under `--sanitize=thread` too (filter `RingStress`).
@Suite struct BusFeedRingStressTests {
    @Test func overflowsWhileBothSidesRunKeepOrderAndCountEveryFrame() throws {
        let chunk = 256
        let pushes = 20_000 // 5 120 000 frames: each number exact in a Float (below 2^24)
        let feed = BusFeed(
            name: "cue", index: 1, destination: "sink", channelCount: 2, sampleRate: 48_000, maximumChunkFrames: chunk,
            ringFrames: 4_096, controllerPeriod: chunk)
        let finished = DispatchSemaphore(value: 0)
        let producer = Thread {
            let input = UnsafeMutablePointer<Float>.allocate(capacity: chunk * 2)
            defer { input.deallocate() }
            for p in 0..<pushes {
                for i in 0..<chunk {
                    let n = Float(p * chunk + i + 1)
                    input[2 * i] = n
                    input[2 * i + 1] = n
                }
                // No `measure`: the ratio stays 1 and frames pass bit for bit.
                feed.push(input, frameCount: chunk)
                // About a chunk per 60 µs: the consumer keeps up, but for its stalls.
                usleep(20)
            }
            finished.signal()
        }
        producer.start()
        let output = UnsafeMutablePointer<Float>.allocate(capacity: chunk * 2)
        defer { output.deallocate() }
        var last: Float = 0
        var played: Int64 = 0
        var outOfOrder = 0
        var skips = 0
        var pulls = 0
        var producerDone = false
        while true {
            if !producerDone, finished.wait(timeout: .now()) == .success { producerDone = true }
            // Once the producer is done: what is left plays out (draining), then it ends.
            if producerDone, feed.fill == 0 { break }
            feed.pull(into: output, frameCount: chunk, mainCycle: chunk, now: 0, draining: producerDone)
            for i in 0..<chunk {
                let n = output[2 * i]
                guard n != 0 else { continue } // silence: not primed yet, or an underrun
                if n <= last || output[2 * i + 1] != n { outOfOrder += 1 }
                if n > last + 1 { skips += 1 }
                last = n
                played += 1
            }
            pulls += 1
            // Stall now and then (the producer overflows the ring meanwhile), else keep pace.
            usleep(pulls % 200 == 0 ? 3_000 : 20)
        }
        let dropped = feed.correction.framesDropped.load(ordering: .relaxed)
        print("BusFeed ring stress: \(played) frames played, \(dropped) dropped, \(skips) skips, \(pulls) pulls")
        #expect(outOfOrder == 0, "\(outOfOrder) frames out of order")
        #expect(played == feed.framesPlayed.load(ordering: .relaxed))
        #expect(played + dropped == Int64(pushes * chunk), "played \(played) + dropped \(dropped)")
        #expect(feed.correction.framesCorrected.load(ordering: .relaxed) == 0)
        #expect(dropped > 0 && skips > 0, "the ring never overflowed")
    }
}
