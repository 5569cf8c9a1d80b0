import Tutti
import TuttiPolicy

/// `tutti explain`: every session's state at a moment of a scene, and the journal entries
/// that put it there. Value type: any thread.
public struct Explanation: Sendable {
    /// One session at the moment asked. Value type: any thread.
    public struct SessionReport: Sendable {
        /// The session's id.
        public var id: String
        /// Its category in force.
        public var category: String
        /// inactive | active | interrupted
        public var phase: String
        /// audible | ducked | silenced | interrupted | inactive
        public var state: String
        /// Why, in words (the reason fields of the decisive entries).
        public var reason: String?
        /// Its sources that play, in scene order.
        public var playingSources: [String]
        /// Its sources that are paused, in scene order.
        public var pausedSources: [String]
        /// The entries behind the state: the session's own since its last activation (or
        /// the start), its sources', and the activation of whoever ducks or interrupts it.
        public var chain: [LogEntry]
    }

    /// The moment, seconds.
    public var time: Double
    /// The moment, output frames.
    public var frame: Int64
    /// Every session, in scene order.
    public var sessions: [SessionReport]

    /// Run the scene up to `seconds` (events at that time included) and report.
    public static func explain(scene: Scene, at seconds: Double) throws -> Explanation {
        guard seconds >= 0, seconds <= scene.duration else {
            throw SceneError("--at", "\(JSONWriter.number(seconds)) s is outside the scene (0…\(JSONWriter.number(scene.duration)) s)")
        }
        let renderer = try OfflineRenderer(scene: scene)
        let frame = scene.frame(at: seconds)
        try renderer.render(through: frame) { _ in }
        let policy = renderer.system.policy
        let view = renderer.system.view
        let journal = renderer.journal
        /// The interaction row for the pair, if it has this outcome.
        func tableRow(active: String, incoming: String, _ outcome: InteractionOutcome) -> Int? {
            guard let k = policy.interactionRule(active: active, incoming: incoming), policy.interactionList[k].outcome == outcome
            else { return nil }
            return k
        }
        var reports: [SessionReport] = []
        for s in policy.sessions {
            let sv = view.session(s.id)
            let sources = policy.sources.filter { $0.session == s.id }
            let names = Set(sources.map(\.id))
            func about(_ e: LogEntry, _ session: String, _ sourceNames: Set<String>) -> Bool {
                for f in e.fields {
                    if f.key == "session", case .string(let v) = f.value, v == session { return true }
                    if f.key == "source", case .string(let v) = f.value, sourceNames.contains(v) { return true }
                }
                return false
            }
            let own = journal.filter { about($0, s.id, names) }
            // From the last activation on (what happened before it no longer matters).
            let start = own.lastIndex { $0.type == "sessionActivated" } ?? 0
            var chain = Array(own[start...])
            // Whoever holds it ducked or interrupted: their activation.
            var holders: [String] = []
            if let by = sv?.duckedBy { holders.append(by) }
            if let i = s.interruption { holders += i.causes.compactMap { if case .session(let id) = $0 { id } else { nil } } }
            for h in holders {
                if let act = journal.last(where: { $0.type == "sessionActivated" && about($0, h, []) }) { chain.append(act) }
            }
            // A route change that paused its sources.
            let routeFrames = Set(
                chain.filter { e in e.fields.contains { $0.key == "reason" && $0.value == .string("routeChange") } }.map(\.frame))
            chain += journal.filter { $0.type == "routeChange" && routeFrames.contains($0.frame) }
            // Activated in its category for when other audio plays while another app played:
            // the last `otherAudioChanged` before that activation.
            if let fallback = s.configuration.categoryWhenOtherAudioPlaying, s.category == fallback,
                let activation = chain.first(where: { $0.type == "sessionActivated" }),
                let other = journal.last(where: { $0.type == "otherAudioChanged" && $0.frame <= activation.frame }),
                other.fields.contains(where: { $0.key == "playing" && $0.value == .bool(true) })
            {
                chain.append(other)
            }
            chain.sort { $0.frame < $1.frame }

            var state: String
            var reason: String?
            switch sv?.state ?? .inactive {
            case .audible:
                if let by = sv?.duckedBy {
                    state = "ducked"
                    let ducker = policy.session(by)?.configuration
                    var how =
                        ducker?.options.contains(.duckOthers) == true
                        ? "duckOthers" : ducker?.accessibility == true ? "accessibility" : "focus transientMayDuck"
                    if let k = tableRow(active: s.id, incoming: by, .duck) { how = "interactions[\(k)]: duck" }
                    reason = "ducked by \(by) (\(how))"
                    if case .signal(let threshold, let hold) = sv?.duckTrigger {
                        // The level decides when: the rule applies while the ducker is active.
                        let dB = JSONWriter.number(abs(threshold))
                        reason =
                            "ducked while \(by)'s signal is above \(threshold < 0 ? "−" : "")\(dB) dBFS"
                            + " (released \(JSONWriter.number(hold)) s after it falls below; \(how))"
                    }
                    if let duck = sv?.duck, let rule = sv?.duckRule {
                        reason! += " to \(JSONWriter.number(duck.levelDB)) dB: \(rule)"
                    }
                } else {
                    state = "audible"
                }
            case .silenced(let why):
                state = "silenced"
                reason = "silenced: \(why.rawValue)"
                if why == .interaction, let t = policy.tableSilence(of: s.id) {
                    reason! += " by \(t.by) (interactions[\(t.rule)]: silence)"
                }
            case .interrupted:
                state = "interrupted"
                if let i = s.interruption {
                    reason = "interrupted: \(i.reason.rawValue)" + (i.by.map { " by \($0)" } ?? "")
                    if let by = i.by, i.reason == .otherSession, let k = tableRow(active: s.id, incoming: by, .interrupt) {
                        reason! += " (interactions[\(k)]: interrupt)"
                    }
                    if i.reason == .ducked {
                        reason! += " (it pauses instead of being ducked; it resumes when the duck ends)"
                    } else if i.transient {
                        reason! += " (transient: it may resume when that session deactivates)"
                    }
                }
            case .inactive:
                state = "inactive"
                if s.delayedActivation != nil { reason = "activation delayed until the phone call ends (acceptsDelayedActivation)" }
            }
            if s.phase == .active, s.focus != .gain {
                let what: String
                switch s.focus {
                case .transient: what = "those it interrupted resume when it deactivates"
                case .transientMayDuck: what = "it interrupts nobody and ducks every other session"
                case .transientExclusive: what = "it interrupted every other session and suppresses system sounds"
                case .gain: what = ""
                }
                reason = (reason.map { $0 + "; " } ?? "") + "holds focus \(s.focus.rawValue): \(what)"
            }
            if let fallback = s.configuration.categoryWhenOtherAudioPlaying, s.category == fallback, s.phase != .inactive,
                chain.contains(where: { $0.type == "otherAudioChanged" })
            {
                reason = (reason.map { $0 + "; " } ?? "") + "category \(fallback.rawValue): other apps played audio when it activated"
            }
            if sv?.hasOutput == false { reason = (reason.map { $0 + "; " } ?? "") + "category \(s.category.rawValue) has no output" }
            reports.append(
                SessionReport(
                    id: s.id, category: s.category.rawValue, phase: s.phase.rawValue, state: state, reason: reason,
                    playingSources: sources.filter(\.isPlaying).map(\.id), pausedSources: sources.filter { !$0.isPlaying }.map(\.id),
                    chain: chain))
        }
        return Explanation(time: seconds, frame: frame, sessions: reports)
    }

