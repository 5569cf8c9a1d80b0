import Foundation
import Glibc
import Testing
import Tutti
import TuttiTestSupport

/// `AudioEngine.startOutput` with a capture input on JACK: the session API's input source is
/// fed from the client's input ports; through a loopback (`captureFrom: ["tutti:out_1"]`) the
/// recording ring holds what the engine played, one period later, sample for sample.
extension JACKTests {
    @Suite(.enabled(if: JACKServer.isAvailable, Comment(rawValue: JACKServer.skipReason)))
    struct HostCaptureTests {
        @Test func hostInputHearsTheOutputThroughALoopback() throws {
            let server = try JACKServer()
            var config = AudioEngineConfiguration()
            config.channelCount = 1
            let engine = try AudioEngine(configuration: config)
            let rec = try engine.makeSession(SessionConfiguration(id: "rec", category: .playAndRecord))
            let mic = try rec.makeInputSource(channelCount: 1, recordCapacityFrames: 1 << 17)
            let tone = try rec.makeToneSource(frequency: 375, amplitude: 0.5)
            try rec.setActive(true)
            try mic.play()
            try tone.play()
            var output = OutputConfiguration()
            output.backend = .jack
            output.device = server.name
            output.capture = mic
            output.captureSources = ["tutti:out_1"]
            try engine.startOutput(output)
            let deadline = Date().addingTimeInterval(5)
            var xruns = 0
            var events: [String] = []
            func poll() {
                for event in engine.pollEvents() {
                    events.append("\(event.kind)")
                    if case .xrun = event.kind { xruns += 1 }
                }
            }
            while engine.framesRendered < 48_000, Date() < deadline {
                usleep(1_000)
                poll()
            }
            engine.stopOutput()
            poll()
            var recorded = [Float](repeating: 0, count: 1 << 17)
            let n = try recorded.withUnsafeMutableBufferPointer { try mic.readRecorded(into: $0) }
            #expect(n >= 48_000, "recorded \(n) frames")
            #expect(try mic.recordingStartFrame == 0)
            // One period of silence, then the 375 Hz tone (128 frames of 48 kHz = exactly 1 cycle
            // of 375 Hz: the delayed tone equals the tone itself). Measured: level and null test.
            let period = 128
            // An xrun (a loaded machine: JACK skipped this client's cycle) can leave a period of
            // the capture silent; a slip by whole periods is invisible here. So: every frame
            // matches unless an xrun was reported, and then the longest matching stretch must
            // still be half a second.
            var peak: Float = 0
            var residual: Float = 0
            var stretch = 0
            var longest = 0
            var mismatches: [Range<Int>] = []
            var zeroRuns: [Range<Int>] = []
            var zeroStart = -1
            for k in (2 * period)..<n {
                let expected = Float(0.5 * sin(2 * Double.pi * 375 * Double(k - period) / 48_000))
                peak = max(peak, abs(recorded[k]))
                let error = abs(recorded[k] - expected)
                residual = max(residual, error)
                stretch = error < 1e-4 ? stretch + 1 : 0
                longest = max(longest, stretch)
                if error >= 1e-4 {
                    if let last = mismatches.last, last.upperBound == k {
                        mismatches[mismatches.count - 1] = last.lowerBound..<(k + 1)
                    } else {
                        mismatches.append(k..<(k + 1))
                    }
                }
                // Runs of 4+ zero frames (the tone crosses zero once in a while, never 4 in a row).
                if recorded[k] == 0 {
                    if zeroStart < 0 { zeroStart = k }
                } else {
                    if zeroStart >= 0, k - zeroStart >= 4 { zeroRuns.append(zeroStart..<k) }
                    zeroStart = -1
                }
            }
            if zeroStart >= 0, n - zeroStart >= 4 { zeroRuns.append(zeroStart..<n) }
            // Where the capture differs and what the engine reported: the place to look when
            // this fails.
            let report =
                "recorded \(n) frames; mismatching stretches \(mismatches.prefix(8)) (\(mismatches.count) in all); "
                + "zero runs \(zeroRuns.prefix(8)); mic underruns \((try? mic.underrunFrames) ?? -1) frames; "
                + "events \(events.prefix(12))"
            #expect(recorded[0..<period].allSatisfy { $0 == 0 })
            #expect(abs(peak - 0.5) < 0.001, "captured peak \(peak)")
            if xruns == 0 {
                #expect(residual < 1e-4, "captured − played one period earlier: \(residual); \(report)")
            } else {
                print("loopback: \(xruns) xruns reported; the longest matching stretch is \(longest) frames")
                #expect(longest >= 24_000, "captured − played one period earlier: \(residual); longest match \(longest) frames; \(report)")
            }

            // ALSA captures from one PCM, not from a list of ports.
            var alsa = OutputConfiguration()
            alsa.device = "null"
            alsa.capture = mic
            alsa.captureSources = ["tutti:out_1", "tutti:out_2"]
            do {
                try engine.startOutput(alsa)
                Issue.record("ALSA capture from two sources accepted")
                engine.stopOutput()
            } catch {
                #expect(error.code == .invalidArgument && error.message.contains("captureSources: ALSA captures from one PCM"), "\(error)")
            }
            alsa.captureSources = ["tutti-no-such-capture-pcm"]
            do {
                try engine.startOutput(alsa)
                Issue.record("an unknown capture PCM accepted")
                engine.stopOutput()
            } catch {
                #expect(error.code == .device && error.message.contains("capture PCM \"tutti-no-such-capture-pcm\""), "\(error)")
            }
        }
    }
}
