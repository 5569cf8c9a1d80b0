import ArgumentParser
import Foundation
import Tutti
import TuttiALSA
import TuttiJACK

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the ALSA PCMs that can play (for `tutti play --device`), or the JACK server and its physical ports.")

    @Option(
        help:
            "auto (default): jack if a server runs (or --jack-server is given), else alsa (PipeWire nodes are not listed yet; its ALSA PCM is), said on stderr; alsa: the PCMs; jack: the server (name, rate, buffer size) and its physical ports."
    )
    var backend = OutputConfiguration.Backend.auto

    @Option(name: .customLong("jack-server"), help: "JACK server name (default: $JACK_DEFAULT_SERVER, else \"default\").")
    var jackServer: String?

    func run() throws {
        var backend = self.backend
        if backend == .auto {
            backend = jackServer != nil ? .jack : OutputConfiguration.Backend.detected(jackServer: nil, pipeWire: false)
            FileHandle.standardError.write(Data("tutti: backend: \(backend.name) (auto)\n".utf8))
        }
        if backend == .jack { return try listJACK() }
        if backend == .pipewire {
            throw ValidationError("--backend pipewire: not listed yet (`pw-cli ls Node` lists the nodes for `tutti play --target`)")
        }
        if jackServer != nil { throw ValidationError("--jack-server is for --backend jack") }
        let devices: [ALSADeviceInfo]
        do { devices = try ALSADevices.list() } catch { throw fail(error) }
        if devices.isEmpty { FileHandle.standardError.write(Data("tutti: no ALSA playback device\n".utf8)) }
        for d in devices {
            print(d.name)
            for line in (d.description ?? "").split(separator: "\n") { print("    \(line)") }
        }
    }

    private func listJACK() throws {
        let info: JACKServerInfo
        do { info = try JACKDevices.query(serverName: jackServer) } catch { throw fail(error) }
        print(
            String(
                format: "JACK server \"%@\": %d Hz, buffer %d frames (%.1f ms)", info.serverName, info.sampleRate, info.bufferFrames,
                Double(info.bufferFrames) / Double(info.sampleRate) * 1000))
        print("playback ports (physical):")
        for p in info.playbackPorts { print("    \(p)") }
        if info.playbackPorts.isEmpty { print("    (none)") }
        print("capture ports (physical):")
        for p in info.capturePorts { print("    \(p)") }
        if info.capturePorts.isEmpty { print("    (none)") }
    }
}
