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

/// How loud the written output is: its largest absolute sample and how many samples went
/// beyond full scale (they clip in an integer format and on any device). Value type: any thread.
public struct OutputLevels: Sendable, Equatable {
    /// Largest absolute sample value over every output written (linear; 1 is 0 dBFS).
    public var peak: Float = 0
    /// Samples whose absolute value exceeds full scale (> 1.0), over every output written.
    public var clippedSampleCount = 0

    /// Nothing measured yet.
    public init() {}

    /// The peak in dBFS (−infinity for digital silence).
    public var peakDBFS: Double { peak > 0 ? 20 * log10(Double(peak)) : -.infinity }

    /// Fold `samples` (float, as rendered) into the levels.
    public mutating func measure(_ samples: UnsafeBufferPointer<Float>) {
        var p = peak
        var clipped = 0
        for x in samples {
            let v = abs(x)
            if v > p { p = v }
            if v > 1 { clipped += 1 }
        }
        peak = p
        clippedSampleCount += clipped
    }

    /// e.g. `peak −0.42 dBFS`, or `peak +2.50 dBFS, 1234 samples clipped (add engine.limiter
    /// to keep the output within full scale)`.
    public var summary: String {
        guard peak > 0 else { return "peak −inf dBFS (silent)" }
        let db = peakDBFS
        var text = "peak " + (db >= 0.005 ? "+" : db > -0.005 ? "" : "−") + String(format: "%.2f dBFS", abs(db))
        if clippedSampleCount > 0 {
            text +=
                ", \(clippedSampleCount) sample\(clippedSampleCount == 1 ? "" : "s") clipped"
                + " (add engine.limiter to keep the output within full scale)"
        }
        return text
    }
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
    /// The output's peak and clipped samples, over every output written (nil: not measured).
    public var levels: OutputLevels?

    /// One line for the user, with loading and rendering timed apart and the output's level,
    /// e.g. `loaded 8 files (8 converted) in 2.90 s · rendered 600.00 s (28800000 frames,
    /// float32) in 0.60 s (1000× real time), 12 events · peak −0.42 dBFS`.
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
        if let levels { parts.append(levels.summary) }
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
