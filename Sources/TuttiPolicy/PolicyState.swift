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
    /// The phone call; released when it ends.
    case phoneCall
    /// The muted built-in microphone (capturing sessions); released when it is unmuted.
    case micMuted
    /// A session that pauses instead of being ducked while another ducks the others;
    /// released when nothing would duck it any more.
    case ducked
}

/// Interruption bookkeeping of one session. Value type: any thread.
public struct Interruption: Hashable, Sendable {
    /// Reason and interrupter of the `interruptionBegan` event.
    public internal(set) var reason: InterruptionReason
    /// The interrupting session's id; nil for the phone call and the microphone.
    public internal(set) var by: String?
    /// Everything that currently holds the session interrupted, oldest first.
    public internal(set) var causes: [InterruptionCause]
    /// AND of the `shouldResume` of every cause that went away so far.
    public internal(set) var shouldResume: Bool
    /// The microphone was muted during this interruption: nothing restarts by itself (rule 2.8).
    public internal(set) var micMuted: Bool
    /// Sources that were playing when it began and have not been paused since.
    public internal(set) var playingSources: [String]
    /// The interrupter asked for the output only for a while (focus `transient` or
    /// `transientExclusive`).
    public internal(set) var transient: Bool = false
}

/// A delayed activation waiting for the phone call to end (`acceptsDelayedActivation`).
/// Value type: any thread.
public struct DelayedActivation: Hashable, Sendable {
    /// The focus the activation asked for.
    public internal(set) var focus: FocusRequest
    /// The sources asked to play meanwhile, with why: they start when it is granted.
    public internal(set) var sources: [String]
    /// Why each of `sources` was asked to start (same order).
    public internal(set) var reasons: [SourceStartReason]
}

/// Policy state of one session. Value type: any thread; the engine's control side owns the live copy.
public struct SessionState: Hashable, Sendable {
    /// The session as registered (category changes update it).
    public internal(set) var configuration: SessionConfiguration
    /// Inactive, active or interrupted.
    public internal(set) var phase: SessionPhase = .inactive
    /// Category chosen at activation (rule 10); nil while inactive.
    public internal(set) var activeCategory: Category?
    /// What holds it interrupted; nil unless `phase` is `interrupted`.
    public internal(set) var interruption: Interruption?
    /// What a host `resume`, or a remote `play`, starts: sources paused by a remote
    /// `pause`, or playing when an interruption ended without resuming.
    public internal(set) var resumeSources: [String] = []
    /// Increases with every activation; orders duckers (see `RenderView`).
    public internal(set) var activationSerial: Int = 0
    /// The focus of its latest activation (`gain` unless it asked for another); back to
    /// `gain` when it deactivates. An interrupted session keeps it for its resume.
    public internal(set) var focus: FocusRequest = .gain
    /// Its activation is delayed until the phone call ends; nil otherwise.
    public internal(set) var delayedActivation: DelayedActivation?

    /// The session's id (`configuration.id`).
    public var id: String { configuration.id }
    /// The category in force: the one chosen at activation, else the configured one.
    public var category: Category { activeCategory ?? configuration.category }
    /// Rule 1: ambient, or any option implying mixWithOthers.
    public var isMixable: Bool {
        category == .ambient || configuration.options.contains { $0.impliesMixWithOthers }
    }
    /// Its category in force sends sources to the output.
    public var hasOutput: Bool { category.hasOutput }
    /// It ducks the others now: active, with `duckOthers` or the focus `transientMayDuck`, or
    /// an accessibility session with output.
    public var ducksOthers: Bool {
        phase == .active
            && (configuration.options.contains(.duckOthers) || focus == .transientMayDuck || (configuration.accessibility && hasOutput))
    }
}

/// Policy state of one source. Value type: any thread; the engine's control side owns the live copy.
public struct SourceState: Hashable, Sendable {
    /// The source's id.
    public let id: String
    /// The id of its session.
    public let session: String
    /// Transport intent: the host (or the policy on its behalf) wants it to play.
    public internal(set) var isPlaying: Bool = false
    /// Times it was stopped or reached its end; a change means "seek to the start".
    public internal(set) var rewinds: Int = 0
}

