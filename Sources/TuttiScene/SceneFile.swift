import Foundation
import Tutti
import TuttiEngine

extension OfflineRenderer {
    /// Read and decode a scene file; relative audio paths resolve against its folder. A path
    /// that is not a regular file (a FIFO, a folder, a device) is refused without reading it.
    /// Errors name the path (syntax errors with line and column). Control side. Any thread but a real-time one.
    public static func loadScene(path scenePath: String) throws -> Scene {
        let bytes: [UInt8]
        do { bytes = try RegularFile.contents(scenePath, missing: "no such scene file") } catch {
            throw SceneError(scenePath, error.reason)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw SceneError(scenePath, "the scene file is not UTF-8 text") }
        let base = (scenePath as NSString).deletingLastPathComponent
        do { return try Scene.decode(json: text, baseDirectory: base) } catch let e as SceneError where e.place == "scene" {
            throw SceneError(scenePath, e.message)
        }
    }
}
