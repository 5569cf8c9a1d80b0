// A plain driver for profilers (callgrind, perf): the same fixtures as the benchmarks,
// rendered for a fixed number of blocks with no benchmark harness around them.
//
//   .build/release/RenderProfile mix N B BLOCKS
//   .build/release/RenderProfile moving N B BLOCKS
//   .build/release/RenderProfile reference N B BLOCKS
//   .build/release/RenderProfile stream QUALITY N B BLOCKS
//   .build/release/RenderProfile bare QUALITY N B BLOCKS
//   .build/release/RenderProfile scene SECONDS      (the offline-render scene, SceneRenderer.render)
//
// e.g. valgrind --tool=callgrind --callgrind-out-file=mix.cg .build/release/RenderProfile mix 128 256 2000
// Prints the wall time per block (meaningless under valgrind; use the instruction counts).

import Foundation
import Tutti
import TuttiBenchSupport
import TuttiDSP
import TuttiScene
import TuttiSceneBenchSupport

func usage() -> Never {
    FileHandle.standardError.write(
        Data("usage: RenderProfile mix|moving|reference N B BLOCKS | stream|bare QUALITY N B BLOCKS | scene SECONDS\n".utf8))
    exit(64)
}

var args = Array(CommandLine.arguments.dropFirst())
guard let mode = args.first else { usage() }
args.removeFirst()
if mode == "scene" {
    guard let seconds = args.first.flatMap(Int.init) else { usage() }
    let scene = try Scene.decode(json: sceneJSON(duration: seconds), baseDirectory: audioFolder)
    let renderer = try SceneRenderer(scene: scene)
    let t0 = DispatchTime.now().uptimeNanoseconds
    var blocks = 0
    try renderer.render { _ in blocks &+= 1 }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    print(String(format: "scene %d s: rendered in %.3f s, %.0f× real time (%d blocks)", seconds, wall, Double(seconds) / wall, blocks))
    exit(0)
}
var quality = ResamplerQuality.sincFastest
if mode == "stream" || mode == "bare" {
    guard let q = args.first.flatMap(ResamplerQuality.init(rawValue:)) else { usage() }
    quality = q
    args.removeFirst()
}
guard args.count == 3, let n = Int(args[0]), let b = Int(args[1]), let blocks = Int(args[2]) else { usage() }

let render: () -> Void
let prepare: () -> Void
switch mode {
case "mix", "moving":
    let f = try EngineFixture(bufferSources: n, blockFrames: b, moving: mode == "moving")
    render = f.render
    prepare = { f.prepare(blocks: 1) }
case "reference":
    let r = ReferenceFixture(sharing: try EngineFixture(bufferSources: n, blockFrames: b))
    render = r.render
    prepare = {}
case "stream":
    let f = try EngineFixture(bufferSources: 0, streamSources: n, quality: quality, blockFrames: b)
    render = f.render
    prepare = { f.prepare(blocks: 1) }
case "bare":
    let bare = BareResamplerFixture(sources: n, quality: quality, blockFrames: b)
    render = bare.render
    prepare = {}
default:
    usage()
}

/// Every measured block goes through here (and nothing else does): profile.sh counts
/// instructions with `--toggle-collect` on this function, so set-up and warm-up are left out.
@inline(never) func measuredBlock(_ render: () -> Void) { render() }

var total: UInt64 = 0
for _ in 0..<blocks {
    prepare()
    let t0 = DispatchTime.now().uptimeNanoseconds
    measuredBlock(render)
    total += DispatchTime.now().uptimeNanoseconds - t0
}
print(String(format: "%@ N=%d B=%d: %.0f ns per block (mean of %d)", mode, n, b, Double(total) / Double(blocks), blocks))
