/// What a session's sources do (docs/policy.md, "Categories": the render states).
/// Value type: any thread.
public enum SessionRenderState: Hashable, Sendable {
    /// Sources advance and are heard (possibly ducked: see `SessionView.duck`).
    case audible
    /// Sources advance but contribute zero.
    case silenced(SilenceReason)
    /// Sources are paused.
    case interrupted
    /// Not activated: nothing plays.
    case inactive
}

/// Render view of one session. Value type: any thread.
public struct SessionView: Hashable, Sendable {
    /// The session's id.
    public var id: String
    /// Audible, silenced, interrupted or inactive.
    public var state: SessionRenderState
    /// Non-nil while ducked: the settings of the most specific rule for the pair, else the
    /// ducker's `ducking`, else the engine default.
    public var duck: DuckingSettings?
    /// The session that ducks it (the deepest level; ties: earliest activation).
    public var duckedBy: String?
    /// Where `duck` came from (a rule, the ducker's settings, the engine's).
    public var duckRule: DuckingRuleReference?
    /// What makes `duck` go down: `.activation` (in force now) or `.signal` (the host arms a
    /// sidechain on the ducker's bus level); nil when not ducked.
    public var duckTrigger: DuckingTrigger?
    /// False for `record` and `audioProcessing`: the gate stays closed whatever the state.
    public var hasOutput: Bool

    /// A view with these values (tests and the policy build them).
    public init(
        id: String, state: SessionRenderState, duck: DuckingSettings? = nil, duckedBy: String? = nil,
        duckRule: DuckingRuleReference? = nil, duckTrigger: DuckingTrigger? = nil, hasOutput: Bool = true
    ) {
        self.id = id
        self.state = state
        self.duck = duck
        self.duckedBy = duckedBy
        self.duckRule = duckRule
        self.duckTrigger = duckTrigger ?? (duck == nil ? nil : .activation)
        self.hasOutput = hasOutput
    }

    /// The session's gate is open: audible (ducked or not) and it has output.
    public var isAudible: Bool { hasOutput && state == .audible }

    /// Gate of the session bus as the policy wants it, before app gains and system volume:
    /// 1 audible, the duck level while ducked (on a signal trigger: the level it ducks to while
    /// the ducker's signal is above the threshold), 0 otherwise. Ramp to it (gate 20 ms; duck: attack/release).
    public var policyGain: Double {
        guard hasOutput, state == .audible else { return 0 }
        return duck?.linearGain ?? 1
    }
}

/// Render view of one source. Value type: any thread.
public struct SourceView: Hashable, Sendable {
    /// The source's id.
    public var id: String
    /// The id of its session.
    public var session: String
    /// It advances: playing intent and its session audible or silenced.
    public var isRunning: Bool
    /// Changes whenever it must go back to its start (stop, end).
    public var rewinds: Int

    /// A view with these values.
    public init(id: String, session: String, isRunning: Bool, rewinds: Int = 0) {
        self.id = id
        self.session = session
        self.isRunning = isRunning
        self.rewinds = rewinds
    }
}

/// Everything the renderer needs from the policy, purely derived from `PolicyState`.
/// Diff two consecutive views to get the render commands of an event.
/// Value type: any thread; built on the control side, never on the render thread.
public struct RenderView: Hashable, Sendable {
    /// In registration order.
    public var sessions: [SessionView]
    /// In registration order.
    public var sources: [SourceView]
    /// Call audio plays; it is never ducked or silenced.
    public var callActive: Bool
    /// The system volume, 0…1 (``systemGain`` is its gain).
    public var systemVolume: Double
    /// The ringer volume, 0…1 (``ringerGain`` is its gain).
    public var ringerVolume: Double
    /// System sounds play (false: vibrate or suppressed instead).
    public var systemSoundsAllowed: Bool
    /// The current output route.
    public var route: Route

    /// A view with these values (``PolicyState/renderView`` builds the real one).
    public init(
        sessions: [SessionView], sources: [SourceView], callActive: Bool, systemVolume: Double,
        ringerVolume: Double, systemSoundsAllowed: Bool, route: Route
    ) {
        self.sessions = sessions
        self.sources = sources
        self.callActive = callActive
        self.systemVolume = systemVolume
        self.ringerVolume = ringerVolume
        self.systemSoundsAllowed = systemSoundsAllowed
        self.route = route
    }

