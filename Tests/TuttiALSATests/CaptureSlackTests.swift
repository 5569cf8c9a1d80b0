import CALSA
import Foundation
import Glibc
import Synchronization
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// A capture PCM the test fills by hand, period by period, with a 1 kHz sine (mono float32),
/// the way a sound server delivers: in bursts. The `snd_pcm_t *` the reader gets is this
/// object's address. Thread: the test's only.
final class ScriptedCapturePCM {
    /// Frames ready to read.
    var ready: [Float] = []
    /// Sine frames made so far (the next one's index).
    var made = 0
    /// More than this many frames ready is an overrun (EPIPE until prepared).
    var capacity = 1 << 20
    var overrun = false

    func deliver(_ frames: Int) {
        let w = 2 * Double.pi * 1_000 / 48_000
        ready += (made..<(made + frames)).map { Float(0.5 * sin(w * Double($0))) }
        made += frames
        if ready.count > capacity { overrun = true }
    }

    /// The sine as made, frames `range`.
    static func sine(_ range: Range<Int>) -> [Float] {
        let w = 2 * Double.pi * 1_000 / 48_000
        return range.map { Float(0.5 * sin(w * Double($0))) }
    }

    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
    static func from(_ p: OpaquePointer?) -> ScriptedCapturePCM {
        Unmanaged<ScriptedCapturePCM>.fromOpaque(UnsafeRawPointer(p!)).takeUnretainedValue()
    }

    /// The render thread's calls, answered from `ready` (the playback PCM is this one too:
    /// always running).
    static var functions: ALSAFunctions {
        var f = ALSAFunctions.mock
        f.avail_update = { p in
            let d = ScriptedCapturePCM.from(p)
            return d.overrun ? -snd_pcm_sframes_t(EPIPE) : snd_pcm_sframes_t(d.ready.count)
        }
        f.readi = { p, buffer, frames in
            let d = ScriptedCapturePCM.from(p)
            if d.overrun { return -snd_pcm_sframes_t(EPIPE) }
            let n = min(Int(frames), d.ready.count)
            if n == 0 { return -snd_pcm_sframes_t(EAGAIN) }
            d.ready.withUnsafeBufferPointer { UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress!, byteCount: n * 4) }
            d.ready.removeFirst(n)
            return snd_pcm_sframes_t(n)
        }
        f.state = { _ in SND_PCM_STATE_RUNNING }
        f.start = { _ in 0 }
        f.prepare = { p in
            let d = ScriptedCapturePCM.from(p)
            d.overrun = false
            d.ready = []
            return 0
        }
        f.drop = { p in
            ScriptedCapturePCM.from(p).ready = []
            return 0
        }
        return f
    }
}

/// The capture's adaptive slack (`CaptureReader`, CaptureSide.swift) against scripted
/// deliveries, one render period at a time: burst patterns the initial slack absorbs, jitter
/// that makes it grow by a period (no captured frame lost: what the input got is the sine with
/// only whole periods of silence inserted), and a stall longer than the maximum (real loss,
/// counted).
@Suite struct CaptureSlackTests {
    static let period = 256

