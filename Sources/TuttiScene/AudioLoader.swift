import Foundation
import Tutti
import TuttiDSP
import TuttiEngine

/// Loads and converts each audio file of a scene once, for every renderer built from it
/// (`ScenePlayback`'s shadow and live renderers share one loader, so their buffers too),
/// and counts what that cost (`report`).
///
/// Thread: the thread that builds the renderers (control side); not shared between threads.
final class AudioLoader {
    let scene: Scene
    private var cache: [String: AudioBuffer] = [:]
    /// Files that stream (a new `FileStream` per source, so not cached).
    private var streamed: Set<String> = []
    /// The distinct files the scene uses (resolved paths), in the order they are loaded.
    let files: [String]
    /// Files loaded so far, how many were converted, and the time it took.
    private(set) var report = AudioLoadReport()
    /// Called before each file is loaded (`.loading`), and once more when the last is done.
    var progress: (RenderProgress) -> Void = { _ in }
    /// Files longer than this (seconds) stream (`FileStream`, one per source) instead of
    /// being loaded whole.
    let streamingThresholdSeconds: Double

    init(scene: Scene, streamingThresholdSeconds: Double = AudioEngineConfiguration().streamingThresholdSeconds) {
        self.scene = scene
        self.streamingThresholdSeconds = streamingThresholdSeconds
        var seen: Set<String> = []
        var files: [String] = []
        func add(_ audio: Scene.Audio) {
            if case .file(let path) = audio, seen.insert(scene.resolve(path)).inserted { files.append(scene.resolve(path)) }
        }
        for s in scene.sources { add(s.audio) }
        for e in scene.events {
            switch e.action {
            case .phoneCallBegin(audio: .some(let audio)), .systemSound(let audio, _): add(audio)
            default: break
            }
        }
        self.files = files
    }

    /// The source kind for `audio`; a file is decoded and converted to the engine's rate and
    /// channel count on first use (a file above the streaming threshold gets a new stream
    /// for each source that plays it; `whole`: loaded whole whatever its length, as a rate
    /// needs — up to the 2 GiB a buffer may take). Errors name `place` and the file.
    func kind(_ audio: Scene.Audio, place: String, whole: Bool = false) throws -> SourceKind {
        switch audio {
        case .tone(let f, let a): return .tone(frequency: f, amplitude: Float(a))
        case .silence: return .silence
        case .input(let channels): return OfflineRenderer.inputKind(channelCount: channels, scene: scene, records: false)
        case .file(let path):
            let resolved = scene.resolve(path)
            if let b = cache[resolved] { return .buffer(b) }
            let first = !streamed.contains(resolved)
            if first { progress(.loading(done: report.fileCount, total: files.count, file: path)) }
            let started = Date()
            let kind: SourceKind
            var converted = false
            var streams = false
            var configuration = EngineConfiguration(sampleRate: scene.engine.sampleRate, channelCount: scene.engine.channelCount)
            configuration.streamingThresholdSeconds = whole ? .infinity : streamingThresholdSeconds
            do {
                kind = try AudioFile.sourceKind(
                    path: resolved, configuration: configuration, quality: scene.engine.resampler, streamed: &streams,
                    converted: &converted)
            } catch {
                throw SceneError("\(place).file", "\"\(path)\": \(error.reason)")
            }
            if case .buffer(let loaded) = kind { cache[resolved] = loaded }
            if streams { streamed.insert(resolved) }
            report.seconds += Date().timeIntervalSince(started)
            guard first else { return kind }
            report.fileCount += 1
            if converted { report.convertedFileCount += 1 }
            if streams { report.streamedFileCount += 1 }
            if report.fileCount == files.count { progress(.loading(done: files.count, total: files.count, file: path)) }
            return kind
        }
    }
}
