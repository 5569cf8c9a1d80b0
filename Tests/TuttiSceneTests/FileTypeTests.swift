import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// Issue 12: a FIFO (or a folder, or a device) given as an audio file or as the scene hung
/// forever in `open`. Each is refused before it is opened for reading, naming the path. The
/// FIFO cases run the real `tutti` with a bounded wait, so a regression fails instead of hanging.
@Suite struct FileTypeTests {
    static let scene = """
        {"duration": 1, "sessions": [{"id": "m", "category": "playback"}],
         "sources": [{"id": "a", "session": "m", "file": "FILE"}],
         "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"}]}
        """

    @Test func fifoAsAnAudioFileIsRefused() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/pipe.wav", 0o644) == 0)
        try Self.scene.replacingOccurrences(of: "FILE", with: "pipe.wav").write(
            toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let child = try Child(Tool.tuttiPath, ["render", dir + "/scene.json", "-o", dir + "/out.wav", "--quiet"])
        let status = child.wait(seconds: 20)
        #expect(!child.timedOut, "tutti render hung on a FIFO")
        #expect(status == 1)
        #expect(child.output.contains(#"sources[0].file: "pipe.wav": is a FIFO (named pipe), not a regular file"#), "\(child.output)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }

    @Test func fifoAsTheSceneIsRefused() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/scene.json", 0o644) == 0)
        let child = try Child(Tool.tuttiPath, ["render", dir + "/scene.json", "-o", dir + "/out.wav", "--quiet"])
        let status = child.wait(seconds: 20)
        #expect(!child.timedOut, "tutti render hung on a FIFO scene")
        #expect(status == 1)
        #expect(child.output.contains("\(dir)/scene.json: is a FIFO (named pipe), not a regular file"), "\(child.output)")
    }

    @Test(arguments: [("folder", "is a folder, not a file"), ("/dev/null", "is a character device, not a regular file")])
    func otherNonRegularAudioFilesAreRefused(name: String, message: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        #expect {
            try renderScene(Self.scene.replacingOccurrences(of: "FILE", with: name), in: dir)
        } throws: {
            "\($0)" == #"sources[0].file: "\#(name)": \#(message)"#
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }

    @Test func folderAsTheSceneIsRefused() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect { try OfflineRenderer.loadScene(path: dir) } throws: { "\($0)" == "\(dir): is a folder, not a file" }
        #expect { try OfflineRenderer.loadScene(path: dir + "/nope.json") } throws: { "\($0)" == "\(dir)/nope.json: no such scene file" }
    }
}
