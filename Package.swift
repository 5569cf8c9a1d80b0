// swift-tools-version:6.1
import PackageDescription

// Arrows point down: tutti (CLI) → TuttiScene → Tutti (host API) → TuttiALSA / TuttiJACK / TuttiPipeWire → TuttiOutput → TuttiEngine → TuttiDSP →
// C kernels and system libraries; TuttiPolicy is pure and Tutti wires it to the engine. docs/architecture.md draws every
// import between targets (checked by Tests/TuttiTests/ArchitectureTests.swift).
let package = Package(
    name: "Tutti",
    products: [
        .library(name: "TuttiDSP", targets: ["TuttiDSP"]),
        .library(name: "TuttiPolicy", targets: ["TuttiPolicy"]),
        .library(name: "TuttiEngine", targets: ["TuttiEngine"]),
        .library(name: "Tutti", targets: ["Tutti"]),
        .library(name: "TuttiScene", targets: ["TuttiScene"]),
        .library(name: "TuttiOutput", targets: ["TuttiOutput"]),
        .library(name: "TuttiALSA", targets: ["TuttiALSA"]),
        .library(name: "TuttiBenchSupport", targets: ["TuttiBenchSupport"]),
        .library(name: "TuttiJACK", targets: ["TuttiJACK"]),
        .library(name: "TuttiPipeWire", targets: ["TuttiPipeWire"]),
        .executable(name: "tutti", targets: ["tutti"]),
        // The C ABI (include/tutti.h). scripts/install.sh links it with the Swift runtime inside,
        // only tutti_* exported, and installs it as libtutti.so.<ABI>.
        .library(name: "TuttiC", type: .dynamic, targets: ["TuttiC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // System libraries (pkg-config + apt providers), linked.
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        // The backends' libraries: headers only (libasound2-dev, libjack-jackd2-dev, in the
        // standard include path), never linked (no pkg-config: it would add -lasound / -ljack).
        // ALSAFunctions and JACKFunctions open them at run time, when the backend is used.
        .systemLibrary(name: "CALSA"),
        .systemLibrary(name: "CJACK"),
        // SPA's headers only (header-only; libspa-0.2's pkg-config links nothing): CPipeWire
        // builds the stream's format pod with them; libpipewire itself is opened at run time.
        .systemLibrary(name: "CSPA", pkgConfig: "libspa-0.2", providers: [.apt(["libspa-0.2-dev"])]),

        // Mix and conversion kernels in C: scalar reference + SSE2 / AVX2+FMA / AVX-512 variants
        // (per-function target attributes, no unsafe flags), one picked at load time.
        .target(name: "CTuttiKernels"),
        // Kernels, ramps, envelopes, dither, resampler wrapper. No threads, no policy.
        .target(name: "TuttiDSP", dependencies: ["CTuttiKernels", "CSampleRate", "CSoxr"]),
        // Pure policy logic: state + action → state, decisions, journal.
        .target(name: "TuttiPolicy"),
        // Render graph, renderer, queues, audio-file decoding: no policy decisions.
        .target(name: "TuttiEngine", dependencies: ["TuttiDSP", "CSndFile"]),
        // The host API: the policy wired to the engine (sessions, sources, events, outputs).
        .target(name: "Tutti", dependencies: ["TuttiEngine", "TuttiPolicy", "TuttiDSP", "TuttiOutput", "TuttiALSA", "TuttiJACK", "TuttiPipeWire", "CMPRIS"]),
        // Scene files, audio files (libsndfile), offline render driver.
        .target(name: "TuttiScene", dependencies: ["Tutti", "TuttiPolicy", "TuttiDSP", "TuttiEngine", "CSndFile"]),
        // The output interface every backend implements (OutputBackend), its settings, status,
        // events and error, and what backends share (event delivery, reconnect backoff,
        // real-time scope, their system library opened at run time).
        .target(name: "TuttiOutput", dependencies: ["TuttiEngine", "TuttiPolicy"]),
        // ALSA output: render thread, device negotiation and recovery.
        .target(name: "TuttiALSA", dependencies: ["TuttiOutput", "TuttiEngine", "TuttiDSP", "CALSA"]),
        // JACK client: renders inside JACK's process callback, reconnects after a lost server.
        .target(name: "TuttiJACK", dependencies: ["TuttiOutput", "TuttiEngine", "TuttiDSP", "CJACK"]),
        // libpipewire-0.3 loaded at run time (dlopen): one pw_stream, its loop thread, the
        // format pod (SPA headers), the listing of the audio nodes; nothing links libpipewire.
        .target(name: "CPipeWire", dependencies: ["CSPA"]),
        // PipeWire output: one pw_stream rendered inside PipeWire's real-time data thread.
        .target(name: "TuttiPipeWire", dependencies: ["TuttiOutput", "TuttiEngine", "TuttiDSP", "TuttiPolicy", "CPipeWire"]),
        // The MPRIS server (Tutti's `MPRISServer`) in C: sd-bus (libsystemd.so.0) loaded at run time (dlopen),
        // nothing links libsystemd.
        .target(name: "CMPRIS"),
        // The C ABI: include/tutti.h (the module map of CTuttiABI imports it), thread-local error
        // messages and version strings in C; TuttiC translates each C function to the Swift API.
        .target(name: "CTuttiABI"),
        .target(name: "TuttiC", dependencies: ["Tutti", "CTuttiABI"]),
        // Benchmark set-ups shared by `tutti bench` and the Benchmarks/ package (engine
        // fixtures, references, the voice counter).
        .target(name: "TuttiBenchSupport", dependencies: ["Tutti", "TuttiDSP", "TuttiEngine", "CSoxr"]),
        .executableTarget(name: "tutti", dependencies: [
            "TuttiScene", "Tutti", "TuttiEngine", "TuttiALSA", "TuttiJACK", "TuttiPipeWire", "TuttiBenchSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),

        // Test support: a per-thread malloc counter (interposes malloc in the test binary).
        .target(name: "CTuttiTestSupport", path: "Tests/CTuttiTestSupport"),
        .target(name: "TuttiTestSupport", dependencies: ["CTuttiTestSupport", "TuttiEngine", "TuttiOutput", "TuttiDSP", "CSndFile"], path: "Tests/TuttiTestSupport"),
        .testTarget(name: "TuttiDSPTests", dependencies: ["TuttiDSP", "TuttiTestSupport"]),
        .testTarget(name: "TuttiPolicyTests", dependencies: [
            "TuttiPolicy",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "TuttiEngineTests", dependencies: ["TuttiEngine", "TuttiDSP", "TuttiTestSupport"]),
        .testTarget(name: "TuttiTests", dependencies: ["Tutti", "TuttiDSP", "TuttiTestSupport", "TuttiBenchSupport"]),
        .testTarget(name: "TuttiSceneTests", dependencies: ["TuttiScene", "Tutti", "TuttiDSP", "CSndFile", "TuttiTestSupport"]),
        .testTarget(name: "TuttiALSATests", dependencies: ["TuttiALSA", "TuttiOutput", "Tutti", "TuttiEngine", "TuttiDSP", "TuttiTestSupport"]),
        .testTarget(name: "TuttiPipeWireTests", dependencies: ["Tutti", "TuttiOutput", "TuttiPipeWire", "CPipeWire", "TuttiEngine", "TuttiDSP", "TuttiTestSupport"]),
        .testTarget(name: "TuttiJACKTests", dependencies: ["Tutti", "TuttiOutput", "TuttiJACK", "TuttiScene", "TuttiEngine", "TuttiDSP", "CJACK", "TuttiTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
