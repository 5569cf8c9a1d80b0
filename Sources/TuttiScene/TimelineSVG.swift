#if canImport(Glibc)
    import Glibc
#endif

// The timeline picture: SVG (and the same SVG in a small HTML page with a legend).
// Hand-written markup, no scripts, no fonts, no network; numbers with fixed decimals, so the
// same timeline always gives the same bytes.

/// Draws a `Timeline` 1 200 px wide: one lane per session (label, shading by state, the
/// applied gain in dB, its compressor's gain reduction as a line, its sources' play spans,
/// journal markers), an events lane (device, system, remote), a master lane when the engine
/// has a limiter or a master compressor (their gain reduction as lines, 0 to −24 dB), an
/// output lane (peak per record) and a time axis in seconds. Lanes thin
/// out as sessions grow; markers closer than 4 px merge into one whose `<title>` lists them
/// all. Value type: any thread.
public struct TimelineSVG {
    /// What it draws.
    public let timeline: Timeline

    /// Picture width, px.
    public static let width = 1_200
    /// Where the plot starts and ends (left of it: the lane labels).
    static let plotX0 = 180
    static let plotX1 = 1_180
    static var plotWidth: Int { plotX1 - plotX0 }
    /// The gain and peak lanes show 0 … −60 dB.
    static let floorDB = -60.0
    /// The master lane shows gain reduction 0 … −24 dB.
    static let masterFloorDB = -24.0

    // Colours (also what the browser test looks for: the label strips).
    /// Label strip of a session lane.
    public static let sessionLaneColour = "#dbe4f3"
    /// Label strip of the output lane.
    public static let outputLaneColour = "#eadcf5"
    /// Label strip of the events lane.
    public static let eventsLaneColour = "#f3ecd6"
    /// Label strip of the master lane (limiter and master compressor).
    public static let masterLaneColour = "#f5dede"
    /// The line of a compressor's gain reduction (session lanes, master lane).
    public static let compressorColour = "#e65100"
    /// The line of the limiter's gain reduction (master lane).
    public static let limiterColour = "#b0003a"
    static let stateColours: [Timeline.LaneState: String] = [
        .audible: "#9fd8a8", .ducked: "#f6c873", .silenced: "#c3c3cf", .interrupted: "#f2a0a0", .paused: "#cfe1f4",
    ]
    static let markerColours: [Timeline.MarkerKind: String] = [
        .activation: "#2f6fce", .interruption: "#c62828", .ducking: "#d98200", .silence: "#666677", .source: "#2e8b57",
        .voice: "#8e24aa", .device: "#5d4037", .system: "#00838f", .remote: "#ad1457",
    ]

    /// A picture of `timeline`.
    public init(_ timeline: Timeline) { self.timeline = timeline }

    // MARK: Layout

    struct Layout {
        let headerHeight = 74
        let eventsY = 74
        let eventsHeight = 26
        let lanesY = 106
        let laneHeight: Int
        let laneGap = 6
        let outputHeight = 48
        let axisHeight = 26
        /// The master lane's height (0: no master lane).
        let masterHeight: Int

        init(sessions: Int, master: Bool = false) {
            // ~560 px for the session lanes at most, each between 24 and 96 px.
            laneHeight = max(24, min(96, sessions == 0 ? 96 : 560 / sessions - 6))
            masterHeight = master ? 40 : 0
        }

        func laneY(_ i: Int) -> Int { lanesY + i * (laneHeight + laneGap) }
        func masterY(_ sessions: Int) -> Int { laneY(sessions) }
        func outputY(_ sessions: Int) -> Int { laneY(sessions) + (masterHeight > 0 ? masterHeight + laneGap : 0) }
        func axisY(_ sessions: Int) -> Int { outputY(sessions) + outputHeight + 4 }
        func height(_ sessions: Int) -> Int { axisY(sessions) + axisHeight }
    }

    /// The picture's height for this timeline, px.
    public var height: Int { layout.height(timeline.lanes.count) }

