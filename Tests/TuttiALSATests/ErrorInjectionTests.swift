import Foundation
import Glibc
import Testing
import Tutti
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// Each error injected through the mocking hook: handled as specified, every rendered frame
/// reaches the device exactly once and in order, and nothing hangs (each play is bounded).
@Suite struct ErrorInjectionTests {
    let frames = 48_000

    func expectIntact(_ device: MockDevice, _ reference: [Float], sourceLocation: SourceLocation = #_sourceLocation) {
        let got = device.floats
        #expect(got.count == reference.count, sourceLocation: sourceLocation)
        #expect(firstDifference(got, reference) == nil, "written samples differ from the offline render", sourceLocation: sourceLocation)
    }

    @Test func epipeIsRecoveredOnTheRenderThreadAndCounted() throws {
        let device = MockDevice(uniqueName("epipe"))
        device.writeScript = [.accept(1_000), .error(-EPIPE), .accept(100), .error(-EPIPE)]
        let c = Collector()
        let run = try playOnMock(device, frames: frames, collector: c)
        #expect(run.finished)
        #expect(run.output.xrunCount == 2)
        #expect(c.waitFor(1) { $0.filter(\.isXrun).count == 2 })
        #expect(device.codes(of: "recover") == [-EPIPE, -EPIPE])
        #expect(device.threads(of: "recover") == ["tutti-render"])
        #expect(!c.events.contains { $0.isDeviceLost })
        expectIntact(device, try offlineReference(frames: frames))
    }

    /// `onEvent` runs on a queue of the output's own: a callback may stop the output (here on
    /// the first xrun) without waiting for the supervisor's 5 s stop timeout.
    @Test func aCallbackMayStopTheOutput() throws {
        let device = MockDevice(uniqueName("stop-in-callback"))
        device.writeScript = [.accept(1_000), .error(-EPIPE)]
        let engine = try makeEngine()
        let box = OutputBox()
        let stopped = DispatchSemaphore(value: 0)
        let output = try ALSAOutput(
            engine: engine, configuration: mockConfiguration(device.name), functions: .mock, log: { _ in },
            onEvent: { e in
                guard case .xrun = e else { return }
                let started = monotonic()
                box.output?.stop()
                box.stopSeconds = monotonic() - started
                stopped.signal()
            })
        box.output = output
        try output.start()
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(box.stopSeconds < 1, "stop() from the callback took \(box.stopSeconds) s")
        box.output = nil
    }

    /// `stop(drain: true)` while the output still renders (no frame limit): the render thread
    /// ends first, the period it had rendered but not yet written is written, then the device
    /// is asked to play out what it holds (`snd_pcm_drain`, never `snd_pcm_drop`): every frame
    /// rendered reaches the device once, in order. Without `drain` the rest is dropped.
    @Test(arguments: [true, false])
    func stopWithDrainPlaysOutWhatTheDeviceHolds(_ drain: Bool) throws {
        let device = MockDevice(uniqueName("drain-\(drain)"))
        device.pace = 48_000 // a device that plays in real time: the render thread keeps a buffer ahead
        let engine = try makeEngine()
        let output = try ALSAOutput(
            engine: engine, configuration: mockConfiguration(device.name), functions: .mock, log: { _ in }, onEvent: { _ in })
        try output.start(frameLimit: nil)
        let deadline = monotonic() + 10
        while output.framesRendered < 4_800, monotonic() < deadline { usleep(1_000) }
        #expect(output.framesRendered >= 4_800, "the mock device was not written")
        output.stop(drain: drain)
        #expect(device.count("drain") == (drain ? 1 : 0))
        #expect(device.count("drop") == (drain ? 0 : 1))
        let written = device.floats
        if drain {
            #expect(written.count == Int(output.framesRendered) * 2, "rendered \(output.framesRendered), written \(written.count / 2)")
        } else {
            #expect(written.count <= Int(output.framesRendered) * 2)
        }
        let reference = try offlineReference(frames: written.count / 2)
        #expect(firstDifference(written, reference) == nil, "written samples differ from the offline render")
    }

    @Test func estrpipeIsResumedOffTheRenderThread() throws {
        let device = MockDevice(uniqueName("estrpipe"))
        device.writeScript = [.accept(2_000), .error(-ESTRPIPE)]
        device.resumeResults = [-EAGAIN, -EAGAIN, 0]
        let c = Collector()
        let run = try playOnMock(device, frames: frames, collector: c)
        #expect(run.finished)
        #expect(run.seconds < 5)
        // Three resume attempts, none on the render thread, and no snd_pcm_recover (whose
        // ESTRPIPE path sleeps a second per try).
        #expect(device.codes(of: "resume") == [-EAGAIN, -EAGAIN, 0])
        #expect(device.threads(of: "resume") == ["tutti-alsa-sup"])
        #expect(device.count("recover") == 0)
        let events = c.events
        #expect(events.firstIndex(of: .suspended) != nil)
        #expect(events.firstIndex(of: .resumed).map { $0 > events.firstIndex(of: .suspended)! } == true)
        #expect(run.output.xrunCount == 0)
        expectIntact(device, try offlineReference(frames: frames))
    }

