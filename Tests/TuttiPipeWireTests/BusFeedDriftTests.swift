import Synchronization
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiPipeWire

/// `BusFeed` between a producer (main's callback: 1024 frames per cycle at 48 kHz) and a
/// consumer (the bus stream's callback) on another clock, simulated: the clock correction
/// keeps the ring from running dry or filling up, and its ratio settles at the clocks' ratio;
/// on one clock it stays exactly 1.
@Suite struct BusFeedDriftTests {
    /// One of main's cycles in `run`'s trace: when, the correction's ratio and the frames
    /// dropped so far.
    struct Sample {
        var seconds: Double
        var ratio: Double
        var dropped: Int64
    }

    /// Runs `seconds` of simulated time with the bus's clock `drift` faster (negative: slower)
    /// than main's, the bus stream not called during `stall` (from `at`, for `seconds`); returns
    /// the feed, the mean ring fill (after main's cycles) over the first and the last 10 s of the
    /// second half, the frames main rendered and the trace of main's cycles.
    static func run(drift: Double, seconds: Double, stall: (at: Double, seconds: Double)? = nil) -> (
        feed: BusFeed, early: Double, late: Double, rendered: Int64, trace: [Sample]
    ) {
        let cycle = 1_024
        let feed = BusFeed(
            name: "cue", index: 1, destination: "sink", channelCount: 2, sampleRate: 48_000, maximumChunkFrames: cycle,
            ringFrames: StreamCore.busRingFrames, controllerPeriod: cycle)
        let input = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        defer {
            input.deallocate()
            output.deallocate()
        }
        input.initialize(repeating: 0.25, count: cycle * 2)
        let mainPeriod = Double(cycle) / 48_000
        let busPeriod = mainPeriod / (1 + drift)
        // The bus stream's cycles start half a cycle after main's (another driver's phase).
        var nextMain = 0.0
        var nextBus = mainPeriod / 2
        var early = (sum: 0.0, count: 0.0)
        var late = (sum: 0.0, count: 0.0)
        var rendered: Int64 = 0
        var trace: [Sample] = []
        while min(nextMain, nextBus) < seconds {
            if nextMain <= nextBus {
                feed.push(input, frameCount: cycle)
                feed.measure(cycleFrames: cycle, now: UInt64(nextMain * 1e9))
                rendered += Int64(cycle)
                if stall != nil {
                    trace.append(
                        Sample(seconds: nextMain, ratio: feed.clockRatio, dropped: feed.correction.framesDropped.load(ordering: .relaxed)))
                }
                if nextMain >= seconds / 2, nextMain < seconds / 2 + 10 { early = (early.sum + Double(feed.fill), early.count + 1) }
                if nextMain >= seconds - 10 { late = (late.sum + Double(feed.fill), late.count + 1) }
                nextMain += mainPeriod
            } else {
                if let stall, nextBus >= stall.at, nextBus < stall.at + stall.seconds {
                    // Stalled: the bus stream's callback is not called.
                } else {
                    feed.pull(into: output, frameCount: cycle, mainCycle: cycle, now: UInt64(nextBus * 1e9))
                }
                nextBus += busPeriod
            }
        }
        return (feed, early.sum / max(early.count, 1), late.sum / max(late.count, 1), rendered, trace)
    }

    @Test(arguments: [0.001, -0.001])
    func aBusOnAnotherClockNeitherRunsDryNorOverflows(drift: Double) {
        let (feed, early, late, _, _) = Self.run(drift: drift, seconds: 120)
        #expect(feed.framesInserted.load(ordering: .relaxed) == 0, "inserted")
        #expect(feed.correction.framesDropped.load(ordering: .relaxed) == 0, "dropped")
        #expect(feed.underruns.load(ordering: .relaxed) == 0)
        // Settled within 50 ppm of the clocks' ratio.
        #expect(abs(feed.clockRatio - (1 + drift)) < 50e-6, "ratio \(feed.clockRatio)")
        // Locked: the fill holds steady (uncorrected, 0.1 % would move it 48 frames a second,
        // 2 880 frames between the two windows; the ring's own fill also moves with the two
        // clocks' phase, which the controller's measure takes out).
        #expect(abs(late - early) < 256, "fill \(early) → \(late)")
        print(
            "BusFeed drift \(drift): ratio \(feed.clockRatio), corrected \(feed.correction.framesCorrected.load(ordering: .relaxed)) frames, fill \(early) → \(late)"
        )
    }

