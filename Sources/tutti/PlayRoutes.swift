import ArgumentParser
import Foundation
import TuttiALSA
import TuttiJACK

/// `tutti play --route NAME=DEST`: where each route of the scene's `engine.routes` plays.
extension Play {
    /// The `--route` values, split at the first `=`; a malformed one or a route given twice
    /// is a usage error (exit 64), as `--route-output` of `tutti render`.
    func routePairs() throws -> [(route: String, destination: String)] {
        var seen: Set<String> = []
        return try route.map { value in
            guard let eq = value.firstIndex(of: "="), eq != value.startIndex, value.index(after: eq) != value.endIndex else {
                throw ValidationError("--route \(value): expected NAME=DEST (an ALSA PCM, or JACK ports with --backend jack)")
            }
            let name = String(value[..<eq])
            guard seen.insert(name).inserted else { throw ValidationError("--route \(name): given twice") }
            return (name, String(value[value.index(after: eq)...]))
        }
    }

    /// Usage checks that need no scene: syntax, and `main` named twice (`--device` /
    /// `--connect` / `--no-connect` name it too).
    func validateRoutes() throws {
        let pairs = try routePairs()
        guard let main = pairs.first(where: { $0.route == "main" }) else { return }
        if backend == .alsa, device != "default" {
            throw ValidationError("--route main=\(main.destination) and --device \(device) both name main's PCM: give one")
        }
        if backend == .jack, jack.noConnect || !jack.connect.isEmpty {
            throw ValidationError("--route main=\(main.destination) and --connect / --no-connect both say where main goes: give one")
        }
    }

    /// Every `--route` name must be one of the scene's routes: exit 64 naming it and listing them.
    func checkRouteNames(_ routes: [String]) throws -> [String: String] {
        var byName: [String: String] = [:]
        for (name, destination) in try routePairs() {
            guard routes.contains(name) else {
                throw ValidationError(
                    "--route \(name)=\(destination): the scene has no route \"\(name)\" (engine.routes: \(routes.joined(separator: ", ")))")
            }
            byName[name] = destination
        }
        return byName
    }

    /// ALSA: main's PCM (`--route main=` or `--device`) and one PCM per route past main, in
    /// route order. A route without `--route` is a usage error (exit 64) saying how to fix it.
    func alsaRoutes(_ routes: [String]) throws -> (main: String, others: [String]) {
        let byName = try checkRouteNames(routes)
        let others = try routes.dropFirst().map { name in
            guard let pcm = byName[name] else {
                throw ValidationError(
                    "route \"\(name)\" of \(scene) has no PCM: add --route \(name)=PCM (every route plays on its own ALSA PCM)")
            }
            return pcm
        }
        return (byName[routes.first ?? "main"] ?? device, others)
    }

    /// JACK: main's connection (`--route main=PORTS` like `--connect`) and the ports of each
    /// other route's group (`--route cue=system:playback_3,system:playback_4`); a route without
    /// `--route` keeps its group unconnected.
    func jackRoutes(_ routes: [String]) throws -> (main: JACKConnection?, others: [String: [String]]) {
        let byName = try checkRouteNames(routes)
        func ports(_ list: String) -> [String] { list.split(separator: ",").map(String.init) }
        var others: [String: [String]] = [:]
        for name in routes.dropFirst() { if let list = byName[name] { others[name] = ports(list) } }
        return (byName[routes.first ?? "main"].map { .ports(ports($0)) }, others)
    }
}

/// A `--route` destination the backend refused (a JACK port that is not there, not an input,
/// or a count that is not the channel count): exit 1, as `--connect`.
struct RouteDestinationError: Error, CustomStringConvertible {
    var description: String
}
