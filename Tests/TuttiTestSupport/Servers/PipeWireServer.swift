import Foundation
import Glibc

/// A private PipeWire daemon with a null sink "testsink" (48 kHz stereo), a private session bus
/// and WirePlumber (which links streams to their target), all in a temporary folder given as
/// XDG_RUNTIME_DIR, HOME and XDG_CONFIG_HOME, so tests never touch the machine's own daemon.
/// Every process is killed and reaped when the server is dropped (or by `stop()`).
/// Thread: the test's.
public final class PipeWireServer {
    public static let pipewire = Tool.find("pipewire")
    public static let wireplumber = Tool.find("wireplumber")
    public static let pwCli = Tool.find("pw-cli")
    public static let pwRecord = Tool.find("pw-record")
    public static let dbusDaemon = Tool.find("dbus-daemon")
    public static var isAvailable: Bool {
        pipewire != nil && wireplumber != nil && pwCli != nil && pwRecord != nil && dbusDaemon != nil
            && dlopen("libpipewire-0.3.so.0", RTLD_NOW) != nil
    }
    public static let skipReason: String =
        "PipeWire tests skipped: install pipewire pipewire-bin wireplumber dbus (apt-get install --no-install-recommends pipewire pipewire-bin wireplumber libpipewire-0.3-dev libspa-0.2-dev)"

    /// The null sink's node name.
    public static let sink = "testsink"

    public let directory: String
    /// The daemon's socket (an absolute path: `PipeWireOutput`'s `remote`, `PIPEWIRE_REMOTE`).
    public let socket: String
    public private(set) var busAddress = ""
    private var daemon: Child?
    private var sessionManager: Child?
    private var busPid: pid_t?