    /// A stall is not drift, and an overflow keeps the newest frames: the bus stream is not
    /// called for a second at 25 s (its ring, 32 768 frames, overflows: frames dropped), then
    /// goes on. The ring's older frames are discarded, so its fill goes back to what the stream
    /// primes rather than a full ring: nothing overflows again afterwards (when the newest were
    /// dropped instead, the fill stayed at the ring's edge and overflowed again: 1 to 276 times,
    /// 280 to 735 frames, over the next 34 s), the ring never runs dry, and the correction keeps its
    /// ratio (within 50 ppm of the clocks' from 20 s on, re-anchoring after the stall; within
    /// 20 ppm at the end); on main's clock nothing is resampled. Every frame made is played,
    /// waiting or dropped.
    @Test(arguments: [-0.001, -0.004, 0.001, 0])
    func aBusThatStallsKeepsItsRatioAndTheNewestFrames(drift: Double) {
        let stall = (at: 25.0, seconds: 1.0)
        let (feed, _, late, rendered, trace) = Self.run(drift: drift, seconds: 60, stall: stall)
        let truth = 1 + drift
        let judged = trace.filter { $0.seconds >= 20 }
        let worstPPM = judged.map { abs($0.ratio - truth) * 1e6 }.max() ?? .infinity
        let after = trace.filter { $0.seconds >= stall.at + stall.seconds + 0.1 }
        let overflowsLater = zip(after, after.dropFirst()).filter { $0.1.dropped > $0.0.dropped }.count
        let droppedLater = (after.last?.dropped ?? 0) - (after.first?.dropped ?? 0)
        let droppedAtStall = (after.first?.dropped ?? 0) - (trace.last { $0.seconds < stall.at }?.dropped ?? 0)
        let dropped = feed.correction.framesDropped.load(ordering: .relaxed)
        let corrected = feed.correction.framesCorrected.load(ordering: .relaxed)
        print(
            "BusFeed stall, drift \(drift): ratio \(feed.clockRatio) (true \(truth)), worst \(worstPPM) ppm from 20 s; \(droppedAtStall) frames dropped at the stall, \(overflowsLater) overflows (\(droppedLater) frames) later; underruns \(feed.underruns.load(ordering: .relaxed)), fill over the last 10 s \(late)"
        )
        #expect(droppedAtStall > 0, "the stall did not overflow the ring")
        #expect(overflowsLater == 0 && droppedLater == 0, "\(overflowsLater) overflows (\(droppedLater) frames) after the stall")
        #expect(late < 8_192, "the ring stayed full: \(late) frames")
        #expect(feed.underruns.load(ordering: .relaxed) == 0 && feed.framesInserted.load(ordering: .relaxed) == 0)
        #expect(feed.framesPlayed.load(ordering: .relaxed) + Int64(feed.fill) + dropped == rendered + corrected)
        if drift == 0 {
            #expect(trace.allSatisfy { $0.ratio == 1 } && corrected == 0)
        } else {
            #expect(worstPPM < 50, "ratio off by \(worstPPM) ppm from 20 s on")
            #expect(abs(feed.clockRatio - truth) < 20e-6, "ratio \(feed.clockRatio)")
        }
    }

    @Test func aBusOnMainsClockIsNeverResampled() {
        let feed = Self.run(drift: 0, seconds: 60).feed
        #expect(feed.clockRatio == 1)
        #expect(feed.correction.framesCorrected.load(ordering: .relaxed) == 0)
        #expect(feed.framesInserted.load(ordering: .relaxed) == 0 && feed.correction.framesDropped.load(ordering: .relaxed) == 0)
    }

