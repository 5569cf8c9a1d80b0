import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// Playback rate through the API (`SourceHandle.setRate(_:rampFrames:at:)`): position and
/// duration stay in source frames, a timed change glides from its frame, bad input names
/// `rate` and changes nothing, sources that cannot take a rate refuse it.
@Suite struct RateTests {
    /// A mono 48 kHz engine with an active session and a 440 Hz buffer source of `seconds`.
    func sineSource(seconds: Double = 1) throws -> (engine: AudioEngine, session: SessionHandle, source: SourceHandle) {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let src = try s.makeSource(
            buffer: AudioBuffer(interleaved: sine(440, rate: 48_000, seconds: seconds), channelCount: 1, sampleRate: 48_000))
        try s.setActive(true)
        return (engine, s, src)
    }

    /// At rate 2 the position advances two source frames per output frame; the duration
    /// stays the source's length; the pitch is an octave up (880 Hz within 0.1 Hz).
    @Test func positionAndDurationStayInSourceFrames() throws {
        let (engine, _, src) = try sineSource()
        try src.setRate(2, rampFrames: 0)
        try src.play()
        let x = render(engine, frames: 12_000)
        #expect(try src.position == 24_000)
        #expect(try src.duration == 48_000)
        let f = Analysis.dominantFrequency(x[...], sampleRate: 48_000, low: 860, high: 900)
        #expect(abs(f - 880) < 0.1, "\(f) Hz")
        // The other 24_000 source frames take 12_000 output frames: then it has ended.
        _ = render(engine, frames: 12_001)
        #expect(try src.state == .ended)
    }

    /// `SourceInfo.rate` reads back the last rate set: 1 before, the target of a ramp at once,
    /// unchanged by a refused call.
    @Test func theInfoReadsTheRateBack() throws {
        let (_, _, src) = try sineSource()
        #expect(try src.info.rate == 1)
        try src.setRate(1.5, rampFrames: 4_800, at: .frame(1_000))
        #expect(try src.info.rate == 1.5)
        #expect(throws: TuttiError.self) { try src.setRate(9) }
        #expect(try src.info.rate == 1.5)
    }

    /// A change at a frame glides over the default ramp (the gain ramp, 10 ms) from there:
    /// 440 Hz before it, 660 Hz after it.
    @Test func aTimedChangeGlidesFromItsFrame() throws {
        let (engine, _, src) = try sineSource(seconds: 2)
        try src.play()
        try src.setRate(1.5, at: .frame(20_000))
        let x = render(engine, frames: 40_000)
        let before = Analysis.dominantFrequency(x[2_000..<20_000], sampleRate: 48_000, low: 430, high: 450)
        let after = Analysis.dominantFrequency(x[21_000...], sampleRate: 48_000, low: 650, high: 670)
        #expect(abs(before - 440) < 0.1 && abs(after - 660) < 0.1, "\(before) Hz, \(after) Hz")
        #expect(Analysis.clicks(x, reference: 21_000..<40_000).isEmpty)
    }

    /// 0.2, 4.5, NaN, ∞: `invalidArgument` naming `rate`, and nothing changed — the source
    /// renders bit for bit as one never given a rate. Rate 1 on a tone is accepted (nothing
    /// to do); another rate on a tone is refused.
    @Test func badRatesNameRateAndChangeNothing() throws {
        let (engine, s, src) = try sineSource()
        for bad in [0.2, 4.5, Double.nan, Double.infinity, 0.249_999] {
            let error = #expect(throws: TuttiError.self) { try src.setRate(bad) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("rate") == true, "\(error?.message ?? "")")
        }
        try src.play()
        let x = render(engine, frames: 4_800)
        let (reference, _, plain) = try sineSource()
        try plain.play()
        #expect(x == render(reference, frames: 4_800))
        let tone = try s.makeToneSource(frequency: 440, amplitude: 0.5)
        try tone.setRate(1)
        let toneError = #expect(throws: TuttiError.self) { try tone.setRate(2) }
        #expect(toneError?.code == .invalidArgument)
        #expect(toneError?.message.contains("rate") == true)
    }

    /// A file that streams refuses a rate other than 1 with `state`, naming `rate` and the
    /// streaming threshold; a short file (held in memory) takes it.
    @Test func aStreamingFileRefusesARate() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/tone.wav", sine(440, rate: 48_000, seconds: 0.1), rate: 48_000, channels: 1)
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.streamingThresholdSeconds = 0.05
        let engine = try AudioEngine(configuration: config)
        let s = try engine.makeSession(named: "s", category: .playback)
        let streaming = try s.makeFileSource(path: dir + "/tone.wav")
        let error = #expect(throws: TuttiError.self) { try streaming.setRate(2) }
        #expect(error?.code == .state)
        #expect(error?.message.contains("rate") == true && error?.message.contains("streamingThresholdSeconds") == true)
        try streaming.setRate(1)
        config.streamingThresholdSeconds = 1
        let memory = try AudioEngine(configuration: config)
        let s2 = try memory.makeSession(named: "s", category: .playback)
        try s2.makeFileSource(path: dir + "/tone.wav").setRate(2)
    }
}
