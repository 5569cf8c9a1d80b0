import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// `tutti explain` at three moments of the demo scene.
@Suite struct ExplainTests {
    let scene = try! OfflineRenderer.loadScene(path: Tool.fixtures + "/scenes/demo.json")

    func report(_ e: Explanation, _ id: String) -> Explanation.SessionReport { e.sessions.first { $0.id == id }! }

    @Test func duckedByTheNavigationPrompt() throws {
        let e = try Explanation.explain(scene: scene, at: 4)
        let music = report(e, "music")
        #expect(music.state == "ducked")
        // Music by the demo's signal-driven rule (nav's voice above −40 dBFS), from 3.11 s.
        #expect(
            music.reason
                == "ducked while nav's signal is above −40 dBFS (released 0.25 s after it falls below; duckOthers) "
                + "to -12 dB: rule 1")
        // The game is ducked deeper, by the demo's rule for ambient sessions.
        #expect(report(e, "game").reason == "ducked by nav (duckOthers) to -18 dB: rule 0")
        #expect(music.playingSources == ["song"])
        #expect(music.chain.map(\.type) == ["sessionActivated", "sourceStarted", "sessionActivated", "duckingBegan"])
        #expect(music.chain.last?.fields.first { $0.key == "trigger" }?.value == .string("signal"))
        #expect(report(e, "nav").state == "audible")
    }

    @Test func interruptedByThePhoneCall() throws {
        let e = try Explanation.explain(scene: scene, at: 10)
        for id in ["music", "game"] {
            let r = report(e, id)
            #expect(r.state == "interrupted")
            #expect(r.reason == "interrupted: phoneCall")
            #expect(r.playingSources.isEmpty)
            #expect(r.chain.last?.type == "sourcePaused")
            #expect(r.chain.contains { $0.type == "interruptionBegan" && $0.frame == 432_000 })
        }
        let nav = report(e, "nav")
        #expect(nav.state == "inactive")
        #expect(nav.chain.last?.type == "sessionDeactivated")
    }

    @Test func silencedByTheLockWhileMusicPlaysOn() throws {
        let e = try Explanation.explain(scene: scene, at: 16.5)
        let game = report(e, "game")
        #expect(game.state == "silenced")
        #expect(game.reason == "silenced: locked")
        #expect(game.playingSources == ["gameMusic"]) // silenced sources still advance
        #expect(game.chain.last?.type == "silenced")
        let music = report(e, "music")
        #expect(music.state == "audible")
        // Paused by the unplug at 13 s, played again at 14.5 s: both are in the chain.
        #expect(music.chain.contains { $0.type == "routeChange" && $0.frame == 624_000 })
        #expect(music.chain.last?.type == "sourceStarted")
    }

    @Test func eventsAtTheMomentAreIncludedAndOutsideIsAnError() throws {
        let e = try Explanation.explain(scene: scene, at: 9)
        #expect(report(e, "music").state == "interrupted")
        #expect(throws: SceneError.self) { try Explanation.explain(scene: scene, at: 25) }
    }
}
