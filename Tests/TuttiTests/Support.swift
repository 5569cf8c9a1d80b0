import Tutti
import TuttiTestSupport

/// A mono 48 kHz engine with a `music` player and a `nav` prompt that ducks others, each
/// with a looping tone (440 and 660 Hz, amplitude 0.5).
func makeEngine(channels: Int = 1, configure: (inout AudioEngineConfiguration) -> Void = { _ in }) throws -> (
    engine: AudioEngine, music: SessionHandle, nav: SessionHandle, song: SourceHandle, prompt: SourceHandle
) {
    var config = AudioEngineConfiguration()
    config.channelCount = channels
    configure(&config)
    let engine = try AudioEngine(configuration: config)
    let music = try engine.makeSession(
        SessionConfiguration(id: "music", category: .playback, playbackControls: true, remoteCommands: [.play, .pause, .togglePlayPause]))
    let nav = try engine.makeSession(SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers]))
    let song = try music.makeToneSource(frequency: 440, amplitude: 0.5, name: "song")
    let prompt = try nav.makeToneSource(frequency: 660, amplitude: 0.5, name: "prompt")
    return (engine, music, nav, song, prompt)
}

/// Pull `frames` frames (all channels interleaved) from the engine in blocks of `block`.
func render(_ engine: AudioEngine, frames: Int, block: Int = 256) -> [Double] {
    let ch = engine.channelCount
    var out = [Float](repeating: 0, count: frames * ch)
    out.withUnsafeMutableBufferPointer { p in
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            engine.render(into: p.baseAddress! + done * ch, frameCount: n)
            done += n
        }
    }
    return out.map(Double.init)
}

/// The amplitude of a tone in a stretch of a mono signal (48 kHz).
func level(_ x: [Double], _ range: Range<Int>, _ frequency: Double) -> Double {
    Analysis.toneAmplitude(x[range], frequency: frequency, sampleRate: 48_000)
}
