import Testing

@testable import TuttiALSA

/// `ConsumptionWatch` on scripted observations: a server taking 48 kHz in 256-frame blocks,
/// seen every 5 ms by the render thread.
struct ConsumptionWatchTests {
    /// Observations every 5 ms for `seconds`; `consumedAt` gives the frames consumed at a time
    /// (ns). Returns the steps reported (frames).
    func run(seconds: Double, periodFrames: Int = 256, _ consumedAt: (Int64) -> Int64) -> [Int64] {
        var watch = ConsumptionWatch(sampleRate: 48_000, periodFrames: periodFrames, bufferFrames: 4 * periodFrames)
        var steps: [Int64] = []
        var now: Int64 = 1_000_000_000
        let end = now + Int64(seconds * 1e9)
        while now < end {
            let step = watch.observe(now: now, consumed: consumedAt(now - 1_000_000_000))
            if step > 0 { steps.append(step) }
            now += 5_000_000
        }
        return steps
    }

    /// Frames a sink taking 256-frame blocks has consumed after `t` ns (at `ppm` off 48 kHz),
    /// seen `lag` ns late.
    func blocks(_ t: Int64, ppm: Double = 0, lag: Int64 = 0) -> Int64 {
        let frames = Double(max(0, t - lag)) * 48_000 * (1 + ppm / 1e6) / 1e9
        return Int64(frames) / 256 * 256
    }

    @Test func steadyConsumptionIsNoStep() {
        #expect(run(seconds: 10) { blocks($0) }.isEmpty)
    }

    @Test func aLateUpdateThatCatchesUpIsNoStep() {
        // The plugin's updates 30 ms late for 40 ms (its mainloop thread held), then on time.
        let steps = run(seconds: 3) { t in blocks(t, lag: t > 1_000_000_000 && t < 1_040_000_000 ? 30_000_000 : 0) }
        #expect(steps.isEmpty)
    }

    @Test func driftIsFollowedNotCounted() {
        #expect(run(seconds: 60) { blocks($0, ppm: -300) }.isEmpty)
        #expect(run(seconds: 60) { blocks($0, ppm: 300) }.isEmpty)
    }

    @Test func aSilenceOfAPeriodOrMoreIsOneStep() {
        // The server stops taking frames for 1024 frames' time at 1 s (it plays silence).
        let silence: Int64 = 1024 * 1_000_000_000 / 48_000
        let steps = run(seconds: 3) { t in t < 1_000_000_000 ? blocks(t) : blocks(max(1_000_000_000, t - silence)) }
        #expect(steps.count == 1)
        #expect(steps.allSatisfy { abs($0 - 1024) <= 256 }, "\(steps)")
        // Wherever it falls against the windows.
        for offset in stride(from: Int64(0), to: 50_000_000, by: 7_000_000) {
            let at = 1_000_000_000 + offset
            let found = run(seconds: 3) { t in t < at ? blocks(t) : blocks(max(at, t - silence)) }
            #expect(found.count == 1 && abs(found[0] - 1024) <= 256, "silence at +\(offset / 1_000_000) ms: \(found)")
        }
        // 256 frames (one sink block) too.
        let short: Int64 = 256 * 1_000_000_000 / 48_000
        #expect(run(seconds: 3) { t in t < 1_000_000_000 ? blocks(t) : blocks(max(1_000_000_000, t - short)) }.count == 1)
    }

    @Test func theFirstWindowsAfterAStartAreNotCompared() {
        // The stream starting: nothing consumed for 30 ms, then steady.
        #expect(run(seconds: 2) { blocks(max(0, $0 - 30_000_000)) }.isEmpty)
    }
}
