import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// Clock correction of a route past main (`ALSAOutputConfiguration.busClockCorrection`):
/// main's mock PCM plays at 48 000 frames per simulated second, cue's at 0.1 % more or less,
/// both on one simulated clock (no real-time sleeps: a minute runs as fast as the render
/// thread), through the whole ALSA output (render thread, route ring, supervisor).
@Suite struct RouteDriftTests {
    @Test(arguments: [0.001, -0.001])
    func aRouteOnAFasterOrSlowerClockStaysLockedWithoutGaps(drift: Double) throws {
        let clock = SimulatedClock()
        let main = MockDevice(uniqueName("drift-main"))
        main.pace = 48_000
        main.clock = clock
        let cue = MockDevice(uniqueName("drift-cue"))
        cue.pace = 48_000 * (1 + drift)
        cue.clock = clock
        var config = mockConfiguration(main.name)
        config.busDevices = [cue.name]
        let c = Collector()
        let (engine, _, _) = try twoRouteToneEngine()
        let output = try ALSAOutput(engine: engine, configuration: config, functions: .mock, log: c.log, onEvent: c.onEvent)
        let seconds = 60.0
        let frames = Int(seconds * 48_000)
        let started = monotonic()
        try output.start(frameLimit: Int64(frames))
        // The ratio as it goes, against simulated time.
        var trace: [(seconds: Double, ratio: Double)] = []
        while !output.isFinished && monotonic() - started < 600 {
            trace.append((clock.seconds, output.buses[1].clockRatio))
            usleep(500)
        }
        let finished = output.waitUntilFinished(timeoutSeconds: 1)
        let elapsed = monotonic() - started
        output.stop(drain: false)
        #expect(finished)
        let status = output.buses[1]
        let truth = 1 + drift
        let locked = trace.filter { $0.seconds >= 20 }
        let worstPPM = locked.map { abs($0.ratio - truth) * 1e6 }.max() ?? .infinity
        let lockIn = trace.indices.first { i in trace[i...].allSatisfy { abs($0.ratio - truth) < 20e-6 } }.map { trace[$0].seconds }
        print(
            String(
                format:
                    "route drift %+.1f %%: %.0f s simulated in %.1f s; ratio %.6f (true %.6f), worst %.2f ppm after 20 s (%d samples), within 20 ppm from %.1f s; cue %lld written, %lld dropped, %lld corrected, %d underruns",
                drift * 100, clock.seconds, elapsed, status.clockRatio, truth, worstPPM, locked.count, lockIn ?? -1,
                status.framesWritten, status.framesDropped, status.framesCorrected, cue.underrunTimes.count))
        // Nothing dropped, never ran dry, main untouched.
        #expect(status.framesDropped == 0)
        #expect(cue.underrunTimes.isEmpty, "cue ran dry at \(cue.underrunTimes.prefix(5)) s")
        #expect(status.xrunCount == 0 && output.xrunCount == 0)
        #expect(main.underrunTimes.isEmpty)
        #expect(output.framesWritten == Int64(frames))
        // Locked: the ratio within 20 ppm of the clocks' ratio from 20 s on, and at the end.
        #expect(locked.count > 10)
        #expect(worstPPM < 20, "ratio off by \(worstPPM) ppm after 20 s")
        #expect(abs(status.clockRatio - truth) < 20e-6)
        // The correction made up the difference: about drift × frames, minus what waits in the ring.
        let expected = Double(frames) * drift
        #expect(abs(Double(status.framesCorrected) - expected) < 1_500, "corrected \(status.framesCorrected), drift × frames \(expected)")
        #expect(status.framesWritten + status.framesDropped <= Int64(frames) + status.framesCorrected)

        // The cue tone (1 kHz) is one continuous sine on cue's PCM: before, through and after
        // lock-in, at 1 kHz of main's frames, i.e. 1000 / ratio cycles per 48 000 of cue's
        // (during lock-in the ratio is within 0.05 % of the clocks': a residual below 1e-5).
        let data = cue.floats
        let left = stride(from: 0, to: data.count, by: 2).map { Double(data[$0]) }
        #expect(left.count > frames * 99 / 100)
        let start = 48_000 // after the first second (the tone starts at frame 0)
        let amplitude = left[start...].map(abs).max() ?? 0
        var worst = 0.0
        var worstAt = 0
        var quietest = Double.infinity
        for n in (start + 1)..<(left.count - 1) {
            let seconds = Double(n) / 48_000
            // The ratio in force: 1 before the loop engaged (about 3 s), the clocks' ratio once locked.
            let ratio = seconds < 2 ? 1 : truth
            let w = 2 * Double.pi * 1_000 / 48_000 / ratio
            let residual = abs(left[n + 1] + left[n - 1] - 2 * cos(w) * left[n])
            if residual > worst {
                worst = residual
                worstAt = n
            }
        }
        for window in stride(from: start, to: left.count - 480, by: 480) {
            quietest = min(quietest, left[window..<(window + 480)].map(abs).max() ?? 0)
        }
        print(
            String(
                format:
                    "route drift %+.1f %%: cue tone amplitude %.4f, quietest 10 ms %.4f, worst sine residual from 1 s on %.2e (frame %d)",
                drift * 100, amplitude, quietest, worst, worstAt))
        #expect(amplitude > 0.1)
        #expect(quietest > amplitude * 0.99, "a 10 ms stretch peaks at \(quietest), the tone at \(amplitude)")
        // A lost or repeated frame leaves a residual of about 0.01 at this level.
        #expect(worst < 1e-4, "discontinuity at frame \(worstAt): \(worst)")
    }