    /// Main's callback with a bus (render every bus, feed the ring, measure) and the bus
    /// stream's callback (read the ring) allocate nothing once running; the bus's buffer holds
    /// cue's tone (1 kHz, 0.25), main's holds main's (0.5).
    @Test func theCallbacksAllocateNothing() throws {
        let (engine, _, _) = try twoRouteToneEngine()
        let core = StreamCore(renderer: engine.renderer, scope: nil, busDestinations: [("cue", "sink")], busPeriodFrames: 1_024)
        core.clock.phase.store(.rendering, ordering: .releasing)
        let cycle = 1_024
        let main = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        let bus = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        defer {
            main.deallocate()
            bus.deallocate()
        }
        for _ in 0..<8 {
            core.process(into: main, frameCount: cycle, renderer: engine.renderer)
            core.pullBus(0, into: bus, frameCount: cycle)
        }
        let mallocs = countMallocs {
            for _ in 0..<200 {
                core.process(into: main, frameCount: cycle, renderer: engine.renderer)
                core.pullBus(0, into: bus, frameCount: cycle)
            }
        }
        #expect(mallocs == 0)
        let busPeak = (0..<cycle).map { abs(bus[2 * $0]) }.max() ?? 0
        let mainPeak = (0..<cycle).map { abs(main[2 * $0]) }.max() ?? 0
        #expect(abs(busPeak - 0.25) < 0.01, "bus peak \(busPeak)")
        #expect(abs(mainPeak - 0.5) < 0.01, "main peak \(mainPeak)")
        #expect(
            core.feeds[0].framesInserted.load(ordering: .relaxed) == 0
                && core.feeds[0].correction.framesDropped.load(ordering: .relaxed) == 0)
    }

    /// A session feed retired and reused: main's callback retires it (`ending`) when its bus is
    /// removed, allocating nothing; freed and taken for another session (on this thread, as the
    /// supervisor and the control thread do), the same feed plays the new session's bus (its
    /// tone, 500 Hz at 0.2, in the stream's buffer) from the callbacks, allocating nothing; no
    /// feed is built.
    @Test func aRetiredSessionFeedIsReusedWithoutAllocating() throws {
        let engine = try Engine()
        let first = try engine.addBus()
        try engine.send(.play(try engine.addSource(.tone(frequency: 1_000, amplitude: 0.25), bus: first, loop: true)))
        let core = StreamCore(
            renderer: engine.renderer, scope: nil, sessionStreams: [SessionStream(name: "a", bus: first, mediaRole: "Music")],
            perSession: true)
        core.clock.phase.store(.rendering, ordering: .releasing)
        let cycle = 1_024
        let main = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        let stream = UnsafeMutablePointer<Float>.allocate(capacity: cycle * 2)
        defer {
            main.deallocate()
            stream.deallocate()
        }
        func cycles(_ n: Int) {
            for _ in 0..<n {
                core.process(into: main, frameCount: cycle, renderer: engine.renderer)
                core.pullBus(0, into: stream, frameCount: cycle)
            }
        }
        cycles(8)
        let feed = core.feeds[0]
        #expect(feed.use.load(ordering: .acquiring) == BusFeed.Use.live && feed.sessionPlaying)
        try engine.removeBus(first)
        let retiring = countMallocs { cycles(8) }
        #expect(retiring == 0)
        #expect(feed.isEnding)
        core.release(0)
        let second = try engine.addBus()
        try engine.send(.play(try engine.addSource(.tone(frequency: 500, amplitude: 0.2), bus: second, loop: true)))
        let k = core.prepareSessionFeed(name: "b", bus: second)
        #expect(k == 0)
        core.makeLive(0)
        let reused = countMallocs { cycles(40) }
        #expect(reused == 0)
        #expect(core.feedCount.load(ordering: .acquiring) == 1)
        #expect(feed.name == "b" && feed.sessionPlaying && feed.use.load(ordering: .acquiring) == BusFeed.Use.live)
        let peak = (0..<cycle).map { abs(stream[2 * $0]) }.max() ?? 0
        let tone = Analysis.toneAmplitude((0..<cycle).map { Double(stream[2 * $0]) }[...], frequency: 500, sampleRate: 48_000)
        #expect(abs(peak - 0.2) < 0.01, "the reused feed's stream: peak \(peak)")
        #expect(abs(tone - 0.2) < 0.02, "the reused feed's stream: 500 Hz at \(tone)")
    }
}
