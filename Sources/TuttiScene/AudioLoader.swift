import Tutti
import TuttiDSP

/// Loads and converts each audio file of a scene once, for every renderer built from it
/// (`ScenePlayback`'s shadow and live renderers share one loader, so their buffers too).
///
/// Thread: the thread that builds the renderers (control side); not shared between threads.
final class AudioLoader {
    let scene: Scene
    private var cache: [String: AudioBuffer] = [:]

    init(scene: Scene) { self.scene = scene }

    /// The source kind for `audio`; a file is decoded and converted to the engine's rate and
    /// channel count on first use. Errors name `place` and the file.
    func kind(_ audio: Scene.Audio, place: String) throws -> SourceKind {
        switch audio {
        case .tone(let f, let a): return .tone(frequency: f, amplitude: Float(a))
        case .silence: return .silence
        case .file(let path):
            let resolved = scene.resolve(path)
            if let b = cache[resolved] { return .buffer(b) }
            let loaded: AudioBuffer
            do {
                loaded = try AudioFileReader.load(
                    path: resolved, sampleRate: scene.engine.sampleRate, channelCount: scene.engine.channelCount,
                    quality: scene.engine.resampler)
            } catch let e as SceneError {
                throw SceneError("\(place).file", "\"\(path)\": \(e.message)")
            }
            cache[resolved] = loaded
            return .buffer(loaded)
        }
    }
}