    /// Two mock PCMs on one simulated clock, cue's `drift` faster; played for `seconds`.
    func play(drift: Double, seconds: Double, configure: (inout ALSAOutputConfiguration) -> Void = { _ in }) throws -> (
        output: ALSAOutput, cue: MockDevice, finished: Bool
    ) {
        let clock = SimulatedClock()
        let main = MockDevice(uniqueName("drift-main"))
        main.pace = 48_000
        main.clock = clock
        let cue = MockDevice(uniqueName("drift-cue"))
        cue.pace = 48_000 * (1 + drift)
        cue.clock = clock
        var config = mockConfiguration(main.name)
        config.busDevices = [cue.name]
        configure(&config)
        let (engine, _, _) = try twoRouteToneEngine()
        let output = try ALSAOutput(engine: engine, configuration: config, functions: .mock, log: { _ in })
        try output.start(frameLimit: Int64(seconds * 48_000))
        let finished = output.waitUntilFinished(timeoutSeconds: 600)
        output.stop(drain: false)
        return (output, cue, finished)
    }

    /// Without correction (`busClockCorrection = false`) the same drift is what it was: a
    /// slower PCM drops frames, a faster one runs dry — what the correction prevents above.
    @Test func withoutCorrectionASlowerRouteDropsAndAFasterOneRunsDry() throws {
        let slow = try play(drift: -0.001, seconds: 30) { $0.busClockCorrection = false }
        let fast = try play(drift: 0.001, seconds: 30) { $0.busClockCorrection = false }
        #expect(slow.finished && fast.finished)
        let s = slow.output.buses[1]
        let f = fast.output.buses[1]
        print(
            "no correction, 30 s: slower cue \(s.framesDropped) frames dropped; faster cue \(fast.cue.underrunTimes.count) underruns, the first at \(fast.cue.underrunTimes.first ?? -1) s"
        )
        // 0.1 % of 30 s is 1 440 frames: past the ring's slack, the rest is dropped.
        #expect(s.framesDropped > 500)
        #expect(s.clockRatio == 1 && s.framesCorrected == 0)
        #expect(!fast.cue.underrunTimes.isEmpty && f.xrunCount > 0)
        #expect(f.clockRatio == 1 && f.framesCorrected == 0)
    }

