import Tutti
import TuttiPolicy

/// What a scene render did, for the timeline picture (`tutti render --plot`): per session
/// the gain the renderer applied (from its probe, one value per record of `intervalFrames`
/// frames) and its compressor's gain reduction, the policy state over time, the play spans
/// of its sources, the journal as markers; the device, system and remote events; the
/// limiter's and the master compressor's gain reduction and the output's peak per record.
/// Value type: any thread.
public struct Timeline: Sendable {
    /// How a session lane is shaded. A session that is not active has no shading.
    public enum LaneState: String, CaseIterable, Sendable {
        /// Heard at full level.
        case audible
        /// Heard, attenuated by a ducker (for a signal-driven rule: while the render ducks it,
        /// from its `duckingBegan` to its `duckingEnded`).
        case ducked
        /// Active, its sources run, nothing of it is heard (silent switch, lock, background,
        /// recording, or a category without output).
        case silenced
        /// Interrupted: its sources are paused.
        case interrupted
        /// Active and audible, but none of its sources is running.
        case paused
    }

    /// A stretch of output frames, `from ..< to`.
    public struct Span: Sendable, Equatable {
        /// First frame.
        public var from: Int64
        /// The frame after the last.
        public var to: Int64

        /// The frames `from ..< to`.
        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }
    }

    /// A stretch of a session lane in one state.
    public struct StateSpan: Sendable, Equatable {
        /// The frames.
        public var span: Span
        /// The state over them.
        public var state: LaneState
    }

    /// One source's running spans (it advances on the render side: playing, its session
    /// audible or silenced).
    public struct SourceTrack: Sendable {
        /// The source's id.
        public var id: String
        /// When it ran, in order.
        public var spans: [Span]
    }

    /// One session's lane.
    public struct Lane: Sendable {
        /// The session's id.
        public var id: String
        /// The configured category (the label).
        public var category: String
        /// Per record: the linear gain the session's bus applied at the record's last frame
        /// (gate × session gain × duck × system volume); NaN before the bus existed.
        public var gains: [Float]
        /// Per record: the smallest linear gain (≤ 1, makeup not included) the compressors of
        /// the session's `effects` applied over the record — their largest gain reduction — NaN
        /// before the bus existed; nil when its effects have no compressor. Not part of `gains`.
        public var compressorGains: [Float]?
        /// Its state over time, in order (no span while inactive).
        public var states: [StateSpan]
        /// Its sources, in scene order.
        public var sources: [SourceTrack]
    }

    /// What a marker is about (its colour in the picture).
    public enum MarkerKind: String, CaseIterable, Sendable {
        case activation, interruption, ducking, silence, source, voice, device, system, remote
    }

    /// A point on the time axis with its explanation (the `<title>` a browser shows on hover).
    public struct Marker: Sendable {
        /// The output frame it happened at.
        public var frame: Int64
        /// The session lane it belongs to; nil: the events lane (device, system, remote).
        public var lane: Int?
        /// What it is about (the most telling kind of its entries).
        public var kind: MarkerKind
        /// The journal entry (or scene event) and why, one line each.
        public var title: String
    }

    /// The scene's name (its file name, or what the caller gave).
    public var title: String
    /// Output rate, Hz (frames → seconds).
    public var sampleRate: Int
    /// The render's length.
    public var frameCount: Int64
    /// Output frames per record of `lanes[].gains` and `peaks`.
    public var intervalFrames: Int
    /// One lane per session, in scene order.
    public var lanes: [Lane]
    /// Per record: the output's peak (largest absolute sample, linear).
    public var peaks: [Float]
    /// Per record: the smallest linear gain (≤ 1) the limiter (`engine.limiter`, on the main
    /// output) applied over the record — its largest gain reduction; nil without a limiter.
    public var limiterGains: [Float]?
    /// Per record: as `Lane.compressorGains`, for the compressors of the master chain
    /// (`engine.effects`); nil when it has none.
    public var masterCompressorGains: [Float]?
    /// In frame order; same-frame markers keep journal order.
    public var markers: [Marker]
}

/// The file format of a timeline picture, from its extension. Value type: any thread.
public enum TimelineFormat: Sendable, Equatable {
    /// `.svg`: the picture alone.
    case svg
    /// `.html`: the same SVG inline, with a legend.
    case html

    /// The format `path` asks for; throws naming the path for any other extension.
    public init(path: String) throws {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let ext = name.contains(".") ? String(name.split(separator: ".").last!).lowercased() : ""
        switch ext {
        case "svg": self = .svg
        case "html", "htm": self = .html
        default:
            throw SceneError(
                path,
                ext.isEmpty
                    ? "the timeline picture needs a .svg or .html extension" : "unknown picture format \".\(ext)\": use .svg or .html")
        }
    }
}

