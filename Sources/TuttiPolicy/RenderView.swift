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
    /// False for `record` and `audioProcessing`: the gate stays closed whatever the state.
    public var hasOutput: Bool

    /// A view with these values (tests and the policy build them).
    public init(
        id: String, state: SessionRenderState, duck: DuckingSettings? = nil, duckedBy: String? = nil,
        duckRule: DuckingRuleReference? = nil, hasOutput: Bool = true
    ) {
        self.id = id
        self.state = state
        self.duck = duck
        self.duckedBy = duckedBy
        self.duckRule = duckRule
        self.hasOutput = hasOutput
    }

    /// The session's gate is open: audible (ducked or not) and it has output.
    public var isAudible: Bool { hasOutput && state == .audible }

    /// Gate of the session bus as the policy wants it, before app gains and system volume:
    /// 1 audible, the duck level while ducked, 0 otherwise. Ramp to it (gate 20 ms; duck: attack/release).
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
                    hasOutput: sessions[i].hasOutput))
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
