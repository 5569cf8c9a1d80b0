import Foundation
import Glibc

/// A private PulseAudio server with a null sink (paced at the real rate), started as in
/// `scripts/start-pulse.sh`: its own runtime directory and socket, so tests never share a
/// server and nothing depends on the environment. Reached through the ALSA `pulse`
/// plugin with a per-open configuration (`alsaConfig`).
/// Thread: the test's.
public final class PulseServer: @unchecked Sendable {
    public static let binary: String? = Tool.find("pulseaudio")
    public static let plugin: String? = [
        "/usr/lib/x86_64-linux-gnu/alsa-lib", "/usr/lib/aarch64-linux-gnu/alsa-lib", "/usr/lib/alsa-lib", "/usr/lib64/alsa-lib",
    ]
    .map { $0 + "/libasound_module_pcm_pulse.so" }.first { access($0, R_OK) == 0 }
    public static var isAvailable: Bool { binary != nil && plugin != nil }
    public static let skipReason: String =
        "needs pulseaudio and the ALSA pulse plugin: apt-get install --no-install-recommends pulseaudio libasound2-plugins pulseaudio-utils"

    public let directory: String
    public var socket: String { directory + "/xdg/pa.sock" }
    /// Null sinks besides `nullsink` (same rate, channels and `norewinds`), e.g. one per route.
    public let extraSinks: [String]
    private var pid: pid_t?

    public init(extraSinks: [String] = []) throws {
        self.extraSinks = extraSinks
        var template = Array("/tmp/tutti-pulse-XXXXXX".utf8CString)
        guard let d = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw POSIXError(.EIO) }
        directory = String(cString: d)
        try FileManager.default.createDirectory(
            atPath: directory + "/xdg", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        try start()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Start (or restart) the server; returns once it accepts connections. Spawned with
    /// posix_spawn, not Foundation's Process: Foundation's child monitor blocks in wait4 on
    /// every running Process whenever any child exits, so a long-lived server started that
    /// way hangs the next `Process.waitUntilExit`.
    public func start() throws {
        let argv =
            [
                PulseServer.binary!, "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
                "-L", "module-null-sink sink_name=nullsink rate=48000 channels=2 norewinds=1",
                "-L", "module-always-sink",
            ] + extraSinks.flatMap { ["-L", "module-null-sink sink_name=\($0) rate=48000 channels=2 norewinds=1"] }
        let env = [
            "XDG_RUNTIME_DIR=\(directory)/xdg", "HOME=\(directory)/home",
            "PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
        ]
        let log = directory + "/pulse.log"
        let child = try spawnChild(argv, environment: env, stdout: log, append: true)
        pid = child
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                pid = nil
                throw ServerError.exited(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }
            if PulseServer.canConnect(socket) { return }
            usleep(20_000)
        }
        throw ServerError.timeout
    }

    public enum ServerError: Error {
        case exited(log: String)
        case timeout
    }

    /// SIGKILL: the server vanishes as if it crashed.
    public func kill() {
        guard let p = pid else { return }
        Glibc.kill(p, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(p, &status, 0)
        pid = nil
    }

    /// SIGSTOP: the server stops answering, as if it hung.
    public func freeze() { if let p = pid { Glibc.kill(p, SIGSTOP) } }
    /// SIGCONT after `freeze()`.
    public func thaw() { if let p = pid { Glibc.kill(p, SIGCONT) } }

    /// `pcm.<name>` on this server; with `teeFile`, a `file` PCM in front of it that writes
    /// every sample the client writes.
    public func alsaConfig(name: String = "tutti", teeFile: String? = nil) -> String {
        let pulse = "{ type pulse server \"unix:\(socket)\" }"
        guard let teeFile else { return "pcm.\(name) \(pulse)\n" }
        // A named slave: an inline `slave.pcm { … }` does not parse inside the global configuration.
        return "pcm.\(name)_pulse \(pulse)\npcm.\(name) { type file slave.pcm \"\(name)_pulse\" file \"\(teeFile)\" format \"raw\" }\n"
    }

    /// Whether a Unix socket at `path` accepts a connection.
    public static func canConnect(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
