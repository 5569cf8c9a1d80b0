import Foundation
import Glibc
import Testing
import Tutti
import TuttiDSP
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// The backend on a real, paced ALSA device: the PulseAudio null sink through the ALSA
/// `pulse` plugin, one private server per test. Serialized: they measure wall-clock time.
@Suite(.serialized, .enabled(if: PulseServer.isAvailable, Comment(rawValue: PulseServer.skipReason)))
struct PulseDeviceTests {
    func configuration(_ server: PulseServer, teeFile: String? = nil) -> ALSAOutputConfiguration {
        var c = ALSAOutputConfiguration(device: "tutti")
        c.alsaConfig = server.alsaConfig(teeFile: teeFile)
        return c
    }

    /// Paced in real time: on a loaded machine the server may run dry, which the output reports
    /// (an xrun: EPIPE, or the consumption watch), and the take repeats, up to three times; the
    /// last is asserted in full.
    @Test func playsInRealTimeWithoutXruns() throws {
        for attempt in 1...3 {
            if try playsInRealTimeOnce(finalAttempt: attempt == 3) { return }
        }
    }

    /// One take of `playsInRealTimeWithoutXruns`; false (nothing asserted) when the output
    /// reported an xrun and it is not the last attempt.
    func playsInRealTimeOnce(finalAttempt: Bool) throws -> Bool {
        let server = try PulseServer()
        let seconds = 5.0
        let frames = Int64(seconds * 48_000)
        let c = Collector()
        let engine = try makeEngine()
        let output = try ALSAOutput(engine: engine, configuration: configuration(server), log: c.log, onEvent: c.onEvent)
        let started = monotonic()
        try output.start(frameLimit: frames)
        while !output.waitUntilFinished(timeoutSeconds: 0.05) { engine.pollEvents() }
        output.stop(drain: true)
        let wall = monotonic() - started
        print(
            String(
                format: "pulse: %.0f s played in %.3f s wall (%+.2f %%), %d xruns (%d not reported by the plugin), %@, scheduling: %@",
                seconds, wall, (wall / seconds - 1) * 100, output.xrunCount, output.core.unreportedUnderrunCount.load(ordering: .relaxed),
                output.negotiated.description, output.schedulingNote))
        if output.xrunCount > 0 && !finalAttempt { return false }
        #expect(abs(wall - seconds) <= 0.05 * seconds)
        #expect(output.xrunCount == 0)
        #expect(output.framesWritten == frames)
        #expect(!c.events.contains { $0.isDeviceLost })
        if geteuid() == 0 { #expect(output.schedulingNote == "SCHED_FIFO priority 50") }
        return true
    }

    @Test func killingTheServerGivesDeviceLostAndPlaybackGoesOn() throws {
        let server = try PulseServer()
        let frames: Int64 = 6 * 48_000
        let c = Collector()
        let engine = try makeEngine()
        var config = configuration(server)
        config.reconnect.backoffMax = .seconds(0.2)
        let output = try ALSAOutput(engine: engine, configuration: config, log: c.log, onEvent: c.onEvent)
        try output.start(frameLimit: frames)
        usleep(1_500_000)
        server.kill()
        let lost = c.waitFor(3) { $0.contains { $0.isDeviceLost } }
        #expect(lost, "no deviceLost within 3 s of killing the server")
        let writtenWhenLost = output.framesWritten
        usleep(500_000)
        #expect(output.framesWritten == writtenWhenLost, "nothing can be written while the server is down")
        try server.start()
        #expect(c.waitFor(5) { $0.contains { $0.isDeviceRestored } }, "not reopened within 5 s of the server coming back")
        #expect(output.waitUntilFinished(timeoutSeconds: 15))
        output.stop(drain: true)
        engine.pollEvents()
        #expect(output.framesWritten == frames)
        #expect(output.framesWritten > writtenWhenLost)
        let events = c.events
        #expect(events.contains { if case .deviceRestored(let s) = $0 { s.device == "tutti" } else { false } })
        print("pulse kill: events \(events.map(\.description))")
    }

    @Test(arguments: [OutputSampleFormat.float32, .s16])
    func teeCapturesExactlyWhatTheEngineRendered(_ format: OutputSampleFormat) throws {
        let server = try PulseServer()
        let tee = server.directory + "/tee.raw"
        let frames = 2 * 48_000
        var config = configuration(server, teeFile: tee)
        config.formats = [format]
        let engine = try makeEngine()
        let output = try ALSAOutput(engine: engine, configuration: config, log: { _ in })
        #expect(output.negotiated.format == format)
        try output.start(frameLimit: Int64(frames))
        while !output.waitUntilFinished(timeoutSeconds: 0.05) { engine.pollEvents() }
        output.stop(drain: true)
        #expect(output.xrunCount == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: tee))
        let reference = try offlineReference(frames: frames)
        if format == .float32 {
            let got = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            #expect(got.count == reference.count)
            #expect(firstDifference(got, reference) == nil)
        } else {
            let got = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            var q = TPDFQuantizer(format: .s16)
            var codes = [Int32](repeating: 0, count: reference.count)
            reference.withUnsafeBufferPointer { r in
                codes.withUnsafeMutableBufferPointer { q.quantizeReference(r.baseAddress!, count: r.count, into: $0.baseAddress!) }
            }
            #expect(got == codes.map { Int16($0) })
        }
    }

    @Test func negotiatesForRealAndUsesWhatItGot() throws {
        let server = try PulseServer()
        var config = configuration(server)
        config.periodFrames = 8
        config.periodCount = 2
        let output = try ALSAOutput(engine: try makeEngine(), configuration: config, log: { _ in })
        let n = output.negotiated
        print("pulse: asked period 8 / buffer 16, got \(n)")
        #expect(n.periodFrames != 8 || n.bufferFrames != 16, "the pulse plugin rounds tiny periods up")
        #expect(n.bufferFrames > n.periodFrames)
        try output.start(frameLimit: 4_800)
        #expect(output.waitUntilFinished(timeoutSeconds: 5))
        output.stop(drain: true)
        #expect(output.framesWritten == 4_800)
    }

    @Test func aFrozenServerTriggersTheWatchdogAndPlaybackResumes() throws {
        let server = try PulseServer()
        let c = Collector()
        let engine = try makeEngine()
        var config = configuration(server)
        config.stallRestartSeconds = nil
        let output = try ALSAOutput(engine: engine, configuration: config, log: c.log, onEvent: c.onEvent)
        try output.start(frameLimit: 3 * 48_000)
        usleep(700_000)
        server.freeze()
        let stalled = c.waitFor(2) { $0.contains { $0.isStalled } }
        usleep(300_000)
        server.thaw()
        #expect(stalled)
        #expect(output.waitUntilFinished(timeoutSeconds: 10))
        output.stop(drain: true)
        #expect(c.events.contains { $0.isStallEnded })
        #expect(output.framesWritten == 3 * 48_000)
    }

    /// The output starved through the pulse plugin: the control side holds the render horizon
    /// for 300 ms, longer than the plugin's buffer, so the server's stream runs dry and the sink
    /// plays silence. The plugin says so (EPIPE from `snd_pcm_writei`): an xrun, counted and an
    /// `xrun` event — and the sink's monitor (recorded by `parec`) holds that gap, once.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parec"), "parec (pulseaudio-utils) is not installed"))
    func aStarvedOutputIsAnXrunThroughThePulsePlugin() throws {
        let server = try PulseServer()
        let (output, c, monitor) = try takeWithMonitor(server) { output, _ in
            output.renderHorizon = output.framesRendered
            usleep(300_000)
            output.renderHorizon = .max
        }

        let xruns = output.xrunCount
        #expect(xruns >= 1, "the starved output reported no xrun")
        #expect(c.waitFor(1) { xruns > 0 && $0.contains(.xrun(total: xruns)) }, "\(c.events.filter(\.isXrun))")
        // The gap in the sink: the longest run of near-silence inside the tone (PulseAudio mixes
        // in s16, so "silent" is below its step), about the 300 ms held (less the buffer).
        let first = try #require(monitor.firstIndex { abs($0) > 1e-3 }, "the monitor is silent")
        let last = try #require(monitor.lastIndex { abs($0) > 1e-3 })
        var run = 0
        var longest = 0
        var runs = 0
        for v in monitor[first...last] {
            if abs(v) < 1e-4 {
                run += 1
                if run == 64 { runs += 1 }
            } else {
                run = 0
            }
            longest = max(longest, run)
        }
        print("pulse starved 300 ms: \(xruns) xruns, monitor gap \(longest) frames in \(runs) runs of 64 or more")
        #expect(longest >= 4_800 && longest <= 300 * 48, "longest silence \(longest) frames")
        #expect(runs <= xruns, "\(runs) silences in the sink for \(xruns) xruns reported")
    }

    /// The server frozen for 100 ms mid-stream (shorter than a stall): thawed, the null sink
    /// renders the time it missed at once and runs the stream dry. The pulse plugin reports that
    /// as EPIPE only when nothing was written past where the server ran dry (about every other
    /// run); otherwise the render thread's `ConsumptionWatch` sees the consumed frames fall
    /// behind the clock. Either way the sink's silence is an xrun, with its event. (Not one
    /// xrun per silence: a second silence within the watch's first windows after an EPIPE
    /// recovery is not seen, and a freeze can be counted by the watch and by the plugin both.)
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parec"), "parec (pulseaudio-utils) is not installed"))
    func aServerThatRanDryIsAnXrunWhetherThePluginSaysSoOrNot() throws {
        let server = try PulseServer()
        let (output, c, monitor) = try takeWithMonitor(server) { _, server in
            server.freeze()
            usleep(100_000)
            server.thaw()
        }

        let xruns = output.xrunCount
        let first = try #require(monitor.firstIndex { abs($0) > 1e-3 }, "the monitor is silent")
        let last = try #require(monitor.lastIndex { abs($0) > 1e-3 })
        var run = 0
        var silences: [Int] = []
        for v in monitor[first...last] {
            if abs(v) < 1e-4 {
                run += 1
            } else {
                if run >= 64 { silences.append(run) }
                run = 0
            }
        }
        let runs = silences.count
        print(
            "pulse server frozen 100 ms: \(xruns) xruns (\(output.core.unreportedUnderrunCount.load(ordering: .relaxed)) "
                + "not reported by the plugin), \(runs) silences of 64 frames or more in the sink \(silences)")
        #expect(runs >= 1, "the sink did not run dry")
        #expect(xruns >= 1, "the sink ran dry \(runs) times, no xrun reported")
        #expect(c.waitFor(1) { xruns > 0 && $0.contains(.xrun(total: xruns)) }, "\(c.events.filter(\.isXrun))")
    }

    /// A 3 s take of the two-tone engine through the pulse plugin on `server`, with the null
    /// sink's monitor recorded by `parec` beside it; `disturb` is called once, when 1 s has
    /// rendered. The output (stopped, drained), the collector of its log and events, and the
    /// monitor's samples.
    func takeWithMonitor(
        _ server: PulseServer, disturb: (ALSAOutput, PulseServer) -> Void
    ) throws -> (ALSAOutput, Collector, [Float]) {
        let (engine, _, _) = try twoRouteToneEngine()
        let c = Collector()
        let output = try ALSAOutput(engine: engine, configuration: configuration(server), log: c.log, onEvent: c.onEvent)
        let reference = server.directory + "/monitor.raw"
        let parec = try spawnChild(
            [
                "/usr/bin/parec", "--server=unix:\(server.socket)", "-d", "nullsink.monitor", "--format=float32le", "--rate=48000",
                "--channels=1", "--raw", "--latency-msec=50",
            ], stdout: reference, stderr: .discard)
        usleep(300_000)
        try output.start(frameLimit: 3 * 48_000)
        let deadline = monotonic() + 20
        while output.framesRendered < 48_000, monotonic() < deadline { engine.pollEvents() }
        disturb(output, server)
        while !output.waitUntilFinished(timeoutSeconds: 0.05), monotonic() < deadline { engine.pollEvents() }
        output.stop(drain: true)
        usleep(200_000)
        Glibc.kill(parec, SIGTERM)
        var status: Int32 = 0
        waitpid(parec, &status, 0)
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: reference))) ?? Data()
        let monitor = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (output, c, monitor)
    }
}