/// Collects the policy's view changes while a scene renders, as state and play spans.
/// Thread: the scene renderer's.
final class TimelineRecorder {
    private let sessionIDs: [String]
    private let sourceIDs: [String]
    private var sessionIndex: [String: Int] = [:]
    private var sourceIndex: [String: Int] = [:]
    private var state: [(since: Int64, state: Timeline.LaneState?)]
    private var running: [(since: Int64, running: Bool)]
    /// Per session: its last view and whether any of its sources ran then.
    private var views: [SessionView?]
    private var sessionRunning: [Bool]
    /// Per session: a signal-driven duck is in force on the render side (from its reports).
    private var signalDucked: [Bool]
    private(set) var states: [[Timeline.StateSpan]]
    private(set) var spans: [[Timeline.Span]]

    init(sessions: [String], sources: [String]) {
        sessionIDs = sessions
        sourceIDs = sources
        for (i, s) in sessions.enumerated() { sessionIndex[s] = i }
        for (i, s) in sources.enumerated() { sourceIndex[s] = i }
        state = Array(repeating: (0, nil), count: sessions.count)
        running = Array(repeating: (0, false), count: sources.count)
        states = Array(repeating: [], count: sessions.count)
        spans = Array(repeating: [], count: sources.count)
        views = Array(repeating: nil, count: sessions.count)
        sessionRunning = Array(repeating: false, count: sessions.count)
        signalDucked = Array(repeating: false, count: sessions.count)
    }

    /// The lane state of a session view, given whether any of its sources runs and, for a
    /// signal-driven duck (which the policy's view has while the rule applies, ducking or
    /// not), whether the render has it ducked.
    static func laneState(_ v: SessionView, anyRunning: Bool, signalDucked: Bool = false) -> Timeline.LaneState? {
        switch v.state {
        case .inactive: return nil
        case .interrupted: return .interrupted
        case .silenced: return .silenced
        case .audible:
            if !v.hasOutput { return .silenced }
            if v.duck != nil {
                if case .signal? = v.duckTrigger, !signalDucked { return anyRunning ? .audible : .paused }
                return .ducked
            }
            return anyRunning ? .audible : .paused
        }
    }

    /// The view after a change at `frame`.
    func capture(_ frame: Int64, _ view: RenderView) {
        var anyRunning = Array(repeating: false, count: sessionIDs.count)
        for src in view.sources {
            guard let k = sourceIndex[src.id] else { continue }
            if src.isRunning, let i = sessionIndex[src.session] { anyRunning[i] = true }
            if src.isRunning != running[k].running {
                if running[k].running, frame > running[k].since { spans[k].append(Timeline.Span(from: running[k].since, to: frame)) }
                running[k] = (frame, src.isRunning)
            }
        }
        for v in view.sessions {
            guard let i = sessionIndex[v.id] else { continue }
            // Not ducked: a signal duck of before is over (its sidechain is gone).
            if v.duck == nil { signalDucked[i] = false }
            views[i] = v
            sessionRunning[i] = anyRunning[i]
            update(i, at: frame)
        }
    }

    /// The render reported that a signal-driven duck of `session` began (`ducked`) or ended
    /// at `frame` (`duckingBegan` / `duckingEnded` with `"trigger": "signal"`).
    func signalDuck(_ session: String, ducked: Bool, at frame: Int64) {
        guard let i = sessionIndex[session] else { return }
        signalDucked[i] = ducked
        update(i, at: frame)
    }

    /// Session `i`'s state from its last view, changed at `frame` if it differs.
    private func update(_ i: Int, at frame: Int64) {
        guard let v = views[i] else { return }
        let s = TimelineRecorder.laneState(v, anyRunning: sessionRunning[i], signalDucked: signalDucked[i])
        if s != state[i].state {
            let at = max(frame, state[i].since)
            close(i, at: at)
            state[i] = (at, s)
        }
    }

    private func close(_ i: Int, at frame: Int64) {
        if let s = state[i].state, frame > state[i].since {
            states[i].append(Timeline.StateSpan(span: Timeline.Span(from: state[i].since, to: frame), state: s))
        }
    }

    /// Close what is still open at the end of the render.
    func finish(at frame: Int64) {
        for i in state.indices {
            close(i, at: frame)
            state[i].since = frame
        }
        for k in running.indices where running[k].running && frame > running[k].since {
            spans[k].append(Timeline.Span(from: running[k].since, to: frame))
            running[k].since = frame
        }
    }
}

