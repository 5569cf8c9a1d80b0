import ArgumentParser
import Foundation
import TuttiALSA

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the ALSA PCMs that can play (for `tutti play --device`).")

    func run() throws {
        let devices: [ALSADeviceInfo]
        do { devices = try ALSADevices.list() } catch { throw fail(error) }
        if devices.isEmpty { FileHandle.standardError.write(Data("tutti: no ALSA playback device\n".utf8)) }
        for d in devices {
            print(d.name)
            for line in (d.description ?? "").split(separator: "\n") { print("    \(line)") }
        }
    }
}
