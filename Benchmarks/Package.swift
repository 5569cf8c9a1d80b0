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
        // The limit we compare against: a plain C `out[i] += g * in[i]` loop built -O3 for the
        // baseline target, and the same loop built for this CPU (-march=native; this package is
        // not depended upon, so it may carry unsafe flags).
        .target(
            name: "CReferenceKernel",
            cSettings: [.unsafeFlags(["-O3"])]),
        .target(
            name: "CNativeKernel",
            cSettings: [.unsafeFlags(["-O3", "-march=native"])]),
        // The engine set-ups come from the main package's TuttiBenchSupport (shared with `tutti bench`).
        // The generated scene (8 file sources at 48 kHz) for the offline-render benchmarks.
        .target(
            name: "TuttiSceneBenchSupport",
            dependencies: [
                .product(name: "TuttiScene", package: tutti), .product(name: "TuttiDSP", package: tutti),
            ]),
        // `Benchmark.fail(_:)`: a failure that a direct run (no plugin, scripts/bench-smoke.sh) can see.
        .target(
            name: "BenchHarness",
            dependencies: [.product(name: "Benchmark", package: "benchmark")]),
        // The same fixtures with no harness, for callgrind / perf (see docs/performance.md).
        .executableTarget(
            name: "RenderProfile",
            dependencies: [
                "CReferenceKernel", "CNativeKernel", .product(name: "TuttiBenchSupport", package: tutti), "TuttiSceneBenchSupport",
                .product(name: "TuttiScene", package: tutti),
                .product(name: "Tutti", package: tutti), .product(name: "TuttiDSP", package: tutti),
            ]),
        .executableTarget(
            name: "RenderBenchmarks",
            dependencies: [
                "CReferenceKernel", "CNativeKernel", .product(name: "TuttiBenchSupport", package: tutti),
                .product(name: "Tutti", package: tutti), .product(name: "TuttiDSP", package: tutti),
                .product(name: "Benchmark", package: "benchmark"), "BenchHarness",
            ],
            path: "Benchmarks/RenderBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "SceneBenchmarks",
            dependencies: [
                "TuttiSceneBenchSupport",
                .product(name: "TuttiScene", package: tutti), .product(name: "Tutti", package: tutti),
                .product(name: "Benchmark", package: "benchmark"), "BenchHarness",
            ],
            path: "Benchmarks/SceneBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // What `tutti render --plot` costs next to a plain render (self-contained).
        .executableTarget(
            name: "PlotBenchmarks",
            dependencies: [
                .product(name: "TuttiScene", package: tutti),
                .product(name: "Benchmark", package: "benchmark"), "BenchHarness",
            ],
            path: "Benchmarks/PlotBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ],
    swiftLanguageModes: [.v5]
)
