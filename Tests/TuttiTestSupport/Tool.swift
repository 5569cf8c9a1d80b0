import Foundation
import Glibc

/// Subprocesses and the `tutti` executable, for the CLI tests of several targets. Any thread.
public enum Tool {
    /// The checkout this test was built from.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The folder of the fixtures (scenes, audio, golden journals) of this checkout.
    public static let fixtures: String = repositoryRoot + "/fixtures"

    /// Where the `tutti` executable is built: next to this test bundle (`swift build
    /// --build-tests` builds it), whether it is there or not.
    public static let tuttiPath: String = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("tutti").path

    /// The first executable called `name` on `PATH` (then /usr/bin); nil: not installed.
    public static func find(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"] {
            let path = "\(dir)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    /// The `tutti` executable next to this test bundle (nil: not built).
    public static let tutti: String? = access(tuttiPath, X_OK) == 0 ? tuttiPath : nil

    /// What a child process did: exit status, its output, how long it ran (seconds).
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var seconds: Double
    }

    /// Run `argv` (argv[0] a path) to the end with `spawnChild`, with `environment` added to the
    /// test process's; stdin gives `stdin` (then its end), or nothing. `status` is the exit
    /// status, or the number of the signal that ended it.
    public static func run(_ argv: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Result {
        // Output to files, not pipes: a chatty child cannot fill a pipe nobody reads.
        let dir = makeTemporaryFolder("tutti-run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outPath = dir + "/out"
        let errPath = dir + "/err"
        var inPath: String?
        if let stdin {
            inPath = dir + "/in"
            try stdin.write(toFile: dir + "/in", atomically: true, encoding: .utf8)
        }
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let started = Date()
        let pid = try spawnChild(argv, environment: env, stdin: inPath, stdout: outPath, stderr: .file(errPath))
        let status = waitForChild(pid)
        let seconds = Date().timeIntervalSince(started)
        return Result(
            status: status, stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", seconds: seconds)
    }

    /// The bytes of a WAV file's `data` chunk.
    public static func wavData(_ path: String) throws -> Data {
        let d = try Data(contentsOf: URL(fileURLWithPath: path))
        var i = 12
        while i + 8 <= d.count {
            let id = String(decoding: d[i..<i + 4], as: UTF8.self)
            let size = Int(d[i + 4]) | Int(d[i + 5]) << 8 | Int(d[i + 6]) << 16 | Int(d[i + 7]) << 24
            if id == "data" { return d[(i + 8)..<min(d.count, i + 8 + size)] }
            i += 8 + size + (size & 1)
        }
        throw POSIXError(.EINVAL)
    }

    /// The float samples of a float32 WAV file's `data` chunk.
    public static func wavFloats(_ path: String) throws -> [Float] {
        let d = try Data(contentsOf: URL(fileURLWithPath: path))
        var i = 12
        while i + 8 <= d.count {
            let id = String(decoding: d[i..<i + 4], as: UTF8.self)
            let size = Int(d[i + 4]) | Int(d[i + 5]) << 8 | Int(d[i + 6]) << 16 | Int(d[i + 7]) << 24
            if id == "data" {
                let bytes = d[(i + 8)..<min(d.count, i + 8 + size)]
                return bytes.withUnsafeBytes { raw in
                    (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
                }
            }
            i += 8 + size + (size & 1)
        }
        throw POSIXError(.EINVAL)
    }
}

/// Polls `condition` every 20 ms for at most `seconds`; its last value. For waits on another
/// process or thread (a server, a journal file) with a deadline instead of a fixed sleep.
public func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
