// Offline render speed, as × real time (docs/performance.md).
//
//   Offline render 8 sources 48kHz 300s
//       SceneRenderer.render(sink:) of a 5-minute scene: 8 file sources at 48 kHz in 4
//       sessions, all playing, a navigation session ducking the others every 20 s, volume
//       changes. The files are decoded while building the renderer (not timed); the sink
//       discards the blocks. Custom metric "x real time" = scene seconds / wall seconds.
//   Offline renderFile 8 sources 48kHz 60s
//       SceneRenderer.renderFile end to end: read the scene, decode the WAVs, render, write a
//       float32 WAV to a temporary folder: what `tutti render` does.
//
// Environment: TUTTI_BENCH_SMOKE=1 renders 20 s scenes, briefly.

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
        let renderer: SceneRenderer
        do { renderer = try SceneRenderer(scene: scene) } catch {
            benchmark.error("\(error)")
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
            benchmark.error("\(error)")
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        benchmark.stopMeasurement()
        if peak == 0 { benchmark.error("the scene rendered silence") }
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
            _ = try SceneRenderer.renderFile(scenePath: paths.scene, outputPath: paths.output, eventsPath: nil, format: nil)
        } catch {
            benchmark.error("\(error)")
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
}