extension Timeline {
    /// The markers of a render: each journal entry about a session (or one of its sources)
    /// in that session's lane; each device, system and remote event of the scene in the
    /// events lane, with the journal entries of its frame that concern no session.
    static func markers(scene: Scene, journal: [LogEntry]) -> [Marker] {
        var laneOfSession: [String: Int] = [:]
        for (i, s) in scene.sessions.enumerated() { laneOfSession[s.id] = i }
        var sessionOfSource: [String: String] = [:]
        for s in scene.sources { sessionOfSource[s.id] = s.session }
        func string(_ e: LogEntry, _ key: String) -> String? {
            if case .string(let v)? = e.fields.first(where: { $0.key == key })?.value { return v }
            return nil
        }
        var out: [Marker] = []
        var global: [Int64: [String]] = [:]
        for e in journal {
            let session = string(e, "session") ?? string(e, "source").flatMap { sessionOfSource[$0] }
            let text = line(e) + "\n  " + reason(e, scene: scene)
            if let session, let lane = laneOfSession[session] {
                out.append(Marker(frame: e.frame, lane: lane, kind: kind(of: e.type), title: text))
            } else {
                global[e.frame, default: []].append(text)
            }
        }
        for e in scene.events {
            let kind: MarkerKind
            switch e.action {
            case .device: kind = .device
            case .phoneCallBegin, .phoneCallEnd, .systemSound: kind = .system
            case .remote: kind = .remote
            case .session, .source: continue
            }
            let frame = scene.frame(at: e.at)
            var text = "\(seconds(frame, scene.engine.sampleRate)) s · \(describe(e.action)) (\(e.place))"
            if let entries = global.removeValue(forKey: frame) { text += "\n" + entries.joined(separator: "\n") }
            out.append(Marker(frame: frame, lane: nil, kind: kind, title: text))
        }
        // Entries of no session whose frame had no scene event (none expected; kept so nothing is lost).
        for (frame, entries) in global.sorted(by: { $0.key < $1.key }) {
            out.append(Marker(frame: frame, lane: nil, kind: .system, title: entries.joined(separator: "\n")))
        }
        // Stable: same-frame markers keep the order they were made in.
        return out.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
    }

    static func seconds(_ frame: Int64, _ rate: Int) -> String {
        formatFixed(Double(frame) / Double(rate), 3)
    }

