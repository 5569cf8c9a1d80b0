import Foundation
import Testing
import Tutti
import TuttiScene
import TuttiTestSupport

/// `tutti render --plot`: what the timeline holds (the renderer's applied gains, states,
/// spans, markers), what the SVG draws (lanes and markers counted), determinism, long
/// scenes, bad paths — and, when a headless browser is installed, the picture itself.
@Suite struct TimelineTests {
    static let demoPath = Tool.fixtures + "/scenes/demo.json"

    static func render(_ scene: Scene) throws -> (Timeline, OfflineRenderer) {
        let r = try OfflineRenderer(scene: scene)
        try r.recordTimeline()
        try r.render { _ in }
        return (try #require(r.timeline(title: "test")), r)
    }

    /// The demo, rendered once for every test here (it takes a second or two in debug).
    /// Made once, only read after (`OfflineRenderer` is a control-side class the tests only query).
    nonisolated(unsafe) static let demoRender = Result { () throws -> (Scene, Timeline, OfflineRenderer) in
        let scene = try OfflineRenderer.loadScene(path: demoPath)
        let (t, r) = try render(scene)
        return (scene, t, r)
    }

    static func demo() throws -> (Scene, Timeline, OfflineRenderer) { try demoRender.get() }

    /// The substrings of `svg` between `open` and the next `close`.
    static func elements(_ svg: String, _ open: String) -> [Substring] {
        svg.components(separatedBy: open).dropFirst().map { Substring($0) }
    }

    /// Each lane group of the SVG with the x of its markers.
    static func markerXs(_ svg: String) -> [(lane: String, xs: [Double])] {
        elements(svg, "<g class=\"lane ").map { lane in
            let name = String(lane.prefix { $0 != "\"" })
            let xs = lane.components(separatedBy: "<g class=\"mk\"").dropFirst().compactMap { mk -> Double? in
                guard let r = mk.range(of: "x1=\"") else { return nil }
                return Double(mk[r.upperBound...].prefix { $0 != "\"" })
            }
            return (name, xs)
        }
    }

    @Test func theGainIsWhatTheRendererApplied() throws {
        let (scene, t, _) = try Self.demo()
        let rate = Double(scene.engine.sampleRate)
        func gainDB(_ lane: String, at seconds: Double) -> Double {
            let l = t.lanes.first { $0.id == lane }!
            let g = l.gains[Int(seconds * rate) / t.intervalFrames]
            return 20 * log10(Double(g))
        }
        // Ducked by nav: music by its signal (rule 1, −12 dB), game by rule 0 (ambient, −18 dB).
        #expect(abs(gainDB("music", at: 4.5) - -12) < 0.01)
        #expect(abs(gainDB("game", at: 4.5) - -18) < 0.01)
        // Mid-attack the game is between 0 and −18 (the envelope, not a step).
        let mid = gainDB("game", at: 3.05)
        #expect(mid < -3 && mid > -15)
        // The call interrupts music: its gate is closed; full level again after.
        #expect(t.lanes.first { $0.id == "music" }!.gains[Int(10 * rate) / t.intervalFrames] == 0)
        #expect(abs(gainDB("music", at: 12)) < 0.001)
        // The output peak follows the mix: silent nowhere in the demo but present everywhere.
        #expect(t.peaks.count == Int(scene.durationFrames) / t.intervalFrames)
        #expect(t.peaks.allSatisfy { $0 > 0.01 && $0 <= 1 })
    }

    @Test func statesAndSpansFollowThePolicy() throws {
        let (scene, t, _) = try Self.demo()
        let rate = scene.engine.sampleRate
        func state(_ lane: String, at seconds: Double) -> Timeline.LaneState? {
            let f = Int64(seconds * Double(rate))
            return t.lanes.first { $0.id == lane }!.states.first { $0.span.from <= f && f < $0.span.to }?.state
        }
        #expect(state("music", at: 1) == .audible)
        #expect(state("music", at: 4) == .ducked)
        #expect(state("game", at: 7) == .silenced)
        #expect(state("music", at: 10) == .interrupted)
        #expect(state("music", at: 13.5) == .paused)
        #expect(state("nav", at: 5.2) == .paused)
        #expect(state("nav", at: 6) == nil)
        #expect(state("sfx", at: 16) == nil)
        let sfx = t.lanes.first { $0.id == "sfx" }!.sources
        // fxLow plays from 11.5 until fxHigh takes its voice at 12.5; its replay at 13.5 is refused.
        #expect(sfx[0].spans == [Timeline.Span(from: 552_000, to: 600_000)])
        #expect(sfx[1].spans == [Timeline.Span(from: 600_000, to: 720_000)])
    }

    @Test func theSVGHasALanePerSessionAndAMarkerForEveryEntry() throws {
        let (scene, t, r) = try Self.demo()
        let svg = TimelineSVG(t).svg()
        #expect(svg.hasPrefix("<?xml"))
        #expect(Self.elements(svg, "<g class=\"lane session\"").count == scene.sessions.count)
        #expect(Self.elements(svg, "<g class=\"lane output\"").count == 1)
        #expect(Self.elements(svg, "<g class=\"lane events\"").count == 1)
        // Every session's label, every journal entry's text in some marker title.
        for s in scene.sessions { #expect(svg.contains(">\(s.id)</text>")) }
        for e in r.journal {
            let text = escapeForTest(Timeline.line(e))
            #expect(svg.contains(text), "no marker for \(e.jsonLine)")
        }
        // The events lane: one marker per device / system event (none closer than 4 px in the demo).
        let global = scene.events.filter {
            switch $0.action {
            case .device, .phoneCallBegin, .phoneCallEnd, .systemSound, .remote: true
            default: false
            }
        }
        let lanes = Self.markerXs(svg)
        #expect(lanes.first { $0.lane == "events" }?.xs.count == global.count)
        // Markers per session lane: one per distinct frame of its entries.
        for (i, s) in scene.sessions.enumerated() {
            let frames = Set(t.markers.filter { $0.lane == i }.map(\.frame))
            #expect(lanes.filter { $0.lane == "session" }[i].xs.count == frames.count, "\(s.id)")
        }
        // The voice and ducking-rule markers say what happened.
        #expect(svg.contains("voiceStolen · source fxLow, by fxHigh"))
        #expect(svg.contains("voiceRefused · source fxLow"))
        #expect(svg.contains("duckingBegan · session game, by nav, rule 0"))
        #expect(svg.contains("rule 0 (by nav, duck ambient: -18 dB"))
    }

    @Test func theSameSceneGivesTheSameBytes() throws {
        let (scene, a, _) = try Self.demo()
        let (b, _) = try Self.render(scene)
        #expect(TimelineSVG(a).svg() == TimelineSVG(b).svg())
        #expect(TimelineSVG(a).html() == TimelineSVG(b).html())
    }

    @Test func theHTMLPageIsSelfContained() throws {
        let (_, t, _) = try Self.demo()
        let html = TimelineSVG(t).html()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(html.contains("<section class=\"legend\">"))
        for banned in ["<script", "src=", "href=", "@import", "url("] { #expect(!html.contains(banned), "\(banned)") }
        // The only address is the SVG namespace.
        #expect(html.components(separatedBy: "http").count == 2)
    }

    /// A 600 s scene with six sessions and a few hundred events at 8 kHz mono.
    static func longScene(seconds: Int = 600) -> String {
        var events: [String] = [
            #"{"at": 0, "session": "music", "action": "activate"}"#, #"{"at": 0, "source": "song", "action": "play"}"#,
            #"{"at": 0, "session": "game", "action": "activate"}"#, #"{"at": 0, "source": "loop", "action": "play"}"#,
            #"{"at": 0, "session": "alerts", "action": "activate"}"#,
        ]
        var t = 2.0
        var k = 0
        while t < Double(seconds) - 3 {
            func at(_ dt: Double) -> String { JSONWriter.number(((t + dt) * 100).rounded() / 100) }
            events.append(#"{"at": \#(at(0)), "source": "\#(k % 2 == 0 ? "ping" : "pong")", "action": "play"}"#)
            if k % 7 == 0 {
                events.append(#"{"at": \#(at(0.5)), "session": "nav", "action": "activate"}"#)
                events.append(#"{"at": \#(at(0.5)), "source": "prompt", "action": "play"}"#)
                events.append(#"{"at": \#(at(2.5)), "session": "nav", "action": "deactivate", "notifyOthers": true}"#)
            }
            if k % 15 == 5 { events.append(#"{"at": \#(at(1)), "device": "silentSwitch", "value": \#(k % 30 == 5)}"#) }
            if k % 40 == 20 {
                events.append(#"{"at": \#(at(1)), "system": "phoneCall", "action": "begin"}"#)
                events.append(#"{"at": \#(at(2.9)), "system": "phoneCall", "action": "end"}"#)
            }
            if k % 25 == 12 { events.append(#"{"at": \#(at(1.5)), "remote": "togglePlayPause"}"#) }
            t += 3
            k += 1
        }
        return """
            {"engine": {"sampleRate": 8000, "channels": 1, "maxVoices": 5,
                        "ducking": {"rules": [{"by": "nav", "duck": "game", "level": -24}]}},
             "duration": \(seconds),
             "sessions": [
               {"id": "music", "category": "playback", "playbackControls": true, "remoteCommands": ["togglePlayPause"]},
               {"id": "game", "category": "ambient"},
               {"id": "nav", "category": "playback", "options": ["duckOthers"]},
               {"id": "alerts", "category": "ambient", "maxVoices": 1},
               {"id": "podcast", "category": "playback", "mode": "spokenAudio", "options": ["mixWithOthers"]},
               {"id": "radio", "category": "ambient"}
             ],
             "sources": [
               {"id": "song", "session": "music", "tone": {"frequency": 440, "amplitude": 0.2}, "loop": true},
               {"id": "loop", "session": "game", "tone": {"frequency": 330, "amplitude": 0.2}, "loop": true},
               {"id": "prompt", "session": "nav", "tone": {"frequency": 660, "amplitude": 0.2}, "loop": true},
               {"id": "ping", "session": "alerts", "tone": {"frequency": 880, "amplitude": 0.1}, "loop": true, "priority": 100},
               {"id": "pong", "session": "alerts", "tone": {"frequency": 990, "amplitude": 0.1}, "loop": true, "priority": 150},
               {"id": "talk", "session": "podcast", "silence": true},
               {"id": "news", "session": "radio", "silence": true}
             ],
             "events": [\(events.joined(separator: ",\n"))]}
            """
    }

    @Test func aTenMinuteSceneStaysReadable() throws {
        let scene = try Scene.decode(json: Self.longScene(), baseDirectory: "")
        let (t, r) = try Self.render(scene)
        let svg = TimelineSVG(t).svg()
        #expect(r.journal.count > 400)
        // Markers closer than 4 px were merged: none overlap within a lane, all are on the plot.
        var markers = 0
        for lane in Self.markerXs(svg) {
            markers += lane.xs.count
            for (a, b) in zip(lane.xs, lane.xs.dropFirst()) { #expect(b - a >= 4, "\(lane.lane): \(a), \(b)") }
            #expect(lane.xs.allSatisfy { $0 >= 180 && $0 <= 1_180 })
        }
        #expect(markers < r.journal.count / 2)
        // Every entry is still in some marker's title.
        for e in r.journal.prefix(200) { #expect(svg.contains(escapeForTest(Timeline.line(e)))) }
        #expect(TimelineSVG(t).height <= 820)
        #expect(svg.utf8.count < 600_000, "\(svg.utf8.count) bytes")
        if let dir = ProcessInfo.processInfo.environment["TUTTI_TIMELINE_DUMP"] {
            try svg.write(toFile: dir + "/long-600s.svg", atomically: true, encoding: .utf8)
            try Self.longScene().write(toFile: dir + "/long-600s.json", atomically: true, encoding: .utf8)
        }
        print("timeline: 600 s scene, \(r.journal.count) journal entries, \(markers) markers, \(svg.utf8.count) bytes of SVG")
    }

    @Test func lanesThinOutWithManySessions() throws {
        let sessions = (0..<40).map { #"{"id": "s\#($0)", "category": "ambient"}"# }.joined(separator: ",")
        let scene = try Scene.decode(json: #"{"duration": 1, "sessions": [\#(sessions)]}"#, baseDirectory: "")
        let (t, _) = try Self.render(scene)
        let picture = TimelineSVG(t)
        #expect(Self.elements(picture.svg(), "<g class=\"lane session\"").count == 40)
        #expect(picture.height < 40 * 40)
    }

    @Test func badPlotPathsFailBeforeAnythingIsWritten() throws {
        let dir = makeTemporaryFolder()
        let scene = dir + "/scene.json"
        try SceneErrorTests.good.write(toFile: scene, atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            (dir + "/t.png", "unknown picture format \".png\""),
            (dir + "/timeline", "needs a .svg or .html extension"),
            (dir + "/no/such/folder/t.svg", "cannot write"),
        ]
        for (plot, message) in cases {
            #expect {
                try OfflineRenderer.renderFile(scenePath: scene, outputPath: dir + "/out.wav", eventsPath: nil, format: nil, plotPath: plot)
            } throws: { error in
                let e = error as! SceneError
                return e.place == plot && e.message.contains(message)
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["scene.json"])
        }
        #expect {
            try OfflineRenderer.renderFile(
                scenePath: scene, outputPath: dir + "/x.svg", eventsPath: nil, format: nil, plotPath: dir + "/x.svg")
        } throws: { ($0 as! SceneError).message.contains("same file") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["scene.json"])
        // A good one writes both.
        _ = try OfflineRenderer.renderFile(
            scenePath: scene, outputPath: dir + "/out.wav", eventsPath: nil, format: nil, plotPath: dir + "/t.html")
        #expect(try String(contentsOfFile: dir + "/t.html", encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}

/// What `escape` makes of text (the test's own copy, so it checks the writer).
func escapeForTest(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
}

/// The picture in a real browser: a headless Chromium renders the demo's SVG to PNG; the
/// PNG has the expected lanes (label strips of the lane colours, counted down one pixel
/// column) and is not blank. Skipped, saying so, when no browser is installed.
@Suite struct TimelineBrowserTests {
    static let browser: String? = ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"].lazy.compactMap { name in
        ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }.first

    /// Run `path` with `arguments`: its exit status and its stdout.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let r = try Tool.run([path] + arguments)
        return (r.status, r.stdout)
    }

    @Test(
        .enabled(if: browser != nil, "no headless browser (chromium-headless-shell or chromium) installed: the screenshot check is skipped")
    )
    func theDemoTimelineRendersInABrowserWithItsLanes() throws {
        let (scene, t, _) = try TimelineTests.demo()
        let picture = TimelineSVG(t)
        let dir = makeTemporaryFolder()
        try picture.svg().write(toFile: dir + "/demo.svg", atomically: true, encoding: .utf8)
        let shot = dir + "/demo.png"
        let (status, _) = try Self.run(
            Self.browser!,
            [
                "--headless", "--no-sandbox", "--hide-scrollbars", "--screenshot=\(shot)", "--window-size=1200,\(picture.height)",
                "file://\(dir)/demo.svg",
            ])
        #expect(status == 0)
        let script = Tool.repositoryRoot + "/scripts/png-lanes.py"
        let (checked, json) = try Self.run(
            "/usr/bin/env",
            [
                "python3", script, shot, "4", "session=\(TimelineSVG.sessionLaneColour)", "output=\(TimelineSVG.outputLaneColour)",
                "events=\(TimelineSVG.eventsLaneColour)",
            ])
        #expect(checked == 0)
        let result = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        let runs = result["runs"] as! [String: Int]
        #expect(result["width"] as? Int == 1_200)
        #expect(runs["session"] == scene.sessions.count)
        #expect(runs["output"] == 1 && runs["events"] == 1)
        // Not blank: shading, curves and text cover a good part of it.
        #expect((result["nonWhite"] as! Double) > 0.2)
    }
}
