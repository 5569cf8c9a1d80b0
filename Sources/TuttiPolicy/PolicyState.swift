/// Where a session is in its life (the render state adds silenced / audible on top of `active`).
/// Value type: any thread.
public enum SessionPhase: String, CaseIterable, Hashable, Sendable {
    /// Not activated, deactivated, or interrupted and not resumed.
    case inactive
    /// Activated and not interrupted.
    case active
    /// Activated, then interrupted: sources paused, the ones that were playing remembered.
    case interrupted
}

/// One thing holding a session interrupted. An interruption ends when its last cause goes away.
/// Value type: any thread.
public enum InterruptionCause: Hashable, Sendable {
    /// A session that activated (rule 2.1 or 2.6); released when it deactivates.
    case session(String)
    case phoneCall
    case micMuted
}

/// Interruption bookkeeping of one session. Value type: any thread.
public struct Interruption: Hashable, Sendable {
    /// Reason and interrupter of the `interruptionBegan` event.
    public internal(set) var reason: InterruptionReason
    public internal(set) var by: String?
    /// Everything that currently holds the session interrupted, oldest first.
    public internal(set) var causes: [InterruptionCause]
    /// AND of the `shouldResume` of every cause that went away so far.
    public internal(set) var shouldResume: Bool
    /// The microphone was muted during this interruption: nothing restarts by itself (rule 2.8).
    public internal(set) var micMuted: Bool
    /// Sources that were playing when it began and have not been paused since.
    public internal(set) var playingSources: [String]
}

/// Policy state of one session. Value type: any thread; the engine's control side owns the live copy.
public struct SessionState: Hashable, Sendable {
    public internal(set) var configuration: SessionConfiguration
    public internal(set) var phase: SessionPhase = .inactive
    /// Category chosen at activation (rule 10); nil while inactive.
    public internal(set) var activeCategory: Category?
    public internal(set) var interruption: Interruption?
    /// What a host `resume`, or a remote `play`, starts: sources paused by a remote
    /// `pause`, or playing when an interruption ended without resuming.
    public internal(set) var resumeSources: [String] = []
    /// Increases with every activation; orders duckers (see `RenderView`).
    public internal(set) var activationSerial: Int = 0

    public var id: String { configuration.id }
    /// The category in force: the one chosen at activation, else the configured one.
    public var category: Category { activeCategory ?? configuration.category }
    /// Rule 1: ambient, or any option implying mixWithOthers.
    public var isMixable: Bool {
        category == .ambient || configuration.options.contains { $0.impliesMixWithOthers }
    }
    public var hasOutput: Bool { category.hasOutput }
}

/// Policy state of one source. Value type: any thread; the engine's control side owns the live copy.
public struct SourceState: Hashable, Sendable {
    public let id: String
    public let session: String
    /// Transport intent: the host (or the policy on its behalf) wants it to play.
    public internal(set) var isPlaying: Bool = false
    /// Times it was stopped or reached its end; a change means "seek to the start".
    public internal(set) var rewinds: Int = 0
}

/// Everything the rules need. Change it only through `apply(_:)`.
/// Value type: any thread; the engine's control side owns the live copy.
public struct PolicyState: Hashable, Sendable {
    /// In registration order.
    public internal(set) var sessions: [SessionState] = []
    /// In registration order.
    public internal(set) var sources: [SourceState] = []
    public internal(set) var device: DeviceState
    public internal(set) var callActive: Bool = false
    /// Engine default duck envelope (used when the ducker has no `ducking`).
    public internal(set) var engineDucking: DuckingSettings
    /// Sessions by their latest start of non-mixable playback, most recent last (rule 8).
    public internal(set) var nowPlayingOrder: [String] = []

    var sessionIndex: [String: Int] = [:]
    var sourceIndex: [String: Int] = [:]
    var nextActivationSerial = 1

    public init(
        sessions: [SessionConfiguration] = [],
        sources: [SourceConfiguration] = [],
        device: DeviceState = DeviceState(),
        ducking: DuckingSettings = .default
    ) throws(PolicyError) {
        self.device = device
        self.engineDucking = ducking
        try checkVolume(device.volume, name: "volume")
        try checkVolume(device.ringerVolume, name: "ringerVolume")
        self.device.volume = clampUnit(device.volume)
        self.device.ringerVolume = clampUnit(device.ringerVolume)
        for session in sessions { try addSession(session) }
        for source in sources { try addSource(source) }
    }

    /// Registers a session (inactive). Control API.
    public mutating func addSession(_ configuration: SessionConfiguration) throws(PolicyError) {
        guard sessionIndex[configuration.id] == nil else { throw .duplicateSession(configuration.id) }
        try Self.validate(configuration)
        sessionIndex[configuration.id] = sessions.count
        sessions.append(SessionState(configuration: configuration))
    }

    /// Registers a source (not playing). Control API.
    public mutating func addSource(_ source: SourceConfiguration) throws(PolicyError) {
        guard sourceIndex[source.id] == nil else { throw .duplicateSource(source.id) }
        guard sessionIndex[source.session] != nil else { throw .unknownSession(source.session) }
        sourceIndex[source.id] = sources.count
        sources.append(SourceState(id: source.id, session: source.session))
    }