    /// The picture has a master lane: the engine has a limiter or a master compressor.
    var hasMasterLane: Bool { timeline.limiterGains != nil || timeline.masterCompressorGains != nil }

    /// Some lane draws a compressor's gain reduction.
    var hasCompressor: Bool { timeline.masterCompressorGains != nil || timeline.lanes.contains { $0.compressorGains != nil } }

    var layout: Layout { Layout(sessions: timeline.lanes.count, master: hasMasterLane) }

    var framesPerPixel: Double { max(Double(timeline.frameCount), 1) / Double(TimelineSVG.plotWidth) }

    func x(_ frame: Int64) -> Double { Double(TimelineSVG.plotX0) + Double(frame) / framesPerPixel }

    /// A linear gain as a y between `top` (0 dB) and `bottom` (the floor).
    static func y(gain: Float, top: Double, bottom: Double, floorDB: Double = TimelineSVG.floorDB) -> Double {
        let dB = gain > 0 ? 20 * log10(Double(gain)) : floorDB
        let t = min(max(dB / floorDB, 0), 1)
        return top + t * (bottom - top)
    }

    // MARK: Output

    /// The SVG document.
    public func svg() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        element(into: &out)
        return out
    }

    /// The HTML page: the SVG inline and a legend. No scripts, no external resources.
    public func html() -> String {
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<title>\(escape(timeline.title)) — tutti timeline</title>\n"
        out +=
            "<style>body{font-family:sans-serif;margin:16px;color:#222}ul{list-style:none;padding:0;columns:2;max-width:1200px}"
            + "li{margin:3px 0}.sw{display:inline-block;width:14px;height:14px;vertical-align:middle;margin-right:6px;border:1px solid #0003}"
            + "p{max-width:1200px}</style>\n</head>\n<body>\n"
        element(into: &out)
        out += "\n<section class=\"legend\">\n<h2>Legend</h2>\n<ul>\n"
        let states: [(Timeline.LaneState, String)] = [
            (.audible, "audible: heard at full level"),
            (.ducked, "ducked: attenuated by a duckOthers session (a signal-driven rule: while the render ducks it)"),
            (.silenced, "silenced: its sources run, it is not heard (silent switch, lock, background, recording)"),
            (.interrupted, "interrupted: its sources are paused"), (.paused, "paused: active, nothing of it running"),
        ]
        for (s, text) in states {
            out += "<li><span class=\"sw\" style=\"background:\(TimelineSVG.stateColours[s]!)\"></span>\(text)</li>\n"
        }
        for k in Timeline.MarkerKind.allCases {
            out += "<li><span class=\"sw\" style=\"background:\(TimelineSVG.markerColours[k]!)\"></span>marker: \(k.rawValue)</li>\n"
        }
        out += "</ul>\n<p>Each session lane: the gain its bus applied (gate × session gain × duck × system volume, as the renderer "
        out += "multiplied it, one value per \(timeline.intervalFrames) frames), from 0 dB at the top to \(Int(TimelineSVG.floorDB)) dB; "
        out += "its sources' play spans below. "
        if hasCompressor {
            out += "A compressor's gain reduction (the smallest gain it applied per \(timeline.intervalFrames) frames, makeup not "
            out += "included) is the orange line: in its session's lane on the same scale, not part of the bus gain; "
            out += "the master compressor's in the master lane. "
        }
        if timeline.limiterGains != nil {
            out += "The master lane: the limiter's gain reduction (the smallest gain it applied per \(timeline.intervalFrames) "
            out += "frames) as the crimson line, 0 at the top to \(Int(TimelineSVG.masterFloorDB)) dB. "
        }
        out += "The output lane: the peak of the mix per \(timeline.intervalFrames) frames, in dBFS. "
        out += "Hover a marker for the journal entry and its reason; markers closer than 4 px are merged.</p>\n"
        out += "</section>\n</body>\n</html>\n"
        return out
    }

    func element(into out: inout String) {
        let n = timeline.lanes.count
        let layout = self.layout
        let height = layout.height(n)
        let w = TimelineSVG.width
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(height)\" viewBox=\"0 0 \(w) \(height)\""
        out += " font-family=\"sans-serif\" font-size=\"11\">\n"
        out += "<style>.lbl{font-weight:bold;font-size:12px}.sub{fill:#555;font-size:10px}.tick{fill:#444;font-size:10px}"
        out += ".grid{stroke:#0000001a}.gain{fill:#1f3b73;fill-opacity:.25;stroke:#1f3b73;stroke-width:1.2}"
        out += ".peak{fill:#6a4c9c;fill-opacity:.55;stroke:#6a4c9c;stroke-width:.8}.mk line{stroke-opacity:.45}</style>\n"
        out += "<rect width=\"\(w)\" height=\"\(height)\" fill=\"#ffffff\"/>\n"
        header(into: &out)
        grid(layout, into: &out)
        eventsLane(layout, into: &out)
        for i in 0..<n { sessionLane(i, layout, into: &out) }
        if hasMasterLane { masterLane(layout, into: &out) }
        outputLane(layout, into: &out)
        axis(layout, into: &out)
        out += "</svg>\n"
    }

    func header(into out: inout String) {
        let t = timeline
        out += "<text x=\"12\" y=\"20\" font-size=\"15\" font-weight=\"bold\">\(escape(t.title))</text>\n"
        let seconds = formatFixed(Double(t.frameCount) / Double(t.sampleRate), 2)
        out += "<text x=\"12\" y=\"37\" class=\"sub\">\(seconds) s at \(t.sampleRate) Hz · \(t.lanes.count) sessions · "
        out += "gain: what the renderer applied, per \(t.intervalFrames) frames, 0 to \(Int(TimelineSVG.floorDB)) dB · "
        out += "hover a marker for its journal entry</text>\n"
        // Key of the gain-reduction lines, when the picture has any.
        var keys: [(String, String)] = []
        if hasCompressor { keys.append(("compressor", TimelineSVG.compressorColour)) }
        if t.limiterGains != nil { keys.append(("limiter", TimelineSVG.limiterColour)) }
        if !keys.isEmpty {
            var kx = 880
            out += "<text x=\"\(kx)\" y=\"37\" class=\"sub\">gain reduction:</text>"
            kx += 80
            for (name, colour) in keys {
                out += "<path d=\"M\(kx) 33h14\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
                out += "<text x=\"\(kx + 18)\" y=\"37\" class=\"sub\">\(name)</text>"
                kx += 24 + 6 * name.count + 10
            }
            out += "\n"
        }
        // Legend: states, then marker kinds.
        var x = 12
        for s in Timeline.LaneState.allCases {
            out += "<rect x=\"\(x)\" y=\"48\" width=\"12\" height=\"12\" fill=\"\(TimelineSVG.stateColours[s]!)\"/>"
            out += "<text x=\"\(x + 16)\" y=\"58\" class=\"sub\">\(s.rawValue)</text>\n"
            x += 24 + 6 * s.rawValue.count + 10
        }
        x += 14
        for k in Timeline.MarkerKind.allCases {
            out += "<path d=\"M\(x) 49h10l-5 9z\" fill=\"\(TimelineSVG.markerColours[k]!)\"/>"
            out += "<text x=\"\(x + 13)\" y=\"58\" class=\"sub\">\(k.rawValue)</text>\n"
            x += 20 + 6 * k.rawValue.count + 8
        }
    }

    /// Seconds between ticks: at least 64 px apart.
    func tickStep() -> Double {
        let total = Double(timeline.frameCount) / Double(timeline.sampleRate)
        let steps: [Double] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1_200, 1_800, 3_600, 7_200]
        for s in steps where total / s * 64 <= Double(TimelineSVG.plotWidth) { return s }
        return steps.last!
    }

    func grid(_ layout: Layout, into out: inout String) {
        let step = tickStep()
        let top = layout.eventsY
        let bottom = layout.axisY(timeline.lanes.count)
        out += "<g class=\"grid\">"
        var k = 0
        while true {
            let t = Double(k) * step
            let frame = Int64((t * Double(timeline.sampleRate)).rounded())
            if frame > timeline.frameCount { break }
            let xs = formatFixed(x(frame), 1)
            out += "<line x1=\"\(xs)\" y1=\"\(top)\" x2=\"\(xs)\" y2=\"\(bottom)\"/>"
            k += 1
        }
        out += "</g>\n"
    }

    func axis(_ layout: Layout, into out: inout String) {
        let step = tickStep()
        let y = layout.axisY(timeline.lanes.count)
        let decimals = step >= 1 ? 0 : (step >= 0.1 ? 1 : 2)
        out += "<g class=\"axis\"><line x1=\"\(TimelineSVG.plotX0)\" y1=\"\(y)\" x2=\"\(TimelineSVG.plotX1)\" y2=\"\(y)\" stroke=\"#444\"/>"
        var k = 0
        while true {
            let t = Double(k) * step
            let frame = Int64((t * Double(timeline.sampleRate)).rounded())
            if frame > timeline.frameCount { break }
            let xs = formatFixed(x(frame), 1)
            out += "<line x1=\"\(xs)\" y1=\"\(y)\" x2=\"\(xs)\" y2=\"\(y + 4)\" stroke=\"#444\"/>"
            out += "<text x=\"\(xs)\" y=\"\(y + 15)\" text-anchor=\"middle\" class=\"tick\">\(formatFixed(t, decimals))</text>"
            k += 1
        }
        out += "<text x=\"\(TimelineSVG.plotX0 - 8)\" y=\"\(y + 15)\" text-anchor=\"end\" class=\"tick\">seconds</text></g>\n"
    }

    func labelStrip(y: Int, height: Int, colour: String, title: String, line1: String, line2: String?, into out: inout String) {
        out +=
            "<rect x=\"0\" y=\"\(y)\" width=\"\(TimelineSVG.plotX0 - 10)\" height=\"\(height)\" fill=\"\(colour)\"><title>\(escape(title))</title></rect>"
        let mid = y + min(height / 2, 16)
        out += "<text x=\"8\" y=\"\(height >= 30 ? mid - 1 : y + height / 2 + 4)\" class=\"lbl\">\(escape(clip(line1, 22)))</text>"
        if let line2, height >= 30 { out += "<text x=\"8\" y=\"\(mid + 12)\" class=\"sub\">\(escape(clip(line2, 26)))</text>" }
        out += "\n"
    }

    func eventsLane(_ layout: Layout, into out: inout String) {
        let y = layout.eventsY
        let h = layout.eventsHeight
        out += "<g class=\"lane events\">"
        labelStrip(
            y: y, height: h, colour: TimelineSVG.eventsLaneColour, title: "device, system and remote events", line1: "events",
            line2: nil, into: &out)
        out += "<rect x=\"\(TimelineSVG.plotX0)\" y=\"\(y)\" width=\"\(TimelineSVG.plotWidth)\" height=\"\(h)\" fill=\"#fbf9f2\"/>\n"
        markers(lane: nil, top: Double(y), bottom: Double(y + h), into: &out)
        out += "</g>\n"
    }

    func sessionLane(_ i: Int, _ layout: Layout, into out: inout String) {
        let lane = timeline.lanes[i]
        let y = layout.laneY(i)
        let h = layout.laneHeight
        out += "<g class=\"lane session\" data-session=\"\(escape(lane.id))\">"
        let names = lane.sources.map(\.id).joined(separator: ", ")
        labelStrip(
            y: y, height: h, colour: TimelineSVG.sessionLaneColour,
            title: "\(lane.id) (\(lane.category)); sources, bottom row first: \(names.isEmpty ? "none" : names)", line1: lane.id,
            line2: lane.category, into: &out)
        if h >= 44 {
            if !names.isEmpty { out += "<text x=\"8\" y=\"\(y + h - 6)\" class=\"sub\">\(escape(clip("▸ " + names, 28)))</text>" }
            out += "<text x=\"\(TimelineSVG.plotX0 - 14)\" y=\"\(y + 11)\" text-anchor=\"end\" class=\"tick\">0 dB</text>"
        }
        out += "<rect x=\"\(TimelineSVG.plotX0)\" y=\"\(y)\" width=\"\(TimelineSVG.plotWidth)\" height=\"\(h)\" fill=\"#f7f8fa\"/>\n"
        // Shading by state.
        for s in lane.states {
            let x0 = x(s.span.from)
            let width = max(x(s.span.to) - x0, 0.5)
            out += "<rect x=\"\(formatFixed(x0, 1))\" y=\"\(y)\" width=\"\(formatFixed(width, 1))\" height=\"\(h)\""
            out += " fill=\"\(TimelineSVG.stateColours[s.state]!)\"><title>\(escape(lane.id)): \(s.state.rawValue) "
            out +=
                "\(Timeline.seconds(s.span.from, timeline.sampleRate))–\(Timeline.seconds(s.span.to, timeline.sampleRate)) s</title></rect>"
        }
        out += "\n"
        // Sources: one row each at the bottom of the lane (rows are shared when there are many).
        let sourceArea = lane.sources.isEmpty ? 0 : min(Double(lane.sources.count) * 5, Double(h) * 0.3)
        let rows = max(1, min(lane.sources.count, Int(sourceArea / 2)))
        let rowHeight = lane.sources.isEmpty ? 0 : sourceArea / Double(rows)
        let bottom = Double(y + h) - 1
        for (k, source) in lane.sources.enumerated() {
            let rowY = bottom - Double(k % rows + 1) * rowHeight
            for span in mergedSpans(source.spans) {
                let x0 = x(span.from)
                let width = max(x(span.to) - x0, 1)
                out +=
                    "<rect class=\"span\" x=\"\(formatFixed(x0, 1))\" y=\"\(formatFixed(rowY + 0.3, 1))\" width=\"\(formatFixed(width, 1))\""
                out += " height=\"\(formatFixed(max(rowHeight - 0.6, 0.8), 1))\" fill=\"#3d5a80\"><title>\(escape(source.id)) runs "
                out +=
                    "\(Timeline.seconds(span.from, timeline.sampleRate))–\(Timeline.seconds(span.to, timeline.sampleRate)) s</title></rect>"
            }
        }
        out += "\n"
        // The applied gain: per pixel column the range of the records in it.
        gainPath(lane.gains, top: Double(y) + 7, bottom: Double(y + h) - 2 - sourceArea, cssClass: "gain", into: &out)
        if let reductions = lane.compressorGains {
            reductionPath(
                reductions, top: Double(y) + 7, bottom: Double(y + h) - 2 - sourceArea, floorDB: TimelineSVG.floorDB,
                cssClass: "comp", colour: TimelineSVG.compressorColour, title: "\(lane.id): compressor gain reduction", into: &out)
        }
        markers(lane: i, top: Double(y), bottom: Double(y + h), into: &out)
        out += "</g>\n"
    }

    func masterLane(_ layout: Layout, into out: inout String) {
        let y = layout.masterY(timeline.lanes.count)
        let h = layout.masterHeight
        out += "<g class=\"lane master\">"
        labelStrip(
            y: y, height: h, colour: TimelineSVG.masterLaneColour, title: "the limiter's and the master compressor's gain reduction, dB",
            line1: "master", line2: "reduction, 0 to \(Int(TimelineSVG.masterFloorDB)) dB", into: &out)
        out += "<rect x=\"\(TimelineSVG.plotX0)\" y=\"\(y)\" width=\"\(TimelineSVG.plotWidth)\" height=\"\(h)\" fill=\"#fbf7f7\"/>\n"
        let top = Double(y) + 3
        let bottom = Double(y + h) - 2
        if let reductions = timeline.masterCompressorGains {
            reductionPath(
                reductions, top: top, bottom: bottom, floorDB: TimelineSVG.masterFloorDB, cssClass: "comp",
                colour: TimelineSVG.compressorColour, title: "master compressor gain reduction", into: &out)
        }
        if let reductions = timeline.limiterGains {
            reductionPath(
                reductions, top: top, bottom: bottom, floorDB: TimelineSVG.masterFloorDB, cssClass: "lim",
                colour: TimelineSVG.limiterColour, title: "limiter gain reduction", into: &out)
        }
        out += "</g>\n"
    }

    func outputLane(_ layout: Layout, into out: inout String) {
        let n = timeline.lanes.count
        let y = layout.outputY(n)
        let h = layout.outputHeight
        out += "<g class=\"lane output\">"
        labelStrip(
            y: y, height: h, colour: TimelineSVG.outputLaneColour, title: "output peak per block, dBFS", line1: "output",
            line2: "peak, 0 to \(Int(TimelineSVG.floorDB)) dBFS", into: &out)
        out += "<rect x=\"\(TimelineSVG.plotX0)\" y=\"\(y)\" width=\"\(TimelineSVG.plotWidth)\" height=\"\(h)\" fill=\"#f7f5fa\"/>\n"
        peakPath(timeline.peaks, top: Double(y) + 3, bottom: Double(y + h), into: &out)
        out += "</g>\n"
    }

    /// Play spans closer than a pixel merge (so long scenes stay small).
    func mergedSpans(_ spans: [Timeline.Span]) -> [Timeline.Span] {
        var out: [Timeline.Span] = []
        let gap = Int64(framesPerPixel.rounded(.up))
        for s in spans {
            if let last = out.last, s.from - last.to <= gap {
                out[out.count - 1].to = max(last.to, s.to)
            } else {
                out.append(s)
            }
        }
        return out
    }

    /// Per pixel column: the records whose last frame falls in it (or the one covering it).
    func columns(_ count: Int) -> [Range<Int>] {
        let interval = Double(timeline.intervalFrames)
        return (0..<TimelineSVG.plotWidth).map { c in
            let from = Double(c) * framesPerPixel
            let to = Double(c + 1) * framesPerPixel
            let first = Int((from / interval).rounded(.down))
            let last = max(first, Int(((to - 1) / interval).rounded(.down)))
            return min(first, count)..<min(last + 1, count)
        }
    }

    /// A band from the highest to the lowest value of each column (a line where they meet);
    /// columns with no data break it.
    func gainPath(_ values: [Float], top: Double, bottom: Double, cssClass: String, into out: inout String) {
        var upper: [(Double, Double)] = []
        var lower: [(Double, Double)] = []
        func flush() {
            guard !upper.isEmpty else { return }
            var d = "M"
            for (k, p) in upper.enumerated() { d += (k == 0 ? "" : "L") + formatFixed(p.0, 1) + " " + formatFixed(p.1, 1) }
            for p in lower.reversed() { d += "L" + formatFixed(p.0, 1) + " " + formatFixed(p.1, 1) }
            out += "<path class=\"\(cssClass)\" d=\"\(d)Z\"/>\n"
            upper = []
            lower = []
        }
        for (c, range) in columns(values.count).enumerated() {
            var lo = Float.infinity
            var hi = -Float.infinity
            for r in range where !values[r].isNaN {
                lo = min(lo, values[r])
                hi = max(hi, values[r])
            }
            guard lo <= hi else {
                flush()
                continue
            }
            let xc = Double(TimelineSVG.plotX0 + c) + 0.5
            upper.append((xc, TimelineSVG.y(gain: hi, top: top, bottom: bottom)))
            lower.append((xc, TimelineSVG.y(gain: lo, top: top, bottom: bottom)))
        }
        flush()
    }

    /// A gain reduction as a line from 0 dB (`top`) down to `floorDB` (`bottom`): per column
    /// the smallest gain of its records (the largest reduction); columns with no data break it.
    func reductionPath(
        _ values: [Float], top: Double, bottom: Double, floorDB: Double, cssClass: String, colour: String, title: String,
        into out: inout String
    ) {
        var d = ""
        var open = false
        for (c, range) in columns(values.count).enumerated() {
            var lo = Float.infinity
            for r in range where !values[r].isNaN { lo = min(lo, values[r]) }
            guard lo.isFinite else {
                open = false
                continue
            }
            d += (open ? "L" : "M") + formatFixed(Double(TimelineSVG.plotX0 + c) + 0.5, 1) + " "
            d += formatFixed(TimelineSVG.y(gain: lo, top: top, bottom: bottom, floorDB: floorDB), 1)
            open = true
        }
        guard !d.isEmpty else { return }
        out += "<path class=\"\(cssClass)\" d=\"\(d)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.4\">"
        out += "<title>\(escape(title))</title></path>\n"
    }

    /// The output peaks as an area over the lane's floor.
    func peakPath(_ peaks: [Float], top: Double, bottom: Double, into out: inout String) {
        var d = "M\(TimelineSVG.plotX0) \(formatFixed(bottom, 1))"
        var any = false
        for (c, range) in columns(peaks.count).enumerated() {
            var hi: Float = 0
            for r in range { hi = max(hi, peaks[r]) }
            if !range.isEmpty { any = true }
            d +=
                "L" + formatFixed(Double(TimelineSVG.plotX0 + c) + 0.5, 1) + " "
                + formatFixed(TimelineSVG.y(gain: hi, top: top, bottom: bottom), 1)
        }
        guard any else { return }
        d += "L\(TimelineSVG.plotX1) \(formatFixed(bottom, 1))Z"
        out += "<path class=\"peak\" d=\"\(d)\"><title>output peak per block</title></path>\n"
    }

    /// The markers of a lane, merged when closer than 4 px.
    func markers(lane: Int?, top: Double, bottom: Double, into out: inout String) {
        let mine = timeline.markers.filter { $0.lane == lane }
        var k = 0
        while k < mine.count {
            let x0 = x(mine[k].frame)
            var group = [mine[k]]
            var j = k + 1
            while j < mine.count, x(mine[j].frame) - x0 < 4 {
                group.append(mine[j])
                j += 1
            }
            // The strongest kind of the group colours it (voice, then interruption, ducking, …).
            let order: [Timeline.MarkerKind] = [.voice, .interruption, .ducking, .silence, .activation, .system, .device, .remote, .source]
            let kind = order.first { kind in group.contains { $0.kind == kind } } ?? group[0].kind
            var title = group.prefix(24).map(\.title).joined(separator: "\n")
            if group.count > 24 { title += "\n… and \(group.count - 24) more" }
            let colour = TimelineSVG.markerColours[kind]!
            let xs = formatFixed(x0, 1)
            out += "<g class=\"mk\" data-kind=\"\(kind.rawValue)\"><title>\(escape(title))</title>"
            out += "<line x1=\"\(xs)\" y1=\"\(formatFixed(top, 1))\" x2=\"\(xs)\" y2=\"\(formatFixed(bottom, 1))\" stroke=\"\(colour)\"/>"
            out += "<path d=\"M\(formatFixed(x0 - 4, 1)) \(formatFixed(top, 1))h8l-4 7z\" fill=\"\(colour)\"/></g>\n"
            k = j
        }
    }

    func clip(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }
}

/// Text for XML content and attributes.
func escape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default:
            // Control characters other than tab and newline are not allowed in XML 1.0.
            if c.value < 0x20, c != "\n", c != "\t" { continue }
            out.unicodeScalars.append(c)
        }
    }
    return out
}
