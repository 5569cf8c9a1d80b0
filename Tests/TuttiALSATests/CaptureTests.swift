import Foundation
import Glibc
import Synchronization
import Testing
import Tutti
import TuttiDSP
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// ALSA full duplex on a private PulseAudio server: the engine plays into the null sink
/// (PCM `tutti`) and captures its monitor (PCM `tutti_monitor`: the `pulse` plugin with
/// `device "nullsink.monitor"`), so the input hears what was played, after the server's
/// buffering. Serialized: they run in real time.
@Suite(.serialized, .enabled(if: PulseServer.isAvailable, Comment(rawValue: PulseServer.skipReason)))
struct ALSACaptureTests {
    /// PCMs `tutti` (the null sink) and `tutti_monitor` (its monitor) on `server`.
    static func alsaConfig(_ server: PulseServer) -> String {
        server.alsaConfig(name: "tutti") + "pcm.tutti_monitor { type pulse server \"unix:\(server.socket)\" device \"nullsink.monitor\" }\n"
    }

    /// A stereo engine playing a 440 Hz tone of amplitude 0.25 and capturing a mono input
    /// (monitor gain 0: not heard) with a recording tap.
    static func engineWithInput(frames: Int) throws -> (Engine, InputSource, SourceID) {
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
        let bus = try engine.addBus()
        let tone = try engine.addSource(.tone(frequency: 440, amplitude: 0.25), bus: bus)
        try engine.send(.play(tone))
        let id = try engine.addSource(
            .input(channelCount: 1, capacityFrames: 1 << 15, tapCapacityFrames: frames + 48_000), bus: bus, gain: 0)
        try engine.send(.play(id))
        return (engine, engine.input(id)!, id)
    }

    /// Real time on a shared 2-core machine: an xrun, or a capture read the pulse plugin
    /// answered short (the output counts it in `captureMissingFrames`), breaks the recording's
    /// continuity. Both are what the product reports, so an attempt with one is repeated (up to
    /// three times) and only an attempt without either is measured; the last attempt must be
    /// clean.
    @Test func capturesTheMonitorOfWhatItPlaysAtTheRightLevelAndFrequency() throws {
        for attempt in 1...3 {
            let clean = try captureOnce(finalAttempt: attempt == 3)
            if clean { return }
            print("capture: attempt \(attempt) had an xrun or a short read (machine load); again")
        }
    }