/// Everything the rules need. Change it only through `apply(_:)`.
/// Value type: any thread; the engine's control side owns the live copy.
public struct PolicyState: Hashable, Sendable {
    /// The sessions, in registration order (read like an array). Any thread holding the state.
    public internal(set) var sessions = PolicyList<SessionState>()
    /// The sources, in registration order (read like an array). Any thread holding the state.
    public internal(set) var sources = PolicyList<SourceState>()
    /// Silent switch, lock, volumes (clamped to 0…1), route and microphone.
    public internal(set) var device: DeviceState
    /// A phone call is in progress (every session is interrupted, activation is refused).
    public internal(set) var callActive: Bool = false
    /// Engine default duck envelope (used when no rule applies and the ducker has no `ducking`).
    public internal(set) var engineDucking: DuckingSettings
    /// Seconds (0…10) a session interrupted or silenced by another session's activation fades
    /// out over before its sources pause (`lossFade`); 0: the engine's short gate ramp.
    public internal(set) var lossFadeSeconds: Double = 0
    /// Ducking rules per (ducker, ducked) pair (`setDuckingRules`), indexed.
    var duckingRules = DuckingRuleBook()
    /// The interaction table (`setInteractions`), indexed.
    var interactions = InteractionTable()
    /// The ducking rules in force, in the order they were given (their indices are the
    /// journal's `rule`).
    public var duckingRuleList: [DuckingRule] { duckingRules.rules }
    /// Sessions by their latest start of non-mixable playback, most recent last (rule 8).
    public internal(set) var nowPlayingOrder: [String] = []
    /// Sessions whose activation waits for the phone call to end, in the order they asked
    /// (the order they are granted in).
    public internal(set) var delayedActivations: [String] = []

    var sessionIndex: [String: Int] = [:]
    var sourceIndex: [String: Int] = [:]
    /// Per session index: its sources' indices, in registration order.
    var sourcesOfSession: [[Int]] = []
    var nextActivationSerial = 1
    /// Sessions whose configuration pauses them instead of being ducked.
    var pausingSessions = 0
    /// Every session's derived status and the facts, as of this state, kept up to date action
    /// by action and registration (see `applyTracked`); not part of the value.
    var derivedCache = Unhashed(DerivedCache())

    /// A state with these sessions and sources registered (inactive, not playing); throws what
    /// `addSession`/`addSource` throw, or `invalidValue` for a NaN volume or a `lossFade`
    /// (seconds) outside 0…10.
    public init(
        sessions: [SessionConfiguration] = [],
        sources: [SourceConfiguration] = [],
        device: DeviceState = DeviceState(),
        ducking: DuckingSettings = .default,
        lossFade: Double = 0
    ) throws(PolicyError) {
        self.device = device
        self.engineDucking = ducking
        guard lossFade.isFinite, (0...10).contains(lossFade) else { throw .invalidValue(name: "lossFade", value: lossFade) }
        self.lossFadeSeconds = lossFade
        try checkVolume(device.volume, name: "volume")
        try checkVolume(device.ringerVolume, name: "ringerVolume")
        self.device.volume = clampUnit(device.volume)
        self.device.ringerVolume = clampUnit(device.ringerVolume)
        derivedCache.value.valid = true // no session: nothing derived
        for session in sessions { try addSession(session) }
        for source in sources { try addSource(source) }
    }

    /// Throws what `addSession` would throw, changing nothing.
    public func checkNewSession(_ configuration: SessionConfiguration) throws(PolicyError) {
        guard sessionIndex[configuration.id] == nil else { throw .duplicateSession(configuration.id) }
        try Self.validate(configuration)
    }

    /// Throws what `addSource` would throw, changing nothing.
    public func checkNewSource(_ source: SourceConfiguration) throws(PolicyError) {
        guard sourceIndex[source.id] == nil else { throw .duplicateSource(source.id) }
        guard sessionIndex[source.session] != nil else { throw .unknownSession(source.session) }
    }

    /// Registers a session (inactive). Control API.
    public mutating func addSession(_ configuration: SessionConfiguration) throws(PolicyError) {
        guard sessionIndex[configuration.id] == nil else { throw .duplicateSession(configuration.id) }
        try Self.validate(configuration)
        sessionIndex[configuration.id] = sessions.count
        sessions.append(SessionState(configuration: configuration))
        sourcesOfSession.append([])
        if configuration.pausesInsteadOfDucking { pausingSessions += 1 }
        // An inactive session: no silence, no duck, nothing playing or heard.
        derivedCache.value.derived.append(Derived())
        derivedCache.value.facts.playingSources.append(0)
        derivedCache.value.facts.heard.append(false)
    }

