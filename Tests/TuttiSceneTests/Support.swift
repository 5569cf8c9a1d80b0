import CSndFile
import Foundation
import Tutti
import TuttiDSP
import TuttiScene

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

/// The `tutti` executable built next to the test bundle (`swift build --build-tests` builds it).
let tuttiExecutable: String = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent("tutti").path

/// A child process whose output goes to files (a chatty child cannot fill a pipe nobody
/// reads) and whose wait is bounded, so a hang fails the test instead of stalling the run.
final class Child {
    let process = Process()
    private let directory: String
    private(set) var timedOut = false

    init(_ executable: String, _ arguments: [String]) throws {
        directory = makeTempDir()
        _ = FileManager.default.createFile(atPath: directory + "/out", contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/out"))
        process.standardError = process.standardOutput
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    var pid: Int32 { process.processIdentifier }

    /// Wait at most `seconds`; a child still running then is killed and `timedOut` set.
    /// Returns the exit status (or -1 when it was killed).
    @discardableResult
    func wait(seconds: Double) -> Int32 {
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < end { usleep(10_000) }
        if process.isRunning {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : -1
    }

    /// stdout and stderr so far.
    var output: String { (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? "" }
}