    /// `extraSinks`: more null sinks (48 kHz stereo) in the daemon's configuration, so they
    /// come back with it after `stopDaemon` / `startDaemon`.
    public init(extraSinks: [String] = []) throws {
        directory = makeTemporaryFolder("tutti-pipewire")
        socket = directory + "/run/pipewire-0"
        let fm = FileManager.default
        for sub in ["run", "home", "config/pipewire/pipewire.conf.d"] {
            try fm.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        chmod(directory + "/run", 0o700)
        let sinks = ([Self.sink] + extraSinks).map { name in
            "{ factory = adapter args = { factory.name = support.null-audio-sink node.name = \"\(name)\" "
                + "media.class = \"Audio/Sink\" object.linger = true audio.position = [ FL FR ] audio.rate = 48000 } }"
        }
        try "context.objects = [ \(sinks.joined(separator: " ")) ]\n\n".write(
            toFile: directory + "/config/pipewire/pipewire.conf.d/null.conf", atomically: true, encoding: .utf8)
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The environment of a client of this server: its folders, its bus and its socket.
    public var clientEnvironment: [String: String] {
        [
            "XDG_RUNTIME_DIR": directory + "/run", "HOME": directory + "/home", "XDG_CONFIG_HOME": directory + "/config",
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "PIPEWIRE_REMOTE": socket,
        ]
    }

    /// The test process's environment without PipeWire's own variables, plus `clientEnvironment`.
    private var childEnvironment: [String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
        for (k, v) in clientEnvironment where k != "PIPEWIRE_REMOTE" { env[k] = v }
        return env.map { "\($0.key)=\($0.value)" }
    }

    private func start() throws {
        // A private session bus: without one WirePlumber disconnects and nothing is linked.
        let bus = try Tool.run([Self.dbusDaemon!, "--session", "--fork", "--print-address=1", "--print-pid=1"])
        let lines = bus.stdout.split(separator: "\n").map(String.init)
        guard bus.status == 0, lines.count >= 2, let pid = pid_t(lines[1]) else {
            throw ServerError("dbus-daemon did not start: \(bus.stdout) \(bus.stderr)")
        }
        busAddress = lines[0]
        busPid = pid
        try startDaemon()
    }

    /// Starts the daemon and WirePlumber (again, after `stopDaemon`: same socket, same sink).
    public func startDaemon() throws {
        daemon = try Child([Self.pipewire!], environment: childEnvironment, stdout: directory + "/pipewire.log")
        try waitFor("the PipeWire daemon", seconds: 30) { (try? self.cli(["info", "0"]).status) == 0 }
        sessionManager = try Child([Self.wireplumber!], environment: childEnvironment, stdout: directory + "/wireplumber.log")
        try waitFor("WirePlumber", seconds: 30) {
            guard let out = try? self.cli(["ls", "Client"]).stdout else { return false }
            return out.contains("application.name = \"WirePlumber\"")
        }
    }

    /// Stops WirePlumber and the daemon (the bus stays): its clients lose it.
    public func stopDaemon() {
        sessionManager?.stop()
        sessionManager = nil
        daemon?.stop()
        daemon = nil
    }

    /// Adds a null sink `name` (48 kHz stereo, lingering after pw-cli exits) whose
    /// `device.form-factor` is `formFactor` (nil: none), with `properties` more (`device.api`,
    /// `device.bus` … as a real device's node has them; values without spaces), and waits until
    /// the registry lists it.
    public func addSink(_ name: String, formFactor: String?, properties: [String: String] = [:]) throws {
        let extra = properties.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let factor = (formFactor.map { " device.form-factor=\($0)" } ?? "") + extra
        let created = try cli([
            "create-node", "adapter",
            "{ factory.name=support.null-audio-sink node.name=\(name) media.class=Audio/Sink object.linger=true audio.position=[FL FR] audio.rate=48000\(factor) }",
        ])
        guard created.status == 0 else { throw ServerError("pw-cli create-node \(name) failed: \(created.stdout) \(created.stderr)") }
        try waitFor("the sink \(name)", seconds: 10) { (try? self.nodeID(name)) != nil }
    }

    /// The global id of the node named `name` (`pw-cli ls Node`); nil when there is none.
    public func nodeID(_ name: String) throws -> Int? {
        let out = try cli(["ls", "Node"]).stdout
        var id: Int?
        for line in out.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("id "), let number = Int(text.dropFirst(3).prefix { $0.isNumber }) { id = number }
            if text == "node.name = \"\(name)\"" { return id }
        }
        return nil
    }

    /// Destroys the node named `name` (`pw-cli destroy ID`), as unplugging its device or
    /// unloading its module would remove it.
    public func destroyNode(_ name: String) throws {
        guard let id = try nodeID(name) else { throw ServerError("no node \(name)") }
        let destroyed = try cli(["destroy", "\(id)"])
        guard destroyed.status == 0 else { throw ServerError("pw-cli destroy \(id) failed: \(destroyed.stdout) \(destroyed.stderr)") }
    }

    /// `pw-cli ARGS` against this server.
    public func cli(_ arguments: [String]) throws -> Tool.Result { try Tool.run([Self.pwCli!] + arguments, environment: clientEnvironment) }

    private func waitFor(_ what: String, seconds: Double, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !ready() {
            if let daemon, !daemon.isRunning { throw ServerError("pipewire exited: \(daemon.output)") }
            if Date() > deadline { throw ServerError("\(what) was not ready within \(seconds) s") }
            usleep(50_000)
        }
    }

    /// Kills WirePlumber, the daemon and the bus (reaped). Idempotent.
    public func stop() {
        stopDaemon()
        if let pid = busPid {
            kill(pid, SIGTERM)
            for _ in 0..<200 where Self.isAlive(pid) { usleep(10_000) }
            if Self.isAlive(pid) { kill(pid, SIGKILL) }
            busPid = nil
        }
    }

    /// Whether `pid` runs (a zombie, not ours to reap — the forked bus's parent is gone — does not).
    public static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// Records the sink's monitor as float32 stereo at 48 kHz (`pw-record --target testsink`)
    /// until `finish()`. Ready (linked, data arriving) when `init` returns.
    ///
    /// pw-record runs SCHED_FIFO `realtimePriority` when the test process may make it so (else
    /// at the test process's scheduling, `isRealtime` false). Its data thread is real-time
    /// anyway (PipeWire's module-rt), but its main loop takes the buffers: starved on a loaded
    /// machine, it lets the stream run out of them and whole quanta go missing from the
    /// recording (no zeros: the tone jumps ahead), which reads as frames the played stream
    /// never had. Measured beside two CPU hogs at load 5–7, `tutti play --period 512`, two
    /// recorders of the same monitor per run: at normal scheduling 10 of 16 recordings lost
    /// 512–2 048 frames (4 beyond one 1 024-frame tolerance; mostly each recorder its own
    /// quanta), real-time 0 of 16 (every one the 96 000 frames played).
    public final class Recording {
        /// pw-record's priority: below PipeWire's data threads (88, module-rt), above every
        /// engine render thread (`OutputSettings.realtimePriority`, 50 by default), whose
        /// other tests may keep a core busy for a while (an ALSA file plugin takes frames as
        /// fast as they come).
        public static let realtimePriority: Int32 = 70
        public let path: String
        /// Whether pw-record runs SCHED_FIFO `realtimePriority` (false: the test process may not
        /// make it so, and a loaded machine may drop quanta from the recording).
        public private(set) var isRealtime = true
        private var child: Child

        /// Records the monitor of the sink `target` (default: the null sink "testsink"), asked
        /// for with `stream.capture.sink` (without it WirePlumber links the default sink's
        /// monitor, whatever the target).
        public init(_ server: PipeWireServer, name: String = "recording", target: String = PipeWireServer.sink) throws {
            let file = server.directory + "/\(name).wav"
            path = file
            var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIPEWIRE_") }
            for (k, v) in server.clientEnvironment { env[k] = v }
            let argv = [
                PipeWireServer.pwRecord!, "--target", target, "--format", "f32", "--rate", "48000", "--channels", "2",
                "-P", "{ stream.capture.sink = true }", file,
            ]
            let log = server.directory + "/\(name).log"
            let environment = env.map { "\($0.key)=\($0.value)" }
            let start = { (realtime: Bool) throws -> Child in
                try Child(argv, environment: environment, stdout: log, realtimePriority: realtime ? Self.realtimePriority : nil)
            }
            do {
                child = try start(true)
            } catch let error as POSIXError where error.code == .EPERM {
                isRealtime = false
                child = try start(false)
            }
            // Linked once the monitor's silence arrives: the file grows past its header. Just
            // after start, WirePlumber may not know the sink yet ("no node available": it sees
            // the WirePlumber client before it has taken in the daemon's nodes): start again.
            let deadline = Date().addingTimeInterval(30)
            while (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 < 44 + 48_000 {
                guard Date() < deadline else { throw ServerError("pw-record recorded nothing within 30 s: \(child.output)") }
                if !child.isRunning {
                    guard child.output.contains("no node available") else { throw ServerError("pw-record exited: \(child.output)") }
                    usleep(100_000)
                    child = try start(isRealtime)
                }
                usleep(20_000)
            }
        }

        /// Stops the recorder (SIGINT: it finishes the WAV header) and returns the left
        /// channel.
        public func finish() throws -> [Float] {
            kill(child.pid, SIGINT)
            child.wait(seconds: 10)
            let samples = try Tool.wavFloats(path)
            return stride(from: 0, to: samples.count - 1, by: 2).map { samples[$0] }
        }
    }
}

struct ServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
