import Foundation
import Glibc
import Testing
import Tutti
import TuttiPipeWire
import TuttiTestSupport

/// Capture through PipeWire: `AudioEngine.startOutput` with a capture input on the PipeWire
/// backend, recording the null sink's monitor while the engine plays a tone into the sink
/// (out → sink → monitor → in: a loopback inside the daemon's graph).
@Suite(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
struct PipeWireCaptureTests {
    /// The input hears the output: after the loopback's delay the recording is the tone,
    /// continuous (no zero run, no jump: each sample equals the played tone at a fixed delay —
    /// 1 kHz, so a slip by a whole cycle of 128 or 1024 frames shows), or, where the output
    /// reported a lost cycle, continuous for at least half the take. The delay is printed: the
    /// loopback latency (two cycles). At 1024-frame cycles: at 128 a cycle the daemon ran
    /// late is lost in the sink without the stream seeing it (see docs/backends.md).
    @Test func theInputHearsTheOutputThroughTheSinksMonitor() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        var config = AudioEngineConfiguration()
        // Stereo like the sink (FL FR): PipeWire mixes no channels, so the loopback is exact
        // (a mono stream is upmixed into the sink and its monitor downmixed: +3 dB).
        config.channelCount = 2
        let engine = try AudioEngine(configuration: config)
        let rec = try engine.makeSession(SessionConfiguration(id: "rec", category: .playAndRecord))
        let mic = try rec.makeInputSource(channelCount: 2, recordCapacityFrames: 1 << 18)
        let tone = try rec.makeToneSource(frequency: 1_000, amplitude: 0.5)
        try rec.setActive(true)
        try mic.play()
        try tone.play()
        var output = OutputConfiguration()
        output.backend = .pipewire
        output.device = PipeWireServer.sink
        output.periodFrames = 1_024
        output.capture = mic
        output.captureSources = [PipeWireServer.sink + ".monitor"]
        output.watchDesktop = false
        try engine.startOutput(output, pipeWireRemote: server.socket)
        let deadline = Date().addingTimeInterval(20)
        while engine.framesRendered < 96_000, Date() < deadline { usleep(5_000) }
        let lost = engine.statistics.xrunCount
        engine.stopOutput()
        var recorded = [Float](repeating: 0, count: 2 << 18)
        let n = try recorded.withUnsafeMutableBufferPointer { try mic.readRecorded(into: $0) }
        #expect(n >= 96_000, "recorded \(n) frames")
        // The left channel (the tone is centred: both carry it).
        let take = (0..<n).map { recorded[2 * $0] }
        // The delay: the first frame that is not silence (the monitor plays the sink's input
        // once the sink has run it: a whole number of the sink's cycles).
        let first = try #require(take.firstIndex { abs($0) > 1e-6 }, "the capture is silent (\(lost) cycles lost)")
        // The tone the engine played, from engine frame 0: 0.5 sin(2π 1000 k / 48 000); its
        // first nonzero sample is frame 1, so the delay is first − 1.
        let delay = first - 1
        var stretch = 0
        var longest = 0
        var residual: Float = 0
        for k in first..<n {
            let expected = Float(0.5 * sin(2 * Double.pi * 1_000 * Double(k - delay) / 48_000))
            let error = abs(take[k] - expected)
            residual = max(residual, error)
            stretch = error < 1e-4 ? stretch + 1 : 0
            longest = max(longest, stretch)
        }
        print("PipeWire loopback (out → testsink → monitor → in) at 1024-frame cycles: \(delay) frames (\(Double(delay) / 48.0) ms)")
        #expect(delay > 0 && delay < 48_000, "delay \(delay) frames")
        if lost == 0 {
            #expect(residual < 1e-4, "captured − played \(delay) frames earlier: \(residual) (longest match \(longest) of \(n - first))")
        } else {
            #expect(
                longest >= 24_000, "captured − played \(delay) frames earlier: \(residual); longest match \(longest) frames, \(lost) lost")
        }
    }

    /// A capture node the daemon does not have is a `device` error before anything plays,
    /// naming it and listing what can be captured (the null sink's monitor: the daemon has no
    /// source); a sink is not a source, and "NAME.monitor" needs a sink NAME.
    @Test func anUnknownCaptureSourceIsAnErrorListingTheSources() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        var config = AudioEngineConfiguration()
        config.channelCount = 2
        let engine = try AudioEngine(configuration: config)
        let rec = try engine.makeSession(SessionConfiguration(id: "rec", category: .playAndRecord))
        let mic = try rec.makeInputSource(channelCount: 2)
        var output = OutputConfiguration()
        output.backend = .pipewire
        output.device = PipeWireServer.sink
        output.capture = mic
        output.watchDesktop = false
        let listed = "(the sources: \(PipeWireServer.sink).monitor)"
        for (node, message) in [
            ("nosuch", "captureSources \"nosuch\": no PipeWire source has that node.name or object.serial \(listed)"),
            (
                PipeWireServer.sink,
                "captureSources \"\(PipeWireServer.sink)\": no PipeWire source has that node.name or object.serial \(listed)"
            ),
            (
                "nosuch.monitor",
                "captureSources \"nosuch.monitor\": no PipeWire sink has the node.name or object.serial \"nosuch\" "
                    + "(to capture its monitor) \(listed)"
            ),
        ] {
            output.captureSources = [node]
            #expect(throws: TuttiError(.device, message), "\(node)") { try engine.startOutput(output, pipeWireRemote: server.socket) }
            #expect(!engine.isOutputRunning)
            #expect(engine.framesRendered == 0, "\(node): rendered \(engine.framesRendered) frames")
            #expect(throws: TuttiError(.device, message)) { try PipeWireOutput.checkCaptureSource(node, remote: server.socket) }
        }
        // What the check lists is accepted.
        try PipeWireOutput.checkCaptureSource(PipeWireServer.sink + ".monitor", remote: server.socket)
    }
}