    /// Sets the PipeWire `media.role` override of session `id` (`SessionConfiguration.mediaRole`;
    /// nil: the role its category, mode and content give). Not a policy action: no rule reads
    /// the role, so nothing is derived again and nothing is journaled. Throws `unknownSession`.
    /// Control API.
    public mutating func setMediaRole(_ role: MediaRole?, session id: String) throws(PolicyError) {
        guard let i = sessionIndex[id] else { throw .unknownSession(id) }
        sessions[i].configuration.mediaRole = role
    }

    /// Registers a source (not playing). Control API.
    public mutating func addSource(_ source: SourceConfiguration) throws(PolicyError) {
        guard sourceIndex[source.id] == nil else { throw .duplicateSource(source.id) }
        guard let i = sessionIndex[source.session] else { throw .unknownSession(source.session) }
        sourceIndex[source.id] = sources.count
        sourcesOfSession[i].append(sources.count)
        sources.append(SourceState(id: source.id, session: source.session))
    }

    /// Rebuilds the indices after sessions or sources were taken out. O(sessions + sources).
    mutating func reindex() {
        sessionIndex = Dictionary(uniqueKeysWithValues: sessions.indices.map { (sessions[$0].id, $0) })
        sourceIndex = Dictionary(uniqueKeysWithValues: sources.indices.map { (sources[$0].id, $0) })
        sourcesOfSession = Array(repeating: [], count: sessions.count)
        for k in sources.indices {
            if let i = sessionIndex[sources[k].session] { sourcesOfSession[i].append(k) }
        }
        pausingSessions = sessions.reduce(0) { $0 + ($1.configuration.pausesInsteadOfDucking ? 1 : 0) }
        derivedCache.value.valid = false
    }

    /// Rule 1: every option must suit the category, and the alternative category too; a
    /// delayed activation is not for an `ambient` session (it never needs the output alone).
    static func validate(_ c: SessionConfiguration) throws(PolicyError) {
        var categories = [c.category]
        if let alt = c.categoryWhenOtherAudioPlaying { categories.append(alt) }
        for category in categories {
            for option in CategoryOption.allCases where c.options.contains(option) && !category.allows(option) {
                throw .optionNotAllowed(session: c.id, category: category, option: option)
            }
        }
        if c.acceptsDelayedActivation, c.category == .ambient {
            throw .invalidSessionSetting(
                session: c.id, field: "acceptsDelayedActivation",
                message: "an ambient session mixes with everything and never needs a delayed activation")
        }
    }

    // MARK: Lookup

    /// The session with this id, or nil.
    public func session(_ id: String) -> SessionState? { sessionIndex[id].map { sessions[$0] } }
    /// The source with this id, or nil.
    public func source(_ id: String) -> SourceState? { sourceIndex[id].map { sources[$0] } }

    /// The indices in `sources` of session `i`'s sources, in registration order. O(1).
    package func sourceIndices(ofSession i: Int) -> [Int] { sourcesOfSession[i] }

    // MARK: Derived facts (shared by the journal, the view and the queries)

    /// The facts every session's render state depends on, gathered in one pass over the
    /// sessions and sources, so that a whole view or journal costs O(sessions + sources)
    /// (plus, with ducking rules, O(duckers) per category and per session a rule names).
    struct Facts: Sendable {
        /// Active `record` sessions (rule 5).
        var activeRecordSessions = 0
        /// Active sessions holding the focus `transientExclusive` (system sounds are suppressed).
        var activeExclusiveSessions = 0
        /// Per session index: sources with playing intent.
        var playingSources: [Int]
        /// Active duckers (`duckOthers`), in registration order.
        var duckers: [Int] = []
        /// The strongest duck on a session of each category that no rule names by id.
        var duckByCategory: [Category: DuckChoice] = [:]
        /// The strongest duck on each session a rule names by id (on its `duck` side).
        var duckBySession: [String: DuckChoice] = [:]
        /// Heard sessions (see `isHeard`), and how many of them are not mixable.
        var heard: [Bool] = []
        var heardCount = 0
        var heardNonMixableCount = 0
    }

    // Per-session values read through stored properties only: calling a computed property of
    // `sessions[i]` copies the whole session (retaining each field), per session per action.

