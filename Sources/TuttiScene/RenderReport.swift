import Foundation
import TuttiDSP

/// What loading a scene's audio files did: each distinct file is counted once. Value type: any thread.
public struct AudioLoadReport: Sendable, Equatable {
    /// Distinct files decoded.
    public var fileCount = 0
    /// Of those, the files converted to the engine's rate or channel count.
    public var convertedFileCount = 0
    /// Of those, the files that stream (longer than the streaming threshold): opened and
    /// their first 100 ms read at load, decoded and converted while rendering.
    public var streamedFileCount = 0
    /// Wall time spent decoding and converting them (for streamed files: the first fill),
    /// seconds.
    public var seconds = 0.0
}

/// What a finished `tutti render` job did, and how long each part took. Value type: any thread.
public struct RenderReport: Sendable {
    /// Frames written: round(duration × sampleRate).
    public var frameCount: Int
    /// The scene's duration: seconds of audio written.
    public var seconds: Double
    /// Wall time of the whole job, seconds (`loadSeconds + renderSeconds`).
    public var wallSeconds: Double
    /// Wall time to read the scene, load and convert its audio files and build the graph, seconds.
    public var loadSeconds: Double
    /// Wall time of the render loop and of writing the outputs, seconds.
    public var renderSeconds: Double
    /// The sample format written.
    public var format: SampleFormat
    /// Plain WAV, or RF64 for an output over 4 GiB.
    public var container: WAVContainer
    /// Lines in the events log.
    public var eventCount: Int
    /// The audio files loaded (part of `loadSeconds`).
    public var files: AudioLoadReport

    /// One line for the user, with loading and rendering timed apart, e.g.
    /// `loaded 8 files (8 converted) in 2.90 s · rendered 600.00 s (28800000 frames, float32)
    /// in 0.60 s (1000× real time), 12 events`.
    public var summary: String {
        var parts: [String] = []
        if files.fileCount > 0 {
            var notes: [String] = []
            if files.convertedFileCount > 0 { notes.append("\(files.convertedFileCount) converted") }
            if files.streamedFileCount > 0 { notes.append("\(files.streamedFileCount) streamed") }
            let converted = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
            parts.append("loaded \(files.fileCount) file\(files.fileCount == 1 ? "" : "s")\(converted) in \(Self.duration(loadSeconds))")
        }
        let container = container == .rf64 ? ", RF64" : ""
        parts.append(
            String(format: "rendered %.2f s (%d frames, %@%@) in ", seconds, frameCount, format.rawValue, container)
                + "\(Self.duration(renderSeconds)) (\(Self.speed(seconds, in: renderSeconds))), \(eventCount) event\(eventCount == 1 ? "" : "s")"
        )
        return parts.joined(separator: " · ")
    }

    /// `audioSeconds` rendered in `wallSeconds`, as a real-time factor with three significant
    /// digits. Under a millisecond the clock says too little: a lower bound instead, never 0× or ∞.
    static func speed(_ audioSeconds: Double, in wallSeconds: Double) -> String {
        if wallSeconds < 0.001 { return "over \(significant(audioSeconds / 0.001))× real time" }
        return "\(significant(audioSeconds / wallSeconds))× real time"
    }

    /// Seconds with two decimals, or milliseconds below 10 ms.
    static func duration(_ seconds: Double) -> String {
        seconds >= 0.01 ? String(format: "%.2f s", seconds) : String(format: "%.1f ms", seconds * 1000)
    }

    /// Three significant digits (all of the integer part from 100 on), no exponent.
    static func significant(_ x: Double) -> String {
        guard x.isFinite, x > 0 else { return x.isFinite ? "0" : "∞" }
        let decimals = max(0, 2 - Int(log10(x).rounded(.down)))
        return String(format: "%.\(decimals)f", x)
    }
}
