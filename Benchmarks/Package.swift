// swift-tools-version:6.1
import PackageDescription

// Tutti's benchmarks: a separate package so the main package never depends on the
// benchmark tooling. Run from this folder:
//
//   swift package benchmark                          # everything (a few minutes)
//   swift package benchmark --filter 'Mix/.*N=128 B=256'
//   ../scripts/bench-smoke.sh                        # the CI smoke pass (seconds)
//
// See ../docs/performance.md for the method and the figures.

// The main package is `..`; a path dependency's identity is its folder name, which depends
// on where the repository was cloned, so it is read from the checkout here.
let tutti = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "main"

let package = Package(
    name: "TuttiBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The limit we compare against: a plain C `out[i] += g * in[i]` loop built -O3.
        .target(
            name: "CReferenceKernel",
            cSettings: [.unsafeFlags(["-O3"])]),
        // libsamplerate, called directly (bare `src_process`), next to the engine's stream sources.
        .systemLibrary(name: "CLibSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        // Engine set-ups shared by the benchmark targets and their data.
        .target(
            name: "TuttiBenchSupport",
            dependencies: [
                "CReferenceKernel", "CLibSampleRate",
                .product(name: "Tutti", package: tutti), .product(name: "TuttiDSP", package: tutti),
            ]),
        // The generated scene (8 file sources at 48 kHz) for the offline-render benchmarks.
        .target(
            name: "TuttiSceneBenchSupport",
            dependencies: [
                .product(name: "TuttiScene", package: tutti), .product(name: "TuttiDSP", package: tutti),
            ]),
        // The same fixtures with no harness, for callgrind / perf (see docs/performance.md).
        .executableTarget(
            name: "RenderProfile",
            dependencies: [
                "TuttiBenchSupport", "TuttiSceneBenchSupport", .product(name: "TuttiScene", package: tutti),
                .product(name: "Tutti", package: tutti), .product(name: "TuttiDSP", package: tutti),
            ]),
        .executableTarget(
            name: "RenderBenchmarks",
            dependencies: [
                "TuttiBenchSupport", "CReferenceKernel", "CLibSampleRate",
                .product(name: "Tutti", package: tutti), .product(name: "TuttiDSP", package: tutti),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RenderBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "SceneBenchmarks",
            dependencies: [
                "TuttiSceneBenchSupport",
                .product(name: "TuttiScene", package: tutti), .product(name: "Tutti", package: tutti),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SceneBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // What `tutti render --plot` costs next to a plain render (self-contained).
        .executableTarget(
            name: "PlotBenchmarks",
            dependencies: [
                .product(name: "TuttiScene", package: tutti),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PlotBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ],
    swiftLanguageModes: [.v5]
)