    /// `sessions[i].category`.
    @inline(__always) func category(at i: Int) -> Category { sessions[i].activeCategory ?? sessions[i].configuration.category }
    /// `sessions[i].hasOutput`.
    @inline(__always) func hasOutput(at i: Int) -> Bool { category(at: i).hasOutput }
    /// `sessions[i].isMixable`.
    @inline(__always) func isMixable(at i: Int) -> Bool {
        category(at: i) == .ambient || sessions[i].configuration.options.contains { $0.impliesMixWithOthers }
    }
    /// `sessions[i].ducksOthers`.
    @inline(__always) func ducksOthers(at i: Int) -> Bool {
        sessions[i].phase == .active
            && (sessions[i].configuration.options.contains(.duckOthers) || sessions[i].focus == .transientMayDuck
                || (sessions[i].configuration.accessibility && hasOutput(at: i)))
    }

    func facts() -> Facts {
        var f = Facts(playingSources: Array(repeating: 0, count: sessions.count))
        // By session (no hashing): every source is listed under its session.
        for i in sessions.indices {
            for k in sourcesOfSession[i] where sources[k].isPlaying { f.playingSources[i] += 1 }
        }
        for i in sessions.indices where sessions[i].phase == .active {
            if category(at: i) == .record { f.activeRecordSessions += 1 }
            if sessions[i].focus == .transientExclusive { f.activeExclusiveSessions += 1 }
            if ducksOthers(at: i) { f.duckers.append(i) }
        }
        if !f.duckers.isEmpty {
            for c in Category.allCases {
                f.duckByCategory[c] = strongestDuck(f.duckers, duckedID: nil, duckedCategory: c)
            }
            for id in duckingRules.duckedSessions {
                guard let i = sessionIndex[id] else { continue }
                f.duckBySession[id] = strongestDuck(f.duckers, duckedID: id, duckedCategory: sessions[i].category)
            }
        }
        f.heard = sessions.indices.map { i in
            f.playingSources[i] > 0 && renderState(i, f) == .audible && hasOutput(at: i)
        }
        for i in sessions.indices where f.heard[i] {
            f.heardCount += 1
            if !isMixable(at: i) { f.heardNonMixableCount += 1 }
        }
        return f
    }

    /// A `record` session is active (rule 5).
    var recordActive: Bool { sessions.indices.contains { sessions[$0].phase == .active && category(at: $0) == .record } }
    /// A session holding the focus `transientExclusive` is active (system sounds are suppressed).
    var exclusiveActive: Bool { sessions.indices.contains { sessions[$0].phase == .active && sessions[$0].focus == .transientExclusive } }

    /// Why an active session with output is silenced, first match in this order:
    /// silent switch, locked, background (ambient / soloAmbient only), recording.
    func silenceReason(_ i: Int, _ f: Facts) -> SilenceReason? {
        // Fields read in place (a copy of the session would retain all of it, per session per action).
        guard sessions[i].phase == .active, hasOutput(at: i) else { return nil }
        let category = category(at: i)
        if category.isSilencedBySwitchAndLock, !sessions[i].configuration.accessibility {
            if device.silentSwitch { return .silentSwitch }
            if device.locked { return .locked }
            if !sessions[i].configuration.foreground { return .background }
        }
        // Another active record session (this one counts itself if it is one).
        let own = category == .record ? 1 : 0
        if f.activeRecordSessions - own > 0 { return .recording }
        if tableSilencer(i) != nil { return .interaction }
        return nil
    }

    func renderState(_ i: Int, _ f: Facts) -> SessionRenderState {
        switch sessions[i].phase {
        case .inactive: return .inactive
        case .interrupted: return .interrupted
        case .active: return silenceReason(i, f).map { .silenced($0) } ?? .audible
        }
    }

    /// The duck on `i` (rule 3): of the active `duckOthers` sessions, the one whose settings
    /// for `i` (the most specific rule, else its own, else the engine's) go deepest; ties go
    /// to the earliest activation. nil when `i` is not audible, has no output or ducks others.
    func duck(of i: Int, _ f: Facts) -> DuckChoice? {
        if interactions.isEmpty, f.duckers.isEmpty { return nil }
        let s = sessions[i]
        if !interactions.isEmpty {
            // The table decides pair by pair (no per-category shortcut): every active session
            // that ducks `i` (its row, else the built-in rule), the deepest, ties to the earliest.
            guard renderState(i, f) == .audible, s.hasOutput, !s.ducksOthers, !s.configuration.accessibility else { return nil }
            var best: DuckChoice?
            for d in sessions.indices where ducks(d, i) {
                let c = duckChoice(ducker: d, duckedID: s.id, duckedCategory: s.category)
                if let b = best,
                    !(c.settings.levelDB < b.settings.levelDB
                        || (c.settings.levelDB == b.settings.levelDB && sessions[d].activationSerial < sessions[b.ducker].activationSerial))
                {
                    continue
                }
                best = c
            }
            return best
        }
        guard !f.duckers.isEmpty, renderState(i, f) == .audible, s.hasOutput, !s.ducksOthers else {
            return nil
        }
        return f.duckBySession[s.id] ?? f.duckByCategory[s.category]
    }