    /// One capture run; false (nothing asserted) when it had an xrun or missing frames and is not
    /// the last attempt.
    func captureOnce(finalAttempt: Bool) throws -> Bool {
        let server = try PulseServer()
        let frames = 96_000
        let (engine, input, _) = try ALSACaptureTests.engineWithInput(frames: frames)
        var config = ALSAOutputConfiguration(device: "tutti")
        config.alsaConfig = ALSACaptureTests.alsaConfig(server)
        config.periodFrames = 256
        config.capture = input
        config.captureDevice = "tutti_monitor"
        let output = try ALSAOutput(engine: engine, configuration: config, log: { _ in })
        #expect(output.captureNegotiated?.periodFrames == output.negotiated.periodFrames)
        #expect(output.captureNegotiated?.channelCount == 1)
        #expect(output.captureDevice == "tutti_monitor")
        try output.start(frameLimit: Int64(frames))
        var recorded: [Float] = []
        var drain = [Float](repeating: 0, count: 4_096)
        while !output.waitUntilFinished(timeoutSeconds: 0.01) {
            engine.pollEvents()
            while case let n = drain.withUnsafeMutableBufferPointer({ input.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        }
        output.stop()
        engine.pollEvents()
        while case let n = drain.withUnsafeMutableBufferPointer({ input.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        #expect(recorded.count == frames, "one recorded frame per rendered frame")
        if (output.xrunCount > 0 || output.captureMissingFrames > 0) && !finalAttempt {
            print("capture: \(output.xrunCount) xruns, \(output.captureMissingFrames) missing frames reported")
            return false
        }
        #expect(output.xrunCount == 0)
        // The tone comes back after the server's buffering (under 0.2 s); measure the last second.
        let firstSound = recorded.firstIndex { abs($0) > 0.01 } ?? recorded.count
        #expect(firstSound < 9_600, "the tone came back after \(firstSound) frames")
        let tail = Array(recorded[(frames - 48_000)...])
        let rms = (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
        let expected = 0.25 / 2.0.squareRoot()
        let frequency = ALSACaptureTests.frequency(tail, sampleRate: 48_000)
        print(
            String(
                format: "capture: round trip %d frames, rms %.5f (expected %.5f, %+.3f dB), %.3f Hz, missing %lld frames, linked %@, %@",
                firstSound, rms, expected, 20 * log10(rms / expected), frequency, output.captureMissingFrames,
                output.captureLinked ? "yes" : "no", output.captureNegotiated?.description ?? "-"))
        #expect(abs(20 * log10(rms / expected)) < 0.1, "level \(rms), expected \(expected) within 0.1 dB")
        #expect(abs(frequency - 440) < 0.5, "frequency \(frequency) Hz")
        #expect(output.captureMissingFrames == 0)
        return true
    }

    /// Continuity, not only level: a 1 kHz tone of amplitude 0.5 played into the null sink and
    /// captured from its monitor for 3 s keeps its phase over the whole take, at the tests'
    /// period (256) and the default one (1024). Each run of silence in it must be a reported
    /// slack growth (whole periods — give or take the sine's own samples the server's s16
    /// rounds to 0 beside it — adding up to no more than `captureAddedLatencyFrames`); between
    /// them the take is continuous (no zero run, no second-difference spike, phase locked).
    /// Data the product reports lost (missing frames, an xrun) makes the attempt be repeated, at
    /// most three; the last must be clean.
    ///
    /// The sink itself can hold silence: the playback stream running dry inside the server, which
    /// the pulse plugin does not report when the server's notice names an index below what the
    /// plugin has written by the time it is dispatched (about a third of them under load; see
    /// docs/backends.md). The render thread's `ConsumptionWatch` counts most of those as xruns
    /// (then the attempt is repeated), not one in its first windows after a start. `parec`,
    /// recording the same monitor beside it, tells the two apart: a run it has too (same length,
    /// same place in the tone) is the sink's, a known issue of the playback path, not the
    /// capture's.
    /// Without `parec` every run must be a growth.
    @Test(arguments: [256, 1_024])
    func aToneCapturedThroughThePulsePluginIsContinuous(periodFrames: Int) throws {
        for attempt in 1...3 {
            if try continuityOnce(periodFrames: periodFrames, finalAttempt: attempt == 3) { return }
            print("capture continuity: attempt \(attempt) reported lost data; again")
        }
    }

    /// One 3 s take; false (nothing asserted) when the output reported lost data and it is not
    /// the last attempt.
    func continuityOnce(periodFrames: Int, finalAttempt: Bool) throws -> Bool {
        let server = try PulseServer()
        let frames = 3 * 48_000 + 9_600
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
        let bus = try engine.addBus()
        try engine.send(.play(try engine.addSource(.tone(frequency: 1_000, amplitude: 0.5), bus: bus)))
        let id = try engine.addSource(
            .input(channelCount: 1, capacityFrames: 1 << 15, tapCapacityFrames: frames + 48_000), bus: bus, gain: 0)
        try engine.send(.play(id))
        let input = engine.input(id)!
        var config = ALSAOutputConfiguration(device: "tutti")
        // `handle_underrun`: the pulse plugin reports its stream running dry inside the server
        // (EPIPE, an xrun). Its default already (PulseAudio ≥ 0.99), spelled out here; it still
        // drops a notice that arrives after more was written (docs/backends.md, *Silence the sink
        // itself holds*).
        config.alsaConfig =
            "pcm.tutti { type pulse server \"unix:\(server.socket)\" handle_underrun true }\n"
            + "pcm.tutti_monitor { type pulse server \"unix:\(server.socket)\" device \"nullsink.monitor\" }\n"
        config.periodFrames = periodFrames
        config.capture = input
        config.captureDevice = "tutti_monitor"
        let events = Mutex<[OutputEvent]>([])
        let output = try ALSAOutput(
            engine: engine, configuration: config, log: { _ in }, onEvent: { e in events.withLock { $0.append(e) } })
        // The monitor recorded by another client, as a reference for what the sink holds.
        let reference = server.directory + "/monitor.raw"
        let parec =
            FileManager.default.isExecutableFile(atPath: "/usr/bin/parec")
            ? try spawnChild(
                [
                    "/usr/bin/parec", "--server=unix:\(server.socket)", "-d", "nullsink.monitor", "--format=float32le", "--rate=48000",
                    "--channels=1", "--raw", "--latency-msec=50",
                ], stdout: reference, stderr: .discard) : nil
        if parec != nil { usleep(300_000) }
        try output.start(frameLimit: Int64(frames))
        var recorded: [Float] = []
        var drain = [Float](repeating: 0, count: 4_096)
        while !output.waitUntilFinished(timeoutSeconds: 0.01) {
            engine.pollEvents()
            while case let n = drain.withUnsafeMutableBufferPointer({ input.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        }
        output.stop()
        engine.pollEvents()
        while case let n = drain.withUnsafeMutableBufferPointer({ input.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        var sink: Continuity?
        if let parec {
            Glibc.kill(parec, SIGTERM)
            var status: Int32 = 0
            waitpid(parec, &status, 0)
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: reference))) ?? Data()
            sink = Continuity.measure(bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }, frequency: 1_000, sampleRate: 48_000)
        }
        #expect(recorded.count == frames, "one recorded frame per rendered frame")
        let period = output.negotiated.periodFrames
        let growths = events.withLock { $0.filter { if case .captureSlackGrown = $0 { true } else { false } }.count }
        let continuity = Continuity.measure(recorded, frequency: 1_000, sampleRate: 48_000)
        print(
            "capture continuity at \(periodFrames) frames: slack \(output.captureSlackFrames) frames (+\(output.captureAddedLatencyFrames), "
                + "maximum \(output.captureMaximumSlackFrames)), \(growths) growth events, "
                + "missing \(output.captureMissingFrames) frames, \(output.xrunCount) xruns "
                + "(\(output.core.unreportedUnderrunCount.load(ordering: .relaxed)) not reported by the plugin); whole take: \(continuity); "
                + "monitor by parec: \(sink.map { "\($0)" } ?? "not recorded")")
        if (output.xrunCount > 0 || output.captureMissingFrames > 0) && !finalAttempt { return false }
        #expect(output.xrunCount == 0)
        #expect(output.captureMissingFrames == 0)
        guard let start = continuity.signalStart else {
            Issue.record("no tone captured")
            return true
        }
        #expect(start < 9_600, "the tone came back after \(start) frames")
        // A silence parec heard in the monitor too (its take starts earlier: the same place in the
        // tone is `offset` later, give or take the slack added and a few periods) is the sink's.
        let offset = sink?.signalStart.map { $0 - start } ?? 0
        let reach = output.captureAddedLatencyFrames + 4 * period
        let inSink = continuity.zeroRuns.filter { run in
            sink?.zeroRuns.contains { abs($0.length - run.length) <= 2 && abs($0.start - offset - run.start) <= reach } ?? false
        }
        withKnownIssue("the sink played silence the pulse plugin did not report (a playback underflow in the server)", isIntermittent: true)
        {
            #expect(inSink.isEmpty, "silence in the sink itself: \(inSink)")
        }
        // Each other silence is a growth: whole periods, in all no more than the latency added.
        let runs = continuity.zeroRuns.filter { !inSink.contains($0) }
        let wholePeriods = runs.map { ($0.length + 2) / period }
        #expect(
            zip(runs, wholePeriods).allSatisfy { $1 > 0 && abs($0.length - $1 * period) <= 2 }, "zero runs \(runs) are not whole periods")
        #expect(wholePeriods.reduce(0, +) * period <= output.captureAddedLatencyFrames, "zero runs \(runs) the slack does not explain")
        #expect(growths * period == output.captureAddedLatencyFrames, "each growth was reported")
        // Between them, continuous.
        var from = start
        let all = continuity.zeroRuns
        for end in all.map(\.start) + [recorded.count] {
            defer { from = all.first { $0.start == end }.map { $0.start + $0.length } ?? recorded.count }
            guard end - from >= 2_400 else { continue }
            let piece = Continuity.measure(Array(recorded[from..<end]), frequency: 1_000, sampleRate: 48_000)
            #expect(piece.isContinuous(), "frames \(from)..<\(end): \(piece)")
            #expect(abs(piece.amplitude - 0.5) < 0.01, "level \(piece.amplitude)")
        }
        return true
    }

    @Test func anUnknownCaptureDeviceIsAnErrorNamingIt() throws {
        let server = try PulseServer()
        let (engine, input, _) = try ALSACaptureTests.engineWithInput(frames: 4_800)
        var config = ALSAOutputConfiguration(device: "tutti")
        config.alsaConfig = ALSACaptureTests.alsaConfig(server)
        config.capture = input
        config.captureDevice = "no_such_pcm"
        do {
            _ = try ALSAOutput(engine: engine, configuration: config, log: { _ in })
            Issue.record("opening a capture PCM that does not exist succeeded")
        } catch let error as ALSAError {
            guard case .capture(let device, _) = error else {
                Issue.record("expected a capture error, got \(error)")
                return
            }
            #expect(device == "no_such_pcm")
            #expect("\(error)".contains("capture PCM \"no_such_pcm\""))
        }
    }

    /// Frequency from the median spacing of rising zero crossings (interpolated between
    /// samples). The median, not the mean: a period of silence the pulse sink itself played
    /// (its server starved on a loaded machine; the client sees no xrun, and the continuity
    /// tests tell that apart from a frame the capture lost) lengthens one spacing and would
    /// move the mean by its share of the take, while it leaves the median on the tone.
    static func frequency(_ x: [Float], sampleRate: Double) -> Double {
        var crossings: [Double] = []
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
            crossings.append(Double(i - 1) + Double(-x[i - 1]) / Double(x[i] - x[i - 1]))
        }
        guard crossings.count > 1 else { return 0 }
        let spacings = zip(crossings.dropFirst(), crossings).map { $0 - $1 }.sorted()
        return sampleRate / spacings[spacings.count / 2]
    }
}
