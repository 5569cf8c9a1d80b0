import Foundation
import Testing
import Tutti
import TuttiDSP
import TuttiScene

/// Live playback (commands queued ahead, odd period sizes) equals the offline render.
@Suite struct PlaybackTests {
    @Test(arguments: ["demo.json", "voip.json"])
    func liveScheduleMatchesOfflineRender(name: String) throws {
        let path = fixturesDir + "/scenes/" + name
        let scene = try Scene.decode(
            json: String(contentsOfFile: path, encoding: .utf8),
            baseDirectory: (path as NSString).deletingLastPathComponent)
        var offline: [Float] = []
        let renderer = try SceneRenderer(scene: scene)
        try renderer.render { offline.append(contentsOf: $0) }

        let playback = try ScenePlayback(scene: scene)
        #expect(playback.timeline.count > 10)
        #expect(playback.journal == renderer.journal)
        let ch = scene.engine.channelCount
        let period = 441 // deliberately unrelated to the scene's block size
        var live = [Float](repeating: 0, count: Int(playback.totalFrames) * ch)
        var done: Int64 = 0
        live.withUnsafeMutableBufferPointer { out in
            while done < playback.totalFrames {
                // A control thread would run ahead by some periods; here, two.
                playback.schedule(through: done + Int64(2 * period))
                let n = Int(min(Int64(period), playback.totalFrames - done))
                playback.engine.render(into: out.baseAddress! + Int(done) * ch, frameCount: n)
                playback.pollEvents()
                done += Int64(n)
            }
        }
        #expect(playback.isFullyScheduled)
        #expect(live == offline)
    }
}