    /// A journal entry as a marker's first line: "12.500 s · duckingBegan · session music, by
    /// nav, rule 0" (time with millisecond decimals, the type, the fields in order). Any thread.
    public static func line(_ e: LogEntry) -> String {
        let fields = e.fields.map { "\($0.key) \(JSONWriter.string($0.value).replacingOccurrences(of: "\"", with: ""))" }
        return "\(formatFixed(e.time, 3)) s · \(e.type)" + (fields.isEmpty ? "" : " · " + fields.joined(separator: ", "))
    }

    static func kind(of type: String) -> MarkerKind {
        switch type {
        case "sessionActivated", "sessionDeactivated", "activationFailed", "activationDelayed", "activationGranted",
            "activationCancelled":
            .activation
        case "interruptionBegan", "interruptionEnded": .interruption
        case "duckingBegan", "duckingEnded": .ducking
        case "silenced", "unsilenced": .silence
        case "voiceStolen", "voiceRefused": .voice
        case "sourceStarted", "sourcePaused", "sourceEnded": .source
        case "remoteCommand", "remoteCommandUnhandled": .remote
        case "routeChange", "volumeChanged": .device
        default: .system
        }
    }

    /// Why, in words, from the entry's fields (and the scene, for ducking rules).
    static func reason(_ e: LogEntry, scene: Scene) -> String {
        func f(_ key: String) -> String {
            guard let v = e.fields.first(where: { $0.key == key })?.value else { return "?" }
            if case .string(let s) = v { return s }
            return JSONWriter.string(v)
        }
        switch e.type {
        case "sessionActivated":
            let focus = e.fields.contains { $0.key == "focus" } ? " with focus \(f("focus"))" : ""
            return "activated as \(f("category"))\(focus)"
        case "activationDelayed": return "activation delayed until the phone call ends (\(f("reason")))"
        case "activationGranted": return "delayed activation granted: the call is over"
        case "activationCancelled": return "delayed activation cancelled (deactivated)"
        case "sessionDeactivated": return f("notifyOthers") == "true" ? "deactivated; those it interrupted may resume" : "deactivated"
        case "activationFailed":
            return f("error") == "rejectedByTable"
                ? "activation refused by the interaction table (rejectedByTable)" : "activation refused: \(f("error"))"
        case "interruptionBegan":
            let by = f("by")
            let transient = e.fields.contains { $0.key == "transient" } ? ", transient" : ""
            let pause = f("reason") == "ducked" ? "; it pauses instead of being ducked" : ""
            let fade = e.fields.contains { $0.key == "fade" } ? "; fading out over \(f("fade")) s" : ""
            return "interrupted (\(f("reason"))\(transient))" + (by == "null" ? "" : " by \(by)") + pause + fade
        case "interruptionEnded":
            return f("shouldResume") == "true" ? "interruption over; it may resume" : "interruption over; it should not resume"
        case "duckingBegan":
            let ducker = scene.sessions.first { $0.id == f("by") }
            let how =
                ducker.map { $0.options.contains(.duckOthers) } != false
                ? "duckOthers" : ducker?.accessibility == true ? "accessibility" : "focus transientMayDuck"
            return "ducked by \(f("by")) (\(how)), " + duckRule(e, scene: scene)
        case "duckingEnded": return "back to full level"
        case "silenced": return "silenced: \(f("reason"))"
        case "unsilenced": return "heard again"
        case "sourceStarted": return "\(f("source")) starts (\(f("reason")))"
        case "sourcePaused": return "\(f("source")) pauses (\(f("reason")))"
        case "sourceEnded": return "\(f("source")) reached its end"
        case "voiceStolen":
            return "voice limit reached: \(f("source")) (the lowest priority in its scope; ties: the quietest, then the oldest) "
                + "fades out and gives its voice to \(f("by"))"
        case "voiceRefused": return "voice limit reached: every voice in its scope ranks above \(f("source")), so it does not start"
        case "routeChange": return "route \(f("previous")) → \(f("current")) (\(f("reason")))"
        case "volumeChanged": return "\(f("target")) volume → \(f("value"))"
        case "remoteCommand": return "\(f("command")) goes to \(f("session")), the now-playing session"
        case "remoteCommandUnhandled": return "no session takes \(f("command")): dropped"
        case "systemSoundPlayed": return "\(f("sound")) plays (ringer volume)"
        case "vibrate": return "\(f("sound")): vibrate instead (silent switch)"
        case "systemSoundSuppressed": return "\(f("sound")) suppressed (\(f("reason")))"
        default: return e.type
        }
    }

    /// "rule 0 (by nav, duck ambient: −18 dB, attack 0.1 s, release 0.4 s)" and the like.
    static func duckRule(_ e: LogEntry, scene: Scene) -> String {
        func settings(_ s: DuckingSettings) -> String {
            "\(JSONWriter.number(s.levelDB)) dB, attack \(JSONWriter.number(s.attackSeconds)) s, release \(JSONWriter.number(s.releaseSeconds)) s"
        }
        switch e.fields.first(where: { $0.key == "rule" })?.value {
        case .number(let n)? where Int(n) >= 0 && Int(n) < scene.engine.duckingRules.count:
            let r = scene.engine.duckingRules[Int(n)]
            return "rule \(Int(n)) (by \(r.by), duck \(r.duck): \(settings(r.settings)))"
        case .string("session")?:
            let by = e.fields.first(where: { $0.key == "by" })?.value
            let own = scene.sessions.first { .string($0.id) == by }?.ducking
            return "the ducker's own ducking" + (own.map { " (\(settings($0)))" } ?? "")
        default:
            return "the engine's ducking (\(settings(scene.engine.ducking)))"
        }
    }

    /// A scene event in words.
    static func describe(_ action: Scene.Action) -> String {
        switch action {
        case .device(let d):
            switch d {
            case .silentSwitch(let on): return "silent switch \(on ? "on" : "off")"
            case .lock: return "device locked"
            case .unlock: return "device unlocked"
            case .volume(let v): return "system volume \(JSONWriter.number(v))"
            case .ringerVolume(let v): return "ringer volume \(JSONWriter.number(v))"
            case .volumeUp: return "volume up"
            case .volumeDown: return "volume down"
            case .route(let r, let reason): return "route → \(r.rawValue)" + (reason.map { " (\($0.rawValue))" } ?? "")
            case .micMuted(let m): return "microphone \(m ? "muted" : "unmuted")"
            case .otherAudio(let o):
                guard o.playing else { return "other apps' audio stops" }
                let who = o.clients.isEmpty ? "" : " (\(o.clients.joined(separator: ", ")))"
                return "other apps' audio plays\(who)" + (o.silenceSecondary ? ", not mixable" : "")
            }
        case .phoneCallBegin: return "phone call begins"
        case .phoneCallEnd: return "phone call ends"
        case .systemSound(let audio, _): return "system sound \(OfflineRenderer.soundName(audio))"
        case .remote(let c): return "remote command \(c.rawValue)"
        case .session(let s, _): return "session \(s)"
        case .source(let s, _): return "source \(s)"
        }
    }
}

/// `value` with exactly `decimals` decimals, "." as the separator, no locale: the same
/// bytes everywhere.
func formatFixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let negative = value < 0 && scaled > 0
    let whole = Int64(scaled / scale)
    var fraction = String(Int64(scaled) - whole * Int64(scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    return (negative ? "-" : "") + String(whole) + (decimals > 0 ? "." + fraction : "")
}
