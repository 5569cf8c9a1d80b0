import Foundation

extension SceneRenderer {
    /// Read and decode a scene file; relative audio paths resolve against its folder.
    public static func loadScene(path scenePath: String) throws -> Scene {
        guard let data = FileManager.default.contents(atPath: scenePath) else {
            throw SceneError(
                scenePath, FileManager.default.fileExists(atPath: scenePath) ? "cannot read the scene file" : "no such scene file")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw SceneError(scenePath, "the scene file is not UTF-8 text") }
        let base = (scenePath as NSString).deletingLastPathComponent
        do { return try Scene.decode(json: text, baseDirectory: base) } catch let e as SceneError where e.place == "scene" {
            throw SceneError(scenePath, e.message)
        }
    }
}