    /// Human-readable report.
    public var text: String {
        var out = "at \(JSONWriter.number(time)) s (frame \(frame))\n"
        for s in sessions {
            out += "\n\(s.id) [\(s.category)]: \(s.state)"
            if let r = s.reason { out += " — \(r)" }
            out += "\n  playing: \(s.playingSources.isEmpty ? "nothing" : s.playingSources.joined(separator: ", "))"
            if !s.pausedSources.isEmpty { out += "; not playing: \(s.pausedSources.joined(separator: ", "))" }
            out += "\n  because:\n"
            if s.chain.isEmpty { out += "    (nothing has happened to it yet)\n" }
            for e in s.chain {
                let fields = e.fields.map { "\($0.key)=\(JSONWriter.string($0.value))" }.joined(separator: " ")
                out += "    \(String(format: "%8.3f", e.time)) s  \(e.type) \(fields)\n"
            }
        }
        return out
    }

    /// One JSON object (for scripts).
    public var json: JSONValue {
        .object([
            ("time", .number(time)), ("frame", .number(Double(frame))),
            (
                "sessions",
                .array(
                    sessions.map { s in
                        .object([
                            ("id", .string(s.id)), ("category", .string(s.category)), ("phase", .string(s.phase)),
                            ("state", .string(s.state)), ("reason", s.reason.map(JSONValue.string) ?? .null),
                            ("playing", .array(s.playingSources.map(JSONValue.string))),
                            (
                                "chain",
                                .array(
                                    s.chain.map { e in
                                        .object(
                                            [("frame", .number(Double(e.frame))), ("time", .number(e.time)), ("type", .string(e.type))]
                                                + e.fields)
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }
}
