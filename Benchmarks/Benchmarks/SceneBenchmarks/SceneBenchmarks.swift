// Offline render speed, as × real time (docs/performance.md).
//
//   Offline render 8 sources 48kHz 300s
//       OfflineRenderer.render(sink:) of a 5-minute scene: 8 file sources at 48 kHz in 4
//       sessions, all playing, a navigation session ducking the others every 20 s, volume
//       changes. The files are decoded while building the renderer (not timed); the sink
//       discards the blocks. Custom metric "x real time" = scene seconds / wall seconds.
//   Offline renderFile 8 sources 48kHz 60s
//       OfflineRenderer.renderFile end to end: read the scene, decode the WAVs, render, write a
//       float32 WAV to a temporary folder: what `tutti render` does.
//   Scene setup N sessions
//       Scene.decode + OfflineRenderer(scene:) of a scene with N sessions, each with a tone
//       source and an activate + play event (N = 1 000 and 10 000): what `tutti render`
//       does before the first frame. Custom metrics: "heap bytes per session" (heap in use
//       after the setup minus before, per session, from mallinfo) and "ns per session";
//       both stay flat from 1 000 to 10 000 when setup is linear (issue 12: it was quadratic).
//   Policy action N sessions
//       The cost of one policy action with N sessions, all active (issue 24): a host's
//       `pause()` then `play()` of one source (two actions, each through the policy, the
//       render view and the engine's command queue), timed together and halved; a 64-frame
//       render after each pair (not timed) takes the commands. N = 100, 1 000, 10 000: the
//       custom metric "ns per action" stays flat when actions cost what they change.
//
// Environment: TUTTI_BENCH_SMOKE=1 renders 20 s scenes and sets up 100 / 1 000 sessions, briefly.

import BenchHarness
import Benchmark
import Foundation
import Tutti
import TuttiDSP
import TuttiScene
import TuttiSceneBenchSupport

let smoke = ProcessInfo.processInfo.environment["TUTTI_BENCH_SMOKE"] != nil

struct ScenePaths {
    var scene: String
    var output: String
}

let xRealTime = BenchmarkMetric.custom("x real time", polarity: .prefersLarger, useScalingFactor: false)
let residentPerSession = BenchmarkMetric.custom("resident bytes per session", polarity: .prefersSmaller, useScalingFactor: false)
let nsPerSession = BenchmarkMetric.custom("ns per session", polarity: .prefersSmaller, useScalingFactor: false)
let nsPerAction = BenchmarkMetric.custom("ns per action", polarity: .prefersSmaller, useScalingFactor: false)

/// An engine with N active sessions, a tone source in each; the first one plays.
final class ManySessions {
    let engine: AudioEngine
    let source: SourceHandle
    var block: [Float]

    init(_ n: Int) throws {
        var configuration = AudioEngineConfiguration()
        configuration.maxSessions = n
        configuration.maxSources = n
        configuration.commandQueueCapacity = max(4_096, 4 * n) // room for an action on every session
        let engine = try AudioEngine(configuration: configuration)
        var block = [Float](repeating: 0, count: 64 * engine.channelCount)
        func render() { block.withUnsafeMutableBufferPointer { _ = engine.render(into: $0.baseAddress!, frameCount: 64) } }
        var first: SourceHandle?
        for i in 0..<n {
            let session = try engine.makeSession(named: "s\(i)", category: .ambient)
            let tone = try session.makeToneSource(frequency: 440, amplitude: 0.01, name: "t\(i)")
            try session.setActive(true)
            if first == nil { first = tone }
            if i % 64 == 63 { render() } // take the commands as they come
        }
        self.engine = engine
        self.block = block
        source = first!
        try source.play()
        self.render()
    }

    func render() {
        block.withUnsafeMutableBufferPointer { _ = engine.render(into: $0.baseAddress!, frameCount: 64) }
    }
}

/// Resident memory of the process now, bytes (/proc/self/statm).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// N sessions, each with a tone source (no events: only the setup is measured).
func manySessionsJSON(_ n: Int) -> String {
    let sessions = (0..<n).map { #"{"id": "s\#($0)", "category": "ambient"}"# }.joined(separator: ",")
    let sources = (0..<n).map { #"{"id": "t\#($0)", "session": "s\#($0)", "tone": {"frequency": 440, "amplitude": 0.001}}"# }
        .joined(separator: ",")
    return #"{"engine": {"sampleRate": 48000}, "duration": 1, "sessions": [\#(sessions)], "sources": [\#(sources)], "events": []}"#
}

func configuration(samples: Int) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .throughput, xRealTime],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(smoke ? 1 : 5),
        maxIterations: smoke ? 2 : samples)
}