    @Test func estrpipeThatCannotResumeIsPreparedAgain() throws {
        let device = MockDevice(uniqueName("estrpipe-nosys"))
        device.writeScript = [.accept(500), .error(-ESTRPIPE)]
        device.resumeResults = [-ENOSYS]
        let run = try playOnMock(device, frames: frames)
        #expect(run.finished)
        #expect(device.threads(of: "prepare") == ["tutti-alsa-sup"])
        expectIntact(device, try offlineReference(frames: frames))
    }

    @Test func eagainWaitsForRoomAndRetries() throws {
        let device = MockDevice(uniqueName("eagain"))
        device.writeScript = [.accept(300), .error(-EAGAIN), .error(-EAGAIN), .accept(10), .error(-EAGAIN)]
        let c = Collector()
        let run = try playOnMock(device, frames: frames, collector: c)
        #expect(run.finished)
        #expect(device.count("wait") == 3)
        #expect(device.threads(of: "wait") == ["tutti-render"])
        #expect(run.output.xrunCount == 0)
        #expect(c.events.allSatisfy { $0.isFinished })
        expectIntact(device, try offlineReference(frames: frames))
    }

    @Test func eintrRetriesAtOnce() throws {
        let device = MockDevice(uniqueName("eintr"))
        device.writeScript = [.error(-EINTR), .accept(64), .error(-EINTR), .error(-EINTR)]
        let c = Collector()
        let run = try playOnMock(device, frames: frames, collector: c)
        #expect(run.finished)
        #expect(device.count("wait") == 0)
        #expect(device.codes(of: "writei").filter { $0 == -EINTR }.count == 3)
        #expect(c.events.allSatisfy { $0.isFinished })
        expectIntact(device, try offlineReference(frames: frames))
    }

    @Test(arguments: [ENODEV, EIO])
    func lostDeviceIsReportedClosedAndReopenedWithBackoff(_ errno: Int32) throws {
        let device = MockDevice(uniqueName("lost-\(errno)"))
        device.writeScript = [.accept(5_000), .error(-errno)]
        // The device stays away for three reopen attempts.
        device.reopenResults = [-ECONNREFUSED, -ECONNREFUSED, -ECONNREFUSED]
        let c = Collector()
        let run = try playOnMock(device, frames: frames, collector: c)
        #expect(run.finished)
        #expect(run.seconds < 5)
        let events = c.events
        let lost = events.firstIndex { $0.isDeviceLost }
        let restored = events.firstIndex { $0.isDeviceRestored }
        #expect(lost != nil && restored != nil && lost! < restored!)
        #expect(events.first { $0.isDeviceLost }?.lostCode == -errno)
        if case .deviceRestored(let status) = events[restored!] {
            #expect(status.backend == "alsa" && status.device == device.name, "\(status)")
        }
        #expect(device.opens == 2)
        #expect(device.codes(of: "open").filter { $0 == -ECONNREFUSED }.count == 3)
        #expect(device.threads(of: "open").contains("tutti-alsa-sup"))
        #expect(device.closes == 2) // the lost one, then the reopened one at stop
        #expect(c.lines.contains { $0.contains("reopen failed") })
        // The period that failed was kept and written to the new device: nothing lost.
        expectIntact(device, try offlineReference(frames: frames))
    }

    @Test func failedEpipeRecoveryCountsAsLost() throws {
        let device = MockDevice(uniqueName("epipe-fail"))
        device.writeScript = [.accept(100), .error(-EPIPE)]
        var functions = ALSAFunctions.mock
        functions.recover = { _, _, _ in -EIO }
        let c = Collector()
        let engine = try makeEngine()
        let output = try ALSAOutput(
            engine: engine, configuration: mockConfiguration(device.name), functions: functions,
            log: c.log, onEvent: c.onEvent)
        try output.start(frameLimit: Int64(frames))
        #expect(output.waitUntilFinished(timeoutSeconds: 10))
        output.stop()
        #expect(c.events.contains { $0.lostCode == -EIO })
        #expect(c.events.contains { $0.isDeviceRestored })
        expectIntact(device, try offlineReference(frames: frames))
    }

