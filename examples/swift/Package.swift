// swift-tools-version:6.1
import PackageDescription

// Tutti embedded in a Swift program: a separate package that depends on this checkout by
// path, as an adopter's package would depend on Tutti by URL. Run from this folder:
//
//   swift run swift-host     # sessions, ducking, a stream at 22.05 kHz, events, a refusal
//   swift run minimal        # the README's Swift example
//   swift run threaded-host  # a render thread, a feeder thread and events on the main thread
//
// A path dependency's identity is its folder name, which depends on where the repository
// was cloned, so it is read from the checkout here.
let tutti = Context.packageDirectory.split(separator: "/").dropLast(2).last.map(String.init) ?? "tutti"

let package = Package(
    name: "TuttiSwiftExamples",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "swift-host", dependencies: [.product(name: "Tutti", package: tutti)]),
        .executableTarget(name: "minimal", dependencies: [.product(name: "Tutti", package: tutti)]),
        .executableTarget(name: "threaded-host", dependencies: [.product(name: "Tutti", package: tutti)]),
    ]
)
