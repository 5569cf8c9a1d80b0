import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiPipeWire

/// A graph cycle the stream gave nothing to is an xrun: counted (`lostCycles`, `lostFrames`,
/// in `xrunCount` and the status) and an `xrun` event, never silent. Against a private daemon:
/// a callback late on purpose (`stallNextCycle`), and none without one.
@Suite(.serialized) struct PipeWireLostCycleTests {
    /// The engine's tone (440 Hz, 0.5 on main) plays through a stream at node.latency
    /// 1024/48000 (21.3 ms cycles); one process callback then sleeps 120 ms (5.6 cycles): the
    /// cycles it lost are counted — the late one and those the graph ran without it (its
    /// wake-ups coalesced) — with their frames, each is an `xrun` event, and the recording of
    /// the sink's monitor holds a gap of about that many frames.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aLateCallbackIsCountedAndEvented() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.clientName = "tutti-lost"
        settings.periodFrames = 1_024
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let recording = try PipeWireServer.Recording(server)
        try output.start(frameLimit: Int64(2 * 48_000))
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 24_000, Date() < deadline { usleep(5_000) }
        let before = output.lostCycles
        output.stallNextCycle(microseconds: 120_000)
        #expect(output.waitUntilFinished(timeoutSeconds: 30))
        let status = output.status
        let lost = output.lostCycles - before
        let lostFrames = output.lostFrames
        output.stop(drain: true)
        let left = try recording.finish()