    /// Issue 12: a device that never came back was retried forever. After the reconnect
    /// timeout the output gives up: waiters wake, `failure` says why, and it stops cleanly.
    @Test func aDeviceThatNeverComesBackEndsPlaybackAfterTheReconnectTimeout() throws {
        let device = MockDevice(uniqueName("gone"))
        device.writeScript = [.accept(1_000), .error(-ENODEV)]
        device.reopenResults = Array(repeating: -ECONNREFUSED, count: 100_000)
        var config = mockConfiguration(device.name)
        config.reconnect.timeout = .seconds(0.3)
        let c = Collector()
        let engine = try makeEngine()
        let output = try ALSAOutput(engine: engine, configuration: config, functions: .mock, log: c.log, onEvent: c.onEvent)
        let t = monotonic()
        try output.start(frameLimit: 48_000)
        #expect(output.waitUntilFinished(timeoutSeconds: 5))
        let elapsed = monotonic() - t
        #expect(elapsed >= 0.3 && elapsed < 2, "gave up after \(elapsed) s")
        let failure = output.failure?.message ?? ""
        #expect(output.failure?.code == .device)
        #expect(failure.hasPrefix("device \"\(device.name)\" lost (") && failure.contains("and not back within 0.3 s"), "\(failure)")
        #expect(output.isFinished) // finished for good: it gave up
        #expect(c.waitFor(1) { $0.contains { if case .gaveUp(let e) = $0 { e.message == failure } else { false } } })
        #expect(c.lines.contains { $0.hasPrefix("giving up: ") })
        output.stop()
        #expect(!device.isOpen)
        #expect(device.count("open") > 3) // it did retry before giving up
    }

    @Test func stopWhileTheDeviceIsAwayDoesNotHang() throws {
        let device = MockDevice(uniqueName("away"))
        device.writeScript = [.accept(1_000), .error(-ENODEV)]
        device.reopenResults = Array(repeating: -ECONNREFUSED, count: 10_000)
        let c = Collector()
        let engine = try makeEngine()
        let output = try ALSAOutput(
            engine: engine, configuration: mockConfiguration(device.name), functions: .mock,
            log: c.log, onEvent: c.onEvent)
        try output.start()
        #expect(c.waitFor(5) { $0.contains { $0.isDeviceLost } })
        let t = monotonic()
        output.stop()
        #expect(monotonic() - t < 1)
        #expect(!device.isOpen)
    }
}

/// The watchdog: a device that stops consuming.
@Suite struct WatchdogTests {
    @Test func aShortStallIsReportedAndPlaybackGoesOn() throws {
        let device = MockDevice(uniqueName("stall"))
        device.freezeAfterFrames = 10_000
        var config = mockConfiguration(device.name)
        config.stallRestartSeconds = nil
        let c = Collector()
        let run = try playOnMock(device, frames: 48_000, configuration: config, collector: c) { _ in
            #expect(c.waitFor(5) { $0.contains { $0.isStalled } })
            usleep(200_000)
            device.unfreeze()
        }
        #expect(run.finished)
        let events = c.events
        let stalled = events.firstIndex { $0.isStalled }
        let ended = events.firstIndex { $0.isStallEnded }
        #expect(stalled != nil && ended != nil && stalled! < ended!)
        #expect(!events.contains { $0.isDeviceLost })
        #expect(c.lines.contains { $0.contains("watchdog") })
        #expect(device.floats.count == 96_000)
    }

    @Test func aStallPastTheLimitReopensTheDevice() throws {
        let device = MockDevice(uniqueName("stall-restart"))
        device.freezeAfterFrames = 10_000
        var config = mockConfiguration(device.name)
        config.stallRestartSeconds = 0.2
        let c = Collector()
        let run = try playOnMock(device, frames: 48_000, configuration: config, collector: c)
        #expect(run.finished)
        #expect(run.seconds < 5)
        #expect(c.events.contains { $0.lostCode == -ETIMEDOUT })
        #expect(c.events.contains { $0.isDeviceRestored })
        #expect(device.opens == 2)
        #expect(firstDifference(device.floats, try offlineReference(frames: 48_000)) == nil)
    }

    @Test func aWriteBlockedInsideAlsaLibIsSeen() throws {
        // A blocking-mode write on a frozen server never returns EAGAIN: the watchdog
        // still sees the time since the write began.
        let device = MockDevice(uniqueName("block"))
        device.writeScript = [.accept(4_000), .block(0.3)]
        var config = mockConfiguration(device.name)
        config.stallRestartSeconds = nil
        let c = Collector()
        let run = try playOnMock(device, frames: 24_000, configuration: config, collector: c)
        #expect(run.finished)
        #expect(c.events.contains { $0.isStalled })
        #expect(c.events.contains { $0.isStallEnded })
    }
}

/// The output a callback stops (set after creation). Test threads only.
final class OutputBox: @unchecked Sendable {
    var output: ALSAOutput?
    var stopSeconds = 0.0
}
