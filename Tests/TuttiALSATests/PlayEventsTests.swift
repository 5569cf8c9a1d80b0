import Foundation
import Glibc
import Testing
import TuttiTestSupport

/// A `tutti play` child whose stdin is a FIFO the test keeps open (control lines while it plays;
/// the short control lookahead paces the unpaced `null` PCM to about ten times real time) and
/// whose stderr goes to a file. Killed and reaped when dropped while running. Thread: the test's.
final class LivePlay {
    let directory: String
    let pid: pid_t
    private var input: Int32
    private var status: Int32?

    /// Starts `tutti play ARGUMENTS` with `environment` added to the test process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        directory = makeTemporaryFolder("tutti-live-play")
        let fifo = directory + "/stdin"
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(.EIO) }
        // Read-write: opening does not wait for a reader, and the child's open does not wait for us.
        input = open(fifo, O_RDWR | O_CLOEXEC)
        guard input >= 0 else { throw POSIXError(.EIO) }
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        pid = try spawnChild(
            [Tool.tutti!, "play"] + arguments, environment: env, stdin: fifo, stdout: directory + "/out", stderr: .file(directory + "/err"))
    }

    deinit {
        if input >= 0 { close(input) }
        if status == nil {
            kill(pid, SIGKILL)
            _ = waitForChild(pid)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends one control line.
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    /// Ends stdin: the rest of the scene then plays with the long lookahead.
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// SIGTERM (a scene that records nothing ends at once), and reaped.
    func terminate() {
        if isRunning { kill(pid, SIGTERM) }
        _ = wait(seconds: 10)
    }

    var stderr: String { (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? "" }

    /// True until the child exited (reaps it then).
    var isRunning: Bool {
        if status != nil { return false }
        var s: Int32 = 0
        if waitpid(pid, &s, WNOHANG) == pid {
            status = s & 0x7F == 0 ? (s >> 8) & 0xFF : 128 + (s & 0x7F)
            return false
        }
        return true
    }

    /// Waits at most `seconds` for the end: the exit status (128 + N for signal N), nil when
    /// still running (then killed).
    func wait(seconds: Double) -> Int32? {
        let end = Date().addingTimeInterval(seconds)
        while isRunning, Date() < end { usleep(10_000) }
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitForChild(pid)
            status = 128 + SIGKILL
            return nil
        }
        return status
    }
}

/// The JSON lines of a file (empty lines dropped).
func jsonLines(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
}

/// The `frame` of a journal line.
func frame(of line: String) -> Int64 {
    guard let r = line.range(of: "\"frame\":"), let end = line[r.upperBound...].firstIndex(of: ",") else { return -1 }
    return Int64(line[r.upperBound..<end]) ?? -1
}

/// A scene with policy events throughout: ducking, an interruption by a non-mixable session,
/// a remote command, a volume change; `seconds` long.
func journalScene(seconds: Double) -> String {
    """
    {"engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 256},
     "duration": \(seconds),
     "sessions": [
       {"id": "music", "category": "playback", "remoteCommands": ["play", "pause", "togglePlayPause", "nextTrack", "previousTrack", "stop"]},
       {"id": "nav", "category": "playback", "options": ["duckOthers"]},
       {"id": "game", "category": "ambient"}],
     "sources": [
       {"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.3}},
       {"id": "prompt", "session": "nav", "tone": {"frequency": 880, "amplitude": 0.2}},
       {"id": "bg", "session": "game", "tone": {"frequency": 220, "amplitude": 0.1}}],
     "events": [
       {"at": 0, "session": "music", "action": "activate"},
       {"at": 0, "source": "song", "action": "play"},
       {"at": 0.25, "session": "game", "action": "activate"},
       {"at": 0.25, "source": "bg", "action": "play"},
       {"at": 0.5, "session": "nav", "action": "activate"},
       {"at": 0.5, "source": "prompt", "action": "play"},
       {"at": 1.0, "session": "nav", "action": "deactivate", "notifyOthers": true},
       {"at": 1.25, "remote": "pause"},
       {"at": 1.5, "remote": "play"},
       {"at": 1.75, "device": "volume", "value": 0.5}]}
    """
}

/// `tutti play --events`: the live policy journal, in `tutti render --events`'s format.
@Suite(.enabled(if: Tool.tutti != nil, "the tutti executable is not built next to the test bundle (swift build --build-tests builds it)"))
struct PlayEventsTests {
    /// Played to the end, the file holds exactly what `tutti render --events` writes.
    @Test func theLiveJournalEqualsRendersJournal() throws {
        let dir = makeTemporaryFolder("tutti-play-events")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try journalScene(seconds: 2.5).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let render = try Tool.run([
            Tool.tutti!, "render", dir + "/scene.json", "-o", dir + "/out.wav", "--events", dir + "/render.jsonl", "--quiet",
        ])
        #expect(render.status == 0, "\(render.stderr)")
        let play = try Tool.run([
            Tool.tutti!, "play", dir + "/scene.json", "--backend", "alsa", "--device", "null", "--no-mpris", "--events",
            dir + "/play.jsonl",
        ])
        #expect(play.status == 0, "\(play.stderr)")
        let rendered = jsonLines(dir + "/render.jsonl")
        let played = jsonLines(dir + "/play.jsonl")
        #expect(rendered.count >= 10, "\(rendered)")
        #expect(played == rendered)
        #expect(played.contains { $0.contains("\"type\":\"remoteCommand\"") && $0.contains("\"command\":\"pause\"") })
    }

    /// While it plays, the file already holds the scene's entries so far and the entries of a
    /// control line; those before the line are render's.
    @Test func entriesAreWrittenWhilePlayingControlLinesIncluded() throws {
        let dir = makeTemporaryFolder("tutti-play-events")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try journalScene(seconds: 60).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let render = try Tool.run([
            Tool.tutti!, "render", dir + "/scene.json", "-o", dir + "/out.wav", "--events", dir + "/render.jsonl", "--quiet",
        ])
        #expect(render.status == 0, "\(render.stderr)")
        let events = dir + "/play.jsonl"
        let play = try LivePlay([dir + "/scene.json", "--backend", "alsa", "--device", "null", "--no-mpris", "--events", events])
        #expect(eventually(20) { play.stderr.contains("render thread:") }, "\(play.stderr)")
        #expect(eventually(20) { jsonLines(events).contains { $0.contains("\"type\":\"volumeChanged\"") } }, "\(jsonLines(events))")
        play.send("remote pause")
        let paused = eventually(20) {
            jsonLines(events).contains { $0.contains("\"type\":\"remoteCommand\"") && frame(of: $0) > 72_000 }
        }
        #expect(paused, "\(jsonLines(events))")
        #expect(play.isRunning, "the play ended before the control line's entry was checked")
        let lines = jsonLines(events)
        let control = try #require(lines.first { $0.contains("\"type\":\"remoteCommand\"") && frame(of: $0) > 72_000 })
        #expect(control.contains("\"command\":\"pause\"") && control.contains("\"session\":\"music\""), "\(control)")
        #expect(lines.contains { $0.contains("\"type\":\"sourcePaused\"") && frame(of: $0) == frame(of: control) }, "\(lines)")
        // Before the control line: render's entries, in order.
        let before = lines.filter { frame(of: $0) < frame(of: control) }
        #expect(before == jsonLines(dir + "/render.jsonl").filter { frame(of: $0) < frame(of: control) })
        #expect(play.stderr.contains("control: remote pause at "), "\(play.stderr)")
        play.closeInput()
        #expect(play.wait(seconds: 120) == 0, "\(play.stderr)")
    }

    /// A file that cannot be created is an error naming --events, before anything plays.
    @Test func anEventsFileThatCannotBeCreatedIsAnError() throws {
        let dir = makeTemporaryFolder("tutti-play-events")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try journalScene(seconds: 2.5).write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let play = try Tool.run([
            Tool.tutti!, "play", dir + "/scene.json", "--backend", "alsa", "--device", "null", "--no-mpris", "--events",
            dir + "/no/such/dir/x.jsonl",
        ])
        #expect(play.status == 1)
        #expect(play.stderr.contains("tutti: error: --events \(dir)/no/such/dir/x.jsonl: No such file or directory"), "\(play.stderr)")
        #expect(!play.stdout.contains("played"))
    }
}
