import Foundation
import Glibc
import Testing
import Tutti
import TuttiDSP
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiALSA

/// Negotiation through the mocking hook: the values read back are the ones used.
@Suite struct NegotiationTests {
    @Test func periodEqualToBufferIsRefused() throws {
        let device = MockDevice(uniqueName("one-period"))
        device.nearBuffer = { _ in 1_024 }
        device.nearPeriod = { _ in 1_024 }
        let engine = try Engine()
        #expect(throws: ALSAError.periodEqualsBuffer(frames: 1_024)) {
            try ALSAOutput(engine: engine, configuration: mockConfiguration(device.name, period: 1_024, periods: 4), functions: .mock)
        }
        // Refused after negotiating, and nothing left open.
        #expect(device.opens == 1 && device.closes == 1)
    }

    @Test func readBackValuesAreUsedNotTheRequest() throws {
        let device = MockDevice(uniqueName("readback"))
        // The `_near` calls answer 1024 / 4096, but the installed configuration is 480 / 1440.
        device.nearPeriod = { _ in 1_024 }
        device.nearBuffer = { _ in 4_096 }
        device.installedPeriod = { _ in 480 }
        device.installedBuffer = { _ in 1_440 }
        let c = Collector()
        let run = try playOnMock(
            device, frames: 10_000, configuration: mockConfiguration(device.name, period: 1_000, periods: 3), collector: c)
        #expect(run.finished)
        let n = run.output.negotiated
        #expect(n.periodFrames == 480)
        #expect(n.bufferFrames == 1_440)
        #expect(abs(n.latencySeconds - 0.030) < 1e-9)
        #expect(device.maxWriteFrames == 480)
        #expect(device.startThreshold == 1_440)
        #expect(device.availMin == 480)
        #expect(firstDifference(device.floats, try offlineReference(frames: 10_000)) == nil)
    }

    @Test func rateTheEngineDoesNotRunIsRefused() throws {
        let device = MockDevice(uniqueName("rate"))
        device.grantedRate = 44_100
        #expect(throws: ALSAError.rateMismatch(wanted: 48_000, granted: 44_100)) {
            try ALSAOutput(engine: try Engine(), configuration: mockConfiguration(device.name), functions: .mock)
        }
        #expect(!device.isOpen)
    }

    @Test func channelsTheEngineDoesNotHaveAreRefused() throws {
        let device = MockDevice(uniqueName("channels"))
        device.grantedChannels = 6
        #expect(throws: ALSAError.channelMismatch(wanted: 2, granted: 6)) {
            try ALSAOutput(engine: try Engine(), configuration: mockConfiguration(device.name), functions: .mock)
        }
    }

    @Test func noFormatInCommonIsRefused() throws {
        let device = MockDevice(uniqueName("formats"))
        device.formats = []
        #expect(throws: ALSAError.noUsableFormat([.float32, .s32, .s16])) {
            try ALSAOutput(engine: try Engine(), configuration: mockConfiguration(device.name), functions: .mock)
        }
    }

    @Test func missingDeviceIsAnOpenError() throws {
        #expect(throws: ALSAError.self) {
            try ALSAOutput(engine: try Engine(), configuration: mockConfiguration("no-such-mock"), functions: .mock)
        }
    }

    /// Integer formats go through TPDFQuantizer with the offline writer's seed: the device
    /// gets exactly what `tutti render -f s16` would write for the same samples.
    @Test func s16IsTheDitheredQuantizerOutput() throws {
        let device = MockDevice(uniqueName("s16"))
        device.formats = [.s16]
        let frames = 20_000
        let run = try playOnMock(device, frames: frames)
        #expect(run.output.negotiated.format == .s16)
        let reference = try offlineReference(frames: frames)
        var q = TPDFQuantizer(format: .s16)
        var codes = [Int32](repeating: 0, count: reference.count)
        reference.withUnsafeBufferPointer { r in
            codes.withUnsafeMutableBufferPointer { q.quantizeReference(r.baseAddress!, count: r.count, into: $0.baseAddress!) }
        }
        #expect(device.int16s == codes.map { Int16($0) })
    }

    @Test func s32CarriesDithered24BitCodes() throws {
        let device = MockDevice(uniqueName("s32"))
        device.formats = [.s32, .s16]
        let frames = 20_000
        let run = try playOnMock(device, frames: frames)
        #expect(run.output.negotiated.format == .s32)
        let reference = try offlineReference(frames: frames)
        var q = TPDFQuantizer(format: .s24)
        var codes = [Int32](repeating: 0, count: reference.count)
        reference.withUnsafeBufferPointer { r in
            codes.withUnsafeMutableBufferPointer { q.quantizeReference(r.baseAddress!, count: r.count, into: $0.baseAddress!) }
        }
        #expect(device.int32s == codes.map { $0 << 8 })
    }

    @Test func preferenceOrderIsFollowed() throws {
        let device = MockDevice(uniqueName("order"))
        var config = mockConfiguration(device.name)
        config.formats = [.s16, .float32]
        let output = try ALSAOutput(engine: try Engine(), configuration: config, functions: .mock)
        #expect(output.negotiated.format == .s16)
    }

    @Test func unprivilegedSchedulingFallsBackAndLogs() throws {
        let device = MockDevice(uniqueName("sched"))
        var config = mockConfiguration(device.name)
        config.realtimePriority = 50
        config.lockMemory = true
        let c = Collector()
        let engine = try makeEngine()
        // The mock's scheduling hooks answer like an unprivileged user: EPERM / ENOMEM.
        let output = try ALSAOutput(engine: engine, configuration: config, functions: .mock, log: c.log, onEvent: c.onEvent)
        try output.start(frameLimit: 4_800)
        #expect(output.waitUntilFinished(timeoutSeconds: 5))
        output.stop()
        #expect(c.lines.contains { $0.contains("SCHED_FIFO priority 50 refused") && $0.contains("falling back to normal scheduling") })
        #expect(c.lines.contains { $0.contains("mlockall refused") })
        #expect(output.schedulingNote.hasPrefix("normal scheduling"))
        #expect(device.floats.count == 9_600)
    }
}

/// `tutti devices`: the real alsa-lib hint list.
@Suite struct DeviceListTests {
    @Test func listsPlaybackPCMsFromTheConfiguration() throws {
        let devices = try ALSADevices.list()
        // `null` is defined by alsa-lib's own configuration on every system.
        #expect(devices.contains { $0.name == "null" })
        #expect(!devices.contains { $0.direction == "Input" })
    }

    @Test func aFailingHintCallIsAnError() throws {
        var f = try ALSAFunctions.system
        f.device_name_hint = { _, _, _ in -ENOMEM }
        #expect(throws: ALSAError.self) { try ALSADevices.list(functions: f) }
    }
}
