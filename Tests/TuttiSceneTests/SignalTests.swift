import Foundation
import Testing
import TuttiTestSupport

/// Issue 12: SIGINT, SIGTERM or SIGHUP during `tutti render` left `.OUT.wav.tutti-PID.tmp`
/// behind. Now the temporary files go, the previous output stays byte for byte, and the exit
/// status is 128 + the signal number. The real binary, on an hour-long scene, is signalled
/// once its temporary output exists (so mid-render).
@Suite struct SignalTests {
    static let scene = """
        {"duration": 3600, "sessions": [{"id": "s", "category": "playback"}],
         "sources": [{"id": "t", "session": "s", "tone": {"frequency": 440, "amplitude": 0.3}}],
         "events": [{"at": 0, "session": "s", "action": "activate"}, {"at": 0, "source": "t", "action": "play"},
                    {"at": 1, "device": "volume", "value": 0.5}]}
        """

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func signalDuringRenderRemovesTemporaryFilesAndKeepsTheOutput(signal: Int32, status: Int32) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let previous = Data("the previous output, not a WAV at all".utf8)
        let previousEvents = Data("{\"previous\": true}\n".utf8)
        _ = FileManager.default.createFile(atPath: dir + "/out.wav", contents: previous)
        _ = FileManager.default.createFile(atPath: dir + "/out.jsonl", contents: previousEvents)
        func temporaries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".tmp") }
        }

        let child = try Child(Tool.tuttiPath, ["render", dir + "/scene.json", "-o", dir + "/out.wav", "--events", dir + "/out.jsonl"])
        let started = Date()
        while temporaries().count < 2, child.isRunning, Date().timeIntervalSince(started) < 20 { usleep(5_000) }
        #expect(temporaries().count == 2, "no temporary files while rendering: \(child.output)")
        usleep(200_000) // well into the render loop
        #expect(child.isRunning, "the render ended before the signal: \(child.output)")
        kill(child.pid, signal)
        let exit = child.wait(seconds: 20)
        #expect(!child.timedOut, "tutti render did not stop on signal \(signal)")
        #expect(child.exited, "killed by the signal instead of exiting")
        #expect(exit == status, "\(child.output)")
        #expect(temporaries().isEmpty, "left behind: \(temporaries())")
        #expect(FileManager.default.contents(atPath: dir + "/out.wav") == previous)
        #expect(FileManager.default.contents(atPath: dir + "/out.jsonl") == previousEvents)
        #expect(child.output.contains("interrupted"), "\(child.output)")
    }
}