        // 120 ms = 5.6 cycles of 1024 frames: the late cycle and the 4 or 5 the graph ran
        // without the stream.
        #expect((5...7).contains(lost), "lost \(lost) cycles (\(lostFrames) frames)")
        #expect(lostFrames >= Int64(lost - 1) * 1_024 && lostFrames <= Int64(lost) * 1_024, "\(lostFrames) frames in \(lost) cycles")
        #expect(status.xrunCount == output.xrunCount && output.xrunCount >= lost)
        #expect(status.buses.first?.xrunCount == status.xrunCount)
        // Each is an xrun event, in order.
        #expect(
            collector.waitFor(5) { events in events.contains(.xrun(total: output.xrunCount)) },
            "events: \(collector.events.filter(\.isXrun))")
        #expect(collector.events.filter(\.isXrun) == (0..<output.xrunCount).map { .xrun(total: $0 + 1) })
        // The sink got nothing from the stream for about those frames (± a cycle).
        let span = try #require(Measure.played(left), "the recording is silent")
        let gaps = Measure.zeroRunFrames(left, in: span)
        #expect(abs(gaps - Int(lostFrames)) <= 1_024, "\(gaps) frames in gaps in the recording, \(lostFrames) reported lost")
    }

    /// Without a disturbance, 3 s of play at node.latency 2048/48000 lose no cycle: the count
    /// stays 0, no xrun event comes, and the recording has no gap.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func undisturbedPlayLosesNoCycle() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.periodFrames = 2_048
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let recording = try PipeWireServer.Recording(server)
        try output.start(frameLimit: Int64(3 * 48_000))
        #expect(output.waitUntilFinished(timeoutSeconds: 30))
        let (lost, xruns) = (output.lostCycles, output.xrunCount)
        output.stop(drain: true)
        let left = try recording.finish()
        let span = try #require(Measure.played(left), "the recording is silent")
        let gap = Measure.longestZeroRun(left, in: span)
        #expect(lost == 0 && xruns == 0, "lost \(lost) cycles, \(xruns) xruns; longest zero run in the recording \(gap)")
        #expect(collector.events.filter(\.isXrun).isEmpty)
        #expect(gap < 4, "a run of \(gap) zero samples with \(lost) cycles reported lost")
    }

    /// Main and bus "cue" (each to its own null sink) at 1024-frame cycles; main's callback
    /// then sleeps 120 ms, which holds the bus stream's too (one data thread): the bus's lost
    /// cycles are counted, its xruns (`status`, `bus(cue, xrun)` events) include them, and the
    /// frames its sink got nothing for are what it reports — lost plus silence inserted.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aBusStreamsLostCyclesAreCountedAndEvented() throws {
        let server = try PipeWireServer(extraSinks: ["cuesink"])
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings()
        settings.busDestinations = ["main": [PipeWireServer.sink], "cue": ["cuesink"]]
        settings.periodFrames = 1_024
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let cueRecording = try PipeWireServer.Recording(server, name: "cue", target: "cuesink")
        try output.start(frameLimit: Int64(3 * 48_000))
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 48_000, Date() < deadline { usleep(5_000) }
        output.stallNextCycle(microseconds: 120_000)
        #expect(output.waitUntilFinished(timeoutSeconds: 30))
        let status = output.status
        output.stop(drain: true)
        let clock = try #require(output.busClocks.first)
        usleep(500_000)
        let cue = try cueRecording.finish()
        let cueXruns = try #require(status.buses.last?.xrunCount)
        let span = try #require(Measure.played(cue), "cue's sink is silent")
        let gaps = Measure.zeroRunFrames(cue, in: span)
        #expect(clock.lostCycles >= 4, "\(clock)")
        #expect(cueXruns == clock.lostCycles + clock.underruns + clock.missedCycles)
        #expect(collector.waitFor(5) { $0.contains(.bus("cue", .xrun(total: cueXruns))) })
        #expect(gaps > 0 && abs(gaps - Int(clock.lostFrames + clock.framesInserted)) <= 1_024, "\(gaps) frames in gaps, \(clock)")
    }

    /// The capture stream (the sink's monitor into a mono input) loses the cycles main's late
    /// callback held it through (one data thread) too: counted (`captureLostCycles`, in
    /// `xrunCount`) and evented. The engine did not render in them either, so the take keeps
    /// one frame per rendered frame.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theCaptureStreamsLostCyclesAreCountedAndEvented() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try Engine(configuration: EngineConfiguration(sampleRate: 48_000, channelCount: 2))
        let bus = try engine.addBus()
        let tone = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.5), bus: bus)
        let frames = 2 * 48_000
        let mic = try engine.addSource(.input(channelCount: 1, capacityFrames: 1 << 15, tapCapacityFrames: 2 * frames), bus: bus, gain: 0)
        try engine.send(.play(tone))
        try engine.send(.play(mic))
        let input = try #require(engine.input(mic))
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.periodFrames = 1_024
        settings.capture = input
        settings.captureSources = [PipeWireServer.sink + ".monitor"]
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        try output.start(frameLimit: Int64(frames))
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 48_000, Date() < deadline { usleep(5_000) }
        output.stallNextCycle(microseconds: 120_000)
        #expect(output.waitUntilFinished(timeoutSeconds: 30))
        output.stop()
        var recorded = [Float](repeating: 0, count: 2 * frames)
        let n = recorded.withUnsafeMutableBufferPointer { input.readRecorded(into: $0) }
        let take = Array(recorded[0..<n])
        let first = try #require(take.firstIndex { $0 != 0 }, "the take is silent")
        // One recorded frame per rendered frame (the engine skipped the lost cycles as the
        // capture did); the only silence in it is the sink's own gap (main's lost cycles, which
        // the monitor gives back a loopback later), never more.
        #expect(n == frames, "recorded \(n) frames")
        #expect(Measure.zeroRunFrames(take, in: first..<n) <= Int(output.lostFrames))
        #expect((4...7).contains(output.captureLostCycles), "capture lost \(output.captureLostCycles) cycles")
        #expect(
            output.captureLostFrames >= Int64(output.captureLostCycles - 1) * 1_024
                && output.captureLostFrames <= Int64(output.captureLostCycles) * 1_024)
        #expect(output.xrunCount == output.lostCycles + output.captureLostCycles + output.captureMissedCycles)
        #expect(collector.waitFor(5) { $0.contains(.xrun(total: output.xrunCount)) })
    }

    /// At 128-frame cycles (2.7 ms), where a loaded machine does make the graph skip the
    /// stream now and then, 5 s of play: every frame the sink got nothing for (the zero runs in
    /// the recording of its monitor) is in `lostFrames` — a gap is never silent. (The count may
    /// be higher than the zeros: PipeWire sometimes still takes a late cycle's buffer.)
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func everyGapInTheRecordingIsReported() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.periodFrames = 128
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let recording = try PipeWireServer.Recording(server)
        try output.start(frameLimit: Int64(5 * 48_000))
        #expect(output.waitUntilFinished(timeoutSeconds: 30))
        let (lost, lostFrames, xruns) = (output.lostCycles, output.lostFrames, output.xrunCount)
        output.stop(drain: true)
        let left = try recording.finish()
        let span = try #require(Measure.played(left), "the recording is silent")
        let gaps = Measure.zeroRunFrames(left, in: span)
        #expect(gaps <= Int(lostFrames), "\(gaps) frames in gaps in the recording, \(lostFrames) reported lost (\(lost) cycles)")
        #expect(xruns >= lost)
        #expect(collector.waitFor(5) { events in xruns == 0 || events.contains(.xrun(total: xruns)) })
    }
}
