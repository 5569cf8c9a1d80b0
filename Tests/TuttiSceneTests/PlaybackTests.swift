import Foundation
import Testing
import Tutti
import TuttiDSP
import TuttiScene
import TuttiTestSupport

/// Live playback (commands queued ahead, odd period sizes) equals the offline render.
@Suite struct PlaybackTests {
    @Test(arguments: ["demo.json", "voip.json"])
    func liveScheduleMatchesOfflineRender(name: String) throws {
        let path = Tool.fixtures + "/scenes/" + name
        let scene = try Scene.decode(
            json: String(contentsOfFile: path, encoding: .utf8),
            baseDirectory: (path as NSString).deletingLastPathComponent)
        var offline: [Float] = []
        let renderer = try OfflineRenderer(scene: scene)
        try renderer.render { offline.append(contentsOf: $0) }

        let playback = try ScenePlayback(scene: scene)
        let ch = scene.engine.channelCount
        let period = 441 // deliberately unrelated to the scene's block size
        var live = [Float](repeating: 0, count: Int(playback.totalFrames) * ch)
        var done: Int64 = 0
        try live.withUnsafeMutableBufferPointer { out in
            while done < playback.totalFrames {
                // A control thread would run ahead by some periods; here, two.
                try playback.schedule(through: done + Int64(2 * period))
                #expect(playback.renderHorizon >= done + Int64(period) || playback.renderHorizon >= playback.totalFrames)
                let n = Int(min(Int64(period), playback.totalFrames - done))
                playback.engine.render(into: out.baseAddress! + Int(done) * ch, frameCount: n)
                playback.pollEvents()
                done += Int64(n)
            }
        }
        #expect(playback.isFullyScheduled)
        #expect(playback.journal == renderer.journal)
        #expect(live == offline)
    }

    /// Control lines (`tutti play`'s stdin) go to the shadow at the first frame it has not
    /// decided: the live output equals an offline render of the scene with the same actions
    /// as scene events at those frames (after the scene's own events there).
    @Test func controlLinesEqualSceneEventsAtTheFrameTheyWereApplied() throws {
        let path = Tool.fixtures + "/scenes/demo.json"
        var scene = try OfflineRenderer.loadScene(path: path)
        let playback = try ScenePlayback(scene: scene)
        let ch = scene.engine.channelCount
        let rate = Int64(scene.engine.sampleRate)
        let lines: [(seconds: Int64, text: String)] = [
            (1, "pan song -0.5"), (2, "volume 0.25"), (4, "gain gameMusic 0.4"), (5, "call begin"), (7, "call end"), (8, "silent on"),
            (14, "crossfade fxLow fxHigh 0.5"),
        ]
        var live = [Float](repeating: 0, count: Int(playback.totalFrames) * ch)
        var done: Int64 = 0
        var pending = lines[...]
        var applied: [String] = []
        try live.withUnsafeMutableBufferPointer { out in
            while done < playback.totalFrames {
                // A person types at some moment; here, exactly when the shadow reaches the line's frame.
                try playback.schedule(through: min(done + 1_024, pending.first.map { $0.seconds * rate } ?? Int64.max))
                while let next = pending.first, playback.decidedFrames >= next.seconds * rate {
                    // Decided exactly up to the line's frame: apply it there.
                    #expect(playback.decidedFrames == next.seconds * rate)
                    let entries = try playback.apply(try #require(try ControlLine.parse(next.text)))
                    applied += entries.map(\.jsonLine)
                    pending.removeFirst()
                }
                let n = Int(min(256, playback.renderHorizon - done, playback.totalFrames - done))
                #expect(n > 0)
                playback.engine.render(into: out.baseAddress! + Int(done) * ch, frameCount: n)
                playback.pollEvents()
                done += Int64(n)
            }
        }
        #expect(pending.isEmpty)
        #expect(applied.contains { $0.contains("phoneCall") || $0.contains("interruption") }, "\(applied)")

        for (seconds, text) in lines {
            let action = try #require(try ControlLine.parse(text)).action
            scene.events.append(Scene.Event(at: Double(seconds), action: action, place: "control"))
        }
        // Stable: each control line after the scene's own events at its time.
        scene.events = scene.events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        var offline: [Float] = []
        try OfflineRenderer(scene: scene).render { offline.append(contentsOf: $0) }
        #expect(live.count == offline.count)
        let diff = zip(live, offline).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }?.offset
        #expect(diff == nil, "first difference at sample \(diff ?? -1) (\(Double(diff ?? 0) / Double(ch) / Double(rate)) s)")
        // And it changed something: the quieter volume from 2 s on.
        let original = try OfflineRenderer.loadScene(path: path)
        var plain: [Float] = []
        try OfflineRenderer(scene: original).render { plain.append(contentsOf: $0) }
        #expect(live[Int(3 * rate) * ch..<Int(4 * rate) * ch] != plain[Int(3 * rate) * ch..<Int(4 * rate) * ch])
    }

    @Test func controlLinesParseAndBadOnesSayWhy() throws {
        #expect(try ControlLine.parse("volume 0.5")?.action == .device(.volume(0.5)))
        #expect(try ControlLine.parse("route headphones")?.action == .device(.route(.headphones, reason: nil)))
        #expect(try ControlLine.parse("silent on")?.action == .device(.silentSwitch(true)))
        #expect(try ControlLine.parse("mic off")?.action == .device(.micMuted(true)))
        #expect(try ControlLine.parse("lock")?.action == .device(.lock))
        #expect(try ControlLine.parse("remote pause")?.action == .remote(.pause))
        #expect(try ControlLine.parse("call begin")?.action == .phoneCallBegin(audio: nil))
        #expect(try ControlLine.parse("gain song 0.3")?.action == .source("song", .setGain(0.3, ramp: nil)))
        #expect(try ControlLine.parse("pan song -1")?.action == .source("song", .setPan(-1, ramp: nil)))
        #expect(try ControlLine.parse("rate song 2")?.action == .source("song", .setRate(2, ramp: nil)))
        #expect(try ControlLine.parse("crossfade b a 1.5")?.action == .source("b", .crossfade(from: "a", duration: 1.5)))
        #expect(try ControlLine.parse("  ") == nil)
        #expect(try ControlLine.parse("# a comment") == nil)
        for (line, says) in [
            ("volme 0.5", "unknown command \"volme\""), ("volume 2", "a level in 0…1, got \"2\""),
            ("volume nan", "a level in 0…1"), ("route moon", "unknown route \"moon\""), ("silent maybe", "on or off"),
            ("lock now", "takes nothing after it"), ("remote dance", "unknown remote command \"dance\""), ("call", "takes one"),
            ("gain song", "takes a source id and a gain"), ("gain song 1.5", "a gain in 0…1, got \"1.5\""),
            ("pan song -2", "a pan in -1…1"), ("rate song 5", "a rate in 0.25…4, got \"5\""), ("rate song inf", "a rate in"),
            ("crossfade b a", "takes a source id, the source it fades from and seconds"),
            ("crossfade b a 0", "a duration in seconds > 0, got \"0\""),
        ] {
            do {
                _ = try ControlLine.parse(line)
                Issue.record("\(line) parsed")
            } catch {
                #expect(error.description.contains(says), "\(line): \(error.description)")
            }
        }
    }
}
