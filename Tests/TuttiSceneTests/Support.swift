import CSndFile
import Foundation
import Tutti
import TuttiDSP
import TuttiScene
import TuttiTestSupport

/// A fresh temporary folder per test.
func makeTempDir() -> String {
    let path = NSTemporaryDirectory() + "tutti-test-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Write interleaved float samples as a WAV (float32 unless `format` says otherwise).
func writeWAV(_ path: String, _ samples: [Float], rate: Int, channels: Int, format: Int32 = Int32(SF_FORMAT_FLOAT)) {
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = Int32(channels)
    info.format = Int32(SF_FORMAT_WAV) | format
    let f = sf_open(path, Int32(SFM_WRITE), &info)!
    _ = samples.withUnsafeBufferPointer { sf_writef_float(f, $0.baseAddress, sf_count_t(samples.count / channels)) }
    sf_close(f)
}

func sine(_ freq: Double, rate: Int, seconds: Double, amplitude: Double = 0.5, channels: Int = 1) -> [Float] {
    let n = Int(Double(rate) * seconds)
    var out = [Float](repeating: 0, count: n * channels)
    for i in 0..<n {
        let v = Float(amplitude * sin(2 * .pi * freq * Double(i) / Double(rate)))
        for c in 0..<channels { out[i * channels + c] = v }
    }
    return out
}

/// Read a WAV back as float with its format.
func readWAV(_ path: String) -> (samples: [Float], rate: Int, channels: Int, format: Int32) {
    let b = try! AudioFileReader.read(path: path)
    var info = SF_INFO()
    let f = sf_open(path, Int32(SFM_READ), &info)!
    sf_close(f)
    return (Array(b.samples), Int(b.sampleRate), b.channelCount, info.format)
}

/// Write a scene and render it; returns the output path.
@discardableResult
func renderScene(_ json: String, in dir: String, format: SampleFormat? = nil, output: String = "out.wav", events: String? = nil) throws
    -> String
{
    let scenePath = dir + "/scene.json"
    try json.write(toFile: scenePath, atomically: true, encoding: .utf8)
    let out = dir + "/" + output
    _ = try SceneRenderer.renderFile(scenePath: scenePath, outputPath: out, eventsPath: events.map { dir + "/" + $0 }, format: format)
    return out
}

let fixturesDir: String = {
    // Tests/TuttiSceneTests/Support.swift → repository root.
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures").path
}()

/// Run `tool` with `args`; its exit status and its stdout and stderr together.
func run(_ tool: String, _ args: [String]) throws -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The `tutti` executable built next to the test bundle (`swift build --build-tests` builds it).
let tuttiExecutable: String = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent("tutti").path

/// A child process whose output goes to a file (a chatty child cannot fill a pipe nobody
/// reads) and whose wait is bounded, so a hang fails the test instead of stalling the run.
/// Spawned with posix_spawn and reaped with waitpid, not Foundation's Process: its child
/// monitor learns of an exit late while other children run (tests run in parallel).
final class Child {
    let pid: pid_t
    private let directory: String
    private(set) var timedOut = false
    private var status: Int32?

    init(_ executable: String, _ arguments: [String]) throws {
        directory = makeTempDir()
        pid = try spawnChild([executable] + arguments, stdout: directory + "/out")
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var s: Int32 = 0
            _ = waitpid(pid, &s, 0)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// True until the child has exited (reaps it when it has).
    var isRunning: Bool {
        if status != nil { return false }
        var s: Int32 = 0
        if waitpid(pid, &s, WNOHANG) == pid {
            status = s
            return false
        }
        return true
    }

    /// True when the child exited (rather than being killed by a signal).
    var exited: Bool { status.map { $0 & 0x7F == 0 } ?? false }

    /// Wait at most `seconds`; a child still running then is killed and `timedOut` set.
    /// Returns the exit status, or -1 when a signal ended it.
    @discardableResult
    func wait(seconds: Double) -> Int32 {
        let end = Date().addingTimeInterval(seconds)
        while isRunning, Date() < end { usleep(5_000) }
        if isRunning {
            timedOut = true
            kill(pid, SIGKILL)
            var s: Int32 = 0
            _ = waitpid(pid, &s, 0)
            status = s
        }
        return exited ? (status! >> 8) & 0xFF : -1
    }

    /// stdout and stderr so far.
    var output: String { (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? "" }
}
