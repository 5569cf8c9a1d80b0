import Foundation
import Tutti
import TuttiDSP
import TuttiEngine

/// Something wrong with a `--input ID=FILE` argument itself (not with the file): an unknown
/// source, or one that is not an input. The CLI reports it as a usage error. Value type: any thread.
public struct InputArgumentError: Error, CustomStringConvertible {
    /// What is wrong, naming the source.
    public let description: String
}

/// One input source of a scene, as the offline renderer drives it: what it is fed from and
/// where what it records goes. Thread: the renderer's thread.
final class SceneInput {
    let sceneID: String
    let session: String
    let source: InputSource
    /// The file given for it, at the engine rate with the input's channels (nil: silence).
    var samples: AudioBuffer?
    /// Receives what the input recorded (its session's `recordTo`), nil: not recorded.
    var recorder: ((UnsafeBufferPointer<Float>) throws -> Void)?
    var recordingFile: String?
    var recordingStarted = false
    var recordingStopped = false
    /// Scratch for draining the tap.
    var drain: [Float]

    init(sceneID: String, session: String, source: InputSource, blockFrames: Int) {
        self.sceneID = sceneID
        self.session = session
        self.source = source
        drain = [Float](repeating: 0, count: blockFrames * source.channelCount)
    }
}

extension OfflineRenderer {
    /// The ring sizes of an input source in a scene: enough for a few blocks offline, and half
    /// a second for a live capture thread.
    static func inputKind(channelCount: Int, scene: Scene, records: Bool) -> SourceKind {
        let frames = max(4 * scene.engine.blockFrames, scene.engine.sampleRate / 2)
        return .input(channelCount: channelCount, capacityFrames: frames, tapCapacityFrames: records ? frames : 0)
    }

    /// The ids of the scene's input sources, in file order. The renderer's thread.
    public var inputSourceNames: [String] { inputs.map(\.sceneID) }

    /// Feed input `source` from the audio file at `path` (its sample `n` is what the
    /// microphone hears at output frame `n`; silence after its end), converted to the engine
    /// rate at the scene's resampler quality. Call before rendering. Throws
    /// `InputArgumentError` for a source that is unknown or not an input, `SceneError` naming
    /// the file when it cannot be read or its channel count is not the input's. Control side. The renderer's thread, before rendering.
    public func feedInput(_ source: String, file path: String) throws {
        guard let input = inputs.first(where: { $0.sceneID == source }) else {
            if scene.sources.contains(where: { $0.id == source }) {
                throw InputArgumentError(description: "source \"\(source)\" is not an input (give it \"input\": {\"channels\": 1})")
            }
            let names = inputSourceNames.isEmpty ? "the scene has no input sources" : "inputs: \(inputSourceNames.joined(separator: ", "))"
            throw InputArgumentError(description: "unknown source \"\(source)\" (\(names))")
        }
        let channels = input.source.channelCount
        do {
            let header = try AudioFile.readHeader(path: path)
            guard header.channelCount == channels else {
                throw SceneError(
                    path, "has \(header.channelCount) channel\(header.channelCount == 1 ? "" : "s"); input \"\(source)\" takes \(channels)")
            }
        } catch let e as AudioFile.Failure {
            throw SceneError(path, e.reason)
        }
        do {
            input.samples = try AudioFile.load(
                path: path, sampleRate: scene.engine.sampleRate, channelCount: channels, quality: scene.engine.resampler)
        } catch {
            throw SceneError(path, error.message)
        }
    }

    /// Send what session `session` records (its `recordTo`; interleaved frames at the engine
    /// rate, the input's channels) to `sink`, from the input's first captured frame to the end
    /// of the render. `file` is the name the journal gives it. Control side, before rendering.
    func record(session: String, file: String, to sink: @escaping (UnsafeBufferPointer<Float>) throws -> Void) {
        for i in inputs where i.session == session {
            i.recorder = sink
            i.recordingFile = file
        }
    }

    /// Before rendering `frameCount` frames from `framePosition`: every input gets exactly
    /// those frames of its file (silence without one), so the render never runs dry.
    func feedInputs(frameCount: Int) {
        for i in inputs {
            let ch = i.source.channelCount
            var written = 0
            if let samples = i.samples {
                let start = Int(framePosition)
                let available = max(0, min(frameCount, samples.frameCount - start))
                if available > 0 {
                    written = i.source.write(UnsafeBufferPointer(rebasing: samples.samples[start * ch..<(start + available) * ch]))
                }
            }
            written += i.source.writeSilence(frameCount: frameCount - written)
            precondition(written == frameCount, "input ring sized for a block")
        }
    }

    /// After rendering: move what the inputs recorded to their recorders; the journal says
    /// when each recording started.
    func drainRecordings() throws {
        for i in inputs {
            guard let recorder = i.recorder else { continue }
            if !i.recordingStarted, let start = i.source.recordingStartFrame {
                i.recordingStarted = true
                logRecording("recordingStarted", i, at: start)
            }
            while true {
                let frames = i.drain.withUnsafeMutableBufferPointer { i.source.readRecorded(into: $0) }
                if frames == 0 { break }
                try i.drain.withUnsafeBufferPointer { try recorder(UnsafeBufferPointer(rebasing: $0[0..<frames * i.source.channelCount])) }
            }
        }
        if framePosition >= totalFrames {
            for i in inputs where i.recordingStarted && !i.recordingStopped {
                i.recordingStopped = true
                logRecording("recordingStopped", i, at: framePosition)
            }
        }
    }

    private func logRecording(_ type: String, _ input: SceneInput, at frame: Int64) {
        appendJournal(
            LogEntry(
                frame: frame, time: Double(frame) / Double(scene.engine.sampleRate), type: type,
                fields: [("session", .string(input.session)), ("file", .string(input.recordingFile ?? ""))]))
    }
}