    /// Heard: audible (ducked or not), has output, and at least one source playing.
    /// This is "audible" for rule 10 and for the volume buttons (rule 6).
    func isHeard(_ i: Int, _ f: Facts) -> Bool { f.heard[i] }

    // MARK: Queries

    /// Rule 10: another session is heard, another app plays (``DeviceState/otherAudio``), or a
    /// phone call is in progress.
    public func isOtherAudioPlaying(asker: String) -> Bool {
        isOtherAudioPlaying(asker: asker, facts())
    }

    func isOtherAudioPlaying(asker: String, _ f: Facts) -> Bool {
        let own = sessionIndex[asker].map { f.heard[$0] ? 1 : 0 } ?? 0
        return callActive || device.otherAudio.playing || f.heardCount - own > 0
    }

    /// Rule 10: a non-mixable session other than the asker is heard, another app plays that is
    /// not mixable (``OtherAudio/silenceSecondary``), or a call is in progress.
    public func secondaryAudioShouldBeSilencedHint(asker: String) -> Bool {
        secondaryAudioShouldBeSilencedHint(asker: asker, facts())
    }

    /// The hint for every session at once, in registration order, and how many non-mixable
    /// sessions are heard: one O(sessions + sources) pass.
    package func hintPass() -> (hints: [Bool], heardNonMixable: Int) {
        let f = facts()
        return (sessions.map { secondaryAudioShouldBeSilencedHint(asker: $0.id, f) }, f.heardNonMixableCount)
    }

    func secondaryAudioShouldBeSilencedHint(asker: String, _ f: Facts) -> Bool {
        let own = sessionIndex[asker].map { f.heard[$0] && !sessions[$0].isMixable ? 1 : 0 } ?? 0
        return callActive || otherAudioSilencesSecondary || f.heardNonMixableCount - own > 0
    }

    /// Other apps play and one of them is not mixable (rule 10's hint for every session).
    var otherAudioSilencesSecondary: Bool {
        device.otherAudio.playing && device.otherAudio.silenceSecondary
    }

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

/// A value carried along a `PolicyState` that is not part of it (derived data kept for speed):
/// equality and hashing ignore it. Value type: any thread.
struct Unhashed<Value: Sendable>: Hashable, Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
    static func == (_: Unhashed, _: Unhashed) -> Bool { true }
    func hash(into _: inout Hasher) {}
}

extension PolicyState {
    /// The derived status of every session and the facts of a state, kept with it so that an
    /// action recomputes only the sessions it touched (`applyTracked`).
    struct DerivedCache: Sendable {
        /// `derived` and `facts` describe the state now.
        var valid = false
        /// Per session index.
        var derived: [Derived] = []
        var facts = Facts(playingSources: [])
        /// Sessions the last action visited to derive their status and hints (all of them
        /// when it took the full pass).
        var lastVisits = 0
        /// Tests: every action takes the full pass (the reference the incremental one is
        /// compared with).
        var alwaysFull = false
    }

    /// How many sessions the last action visited to derive their status and hints: the ones
    /// it touched, or all of them when it took the full pass (docs/performance.md). Control side.
    package var lastActionSessionVisits: Int { derivedCache.value.lastVisits }

    /// Tests: whether every action takes the full pass over the sessions (the reference the
    /// incremental path is checked against). Not part of the value.
    package var alwaysDerivesInFull: Bool {
        get { derivedCache.value.alwaysFull }
        set { derivedCache.value.alwaysFull = newValue }
    }

    /// Tests: whether the derived status kept with the state equals a full recomputation (true
    /// when none is kept yet).
    package var derivedCacheIsConsistent: Bool {
        let cache = derivedCache.value
        guard cache.valid else { return true }
        let (derived, f) = derivedStatusAndFacts()
        return cache.derived == derived && cache.facts.playingSources == f.playingSources && cache.facts.heard == f.heard
            && cache.facts.heardCount == f.heardCount && cache.facts.heardNonMixableCount == f.heardNonMixableCount
            && cache.facts.activeRecordSessions == f.activeRecordSessions
            && cache.facts.activeExclusiveSessions == f.activeExclusiveSessions && cache.facts.duckers == f.duckers
    }
}
