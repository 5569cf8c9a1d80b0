import Foundation
import Testing
import Tutti
import TuttiALSA
import TuttiDSP
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

/// The test graph (`TestGraph`) as the ALSA tests play it: its six scheduled changes, no
/// gain steps. Control thread.
func makeEngine(channels: Int = 2, scheduleChanges: Bool = true, commandCapacity: Int? = nil) throws -> Engine {
    try TestGraph(channels: channels, scheduleChanges: scheduleChanges, gainSteps: 0, commandCapacity: commandCapacity).engine
}

/// The same graph rendered offline (pull mode) in blocks of `block` frames.
func offlineReference(frames: Int, channels: Int = 2, block: Int = 777) throws -> [Float] {
    try TestGraph.offline(frames: frames, channels: channels, block: block, gainSteps: 0)
}

func uniqueName(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

/// Mock configuration: small periods, no real-time promotion (unpaced fakes spin).
func mockConfiguration(_ device: String, period: Int = 256, periods: Int = 4) -> ALSAOutputConfiguration {
    var c = ALSAOutputConfiguration(device: device)
    c.periodFrames = period
    c.periodCount = periods
    c.realtimePriority = nil
    c.reconnect.backoffInitial = .seconds(0.01)
    c.reconnect.backoffMax = .seconds(0.05)
    return c
}

/// Play `frames` of the test graph through a mock device; returns the output after stop.
func playOnMock(
    _ device: MockDevice, frames: Int, configuration: ALSAOutputConfiguration? = nil,
    collector: Collector = Collector(), timeout: Double = 20,
    during: ((ALSAOutput) throws -> Void)? = nil
) throws -> (output: ALSAOutput, finished: Bool, seconds: Double) {
    let engine = try makeEngine()
    let output = try ALSAOutput(
        engine: engine, configuration: configuration ?? mockConfiguration(device.name),
        functions: .mock, log: collector.log, onEvent: collector.onEvent)
    let started = monotonic()
    try output.start(frameLimit: Int64(frames))
    try during?(output)
    let finished = output.waitUntilFinished(timeoutSeconds: timeout)
    output.stop(drain: finished)
    engine.pollEvents()
    return (output, finished, monotonic() - started)
}
