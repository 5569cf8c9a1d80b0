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

    @Test func playsInRealTimeWithoutXruns() throws {
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
                format: "pulse: %.0f s played in %.3f s wall (%+.2f %%), %d xruns, %@, scheduling: %@",
                seconds, wall, (wall / seconds - 1) * 100, output.xrunCount, output.negotiated.description, output.schedulingNote))
        #expect(abs(wall - seconds) <= 0.05 * seconds)
        #expect(output.xrunCount == 0)
        #expect(output.framesWritten == frames)
        #expect(!c.events.contains { $0.isDeviceLost })
        if geteuid() == 0 { #expect(output.schedulingNote == "SCHED_FIFO priority 50") }
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
}