    /// An integer format: the resampled frames go through the route's quantizer (s16 here),
    /// more frames than a period when the PCM is faster; locked, nothing dropped, no underrun.
    @Test func anIntegerFormatRouteIsCorrectedToo() throws {
        let run = try play(drift: 0.004, seconds: 30) { $0.formats = [.s16] }
        #expect(run.finished)
        let status = run.output.buses[1]
        #expect(status.negotiated.format == .s16)
        #expect(status.framesDropped == 0 && run.cue.underrunTimes.isEmpty)
        #expect(abs(status.clockRatio - 1.004) < 20e-6, "ratio \(status.clockRatio)")
        // The tone continuous at 1000 / 1.004 cycles per 48 000 frames (s16 dither: residual ≲ 2e-4).
        let samples = run.cue.int16s
        let left = stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) / 32_768 }
        let w = 2 * Double.pi * 1_000 / 48_000 / 1.004
        let tail = (left.count - 5 * 48_000)..<(left.count - 1)
        let worst = tail.map { n in abs(left[n + 1] + left[n - 1] - 2 * cos(w) * left[n]) }.max() ?? .infinity
        print(String(format: "s16 route +0.4 %%: ratio %.6f, worst sine residual over the last 5 s %.2e", status.clockRatio, worst))
        #expect(worst < 1e-3)
    }

    /// A stall is not drift: cue's PCM plays nothing for 100 ms at 25 s (its ring overflows:
    /// frames dropped), then goes on. The correction keeps its ratio through it (within 20 ppm
    /// of the clocks' ratio from 20 s on, as without a stall; before: back to 1, and 10 s to
    /// lock again), the PCM never runs dry after it, and on main's clock nothing is resampled.
    @Test(arguments: [0.001, -0.001, 0])
    func aRouteThatStallsKeepsItsRatio(drift: Double) throws {
        let clock = SimulatedClock()
        let main = MockDevice(uniqueName("stall-main"))
        main.pace = 48_000
        main.clock = clock
        let cue = MockDevice(uniqueName("stall-cue"))
        cue.pace = 48_000 * (1 + drift)
        cue.clock = clock
        cue.stall = (at: 25, seconds: 0.1)
        var config = mockConfiguration(main.name)
        config.busDevices = [cue.name]
        config.stallRestartSeconds = nil // the watchdog's wall time is not the simulated clock's
        let (engine, _, _) = try twoRouteToneEngine()
        let output = try ALSAOutput(engine: engine, configuration: config, functions: .mock, log: { _ in })
        let seconds = 40.0
        let started = monotonic()
        try output.start(frameLimit: Int64(seconds * 48_000))
        var trace: [(seconds: Double, ratio: Double, dropped: Int64)] = []
        while !output.isFinished && monotonic() - started < 600 {
            let s = output.buses[1]
            trace.append((clock.seconds, s.clockRatio, s.framesDropped))
            usleep(500)
        }
        let finished = output.waitUntilFinished(timeoutSeconds: 1)
        output.stop(drain: false)
        #expect(finished)
        let status = output.buses[1]
        let truth = 1 + drift
        let judged = trace.filter { $0.seconds >= 20 }
        let worstPPM = judged.map { abs($0.ratio - truth) * 1e6 }.max() ?? .infinity
        let later = trace.filter { $0.seconds >= 26.1 }
        let overflowsLater = zip(later, later.dropFirst()).filter { $0.1.dropped > $0.0.dropped }.count
        let droppedAtStall = (later.first?.dropped ?? 0) - (trace.last { $0.seconds < 25 }?.dropped ?? 0)
        print(
            String(
                format:
                    "route stall, drift %+.1f %%: ratio %.6f (true %.6f), worst %.2f ppm from 20 s (%d samples); %lld frames dropped at the stall, %d overflows later; cue underruns %d, main xruns %d",
                drift * 100, status.clockRatio, truth, worstPPM, judged.count, droppedAtStall, overflowsLater, cue.underrunTimes.count,
                output.xrunCount))
        #expect(judged.count > 10)
        #expect(droppedAtStall > 0, "the stall did not overflow cue's ring")
        #expect(overflowsLater <= 1)
        #expect(cue.underrunTimes.isEmpty, "cue ran dry at \(cue.underrunTimes.prefix(5)) s")
        #expect(main.underrunTimes.isEmpty && output.xrunCount == 0)
        if drift == 0 {
            #expect(trace.allSatisfy { $0.ratio == 1 } && status.framesCorrected == 0)
        } else {
            #expect(worstPPM < 20, "ratio off by \(worstPPM) ppm from 20 s on")
            #expect(abs(status.clockRatio - truth) < 20e-6)
        }
    }

    /// Routes on one clock are never resampled (bit for bit, ratio exactly 1) over a minute.
    @Test func aRouteOnMainsClockIsNotResampled() throws {
        let clock = SimulatedClock()
        let main = MockDevice(uniqueName("same-main"))
        main.pace = 48_000
        main.clock = clock
        let cue = MockDevice(uniqueName("same-cue"))
        cue.pace = 48_000
        cue.clock = clock
        var config = mockConfiguration(main.name)
        config.busDevices = [cue.name]
        let (engine, _, _) = try twoRouteToneEngine()
        let output = try ALSAOutput(engine: engine, configuration: config, functions: .mock, log: { _ in })
        let frames = 60 * 48_000
        try output.start(frameLimit: Int64(frames))
        let finished = output.waitUntilFinished(timeoutSeconds: 600)
        output.stop(drain: false)
        #expect(finished)
        let status = output.buses[1]
        #expect(status.clockRatio == 1 && status.framesCorrected == 0 && status.framesDropped == 0)
        #expect(cue.underrunTimes.isEmpty)
        // Bit for bit the offline render of the cue route, as far as it was written.
        let (reference, _, _) = try twoRouteToneEngine()
        let written = Int(status.framesWritten)
        var expected = [Float](repeating: 0, count: written * 2)
        var scratch = [Float](repeating: 0, count: 256 * 2)
        var done = 0
        while done < written {
            let n = min(256, written - done)
            expected.withUnsafeMutableBufferPointer { e in
                scratch.withUnsafeMutableBufferPointer { s in
                    let targets = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
                    defer { targets.deallocate() }
                    targets[0] = s.baseAddress!
                    targets[1] = e.baseAddress! + done * 2
                    reference.render(outputBuses: targets, busCount: 2, frameCount: n)
                }
            }
            done += n
        }
        #expect(firstDifference(cue.floats, expected) == nil)
    }
}
