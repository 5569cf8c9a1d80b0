import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiScene

/// Issue 10, item 3: the report times loading/conversion and rendering apart, never says
/// "0×", and the progress covers the whole job.
@Suite struct RenderReportTests {
    @Test func speedsAreNeverZeroOrInfinite() {
        // The old line printed "%.0f×": anything slower than 0.5× real time read "0×".
        #expect(RenderReport.speed(0.3, in: 1) == "0.300× real time")
        #expect(RenderReport.speed(600, in: 0.6) == "1000× real time")
        #expect(RenderReport.speed(20, in: 0.1234) == "162× real time")
        #expect(RenderReport.speed(1, in: 0.4321) == "2.31× real time")
        #expect(RenderReport.speed(0.001, in: 1) == "0.00100× real time")
        // Below a millisecond of wall time: a bound, not a quotient of clock noise.
        #expect(RenderReport.speed(1, in: 0) == "over 1000× real time")
        #expect(RenderReport.speed(0.001, in: 0.0002) == "over 1.00× real time")
        #expect(RenderReport.duration(0.6) == "0.60 s")
        #expect(RenderReport.duration(0.0042) == "4.2 ms")
    }

    @Test func summaryTimesLoadingAndRenderingApart() {
        var files = AudioLoadReport()
        files.fileCount = 8
        files.convertedFileCount = 8
        files.seconds = 2.8
        let report = RenderReport(
            frameCount: 28_800_000, seconds: 600, wallSeconds: 3.5, loadSeconds: 2.9, renderSeconds: 0.6, format: .float32,
            container: .wav, eventCount: 12, files: files)
        #expect(
            report.summary
                == "loaded 8 files (8 converted) in 2.90 s · rendered 600.00 s (28800000 frames, float32) in 0.60 s (1000× real time), 12 events"
        )
        var toneOnly = report
        toneOnly.files = AudioLoadReport()
        toneOnly.container = .rf64
        toneOnly.eventCount = 1
        #expect(toneOnly.summary == "rendered 600.00 s (28800000 frames, float32, RF64) in 0.60 s (1000× real time), 1 event")
    }

    /// The demo loads four files (all at other rates than 48 kHz): progress names each one
    /// as it loads, then follows the render to the end; the report counts them once.
    @Test func progressCoversLoadingThenRendering() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var seen: [RenderProgress] = []
        let report = try OfflineRenderer.renderFile(
            scenePath: Tool.fixtures + "/scenes/demo.json", outputPath: dir + "/demo.wav", eventsPath: nil, format: nil,
            progress: { seen.append($0) })
        let loading = seen.prefix { if case .loading = $0 { true } else { false } }
        #expect(
            loading.map { if case .loading(let d, let t, _) = $0 { "\(d)/\(t)" } else { "" } } == ["0/4", "1/4", "2/4", "3/4", "4/4"])
        #expect(Set(loading.map { if case .loading(_, _, let f) = $0 { f } else { "" } }).count == 4)
        let fractions: [Double] = seen.dropFirst(loading.count).map { p -> Double in
            if case .rendering(let f) = p { return f }
            return -1
        }
        #expect(!fractions.isEmpty && fractions.allSatisfy { $0 >= 0 })
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(fractions.last == 1)
        #expect(report.files.fileCount == 4 && report.files.convertedFileCount == 4)
        #expect(report.files.seconds > 0 && report.files.seconds <= report.loadSeconds)
        #expect(abs(report.loadSeconds + report.renderSeconds - report.wallSeconds) < 1e-6)
        #expect(report.summary.hasPrefix("loaded 4 files (4 converted) in "))
    }

    /// `ScenePlayback` used to decode and convert every file twice (once per renderer).
    @Test func playbackLoadsEachFileOnce() throws {
        let scene = try OfflineRenderer.loadScene(path: Tool.fixtures + "/scenes/demo.json")
        let playback = try ScenePlayback(scene: scene)
        #expect(playback.loading.fileCount == 4)
        #expect(playback.loading.convertedFileCount == 4)
    }
}