    /// Feeds the reader `deliveries` (frames delivered before each render period) and returns
    /// what the input got, the reader and the counters.
    static func run(
        _ deliveries: [Int], maximumSlackFrames: Int = 19 * period
    ) throws -> (input: [Float], reader: CaptureReader, missing: Int64, slack: Int, pcm: ScriptedCapturePCM) {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 1))
        let id = try engine.addSource(.input(channelCount: 1, capacityFrames: 1 << 16), bus: try engine.addBus())
        let ring = engine.input(id)!.captureRing
        let pcm = ScriptedCapturePCM()
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: period)
        defer { floats.deallocate() }
        let counters = UnsafeMutablePointer<CaptureCounters>.allocate(capacity: 1)
        counters.initialize(to: CaptureCounters())
        counters.pointee.slackFrames.store(2 * period, ordering: .relaxed)
        defer {
            counters.deinitialize(count: 1)
            counters.deallocate()
        }
        var reader = CaptureReader(
            pcm: pcm.handle, linked: false, format: .float32, periodFrames: period, frameBytes: 4,
            deviceBuffer: UnsafeMutableRawPointer(floats), floatBuffer: floats, ring: ring, channelCount: 1,
            counters: counters, maximumSlackFrames: maximumSlackFrames, seenXruns: 0, functions: ScriptedCapturePCM.functions)
        var input: [Float] = []
        for frames in deliveries {
            pcm.deliver(frames)
            let outcome = reader.read(frameCount: period, playback: pcm.handle, xruns: 0)
            guard case .ok = outcome else {
                Issue.record("read ended with \(outcome)")
                break
            }
            while true {
                let (pointer, count) = ring.readableSpan()
                if count == 0 { break }
                input += UnsafeBufferPointer(start: pointer, count: count)
                ring.release(count)
            }
        }
        #expect(input.count == deliveries.count * period, "one input frame per rendered frame")
        return (
            input, reader, counters.pointee.missingFrames.load(ordering: .relaxed), counters.pointee.slackFrames.load(ordering: .relaxed),
            pcm
        )
    }

    /// Runs of exact zeros after the first sound: (start, length), all of them.
    static func silences(_ x: [Float]) -> [(start: Int, length: Int)] {
        guard let first = x.firstIndex(where: { $0 != 0 }) else { return [] }
        var runs: [(Int, Int)] = []
        var n = first
        while n < x.count {
            if x[n] != 0 {
                n += 1
                continue
            }
            var end = n
            while end < x.count && x[end] == 0 { end += 1 }
            if end - n >= 3 { runs.append((n, end - n)) }
            n = end
        }
        return runs
    }

    /// What the input got, start-up and inserted silences taken out, is the sine as made, from
    /// its first frame, in order: no captured frame lost or repeated.
    static func expectNothingLost(_ input: [Float], made: Int, stillReady: Int) {
        let first = input.firstIndex { $0 != 0 } ?? input.count
        var kept: [Float] = []
        var n = first
        for run in silences(input) {
            kept += input[n..<run.start]
            n = run.start + run.length
        }
        kept += input[n...]
        // The sine's own samples at 0 (frame 0, every 24th frame) are exact zeros only at frame 0.
        let expected = Array(ScriptedCapturePCM.sine(1..<(made - stillReady)))
        #expect(kept.count == expected.count, "\(kept.count) frames delivered to the input, \(expected.count) captured")
        #expect(kept == expected, "the input got the captured frames in order, none lost")
    }

    @Test func alternatingBurstsAreAbsorbedByTheInitialSlack() throws {
        // 0 then 2 periods, alternately: never short with two periods of slack.
        let deliveries = (0..<400).map { $0 % 2 == 0 ? 0 : 2 * Self.period }
        let r = try Self.run(deliveries)
        #expect(r.slack == 2 * Self.period, "the slack did not grow")
        #expect(r.missing == 0)
        let runs = Self.silences(r.input)
        #expect(runs.isEmpty, "no silence after the start: \(runs)")
        let c = Continuity.measure(r.input, frequency: 1_000, sampleRate: 48_000)
        #expect(c.isContinuous(), "\(c)")
        Self.expectNothingLost(r.input, made: r.pcm.made, stillReady: r.pcm.ready.count)
    }

    @Test func jitterOfTwoPeriodsGrowsTheSlackOnceThenStaysContinuous() throws {
        // A period each cycle, and every 50 cycles a hiccup: two late periods, then all three.
        var deliveries = [Int](repeating: Self.period, count: 600)
        for start in stride(from: 40, to: 560, by: 50) {
            deliveries[start] = 0
            deliveries[start + 1] = 0
            deliveries[start + 2] = 3 * Self.period
        }
        let r = try Self.run(deliveries)
        #expect(r.slack == 3 * Self.period, "grew by one period, once")
        #expect(r.missing == 0, "nothing was lost")
        let runs = Self.silences(r.input)
        #expect(runs.count == 1 && runs.first?.length == Self.period, "one period of silence where it grew: \(runs)")
        Self.expectNothingLost(r.input, made: r.pcm.made, stillReady: r.pcm.ready.count)
        // After the growth the take is continuous through the ten later hiccups.
        let after = Array(r.input[(runs[0].start + runs[0].length)...])
        let c = Continuity.measure(after, frequency: 1_000, sampleRate: 48_000)
        #expect(c.isContinuous(), "\(c)")
        print("capture slack: jitter of 2 periods → slack \(r.slack) frames, \(runs.count) growth, missing \(r.missing)")
    }

    @Test func burstsOfFourPeriodsGrowTheSlackToWhatTheyNeed() throws {
        // Steady first (the capture starts at a low fill), then 4 periods every 4 cycles.
        let deliveries = (0..<800).map { $0 < 20 ? Self.period : ($0 % 4 == 3 ? 4 * Self.period : 0) }
        let r = try Self.run(deliveries)
        #expect(r.missing == 0)
        #expect(r.slack > 2 * Self.period && r.slack <= 5 * Self.period, "slack \(r.slack)")
        let runs = Self.silences(r.input)
        #expect(runs.allSatisfy { $0.length % Self.period == 0 }, "only whole periods inserted: \(runs)")
        #expect(runs.reduce(0) { $0 + $1.length } == r.slack - 2 * Self.period, "the silence inserted is the latency added")
        Self.expectNothingLost(r.input, made: r.pcm.made, stillReady: r.pcm.ready.count)
        let last = runs.last.map { $0.start + $0.length } ?? 0
        #expect(last < 60 * Self.period, "it settled within a few bursts")
        let c = Continuity.measure(Array(r.input[last...]), frequency: 1_000, sampleRate: 48_000)
        #expect(c.isContinuous(), "\(c)")
        print("capture slack: bursts of 4 periods → slack \(r.slack) frames after \(runs.count) growths, missing \(r.missing)")
    }

    @Test func aStallLongerThanTheMaximumIsCountedAsMissing() throws {
        // Steady, then nothing for 12 periods (64 ms), then it all arrives: the slack stops at
        // its maximum (4 periods here) and the rest is counted.
        var deliveries = [Int](repeating: Self.period, count: 100)
        for i in 40..<52 { deliveries[i] = 0 }
        deliveries[52] = 13 * Self.period
        let r = try Self.run(deliveries, maximumSlackFrames: 4 * Self.period)
        #expect(r.slack == 4 * Self.period)
        // 12 periods short: 2 grew the slack, the other 10 are missing except the period of
        // slack the PCM still held at the stall (read at the first short cycle at the maximum).
        let runs = Self.silences(r.input)
        let silence = runs.reduce(0) { $0 + $1.length }
        #expect(r.missing > 0)
        #expect(Int(r.missing) + 2 * Self.period == silence, "every silent frame is a grown period or counted missing: \(runs)")
        Self.expectNothingLost(r.input, made: r.pcm.made, stillReady: r.pcm.ready.count)
        print("capture slack: a 12-period stall with a 4-period maximum → missing \(r.missing) frames")
    }

    /// The whole output on mock PCMs in real time: a capture PCM that delivers steadily for
    /// 0.2 s (the capture starts on two periods), then in bursts of 4 periods, makes the slack grow, each growth is a `captureSlackGrown` event (its figures
    /// those of `captureSlackFrames` / `captureAddedLatencyFrames`), nothing is missing, and the
    /// take is continuous after the last growth.
    @Test func theOutputReportsEachGrowthAsAnEvent() throws {
        let playback = MockDevice(uniqueName("slack-out"))
        playback.pace = 48_000
        let captureDevice = MockDevice(uniqueName("slack-in"))
        captureDevice.captureBurstFrames = 4 * Self.period
        captureDevice.captureSteadyFrames = 9_600
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
        let frames = 48_000
        let mic = try engine.addSource(
            .input(channelCount: 1, capacityFrames: 1 << 15, tapCapacityFrames: 2 * frames), bus: try engine.addBus(), gain: 0)
        try engine.send(.play(mic))
        let input = try #require(engine.input(mic))
        var config = mockConfiguration(playback.name, period: Self.period)
        config.capture = input
        config.captureDevice = captureDevice.name
        let events = Mutex<[OutputEvent]>([])
        let output = try ALSAOutput(
            engine: engine, configuration: config, functions: .mock, log: { _ in }, onEvent: { e in events.withLock { $0.append(e) } })
        try output.start(frameLimit: Int64(frames))
        #expect(output.waitUntilFinished(timeoutSeconds: 10))
        output.stop()
        engine.pollEvents()
        var recorded = [Float](repeating: 0, count: 2 * frames)
        let n = recorded.withUnsafeMutableBufferPointer { input.readRecorded(into: $0) }
        let grown = events.withLock {
            $0.compactMap { e -> (Int, Int)? in if case .captureSlackGrown(let s, let a) = e { (s, a) } else { nil } }
        }
        print(
            "capture slack on mock PCMs (bursts of 4 periods): \(grown.count) growth events \(grown), "
                + "slack \(output.captureSlackFrames), missing \(output.captureMissingFrames)")
        #expect(!grown.isEmpty, "bursts of 4 periods outgrow the starting 2")
        #expect(grown.last?.0 == output.captureSlackFrames)
        #expect(grown.last?.1 == output.captureAddedLatencyFrames)
        #expect(output.captureAddedLatencyFrames == output.captureSlackFrames - 2 * Self.period)
        #expect(output.captureSlackFrames <= output.captureMaximumSlackFrames)
        #expect(output.captureMissingFrames == 0)
        #expect(n == frames)
        let runs = Self.silences(Array(recorded[0..<n]))
        #expect(runs.reduce(0) { $0 + $1.length } <= output.captureAddedLatencyFrames, "silence only where the slack grew: \(runs)")
        let last = runs.last.map { $0.start + $0.length } ?? 0
        let c = Continuity.measure(Array(recorded[last..<n]), frequency: 1_000, sampleRate: 48_000)
        #expect(c.isContinuous(), "\(c)")
    }

    @Test func theMaximumIsAHundredMillisecondsInWholePeriodsBoundedByTheBuffer() {
        #expect(CaptureSide.maximumSlack(periodFrames: 256, sampleRate: 48_000, bufferFrames: 21 * 256) == 19 * 256)
        #expect(CaptureSide.maximumSlack(periodFrames: 1_024, sampleRate: 48_000, bufferFrames: 8_192) == 5 * 1_024)
        #expect(CaptureSide.maximumSlack(periodFrames: 64, sampleRate: 48_000, bufferFrames: 512) == 6 * 64)
        #expect(CaptureSide.maximumSlack(periodFrames: 256, sampleRate: 48_000, bufferFrames: 768) == 2 * 256)
    }
}