    /// Last gain stage of everything but the ringer class (rule 6).
    public var systemGain: Double { VolumeCurve.gain(forVolume: systemVolume) }
    /// Gain of system sounds and the ringtone.
    public var ringerGain: Double { VolumeCurve.gain(forVolume: ringerVolume) }
    /// Gain of the call audio: the system volume only, no policy attenuation.
    public var callGain: Double { callActive ? systemGain : 0 }

    /// The view of the session with this id, or nil. O(sessions).
    public func session(_ id: String) -> SessionView? { sessions.first { $0.id == id } }
    /// The view of the source with this id, or nil. O(sources).
    public func source(_ id: String) -> SourceView? { sources.first { $0.id == id } }
    /// Whether the source advances (false for an unknown id).
    public func isRunning(_ source: String) -> Bool { self.source(source)?.isRunning ?? false }

    /// The whole chain of a source's output: app gains (clamped to 0…1), the
    /// policy gate, then the system volume, which therefore always has the last word.
    public func outputGain(session id: String, sessionGain: Double, sourceGain: Double) -> Double {
        guard let s = session(id) else { return 0 }
        let app = clampUnitOrZero(sessionGain) * clampUnitOrZero(sourceGain)
        return app * s.policyGain * systemGain
    }
}

func clampUnitOrZero(_ v: Double) -> Double { v.isNaN ? 0 : min(max(v, 0), 1) }

extension PolicyState {
    /// The render view of this state.
    public var renderView: RenderView {
        var sessionViews: [SessionView] = []
        sessionViews.reserveCapacity(sessions.count)
        var runningSession: [String: Bool] = [:]
        let f = facts()
        for i in sessions.indices {
            let state = renderState(i, f)
            let d = duck(of: i, f)
            sessionViews.append(
                SessionView(
                    id: sessions[i].id, state: state,
                    duck: d?.settings, duckedBy: d.map { sessions[$0.ducker].id }, duckRule: d?.rule,
                    duckTrigger: d?.trigger, hasOutput: sessions[i].hasOutput))
            switch state {
            case .audible, .silenced: runningSession[sessions[i].id] = true
            case .interrupted, .inactive: runningSession[sessions[i].id] = false
            }
        }
        let sourceViews = sources.map {
            SourceView(
                id: $0.id, session: $0.session, isRunning: $0.isPlaying && runningSession[$0.session] == true,
                rewinds: $0.rewinds)
        }
        return RenderView(
            sessions: sessionViews, sources: sourceViews, callActive: callActive,
            systemVolume: device.volume, ringerVolume: device.ringerVolume,
            systemSoundsAllowed: !device.silentSwitch && !recordActive && !exclusiveActive, route: device.route)
    }
}

/// What one action changed in the render view, and in the "secondary audio should be
/// silenced" hints: the entries that differ, and the global stages (call, volumes, system
/// sounds, route). Patch the view before the action with it (``RenderView/apply(_:)``) to get
/// the view after. Value type: any thread; built on the control side.
package struct ViewChange: Sendable {
    /// Sessions whose view changed, by index in the view after, ascending; nil when sessions
    /// or sources were removed (the indices moved: diff the whole views instead).
    package var sessions: [(index: Int, view: SessionView)]?
    /// Sources whose view changed, by index in the view after, ascending (nil as `sessions`).
    package var sources: [(index: Int, view: SourceView)]?
    /// Sessions whose hint changed, with the new hint, ascending (nil as `sessions`).
    package var hints: [(index: Int, hint: Bool)]?
    /// Heard non-mixable sessions after the action (a new, inactive session's hint).
    package var heardNonMixable: Int
    /// The global stages after the action.
    package var callActive: Bool
    package var systemVolume: Double
    package var ringerVolume: Double
    package var systemSoundsAllowed: Bool
    package var route: Route

    /// Whether the change is given entry by entry (false: the indices moved).
    package var isIncremental: Bool { sessions != nil && sources != nil && hints != nil }
}