let benchmarks: @Sendable () -> Void = {
    let renderSeconds = smoke ? 20 : 300
    Benchmark("Offline render 8 sources 48kHz \(renderSeconds)s", configuration: configuration(samples: 10)) { benchmark, scene in
        let renderer: OfflineRenderer
        do { renderer = try OfflineRenderer(scene: scene) } catch {
            benchmark.fail("\(error)")
            return
        }
        var peak: Float = 0
        var blocks = 0
        benchmark.startMeasurement()
        let t0 = DispatchTime.now().uptimeNanoseconds
        do {
            try renderer.render { block in
                // Look at one block in 64 (that there is sound), so the sink costs ~nothing.
                blocks &+= 1
                if blocks & 63 == 0, let m = block.max(), m > peak { peak = m }
            }
        } catch {
            benchmark.fail("\(error)")
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        benchmark.stopMeasurement()
        if peak == 0 { benchmark.fail("the scene rendered silence") }
        benchmark.measurement(xRealTime, Int(Double(renderSeconds) / wall))
    } setup: {
        try Scene.decode(json: sceneJSON(duration: renderSeconds), baseDirectory: audioFolder)
    }

    let fileSeconds = smoke ? 20 : 60
    Benchmark("Offline renderFile 8 sources 48kHz \(fileSeconds)s", configuration: configuration(samples: 5)) {
        (benchmark: Benchmark, paths: ScenePaths) in
        benchmark.startMeasurement()
        let t0 = DispatchTime.now().uptimeNanoseconds
        do {
            _ = try OfflineRenderer.renderFile(scenePath: paths.scene, outputPath: paths.output, eventsPath: nil, format: nil)
        } catch {
            benchmark.fail("\(error)")
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        benchmark.stopMeasurement()
        benchmark.measurement(xRealTime, Int(Double(fileSeconds) / wall))
        unlink(paths.output)
    } setup: {
        let scene = audioFolder + "/scene.json"
        try sceneJSON(duration: fileSeconds).write(toFile: scene, atomically: true, encoding: .utf8)
        return ScenePaths(scene: scene, output: audioFolder + "/out.wav")
    }

    for n in smoke ? [100, 1_000] : [1_000, 10_000] {
        Benchmark(
            "Scene setup \(n) sessions",
            configuration: .init(
                metrics: [.wallClock, .peakMemoryResidentDelta, .mallocCountTotal, residentPerSession, nsPerSession],
                timeUnits: .milliseconds, warmupIterations: 1,
                scalingFactor: .one, maxDuration: .seconds(smoke ? 1 : 10), maxIterations: smoke ? 2 : 5)
        ) { benchmark, json in
            benchmark.startMeasurement()
            let t0 = DispatchTime.now().uptimeNanoseconds
            do {
                let scene = try Scene.decode(json: json, baseDirectory: audioFolder)
                let renderer = try OfflineRenderer(scene: scene)
                let wall = DispatchTime.now().uptimeNanoseconds - t0
                benchmark.stopMeasurement()
                benchmark.measurement(residentPerSession, residentBytes() / n)
                benchmark.measurement(nsPerSession, Int(wall) / n)
                blackHole(renderer)
            } catch {
                benchmark.fail("\(error)")
            }
        } setup: {
            manySessionsJSON(n)
        }
    }

    for n in smoke ? [100, 1_000] : [100, 1_000, 10_000] {
        Benchmark(
            "Policy action \(n) sessions",
            configuration: .init(
                metrics: [nsPerAction], timeUnits: .nanoseconds, warmupIterations: 10, scalingFactor: .one,
                maxDuration: .seconds(smoke ? 1 : 5), maxIterations: smoke ? 200 : 5_000)
        ) { benchmark, world in
            let t0 = DispatchTime.now().uptimeNanoseconds
            do {
                try world.source.pause()
                try world.source.play()
            } catch {
                benchmark.fail("\(error)")
            }
            let wall = DispatchTime.now().uptimeNanoseconds - t0
            benchmark.measurement(nsPerAction, Int(wall) / 2)
            world.render()
        } setup: {
            try ManySessions(n)
        }
    }
}