    /// Rule 1: every option must suit the category, and the alternative category too.
    static func validate(_ c: SessionConfiguration) throws(PolicyError) {
        var categories = [c.category]
        if let alt = c.categoryWhenOtherAudioPlaying { categories.append(alt) }
        for category in categories {
            for option in CategoryOption.allCases where c.options.contains(option) && !category.allows(option) {
                throw .optionNotAllowed(session: c.id, category: category, option: option)
            }
        }
    }

    // MARK: Lookup

    public func session(_ id: String) -> SessionState? { sessionIndex[id].map { sessions[$0] } }
    public func source(_ id: String) -> SourceState? { sourceIndex[id].map { sources[$0] } }

    func sourceIndices(ofSession i: Int) -> [Int] {
        let id = sessions[i].id
        return sources.indices.filter { sources[$0].session == id }
    }

    // MARK: Derived facts (shared by the journal, the view and the queries)

    /// A `record` session is active (rule 5).
    var recordActive: Bool { sessions.contains { $0.phase == .active && $0.category == .record } }

    /// Why an active session with output is silenced, first match in this order:
    /// silent switch, locked, background (ambient / soloAmbient only), recording.
    func silenceReason(_ i: Int) -> SilenceReason? {
        let s = sessions[i]
        guard s.phase == .active, s.hasOutput else { return nil }
        if s.category.isSilencedBySwitchAndLock {
            if device.silentSwitch { return .silentSwitch }
            if device.locked { return .locked }
            if !s.configuration.foreground { return .background }
        }
        if sessions.indices.contains(where: { $0 != i && sessions[$0].phase == .active && sessions[$0].category == .record }) {
            return .recording
        }
        return nil
    }

    func renderState(_ i: Int) -> SessionRenderState {
        switch sessions[i].phase {
        case .inactive: return .inactive
        case .interrupted: return .interrupted
        case .active: return silenceReason(i).map { .silenced($0) } ?? .audible
        }
    }

    /// The session that ducks `i` (rule 3): of the active `duckOthers` sessions other than `i`,
    /// the one with the deepest level; ties go to the earliest activation.
    func ducker(of i: Int) -> Int? {
        let s = sessions[i]
        guard renderState(i) == .audible, s.hasOutput, !s.configuration.options.contains(.duckOthers) else { return nil }
        var best: Int?
        for d in sessions.indices where d != i {
            let candidate = sessions[d]
            guard candidate.phase == .active, candidate.configuration.options.contains(.duckOthers) else { continue }
            guard let b = best else {
                best = d
                continue
            }
            let (lc, lb) = (duckSettings(of: d).levelDB, duckSettings(of: b).levelDB)
            if lc < lb || (lc == lb && candidate.activationSerial < sessions[b].activationSerial) { best = d }
        }
        return best
    }

    func duckSettings(of ducker: Int) -> DuckingSettings { sessions[ducker].configuration.ducking ?? engineDucking }

    /// Heard: audible (ducked or not), has output, and at least one source playing.
    /// This is "audible" for rule 10 and for the volume buttons (rule 6).
    func isHeard(_ i: Int) -> Bool {
        renderState(i) == .audible && sessions[i].hasOutput
            && sources.contains { $0.session == sessions[i].id && $0.isPlaying }
    }

    // MARK: Queries

    /// Rule 10: another session is heard, or a phone call is in progress.
    public func isOtherAudioPlaying(asker: String) -> Bool {
        callActive || sessions.indices.contains { sessions[$0].id != asker && isHeard($0) }
    }

    /// Rule 10: a non-mixable session other than the asker is heard, or a call is in progress.
    public func secondaryAudioShouldBeSilencedHint(asker: String) -> Bool {
        callActive || sessions.indices.contains { sessions[$0].id != asker && !sessions[$0].isMixable && isHeard($0) }
    }

    /// Whether a session is mixable now (nil for an unknown id).
    public func isMixable(session id: String) -> Bool? { session(id)?.isMixable }

    /// Rule 8: the session `command` goes to, nil if it is dropped.
    public func remoteCommandTarget(for command: RemoteCommand) -> String? {
        nowPlayingOrder.last(where: { id in
            guard let s = session(id) else { return false }
            return s.phase != .inactive && s.configuration.remoteCommands.contains(command)
        })
    }

    /// The now-playing session: latest to start non-mixable playback among the
    /// active or interrupted sessions that answer at least one remote command.
    public var nowPlayingSession: String? {
        nowPlayingOrder.last(where: { id in
            guard let s = session(id) else { return false }
            return s.phase != .inactive && !s.configuration.remoteCommands.isEmpty
        })
    }
}

func clampUnit(_ v: Double) -> Double { min(max(v, 0), 1) }

func checkVolume(_ v: Double, name: String) throws(PolicyError) {
    if v.isNaN { throw .invalidValue(name: name, value: v) }
}
