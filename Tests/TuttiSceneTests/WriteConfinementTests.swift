import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// Files a scene writes (`recordTo`) stay inside the scene's folder or the output's folder,
/// symbolic links resolved, unless the render allows writes anywhere; the check comes before
/// anything is written.
@Suite struct WriteConfinementTests {
    /// A scene recording its input to `recordTo` (written as JSON text, so any path fits).
    static func scene(recordTo: String) -> String {
        """
        {"duration": 0.5, "sessions": [{"id": "rec", "category": "record", "recordTo": \(jsonString(recordTo))}],
         "sources": [{"id": "mic", "session": "rec", "input": {"channels": 1}}],
         "events": [{"at": 0, "session": "rec", "action": "activate"}, {"at": 0, "source": "mic", "action": "play"}]}
        """
    }

    static func jsonString(_ s: String) -> String {
        String(data: try! JSONSerialization.data(withJSONObject: [s]), encoding: .utf8)!.dropFirst().dropLast().description
    }

    /// Renders `recordTo`'s scene from `dir/scene/scene.json` to `output`.
    static func render(recordTo: String, in dir: String, output: String, anywhere: Bool = false) throws -> RenderReport {
        try FileManager.default.createDirectory(atPath: dir + "/scene", withIntermediateDirectories: true)
        try scene(recordTo: recordTo).write(toFile: dir + "/scene/scene.json", atomically: true, encoding: .utf8)
        return try OfflineRenderer.renderFile(
            scenePath: dir + "/scene/scene.json", outputPath: output, eventsPath: nil, format: nil, allowWritesAnywhere: anywhere)
    }

    @Test(arguments: ["../outside.wav", "sub/../../outside.wav"])
    func aRelativePathOutsideTheSceneFolderIsRefusedBeforeAnythingIsWritten(_ recordTo: String) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/scene/sub", withIntermediateDirectories: true)
        let error = #expect(throws: SceneError.self) {
            try Self.render(recordTo: recordTo, in: dir, output: dir + "/scene/out.wav")
        }
        #expect(error?.place == "sessions[0].recordTo", "\(String(describing: error))")
        #expect(error?.message.contains("is outside the scene's folder or the output's folder") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir + "/outside.wav"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/scene/out.wav"), "nothing is rendered")
    }

    @Test func anAbsolutePathElsewhereIsRefused() throws {
        let dir = makeTemporaryFolder()
        let elsewhere = makeTemporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: elsewhere)
        }
        #expect(throws: SceneError.self) { try Self.render(recordTo: elsewhere + "/x.wav", in: dir, output: dir + "/scene/out.wav") }
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/x.wav"))
    }

    /// A folder inside that is a link to a folder outside, or a file that is a link: refused.
    @Test func symbolicLinksAreResolved() throws {
        let dir = makeTemporaryFolder()
        let elsewhere = makeTemporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: elsewhere)
        }
        try FileManager.default.createDirectory(atPath: dir + "/scene", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/scene/link", withDestinationPath: elsewhere)
        #expect(throws: SceneError.self) { try Self.render(recordTo: "link/x.wav", in: dir, output: dir + "/scene/out.wav") }
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/x.wav"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/scene/take.wav", withDestinationPath: elsewhere + "/victim.wav")
        let error = #expect(throws: SceneError.self) { try Self.render(recordTo: "take.wav", in: dir, output: dir + "/scene/out.wav") }
        #expect(error?.message.contains("is not a regular file") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/victim.wav"))
    }

    @Test func aFolderInTheWayIsNotReplaced() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/scene/take.wav", withIntermediateDirectories: true)
        let error = #expect(throws: SceneError.self) { try Self.render(recordTo: "take.wav", in: dir, output: dir + "/scene/out.wav") }
        #expect(error?.message.contains("exists and is not a regular file") == true)
    }

    /// Inside the scene's folder, inside the output's folder, and anywhere when allowed.
    @Test func allowedPlacesAreWritten() throws {
        let dir = makeTemporaryFolder()
        let outputs = makeTemporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: outputs)
        }
        _ = try Self.render(recordTo: "take.wav", in: dir, output: outputs + "/out.wav")
        #expect(FileManager.default.fileExists(atPath: dir + "/scene/take.wav"))
        _ = try Self.render(recordTo: outputs + "/take.wav", in: dir, output: outputs + "/out.wav")
        #expect(FileManager.default.fileExists(atPath: outputs + "/take.wav"))
        _ = try Self.render(recordTo: "../anywhere.wav", in: dir, output: dir + "/scene/out.wav", anywhere: true)
        #expect(FileManager.default.fileExists(atPath: dir + "/anywhere.wav"))
    }

    /// `tutti render`: exit 1 naming the JSON path; `--allow-writes-anywhere` lifts it.
    @Test(.enabled(if: Tool.tutti != nil, "tutti is not built")) func theCommandLine() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/scene", withIntermediateDirectories: true)
        try Self.scene(recordTo: "../outside.wav").write(toFile: dir + "/scene/scene.json", atomically: true, encoding: .utf8)
        let refused = try Tool.runMerged([Tool.tuttiPath, "render", dir + "/scene/scene.json", "-o", dir + "/scene/out.wav", "--quiet"])
        #expect(refused.status == 1)
        #expect(refused.output.contains("sessions[0].recordTo: \"\(dir)/scene/../outside.wav\" is outside"), "\(refused.output)")
        let allowed = try Tool.runMerged([
            Tool.tuttiPath, "render", dir + "/scene/scene.json", "-o", dir + "/scene/out.wav", "--quiet", "--allow-writes-anywhere",
        ])
        #expect(allowed.status == 0, "\(allowed.output)")
        #expect(FileManager.default.fileExists(atPath: dir + "/outside.wav"))
    }
}