extension RenderView {
    /// Patches this view (the one before an action) with what the action changed; the result
    /// is the view after. Nothing for a change that is not incremental but the global stages.
    package mutating func apply(_ change: ViewChange) {
        for (i, v) in change.sessions ?? [] { sessions[i] = v }
        for (k, v) in change.sources ?? [] { sources[k] = v }
        callActive = change.callActive
        systemVolume = change.systemVolume
        ringerVolume = change.ringerVolume
        systemSoundsAllowed = change.systemSoundsAllowed
        route = change.route
    }
}

extension PolicyState {
    /// The view of session `i` from its derived status.
    func sessionView(_ i: Int, _ d: Derived) -> SessionView {
        let state: SessionRenderState
        switch sessions[i].phase {
        case .inactive: state = .inactive
        case .interrupted: state = .interrupted
        case .active: state = d.silence.map { .silenced($0) } ?? .audible
        }
        return SessionView(
            id: sessions[i].id, state: state, duck: d.duckSettings, duckedBy: d.duckedBy, duckRule: d.duckRule,
            duckTrigger: d.duckTrigger, hasOutput: sessions[i].hasOutput)
    }

    /// The view of source `k`, its session being active or not.
    func sourceView(_ k: Int, sessionActive: Bool) -> SourceView {
        SourceView(
            id: sources[k].id, session: sources[k].session, isRunning: sources[k].isPlaying && sessionActive, rewinds: sources[k].rewinds)
    }

    /// The hint of session `i` (rule 10) with these facts.
    func hint(_ i: Int, _ f: Facts) -> Bool {
        let own = f.heard[i] && !isMixable(at: i) ? 1 : 0
        return callActive || otherAudioSilencesSecondary || f.heardNonMixableCount - own > 0
    }

    /// A change of the global stages only (a refused action).
    func globalChange(facts f: Facts) -> ViewChange {
        ViewChange(
            sessions: [], sources: [], hints: [], heardNonMixable: f.heardNonMixableCount, callActive: callActive,
            systemVolume: device.volume, ringerVolume: device.ringerVolume,
            systemSoundsAllowed: !device.silentSwitch && f.activeRecordSessions == 0 && f.activeExclusiveSessions == 0,
            route: device.route)
    }

    /// What changed from `old` (what the view depends on before the action, with the derived
    /// status) to this state: one pass over the sessions and sources comparing small values.
    func viewChange(from old: ViewSnapshot, before: [Derived], after: [Derived], afterFacts: Facts) -> ViewChange {
        var change = globalChange(facts: afterFacts)
        guard old.phases.count == sessions.count, old.sources.count == sources.count else {
            change.sessions = nil
            change.sources = nil
            change.hints = nil
            return change
        }
        var sessionChanges: [(index: Int, view: SessionView)] = []
        var sourceChanges: [(index: Int, view: SourceView)] = []
        var hintChanges: [(index: Int, hint: Bool)] = []
        for i in sessions.indices {
            let phase = sessions[i].phase
            if old.phases[i] != phase || before[i] != after[i] || old.hasOutput[i] != hasOutput(at: i) {
                sessionChanges.append((i, sessionView(i, after[i])))
            }
            let runningChanged = (old.phases[i] == .active) != (phase == .active)
            for k in sourcesOfSession[i] {
                let a = old.sources[k]
                if runningChanged || a.isPlaying != sources[k].isPlaying || a.rewinds != sources[k].rewinds {
                    sourceChanges.append((k, sourceView(k, sessionActive: phase == .active)))
                }
            }
            let hint = hint(i, afterFacts)
            if hint != old.hints[i] { hintChanges.append((i, hint)) }
        }
        sourceChanges.sort { $0.index < $1.index }
        change.sessions = sessionChanges
        change.sources = sourceChanges
        change.hints = hintChanges
        return change
    }
}

/// What the render view and the hints depend on, per session and source, before an action
/// (small values: taking it copies no session).
struct ViewSnapshot {
    var phases: [SessionPhase]
    var hasOutput: [Bool]
    var sources: [(isPlaying: Bool, rewinds: Int)]
    var hints: [Bool]

    init(_ state: PolicyState, _ f: PolicyState.Facts) {
        phases = state.sessions.indices.map { state.sessions[$0].phase }
        hasOutput = state.sessions.indices.map { state.hasOutput(at: $0) }
        sources = state.sources.indices.map { (state.sources[$0].isPlaying, state.sources[$0].rewinds) }
        hints = state.sessions.indices.map { state.hint($0, f) }
    }
}
