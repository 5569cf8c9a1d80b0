// What `tutti render --plot` costs: the same scene rendered with and without recording the
// timeline (render probe + the policy's view changes) and drawing its SVG, as a ratio
// measured in the same iteration.
//
//   Plot overhead 6 sessions 48kHz Ns
//       Each iteration renders the scene twice — once plain (OfflineRenderer.render), once with
//       recordTimeline() before and timeline(title:) + TimelineSVG.svg() after — in an order
//       that alternates between iterations. Custom metrics: "plot ‰ of plain" (wall time with
//       the picture per mille of the plain render's) and "SVG kB".
//
// Self-contained (its own scene, tones only, no files) so it does not depend on the shared
// benchmark support. Environment: TUTTI_BENCH_SMOKE=1 renders 20 s, briefly.

import BenchHarness
import Benchmark
import Foundation
import TuttiScene

let smoke = ProcessInfo.processInfo.environment["TUTTI_BENCH_SMOKE"] != nil

let perMille = BenchmarkMetric.custom("plot ‰ of plain", polarity: .prefersSmaller, useScalingFactor: false)
let svgKB = BenchmarkMetric.custom("SVG kB", polarity: .prefersSmaller, useScalingFactor: false)

/// Six sessions at 48 kHz stereo: two players, a game, a navigation prompt ducking the others
/// by rule every 10 s, an alert session with a voice limit stealing every 2 s, silent switch
/// and calls now and then.
func plotSceneJSON(seconds: Int) -> String {
    var events: [String] = [
        #"{"at": 0, "session": "music", "action": "activate"}"#, #"{"at": 0, "source": "song", "action": "play"}"#,
        #"{"at": 0, "session": "radio", "action": "activate"}"#, #"{"at": 0, "source": "talk", "action": "play"}"#,
        #"{"at": 0, "session": "game", "action": "activate"}"#, #"{"at": 0, "source": "loop", "action": "play"}"#,
        #"{"at": 0, "session": "alerts", "action": "activate"}"#,
    ]
    var t = 1
    while t < seconds - 3 {
        events.append(#"{"at": \#(t), "source": "\#(t % 4 == 1 ? "ping" : "pong")", "action": "play"}"#)
        if t % 10 == 5 {
            events.append(#"{"at": \#(t), "session": "nav", "action": "activate"}"#)
            events.append(#"{"at": \#(t), "source": "prompt", "action": "play"}"#)
            events.append(#"{"at": \#(t + 2), "session": "nav", "action": "deactivate", "notifyOthers": true}"#)
        }
        if t % 30 == 15 { events.append(#"{"at": \#(t), "device": "silentSwitch", "value": \#(t % 60 == 15)}"#) }
        if t % 60 == 41 {
            events.append(#"{"at": \#(t), "system": "phoneCall", "action": "begin"}"#)
            events.append(#"{"at": \#(t + 1), "system": "phoneCall", "action": "end"}"#)
        }
        t += 2
    }
    return """
        {"engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 256, "maxVoices": 8,
                    "ducking": {"rules": [{"by": "nav", "duck": "ambient", "level": -24}]}},
         "duration": \(seconds),
         "sessions": [
           {"id": "music", "category": "playback", "options": ["mixWithOthers"]},
           {"id": "radio", "category": "playback", "options": ["mixWithOthers"]},
           {"id": "game", "category": "ambient"},
           {"id": "nav", "category": "playback", "options": ["duckOthers"]},
           {"id": "alerts", "category": "ambient", "maxVoices": 1},
           {"id": "idle", "category": "ambient"}
         ],
         "sources": [
           {"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.2}, "loop": true},
           {"id": "talk", "session": "radio", "tone": {"frequency": 550, "amplitude": 0.2}, "loop": true},
           {"id": "loop", "session": "game", "tone": {"frequency": 330, "amplitude": 0.2}, "loop": true},
           {"id": "prompt", "session": "nav", "tone": {"frequency": 660, "amplitude": 0.2}, "loop": true},
           {"id": "ping", "session": "alerts", "tone": {"frequency": 880, "amplitude": 0.1}, "loop": true, "priority": 100},
           {"id": "pong", "session": "alerts", "tone": {"frequency": 990, "amplitude": 0.1}, "loop": true, "priority": 150}
         ],
         "events": [\(events.joined(separator: ",\n"))]}
        """
}

/// Wall seconds of one render of `scene`, with or without the picture; the SVG's size.
func renderOnce(_ scene: Scene, plot: Bool) throws -> (seconds: Double, svgBytes: Int) {
    let t0 = DispatchTime.now().uptimeNanoseconds
    let renderer = try OfflineRenderer(scene: scene)
    if plot { try renderer.recordTimeline() }
    var sink: Float = 0
    try renderer.render { block in sink += block[0] }
    var bytes = 0
    if plot, let timeline = renderer.timeline(title: "bench") { bytes = TimelineSVG(timeline).svg().utf8.count }
    blackHole(sink)
    return (Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9, bytes)
}

let benchmarks: @Sendable () -> Void = {
    let seconds = smoke ? 20 : 120
    var iteration = 0
    Benchmark(
        "Plot overhead 6 sessions 48kHz \(seconds)s",
        configuration: .init(
            metrics: [.wallClock, perMille, svgKB], timeUnits: .milliseconds, warmupIterations: 1, scalingFactor: .one,
            maxDuration: .seconds(smoke ? 2 : 60), maxIterations: smoke ? 2 : 15)
    ) { benchmark, scene in
        iteration += 1
        do {
            let plotFirst = iteration % 2 == 0
            let first = try renderOnce(scene, plot: plotFirst)
            let second = try renderOnce(scene, plot: !plotFirst)
            let (plain, plotted) = plotFirst ? (second, first) : (first, second)
            benchmark.measurement(perMille, Int((plotted.seconds / plain.seconds * 1000).rounded()))
            benchmark.measurement(svgKB, (plotted.svgBytes + 512) / 1024)
        } catch {
            benchmark.fail("\(error)")
        }
    } setup: {
        try Scene.decode(json: plotSceneJSON(seconds: seconds), baseDirectory: "")
    }
}
