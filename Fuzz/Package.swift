// swift-tools-version:6.1
import PackageDescription

// libFuzzer harnesses for the two parsers that take outside input: the scene decoder and the
// audio-file loader. A separate package so the main package's builds never see them (they
// have no `main`: libFuzzer supplies it). Built and run by ../scripts/fuzz.sh, in its own
// scratch folder (.build-fuzz) with `--sanitize=fuzzer --sanitize=address`.

// The main package is `..`; a path dependency's identity is its folder name, which depends
// on where the repository was cloned, so it is read from the checkout here.
let tutti = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "main"

let package = Package(
    name: "TuttiFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "FuzzScene", dependencies: [.product(name: "TuttiScene", package: tutti)]),
        .executableTarget(
            name: "FuzzAudioFile",
            dependencies: [.product(name: "TuttiScene", package: tutti), .product(name: "TuttiDSP", package: tutti)],
            // `import CSndFile` reaches the main package's libsndfile module through TuttiScene.
        ),
    ],
    swiftLanguageModes: [.v5]
)
