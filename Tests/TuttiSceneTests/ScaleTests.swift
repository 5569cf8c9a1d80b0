import Foundation
import Testing
import Tutti
import TuttiScene

/// Scene setup is linear in the number of sessions and sources (issue 12: it used to
/// recompute the whole render view per session added — 22 s for 10 000 sessions).
@Suite struct ScaleTests {
    static func scene(sessions n: Int) throws -> Scene {
        var json = #"{"duration": 0.01, "sessions": ["#
        json += (0..<n).map { #"{"id": "s\#($0)", "category": "ambient"}"# }.joined(separator: ",")
        json += #"], "sources": ["#
        json += (0..<n).map { #"{"id": "t\#($0)", "session": "s\#($0)", "tone": {"frequency": 440, "amplitude": 0.01}}"# }
            .joined(separator: ",")
        json += #"], "events": [{"at": 0, "session": "s0", "action": "activate"}, {"at": 0, "source": "t0", "action": "play"}]}"#
        return try Scene.decode(json: json, baseDirectory: "")
    }

    @Test func tenThousandSessionsWithATonEachSetUpInUnderTwoSeconds() throws {
        let scene = try ScaleTests.scene(sessions: 10_000)
        let start = Date()
        let renderer = try SceneRenderer(scene: scene)
        let setup = Date().timeIntervalSince(start)
        #expect(setup < 2, "setup took \(setup) s")
        var frames = 0
        try renderer.render { frames += $0.count }
        #expect(frames == 480 * 2)
    }

    @Test func setupTimeGrowsLinearly() throws {
        func time(_ n: Int) throws -> Double {
            let scene = try ScaleTests.scene(sessions: n)
            let start = Date()
            _ = try SceneRenderer(scene: scene)
            return Date().timeIntervalSince(start)
        }
        _ = try time(500) // warm up
        let small = try time(2_000)
        let large = try time(8_000)
        // Quadratic growth would make this 16×; allow generous noise around 4×.
        #expect(large / small < 8, "2 000 sessions: \(small) s, 8 000: \(large) s")
    }
}
