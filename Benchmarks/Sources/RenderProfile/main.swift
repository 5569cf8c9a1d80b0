// A plain driver for profilers (callgrind, perf): the same fixtures as the benchmarks,
// rendered for a fixed number of blocks with no benchmark harness around them.
//
//   .build/release/RenderProfile mix N B BLOCKS
//   .build/release/RenderProfile moving N B BLOCKS
//   .build/release/RenderProfile reference N B BLOCKS    (the C -O3 loop)
//   .build/release/RenderProfile native N B BLOCKS       (the C -O3 -march=native loop)
//   .build/release/RenderProfile kernel N B BLOCKS       (the bare CTuttiKernels mix_add)
//   .build/release/RenderProfile stream QUALITY N B BLOCKS
//   .build/release/RenderProfile bare QUALITY N B BLOCKS
//   .build/release/RenderProfile scene SECONDS      (the offline-render scene, OfflineRenderer.render)
//   .build/release/RenderProfile convert QUALITY SECONDS  (resampleBuffer of stereo 44.1 kHz → 48 kHz)
//
// e.g. valgrind --tool=callgrind --callgrind-out-file=mix.cg .build/release/RenderProfile mix 128 256 2000
// Prints the wall time per block (meaningless under valgrind; use the instruction counts).

import CNativeKernel
import CReferenceKernel
import Foundation
import Tutti
import TuttiBenchSupport
import TuttiDSP
import TuttiScene
import TuttiSceneBenchSupport

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            "usage: RenderProfile mix|moving|reference|native|kernel N B BLOCKS | stream|bare QUALITY N B BLOCKS | scene SECONDS | convert QUALITY SECONDS\n"
                .utf8))
    exit(64)
}

var args = Array(CommandLine.arguments.dropFirst())
guard let mode = args.first else { usage() }
args.removeFirst()
if mode == "scene" {
    guard let seconds = args.first.flatMap(Int.init) else { usage() }
    let scene = try Scene.decode(json: sceneJSON(duration: seconds), baseDirectory: audioFolder)
    let renderer = try OfflineRenderer(scene: scene)
    let t0 = DispatchTime.now().uptimeNanoseconds
    var blocks = 0
    try renderer.render { _ in blocks &+= 1 }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    print(String(format: "scene %d s: rendered in %.3f s, %.0f× real time (%d blocks)", seconds, wall, Double(seconds) / wall, blocks))
    exit(0)
}
if mode == "convert" {
    guard args.count == 2, let q = ResamplerQuality(rawValue: args[0]), let seconds = Int(args[1]) else { usage() }
    let input = BenchSetup.material(frames: 44_100 * seconds, seed: 5, rate: 44_100)
    let t0 = DispatchTime.now().uptimeNanoseconds
    let out = try resampleBuffer(input, channelCount: 2, fromRate: 44_100, toRate: 48_000, quality: q)
    let ns = Double(DispatchTime.now().uptimeNanoseconds - t0)
    print(
        String(
            format: "convert %@ %d s: %.1f ns per output frame (%d frames)", q.rawValue, seconds, ns / Double(out.count / 2), out.count / 2)
    )
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
case "reference", "native", "kernel":
    let kernel: ReferenceFixture.MixBlock =
        switch mode {
        case "reference": { bench_ref_mix_block($0, $1, $2, $3, $4) }
        case "native": { bench_native_mix_block($0, $1, $2, $3, $4) }
        default: ReferenceFixture.cKernel(KernelVariant.active)
        }
    let r = ReferenceFixture(sharing: try EngineFixture(bufferSources: n, blockFrames: b), kernelName: mode, kernel: kernel)
    render = r.render
    prepare = {}
case "stream":
    let f = try EngineFixture(bufferSources: 0, streamSources: n, quality: quality, blockFrames: b)
    render = f.render
    prepare = { f.prepare(blocks: 1) }
case "bare":
    let bare = try BareResamplerFixture(sources: n, quality: quality, blockFrames: b)
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
