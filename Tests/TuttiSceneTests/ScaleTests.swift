import Foundation
import Testing
import Tutti
import TuttiScene

/// Scene setup and every policy action cost what they change, not how many sessions there
/// are (issue 12: setup used to recompute the whole render view per session added; issue 24:
/// every action did, and sent its commands by walking every session). Counted in work, not
/// timed: `AudioSystem.maxActionVisits` is the most session views, source views and hints
/// any one action visited.
@Suite struct ScaleTests {
    /// `n` ambient sessions with a tone each; `active` of them activated and played at 0 s.
    static func scene(sessions n: Int, active: Int) throws -> Scene {
        var json = #"{"duration": 0.01, "sessions": ["#
        json += (0..<n).map { #"{"id": "s\#($0)", "category": "ambient"}"# }.joined(separator: ",")
        json += #"], "sources": ["#
        json += (0..<n).map { #"{"id": "t\#($0)", "session": "s\#($0)", "tone": {"frequency": 440, "amplitude": 0.01}}"# }
            .joined(separator: ",")
        json += #"], "events": ["#
        json += (0..<active).map {
            #"{"at": 0, "session": "s\#($0)", "action": "activate"}, {"at": 0, "source": "t\#($0)", "action": "play"}"#
        }
        .joined(separator: ",")
        json += "]}"
        return try Scene.decode(json: json, baseDirectory: "")
    }

    @Test func tenThousandSessionsWithATonEachSetUpAndRender() throws {
        let renderer = try OfflineRenderer(scene: try ScaleTests.scene(sessions: 10_000, active: 1))
        var frames = 0
        try renderer.render { frames += $0.count }
        #expect(frames == 480 * 2)
    }

    @Test("the work of the costliest action stays the same from 100 to 3 000 sessions, all activated and playing")
    func workPerActionIsConstant() throws {
        var visits: [Int: Int] = [:]
        for n in [100, 600, 3_000] {
            let renderer = try OfflineRenderer(scene: try ScaleTests.scene(sessions: n, active: n))
            var peak: Float = 0
            try renderer.render { block in
                for x in block { peak = max(peak, abs(x)) }
            }
            // The actions took effect: every session active, every source running, sound out.
            #expect(peak > 0.01, "\(n) sessions: peak \(peak)")
            #expect(renderer.system.policy.sessions.allSatisfy { $0.phase == .active })
            #expect(renderer.system.view.sources.count == n && renderer.system.view.sources.allSatisfy { $0.isRunning })
            visits[n] = renderer.system.maxActionVisits
        }
        #expect(visits[100] == visits[600] && visits[600] == visits[3_000], "\(visits)")
        // The policy derives one session's status; the view changes by one session and its source.
        #expect((visits[100] ?? 0) > 0 && (visits[100] ?? 99) <= 5, "\(visits)")
    }
}
