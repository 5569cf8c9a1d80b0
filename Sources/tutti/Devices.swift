import ArgumentParser
import Foundation
import Tutti
import TuttiALSA
import TuttiJACK
import TuttiPipeWire

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List the PipeWire sinks and sources (for `tutti play --target`), the JACK server and its physical ports, or the ALSA PCMs that can play (for `tutti play --device`)."
    )

    @Option(
        name: .customLong("backend"),
        help:
            "auto (default): jack if --jack-server is given, else pipewire if a daemon answers, else jack if a server runs, else alsa (as `tutti play`), said on stderr; pipewire: the sinks and sources (node name, media.class, rate, channels, description); jack: the server (name, rate, buffer size) and its physical ports; alsa: the PCMs."
    )
    var backendArgument: OutputConfiguration.Backend?
    /// `--backend`, auto when not given (an optional, so that `--help` shows no raw value as
    /// the default).
    var backend: OutputConfiguration.Backend { backendArgument ?? .auto }

    @Option(name: .customLong("jack-server"), help: "JACK server name (default: $JACK_DEFAULT_SERVER, else \"default\").")
    var jackServer: String?

    func run() throws {
        var backend = self.backend
        if backend == .auto {
            // As `tutti play`'s auto: PipeWire, JACK, ALSA, the first that answers.
            backend = jackServer != nil ? .jack : OutputConfiguration.Backend.detected(jackServer: nil)
            FileHandle.standardError.write(Data("tutti: backend: \(backend.name) (auto)\n".utf8))
        }
        if backend == .jack { return try listJACK() }
        if jackServer != nil { throw ValidationError("--jack-server is for --backend jack") }
        if backend == .pipewire { return try listPipeWire() }
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

    /// The sinks, then the sources (a duplex node in both): one line each, `NAME (MEDIA.CLASS,
    /// RATE Hz, CHANNELS ch): DESCRIPTION`.
    private func listPipeWire() throws {
        let nodes: [PipeWireNodeInfo]
        do { nodes = try PipeWireListing.nodes() } catch { throw fail(error) }
        print("PipeWire sinks (tutti play --backend pipewire --target NAME):")
        PipeWireListing.print(nodes.filter(\.isSink))
        print("PipeWire sources:")
        PipeWireListing.print(nodes.filter(\.isSource))
    }
}

/// The CLI's use of `PipeWireDevices` (`devices`, `play --target`'s check). Main thread.
enum PipeWireListing {
    /// What the CLI adds to "no PipeWire daemon answers at …".
    static let wayOut = "(start pipewire, or use --backend alsa|jack)"

    /// The daemon's audio device nodes; a daemon that does not answer gets `wayOut` added.
    static func nodes() throws(TuttiError) -> [PipeWireNodeInfo] {
        do throws(TuttiError) {
            return try PipeWireDevices.list()
        } catch {
            guard error.message.hasPrefix("no PipeWire daemon answers") else { throw error }
            throw TuttiError(.device, "\(error.message) \(wayOut)")
        }
    }

    /// A PipeWire library error as the CLI says it: a daemon that does not answer gets `wayOut`;
    /// an unknown capture node (`PipeWireOutput.checkCaptureSource`) is named by its option,
    /// `--capture-device`, and an unknown sink (`PipeWireOutput.checkTargets`) by its own —
    /// `--target NODE` for `device`, `BUSFLAG BUS=NODE` for `busDestinations["BUS"]` (`busFlag`:
    /// `--bus-output`, or `--route` when that was given) — each with where the nodes are
    /// listed; anything else as it is.
    static func inCLIWords(_ error: TuttiError, busFlag: String = "--bus-output") -> TuttiError {
        let message = error.message
        let lists = "`tutti devices --backend pipewire` lists them"
        if message.hasPrefix("no PipeWire daemon answers") { return TuttiError(error.code, "\(message) \(wayOut)") }
        let capture = "captureSources "
        if message.hasPrefix(capture) {
            return TuttiError(error.code, "--capture-device \(message.dropFirst(capture.count)); \(lists)")
        }
        // `device "NODE": REST (…)` or `busDestinations["BUS"] "NODE": REST (…)`.
        guard message.hasSuffix(")"), let end = message.range(of: "\": ") else { return error }
        let head = message[..<end.lowerBound]
        let rest = message[end.upperBound...].dropLast()
        let option: String
        if head.hasPrefix("device \"") {
            option = "--target \(head.dropFirst("device \"".count))"
        } else if head.hasPrefix("busDestinations[\""), let close = head.range(of: "\"] \"") {
            let bus = head[head.index(head.startIndex, offsetBy: "busDestinations[\"".count)..<close.lowerBound]
            option = "\(busFlag) \(bus)=\(head[close.upperBound...])"
        } else {
            return error
        }
        return TuttiError(error.code, "\(option): \(rest); \(lists))")
    }

    /// One line per node, indented; "(none)" for none.
    static func print(_ nodes: [PipeWireNodeInfo]) {
        for node in nodes {
            let rate = node.sampleRate.map { "\($0) Hz" } ?? "rate unknown"
            let channels = node.channelCount.map { "\($0) ch" } ?? "channels unknown"
            let description = node.description.map { ": \($0)" } ?? ""
            Swift.print("    \(node.name) (\(node.mediaClass), \(rate), \(channels))\(description)")
        }
        if nodes.isEmpty { Swift.print("    (none)") }
    }
}
