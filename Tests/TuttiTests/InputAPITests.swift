import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// `SessionHandle.makeInputSource` and the recording ring through the public API: what the
/// host writes comes back from `readRecorded` sample-exact while it captures, silence while
/// the mic is muted, and only capturing sessions may have inputs.
@Suite struct InputAPITests {
    @Test func hostCaptureIsRecordedAndSilencedByTheMicMute() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let rec = try engine.makeSession(SessionConfiguration(id: "rec", category: .playAndRecord))
        let mic = try rec.makeInputSource(channelCount: 1, capacityFrames: 4_096, recordCapacityFrames: 65_536)
        #expect(try mic.recordingStartFrame == nil)
        try rec.setActive(true)
        try mic.play()
        try mic.setGain(0.5, rampFrames: 0)
        let block = 256
        var written: [Float] = []
        let out = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { out.deallocate() }
        var output: [Float] = []
        var recorded: [Float] = []
        var drain = [Float](repeating: 0, count: 8_192)
        for b in 0..<100 {
            if b == 50 { try engine.setMicrophoneMuted(true) }
            let frames = (0..<block).map { Float(sin(Double(b * block + $0) * 0.05) * 0.5) }
            written += frames
            #expect(try frames.withUnsafeBufferPointer { try mic.write($0) } == block)
            engine.render(into: out, frameCount: block)
            output += UnsafeBufferPointer(start: out, count: block)
            let n = try drain.withUnsafeMutableBufferPointer { try mic.readRecorded(into: $0) }
            recorded += drain[0..<n]
        }
        let start = Int(try #require(try mic.recordingStartFrame))
        #expect(recorded.count == 100 * block - start)
        // While capturing (blocks 1…49 — the gain ramp is at most a block): exact, and heard at 0.5.
        for f in block..<(50 * block) {
            #expect(recorded[f - start] == written[f], "frame \(f)")
            #expect(abs(output[f] - 0.5 * written[f]) < 1e-6, "frame \(f)")
        }
        // Muted from block 50: silence once the 10 ms fade-out is over, in the recording and the output.
        let silentFrom = 50 * block + 480 + block
        #expect(recorded[(silentFrom - start)...].allSatisfy { $0 == 0 })
        #expect(output[silentFrom...].allSatisfy { $0 == 0 })
        #expect(try mic.droppedRecordedFrames == 0 && mic.underrunFrames == 0)
        // Unmuting does not capture again by itself.
        try engine.setMicrophoneMuted(false)
        engine.render(into: out, frameCount: block)
        #expect(try mic.state != .playing)
    }

    @Test func inputsNeedACapturingSessionAndARecordingRing() throws {
        let engine = try AudioEngine(configuration: AudioEngineConfiguration())
        let music = try engine.makeSession(SessionConfiguration(id: "music", category: .playback))
        do {
            _ = try music.makeInputSource(channelCount: 1)
            Issue.record("an input in a playback session")
        } catch {
            #expect(error.code == .state && error.message.contains("\"music\" is playback"))
        }
        let rec = try engine.makeSession(SessionConfiguration(id: "rec", category: .record))
        do {
            _ = try rec.makeInputSource(channelCount: 3)
            Issue.record("3 channels")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("channelCount"))
        }
        let plain = try rec.makeInputSource(channelCount: 2)
        var buffer = [Float](repeating: 0, count: 64)
        do {
            _ = try buffer.withUnsafeMutableBufferPointer { try plain.readRecorded(into: $0) }
            Issue.record("read without a recording ring")
        } catch let error as TuttiError {
            #expect(error.code == .invalidArgument && error.message.contains("recording ring"))
        }
        do {
            _ = try [Float](repeating: 0, count: 3).withUnsafeBufferPointer { try plain.write($0) }
            Issue.record("3 samples into a stereo input")
        } catch let error as TuttiError {
            #expect(error.code == .invalidArgument && error.message.contains("whole frames"))
        }
        let tone = try rec.makeToneSource(frequency: 440, amplitude: 0.1)
        do {
            _ = try buffer.withUnsafeMutableBufferPointer { try tone.readRecorded(into: $0) }
            Issue.record("read from a tone")
        } catch let error as TuttiError {
            #expect(error.code == .invalidArgument && error.message.contains("not an input"))
        }
    }
}
