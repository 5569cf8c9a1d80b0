import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// Scenes from many authors rendered on one runner must not write over each other's files or
// the runner's: every file a scene itself asks to write stays inside its folder or the
// output's folder (docs/scene-format.md, "Files a scene writes").

extension Scene {
    /// The files the scene itself asks to write, with their JSON paths: each session's
    /// `recordTo`, resolved against `baseDirectory`. Value: any thread.
    public var writtenFiles: [(place: String, path: String)] {
        sessions.enumerated().compactMap { i, s in recordTo[s.id].map { ("sessions[\(i)].recordTo", resolve($0)) } }
    }

    /// Checks, before anything is rendered, that every file in `writtenFiles` resolves —
    /// symbolic links included, in its folders and as the file itself — inside the scene's
    /// folder or `outputDirectory` (the folder of the file the render is asked to produce; nil
    /// when there is none, as with `tutti play`), and that what is already there, if anything,
    /// is a regular file. Throws `SceneError` naming the JSON path. Control thread.
    public func checkWritesConfined(outputDirectory: String?) throws {
        let folders = [baseDirectory.isEmpty ? "." : baseDirectory] + (outputDirectory.map { [$0.isEmpty ? "." : $0] } ?? [])
        let whereAllowed = outputDirectory == nil ? "the scene's folder" : "the scene's folder or the output's folder"
        for (place, path) in writtenFiles {
            try Self.checkConfined(
                path, place: place, inside: folders, whereAllowed: whereAllowed,
                rule: "a scene writes only there unless the render allows writes anywhere (tutti: --allow-writes-anywhere)")
        }
    }

    /// Checks that `path` resolves — symbolic links included, in its folders and as the file
    /// itself — inside one of `folders` (which must exist), and that what is already there, if
    /// anything, is a regular file. Throws `SceneError` at `place`, saying the file is outside
    /// `whereAllowed` and then `rule`. Used for a scene's own writes and a batch manifest's
    /// outputs. Control thread.
    public static func checkConfined(_ path: String, place: String, inside folders: [String], whereAllowed: String, rule: String)
        throws(SceneError)
    {
        let allowed = folders.compactMap(realPath)
        let name = (path as NSString).lastPathComponent
        let folder = (path as NSString).deletingLastPathComponent
        guard let real = realPath(folder.isEmpty ? "." : folder) else {
            throw SceneError(place, "\"\(path)\": the folder \(folder) does not exist")
        }
        let resolved = real == "/" ? "/" + name : real + "/" + name
        guard name != "..", name != ".", allowed.contains(where: { resolved.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else {
            throw SceneError(place, "\"\(path)\" is outside \(whereAllowed) (it resolves to \(resolved)); \(rule)")
        }
        var status = stat()
        if lstat(resolved, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw SceneError(place, "\"\(path)\" exists and is not a regular file: a scene replaces only a regular file")
        }
    }

    /// The canonical absolute path of an existing folder (symbolic links resolved); nil when
    /// it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
