import ArgumentParser
import Foundation
import Tutti
import TuttiDSP
import TuttiScene

struct TuttiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tutti",
        abstract: "Tutti: a real-time audio mixing engine with a phone-style audio policy.",
        subcommands: [Render.self, Explain.self, Bench.self, Play.self, Devices.self])
}

/// Print a user-facing error and exit non-zero (1). ArgumentParser handles usage errors itself (exit 64).
/// A sound server that does not answer gets what to do about it (the library's messages name
/// no CLI option).
func fail(_ error: Error) -> ExitCode {
    let hint = "\(error)".hasPrefix("no JACK server running") ? "; start jackd, or use --backend alsa" : ""
    FileHandle.standardError.write(Data("tutti: error: \(error)\(hint)\n".utf8))
    return ExitCode(1)
}

TuttiCommand.main()
