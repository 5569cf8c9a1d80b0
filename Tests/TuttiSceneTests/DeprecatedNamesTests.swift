import Testing
import TuttiScene

/// Old names of TuttiScene kept for one release still compile and do the same thing.
@Suite struct DeprecatedNamesTests {
    static let json = """
        {"duration": 0.1, "sessions": [{"id": "s", "category": "playback"}],
         "sources": [{"id": "t", "session": "s", "tone": {"frequency": 440, "amplitude": 0.5}}],
         "events": [{"at": 0, "session": "s", "action": "activate"}, {"at": 0, "source": "t", "action": "play"}]}
        """

    /// `SceneRenderer` is `OfflineRenderer`: the same samples.
    @available(*, deprecated, message: "exercises the deprecated name")
    @Test func sceneRendererIsOfflineRenderer() throws {
        let scene = try Scene.decode(json: Self.json, baseDirectory: "")
        var old: [Float] = []
        var new: [Float] = []
        try SceneRenderer(scene: scene).render { old += $0 }
        try OfflineRenderer(scene: scene).render { new += $0 }
        #expect(old.count == 9_600)
        #expect(old == new)
        #expect(old.contains { $0 != 0 })
    }
}
