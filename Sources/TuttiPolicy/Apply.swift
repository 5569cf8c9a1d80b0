/// Result of one action. Value type: any thread.
public struct PolicyOutcome: Hashable, Sendable {
    /// What happened, in order. On failure: at most the `remoteCommand` that was
    /// delivered and the `activationFailed` entry.
    public var journal: [JournalEntry]
    /// Set when the action was refused; the state is then unchanged.
    public var error: PolicyError?

    /// Whether the action was applied (no `error`).
    public var succeeded: Bool { error == nil }

    /// An outcome with these entries and error.
    public init(journal: [JournalEntry] = [], error: PolicyError? = nil) {
        self.journal = journal
        self.error = error
    }
}

extension PolicyState {
    /// Applies one action: the single way the state changes. Deterministic.
    public mutating func apply(_ action: PolicyAction) -> PolicyOutcome {
        applyTracked(action).outcome
    }

    /// ``apply(_:)``, also saying what changed in the render view: the view of the state
    /// before, patched with `change` (``RenderView/apply(_:)``), is ``renderView`` of the
    /// state after. Control side.
    ///
    /// Cost: what the action touched. The state keeps every session's derived status (silenced,
    /// ducked, heard) and the facts it depends on; an action recomputes them only for the
    /// sessions it wrote or whose sources it wrote, as long as the facts every session depends
    /// on stay the same (no ducker, `record` session, silent switch, lock or call changed). Any
    /// other action — one that changes those, removes a session or source, or sets the ducking
    /// rules or the interaction table, and every action while an interaction table is set —
    /// takes one full pass over the sessions and sources.
    ///
    /// The action runs on this state in place (no copy of the sessions): every refusal is
    /// decided before anything changes, so a refused action leaves the state as it was (the
    /// property tests check it on every refused step).
    package mutating func applyTracked(_ action: PolicyAction) -> (outcome: PolicyOutcome, change: ViewChange) {
        // Flags only: a second reference to the kept arrays would make patching them copy.
        let valid = derivedCache.value.valid
        if valid, !derivedCache.value.alwaysFull, interactions.isEmpty, !Self.changesEveryone(action) {
            return applyIncrementally(action)
        }
        var journal: [JournalEntry] = []
        let (before, beforeFacts) = valid ? (derivedCache.value.derived, derivedCache.value.facts) : derivedStatusAndFacts()
        let old = ViewSnapshot(self, beforeFacts)
        do {
            try perform(action, journal: &journal)
            reconcileDuckPauses(journal: &journal)
        } catch {
            keepDerived(before, beforeFacts, visits: sessions.count)
            return refusal(error, journal: journal, facts: beforeFacts)
        }
        let (after, afterFacts) = derivedStatusAndFacts()
        appendDerivedTransitions(from: before, after: after, to: &journal)
        keepDerived(after, afterFacts, visits: sessions.count)
        return (PolicyOutcome(journal: journal), viewChange(from: old, before: before, after: after, afterFacts: afterFacts))
    }

    /// Actions that change what every session's status depends on, or move the indices.
    static func changesEveryone(_ action: PolicyAction) -> Bool {
        switch action {
        case .removeSession, .removeSource, .setDuckingRules, .setInteractions, .silentSwitch, .lock, .unlock,
            .phoneCallBegin, .phoneCallEnd, .otherAudio:
            return true
        default:
            return false
        }
    }

    mutating func keepDerived(_ derived: [Derived], _ facts: Facts, visits: Int) {
        derivedCache.value.derived = derived
        derivedCache.value.facts = facts
        derivedCache.value.valid = true
        derivedCache.value.lastVisits = visits
    }

    /// The outcome of a refused action (the state is unchanged).
    func refusal(_ error: PolicyError, journal: [JournalEntry], facts: Facts) -> (outcome: PolicyOutcome, change: ViewChange) {
        var journal = journal
        switch error {
        case .insufficientPriority(let session), .cannotInterruptOthers(let session, _), .rejectedByTable(let session, _, _):
            journal.append(.activationFailed(session: session, error: error))
        default:
            journal = []
        }
        return (PolicyOutcome(journal: journal, error: error), globalChange(facts: facts))
    }

    /// `applyTracked` for an action that does not change what every session depends on, with
    /// the derived status of the state before kept: records which sessions and sources the
    /// action writes, then derives the status, the journal's transitions, the view changes and
    /// the hints of those sessions only. Falls back to a full pass (without recomputing the
    /// state before) when the action turned out to change a ducker, a `record` session or a
    /// global input.
    mutating func applyIncrementally(_ action: PolicyAction) -> (outcome: PolicyOutcome, change: ViewChange) {
        var cache = derivedCache.value
        derivedCache.value = DerivedCache(alwaysFull: cache.alwaysFull) // no second reference to the arrays patched below
        let globals = (device.silentSwitch, device.locked, callActive)
        var journal: [JournalEntry] = []
        sessions.beginTracking()
        sources.beginTracking()
        do {
            try perform(action, journal: &journal)
            reconcileDuckPauses(journal: &journal)
        } catch {
            _ = sessions.endTracking()
            _ = sources.endTracking()
            keepDerived(cache.derived, cache.facts, visits: 0)
            return refusal(error, journal: journal, facts: cache.facts)
        }
        let (writtenSessions, sessionsMoved) = sessions.endTracking()
        let (writtenSources, sourcesMoved) = sources.endTracking()
        var oldSession: [Int: SessionState] = [:]
        for (i, old) in writtenSessions { oldSession[i] = old }
        var oldSource: [Int: SourceState] = [:]
        for (k, old) in writtenSources { oldSource[k] = old }
        var full = sessionsMoved || sourcesMoved || globals != (device.silentSwitch, device.locked, callActive)
        var touched = writtenSessions.map(\.index)
        if !full {
            for (k, _) in writtenSources {
                if let i = sessionIndex[sources[k].session] { touched.append(i) }
            }
            touched = Array(Set(touched)).sorted()
            // Facts every session depends on: the duckers (and what they give), the active
            // `record` sessions, a ruled session's category.
            for i in touched {
                let old = oldSession[i] ?? sessions[i]
                let now = sessions[i]
                let wasRecording = old.phase == .active && old.category == .record
                let isRecording = now.phase == .active && now.category == .record
                if wasRecording != isRecording || old.ducksOthers || now.ducksOthers
                    || (old.category != now.category && duckingRules.duckedSessions.contains(now.id))
                {
                    full = true
                    break
                }
            }
        }
        if full {
            return finishInFull(journal, before: cache, oldSession: oldSession, oldSource: oldSource, callBefore: globals.2)
        }
        var f = cache.facts
        cache.facts = Facts(playingSources: []) // `f` alone holds the arrays patched below
        let heardNonMixableBefore = f.heardNonMixableCount
        var sessionChanges: [(index: Int, view: SessionView)] = []
        var sourceChanges: [(index: Int, view: SourceView)] = []
        var oldOwnHint: [Int: Int] = [:]
        for i in touched {
            let old = oldSession[i] ?? sessions[i]
            let wasExclusive = old.phase == .active && old.focus == .transientExclusive
            let isExclusive = sessions[i].phase == .active && sessions[i].focus == .transientExclusive
            f.activeExclusiveSessions += (isExclusive ? 1 : 0) - (wasExclusive ? 1 : 0)
            var playing = 0
            for k in sourcesOfSession[i] where sources[k].isPlaying { playing += 1 }
            f.playingSources[i] = playing
            let heard = playing > 0 && renderState(i, f) == .audible && hasOutput(at: i)
            let ownBefore = f.heard[i] && !old.isMixable ? 1 : 0
            let ownAfter = heard && !isMixable(at: i) ? 1 : 0
            oldOwnHint[i] = ownBefore
            f.heardCount += (heard ? 1 : 0) - (f.heard[i] ? 1 : 0)
            f.heardNonMixableCount += ownAfter - ownBefore
            f.heard[i] = heard
            let b = cache.derived[i]
            let a = derived(i, f)
            cache.derived[i] = a
            appendTransitions(of: i, from: b, to: a, journal: &journal)
            let phase = sessions[i].phase
            if old.phase != phase || b != a || old.hasOutput != hasOutput(at: i) {
                sessionChanges.append((i, sessionView(i, a)))
            }
            let runningChanged = (old.phase == .active) != (phase == .active)
            for k in sourcesOfSession[i] {
                let was = oldSource[k] ?? sources[k]
                if runningChanged || was.isPlaying != sources[k].isPlaying || was.rewinds != sources[k].rewinds {
                    sourceChanges.append((k, sourceView(k, sessionActive: phase == .active)))
                }
            }
        }
        // Hints (rule 10): every session's when the count of heard non-mixable sessions
        // changed, else the touched sessions' own.
        var hintChanges: [(index: Int, hint: Bool)] = []
        var visits = touched.count
        func hintBefore(_ i: Int) -> Bool {
            // Other apps' audio is the same before: only a full pass changes it.
            let own = oldOwnHint[i] ?? (f.heard[i] && !isMixable(at: i) ? 1 : 0)
            return globals.2 || otherAudioSilencesSecondary || heardNonMixableBefore - own > 0
        }
        if f.heardNonMixableCount != heardNonMixableBefore {
            visits += sessions.count
            for i in sessions.indices {
                let hint = hint(i, f)
                if hint != hintBefore(i) { hintChanges.append((i, hint)) }
            }
        } else {
            for i in touched {
                let hint = hint(i, f)
                if hint != hintBefore(i) { hintChanges.append((i, hint)) }
            }
        }
        sourceChanges.sort { $0.index < $1.index }
        var change = globalChange(facts: f)
        change.sessions = sessionChanges
        change.sources = sourceChanges
        change.hints = hintChanges
        cache.facts = f
        cache.lastVisits = visits
        derivedCache.value = cache
        return (PolicyOutcome(journal: journal), change)
    }

    /// The end of an action that started incrementally but changed what every session depends
    /// on: one full pass, against the derived status kept from before and the view before
    /// rebuilt from the entries the action wrote (their old values).
    mutating func finishInFull(
        _ journal: [JournalEntry], before cache: DerivedCache, oldSession: [Int: SessionState], oldSource: [Int: SourceState],
        callBefore: Bool
    ) -> (outcome: PolicyOutcome, change: ViewChange) {
        var journal = journal
        let (after, afterFacts) = derivedStatusAndFacts()
        appendDerivedTransitions(from: cache.derived, after: after, to: &journal)
        var old = ViewSnapshot(self, cache.facts)
        if old.phases.count == sessions.count, old.sources.count == sources.count {
            for (i, s) in oldSession {
                old.phases[i] = s.phase
                old.hasOutput[i] = s.hasOutput
            }
            for (k, s) in oldSource { old.sources[k] = (s.isPlaying, s.rewinds) }
            let b = cache.facts
            for i in sessions.indices {
                let mixable = oldSession[i]?.isMixable ?? isMixable(at: i)
                old.hints[i] = callBefore || otherAudioSilencesSecondary || b.heardNonMixableCount - (b.heard[i] && !mixable ? 1 : 0) > 0
            }
        }
        keepDerived(after, afterFacts, visits: sessions.count)
        derivedCache.value.alwaysFull = cache.alwaysFull
        return (PolicyOutcome(journal: journal), viewChange(from: old, before: cache.derived, after: after, afterFacts: afterFacts))
    }

    /// Applies actions in order; returns every outcome.
    @discardableResult
    public mutating func apply(_ actions: [PolicyAction]) -> [PolicyOutcome] {
        actions.map { apply($0) }
    }

    // MARK: Derived transitions (silenced / ducked)

    struct Derived: Equatable {
        var silence: SilenceReason?
        var duckedBy: String?
        var duckRule: DuckingRuleReference?
        var duckSettings: DuckingSettings?
        var duckTrigger: DuckingTrigger?
    }

    func derivedStatusAndFacts() -> ([Derived], Facts) {
        let f = facts()
        return (sessions.indices.map { derived($0, f) }, f)
    }

    /// Session `i`'s derived status with these facts.
    func derived(_ i: Int, _ f: Facts) -> Derived {
        let d = duck(of: i, f)
        return Derived(
            silence: silenceReason(i, f), duckedBy: d.map { sessions[$0.ducker].id }, duckRule: d?.rule, duckSettings: d?.settings,
            duckTrigger: d?.trigger)
    }

    /// Silence and duck are states of an active session: they are journaled when
    /// they start or stop, whatever the cause (a deactivation ends them too).
    /// A change of silence reason alone is not journaled; a change of ducker, of the rule or
    /// of the settings it gives is (ended, began).
    func appendDerivedTransitions(from before: [Derived], after: [Derived], to journal: inout [JournalEntry]) {
        for i in sessions.indices {
            appendTransitions(of: i, from: i < before.count ? before[i] : Derived(), to: after[i], journal: &journal)
        }
    }

    /// The transitions of session `i` (see `appendDerivedTransitions`).
    /// A duck on a signal trigger is journaled by the host when the ducker's level crosses
    /// the threshold (trigger `signal`), not when the rule starts or stops applying.
    func appendTransitions(of i: Int, from b0: Derived, to a0: Derived, journal: inout [JournalEntry]) {
        let id = sessions[i].id
        var (b, a) = (b0, a0)
        for k in 0..<2 {
            var d = k == 0 ? b : a
            if case .signal = d.duckTrigger { (d.duckedBy, d.duckRule, d.duckSettings, d.duckTrigger) = (nil, nil, nil, nil) }
            if k == 0 { b = d } else { a = d }
        }
        let duckChanged = b.duckedBy != a.duckedBy || b.duckRule != a.duckRule || b.duckSettings != a.duckSettings
        if duckChanged, b.duckedBy != nil { journal.append(.duckingEnded(session: id)) }
        if b.silence == nil, let reason = a.silence {
            // A recording is another session's activation: the loss fade applies.
            journal.append(.silenced(session: id, reason: reason, fadeSeconds: reason == .recording ? lossFadeSeconds : 0))
        }
        if b.silence != nil, a.silence == nil { journal.append(.unsilenced(session: id)) }
        if duckChanged, let by = a.duckedBy, let rule = a.duckRule { journal.append(.duckingBegan(session: id, by: by, rule: rule)) }
    }

    // MARK: Dispatch

    func sessionIndex(_ id: String) throws(PolicyError) -> Int {
        guard let i = sessionIndex[id] else { throw .unknownSession(id) }
        return i
    }

    func sourceIndex(_ id: String) throws(PolicyError) -> Int {
        guard let i = sourceIndex[id] else { throw .unknownSource(id) }
        return i
    }

    mutating func perform(_ action: PolicyAction, journal: inout [JournalEntry]) throws(PolicyError) {
        switch action {
        case .activate(let id, let focus):
            try activate(try sessionIndex(id), focus: focus, journal: &journal)
        case .deactivate(let id, let notifyOthers):
            deactivate(try sessionIndex(id), notifyOthers: notifyOthers, journal: &journal)
        case .setCategory(let id, let category, let mode, let options):
            try setCategory(try sessionIndex(id), category: category, mode: mode, options: options, journal: &journal)
        case .foreground(let id):
            sessions[try sessionIndex(id)].configuration.foreground = true
        case .background(let id):
            sessions[try sessionIndex(id)].configuration.foreground = false
        case .resume(let id):
            try resume(try sessionIndex(id), journal: &journal)
        case .setRemoteCommands(let id, let commands):
            sessions[try sessionIndex(id)].configuration.remoteCommands = commands
        case .removeSession(let id):
            removeSession(try sessionIndex(id), journal: &journal)

        case .play(let id):
            let k = try sourceIndex(id)
            guard !sources[k].isPlaying else { return }
            let i = try sessionIndex(sources[k].session)
            if sessions[i].phase != .active { try activate(i, journal: &journal) }
            start(k, reason: .play, journal: &journal)
        case .pause(let id):
            let k = try sourceIndex(id)
            pauseSource(k, reason: .pause, journal: &journal)
            forget(k)
        case .stop(let id):
            let k = try sourceIndex(id)
            pauseSource(k, reason: .stop, journal: &journal)
            forget(k)
            sources[k].rewinds += 1
        case .sourceEnded(let id):
            let k = try sourceIndex(id)
            guard sources[k].isPlaying else { return } // a late report after a pause: nothing ran out
            sources[k].isPlaying = false
            sources[k].rewinds += 1
            forget(k)
            journal.append(.sourceEnded(source: id))
        case .voiceStolen(let id, let by):
            let k = try sourceIndex(id)
            // It happened on the render side whatever the intent says now (the report may be late).
            sources[k].isPlaying = false
            sources[k].rewinds += 1
            forget(k)
            journal.append(.voiceStolen(source: id, by: by))
        case .voiceRefused(let id):
            let k = try sourceIndex(id)
            sources[k].isPlaying = false
            forget(k)
            journal.append(.voiceRefused(source: id))
        case .setDuckingRules(let rules):
            duckingRules = try DuckingRuleBook(rules, sessions: Set(sessionIndex.keys))
        case .setInteractions(let rules):
            interactions = try InteractionTable(rules, sessions: Set(sessionIndex.keys))
        case .removeSource(let id):
            let k = try sourceIndex(id)
            forget(k)
            nowPlayingOrder.removeAll { $0 == id }
            sources.remove(at: k)
            reindex()

        case .silentSwitch(let on):
            device.silentSwitch = on
        case .lock:
            device.locked = true
        case .unlock:
            device.locked = false
        case .volume(let v):
            try checkVolume(v, name: "volume")
            setVolume(.system, clampUnit(v), journal: &journal)
        case .ringerVolume(let v):
            try checkVolume(v, name: "ringerVolume")
            setVolume(.ringer, clampUnit(v), journal: &journal)
        case .volumeUp, .volumeDown:
            let up = action == .volumeUp
            let target: VolumeTarget = callActive || facts().heardCount > 0 ? .system : .ringer
            let current = target == .system ? device.volume : device.ringerVolume
            setVolume(target, Self.volumeStep(current, up: up), journal: &journal)
        case .route(let route, let reason):
            changeRoute(to: route, reason: reason, journal: &journal)
        case .otherAudio(let other):
            guard other != device.otherAudio else { return }
            device.otherAudio = other
            journal.append(.otherAudioChanged(playing: other.playing, silenceSecondary: other.silenceSecondary, clients: other.clients))
        case .micMuted(let muted):
            guard muted != device.micMuted else { return }
            device.micMuted = muted
            if muted {
                for i in sessions.indices where sessions[i].category.capturesInput {
                    interrupt(i, cause: .micMuted, reason: .builtInMicMuted, by: nil, journal: &journal)
                }
            } else {
                releaseCause(.micMuted, resumable: false, journal: &journal)
            }

        case .phoneCallBegin:
            guard !callActive else { return }
            callActive = true
            for i in sessions.indices {
                interrupt(i, cause: .phoneCall, reason: .phoneCall, by: nil, journal: &journal)
            }
        case .phoneCallEnd:
            guard callActive else { return }
            callActive = false
            releaseCause(.phoneCall, resumable: true, journal: &journal)
            grantDelayedActivations(journal: &journal)
        case .systemSound(let name):
            if recordActive {
                journal.append(.systemSoundSuppressed(sound: name, reason: .recording))
            } else if exclusiveActive {
                journal.append(.systemSoundSuppressed(sound: name, reason: .transientExclusive))
            } else if device.silentSwitch {
                journal.append(.vibrate(sound: name))
            } else {
                journal.append(.systemSoundPlayed(sound: name))
            }
        case .remote(let command):
            try remote(command, journal: &journal)
        }
    }

    /// Next point of the 1/16 grid up or down, clamped to 0…1.
    static func volumeStep(_ v: Double, up: Bool) -> Double {
        let steps = v * 16
        let eps = 1e-9
        let n = up ? (steps + eps).rounded(.down) + 1 : (steps - eps).rounded(.up) - 1
        return clampUnit(n / 16)
    }

    mutating func setVolume(_ target: VolumeTarget, _ value: Double, journal: inout [JournalEntry]) {
        switch target {
        case .system:
            guard device.volume != value else { return }
            device.volume = value
        case .ringer:
            guard device.ringerVolume != value else { return }
            device.ringerVolume = value
        }
        journal.append(.volumeChanged(target: target, value: value))
    }

    // MARK: Sources

    /// Starts a source of an active session; for a session whose activation is delayed, the
    /// source waits for the grant instead (no entry). Otherwise nothing.
    mutating func start(_ k: Int, reason: SourceStartReason, journal: inout [JournalEntry]) {
        guard !sources[k].isPlaying, let i = sessionIndex[sources[k].session] else { return }
        guard sessions[i].phase == .active else {
            if var delayed = sessions[i].delayedActivation, !delayed.sources.contains(sources[k].id) {
                delayed.sources.append(sources[k].id)
                delayed.reasons.append(reason)
                sessions[i].delayedActivation = delayed
            }
            return
        }
        sources[k].isPlaying = true
        forget(k)
        if !sessions[i].isMixable {
            nowPlayingOrder.removeAll { $0 == sessions[i].id }
            nowPlayingOrder.append(sessions[i].id)
        }
        journal.append(.sourceStarted(source: sources[k].id, reason: reason))
    }

    mutating func pauseSource(_ k: Int, reason: SourcePauseReason, journal: inout [JournalEntry]) {
        guard sources[k].isPlaying else { return }
        sources[k].isPlaying = false
        journal.append(.sourcePaused(source: sources[k].id, reason: reason))
    }

    /// Drops a source from what its session would resume: it was explicitly paused, stopped, played or ended.
    mutating func forget(_ k: Int) {
        guard let i = sessionIndex[sources[k].session] else { return }
        let id = sources[k].id
        sessions[i].resumeSources.removeAll { $0 == id }
        sessions[i].interruption?.playingSources.removeAll { $0 == id }
        if let at = sessions[i].delayedActivation?.sources.firstIndex(of: id) {
            sessions[i].delayedActivation?.sources.remove(at: at)
            sessions[i].delayedActivation?.reasons.remove(at: at)
        }
    }

    // MARK: Sessions

    /// Rule 2.3 (refused during a call, and in the background when it would interrupt a
    /// playing session), rule 10 (category from the hint), then rules 2.1 and 2.6 as the
    /// focus says. Activating an interrupted session takes it back: its interruption ends
    /// without resume. `focus` nil: the one it had (an interrupted session's), else `gain`.
    /// During a call a session with `acceptsDelayedActivation` is delayed instead of refused
    /// (`activationDelayed`, once; nothing else changes).
    mutating func activate(_ i: Int, focus requested: FocusRequest? = nil, journal: inout [JournalEntry]) throws(PolicyError) {
        let id = sessions[i].id
        if callActive {
            guard sessions[i].configuration.acceptsDelayedActivation else { throw .insufficientPriority(session: id) }
            if sessions[i].delayedActivation == nil {
                sessions[i].delayedActivation = DelayedActivation(
                    focus: requested ?? sessions[i].focus, sources: [], reasons: [])
                delayedActivations.append(id)
                journal.append(.activationDelayed(session: id, reason: .phoneCall))
            }
            return
        }
        if sessions[i].phase == .active { return }
        let focus = requested ?? sessions[i].focus
        if !sessions[i].configuration.foreground, let playing = playingSessionInterrupted(byActivating: i, focus: focus) {
            throw .cannotInterruptOthers(session: id, playing: sessions[playing].id)
        }
        if !interactions.isEmpty {
            let category = activationCategory(i)
            for a in sessions.indices where a != i && sessions[a].phase == .active {
                if let k = interactionRule(a, i, incomingCategory: category), interactions.rules[k].outcome == .reject {
                    throw .rejectedByTable(session: id, active: sessions[a].id, rule: k)
                }
            }
        }
        switch sessions[i].phase {
        case .active:
            return
        case .interrupted:
            let record = sessions[i].interruption
            sessions[i].interruption = nil
            journal.append(.interruptionEnded(session: id, shouldResume: false))
            appendUnique(&sessions[i].resumeSources, record?.playingSources ?? [])
        case .inactive:
            break
        }
        let configuration = sessions[i].configuration
        var category = configuration.category
        if let alternative = configuration.categoryWhenOtherAudioPlaying, isOtherAudioPlaying(asker: id) {
            category = alternative
        }
        sessions[i].phase = .active
        sessions[i].activeCategory = category
        sessions[i].activationSerial = nextActivationSerial
        sessions[i].focus = focus
        nextActivationSerial += 1
        journal.append(.sessionActivated(session: id, category: category, focus: focus))
        interruptOthers(for: i, journal: &journal)
    }

    /// The call ended (after its interruptions ended): grant the delayed activations in the
    /// order they were asked for; each activates and starts the sources asked for meanwhile.
    mutating func grantDelayedActivations(journal: inout [JournalEntry]) {
        let waiting = delayedActivations
        delayedActivations = []
        for id in waiting {
            guard let i = sessionIndex[id], let grant = sessions[i].delayedActivation else { continue }
            sessions[i].delayedActivation = nil
            journal.append(.activationGranted(session: id))
            do {
                try activate(i, focus: grant.focus, journal: &journal)
            } catch {
                // A background session that would now interrupt a playing one (rule 2.3).
                journal.append(.activationFailed(session: id, error: error))
                continue
            }
            for (sourceId, reason) in zip(grant.sources, grant.reasons) {
                if let k = sourceIndex[sourceId] { start(k, reason: reason, journal: &journal) }
            }
        }
    }

    /// Gives up the delayed activation of `i` (`activationCancelled`).
    mutating func cancelDelayedActivation(_ i: Int, journal: inout [JournalEntry]) {
        guard sessions[i].delayedActivation != nil else { return }
        let id = sessions[i].id
        sessions[i].delayedActivation = nil
        delayedActivations.removeAll { $0 == id }
        journal.append(.activationCancelled(session: id))
    }

    /// Pause instead of duck: a session with `pausesWhenDucked` (or `content: speech`) that
    /// is active while another session ducks the others is interrupted (reason `ducked`, cause
    /// `.ducked`); when nothing ducks others any more that cause goes away and, if it was the
    /// last, the interruption ends with shouldResume (rule 2.5 resumes it). Run after every
    /// action, until nothing changes. Nothing at all without such a session.
    mutating func reconcileDuckPauses(journal: inout [JournalEntry]) {
        guard pausingSessions > 0 else { return }
        for _ in 0...(2 * sessions.count + 1) {
            var changed = false
            for i in sessions.indices where sessions[i].configuration.pausesInsteadOfDucking {
                let ducker = pausingDucker(of: i)
                if let d = ducker, sessions[i].phase == .active {
                    interrupt(i, cause: .ducked, reason: .ducked, by: sessions[d].id, journal: &journal)
                    changed = true
                } else if ducker == nil, var record = sessions[i].interruption, let at = record.causes.firstIndex(of: .ducked) {
                    record.causes.remove(at: at)
                    sessions[i].interruption = record
                    if record.causes.isEmpty { endInterruption(i, journal: &journal) }
                    changed = true
                }
            }
            if !changed { return }
        }
    }

    /// The session that would duck session `id` now if it were audible (so a session that
    /// pauses instead of being ducked is held by it); nil when nothing would.
    public func pauseDucker(of id: String) -> String? {
        sessionIndex[id].flatMap { pausingDucker(of: $0) }.map { sessions[$0].id }
    }

    /// The session that would duck `i` now if `i` were audible (the latest activated of
    /// those that duck others); nil when `i` ducks others itself or has no output.
    func pausingDucker(of i: Int) -> Int? {
        let s = sessions[i]
        guard s.hasOutput, !s.configuration.options.contains(.duckOthers), s.focus != .transientMayDuck, !s.configuration.accessibility
        else { return nil }
        var best: Int?
        for d in sessions.indices where d != i && ducks(d, i) {
            if let b = best, sessions[b].activationSerial > sessions[d].activationSerial { continue }
            best = d
        }
        return best
    }

    /// The first other session with a playing source that activating `i` (in its configured
    /// category, with `focus`) would interrupt under rules 2.1 and 2.6, if any.
    func playingSessionInterrupted(byActivating i: Int, focus: FocusRequest) -> Int? {
        let configuration = sessions[i].configuration
        let category = activationCategory(i)
        if !interactions.isEmpty {
            // With a table, each pair as interruptOthers decides it.
            for o in sessions.indices where o != i && sessions[o].phase == .active && !sessions[o].configuration.accessibility {
                let reason = interruption(of: o, by: i, category: category, focus: focus)
                if reason != nil, sourcesOfSession[o].contains(where: { sources[$0].isPlaying }) { return o }
            }
            return nil
        }
        if focus == .transientMayDuck || configuration.accessibility { return nil }
        let mixable = category == .ambient || configuration.options.contains { $0.impliesMixWithOthers }
        let spoken = sessions[i].configuration.options.contains(.interruptSpokenAudioAndMixWithOthers)
        for o in sessions.indices where o != i && sessions[o].phase == .active && !sessions[o].configuration.accessibility {
            let interrupts =
                focus == .transientExclusive || (!mixable && !sessions[o].isMixable)
                || (spoken && sessions[o].configuration.mode == .spokenAudio)
            if interrupts, sourcesOfSession[o].contains(where: { sources[$0].isPlaying }) { return o }
        }
        return nil
    }

    /// Take a session and its sources out: deactivate it (releasing what it interrupted),
    /// then drop its state.
    mutating func removeSession(_ i: Int, journal: inout [JournalEntry]) {
        let id = sessions[i].id
        deactivate(i, notifyOthers: false, journal: &journal)
        releaseCause(.session(id), resumable: false, journal: &journal)
        let gone = Set(sourcesOfSession[i].map { sources[$0].id })
        sources.removeAll { gone.contains($0.id) }
        sessions.remove(at: i)
        nowPlayingOrder.removeAll { $0 == id }
        reindex()
    }

    /// Rules 2.1 (a non-mixable session interrupts the other non-mixable ones) and 2.6, as
    /// the focus says: `transientMayDuck` interrupts nobody, `transientExclusive` everyone;
    /// `transient` and `transientExclusive` interruptions are marked transient.
    mutating func interruptOthers(for i: Int, journal: inout [JournalEntry]) {
        let id = sessions[i].id
        let focus = sessions[i].focus
        let transient = focus.isTransient
        if !interactions.isEmpty {
            // With a table, pair by pair (the built-in rules where it has no row), in registration order.
            for o in sessions.indices where o != i {
                if let reason = interruption(of: o, by: i, category: sessions[i].category, focus: focus) {
                    interrupt(o, cause: .session(id), reason: reason, by: id, transient: transient, journal: &journal)
                }
            }
            return
        }
        // An accessibility session ducks instead.
        if sessions[i].configuration.accessibility { return }
        switch focus {
        case .transientMayDuck:
            return
        case .transientExclusive:
            for o in sessions.indices where o != i {
                interrupt(o, cause: .session(id), reason: .otherSession, by: id, transient: true, journal: &journal)
            }
            return
        case .gain, .transient:
            break
        }
        if !sessions[i].isMixable {
            for o in sessions.indices where o != i && !sessions[o].isMixable {
                interrupt(o, cause: .session(id), reason: .otherSession, by: id, transient: transient, journal: &journal)
            }
        }
        if sessions[i].configuration.options.contains(.interruptSpokenAudioAndMixWithOthers) {
            for o in sessions.indices where o != i && sessions[o].configuration.mode == .spokenAudio {
                interrupt(o, cause: .session(id), reason: .spokenAudio, by: id, transient: transient, journal: &journal)
            }
        }
    }

    /// The category `i` takes when it activates now (rule 10).
    func activationCategory(_ i: Int) -> Category {
        let configuration = sessions[i].configuration
        if let alternative = configuration.categoryWhenOtherAudioPlaying, isOtherAudioPlaying(asker: configuration.id) {
            return alternative
        }
        return configuration.category
    }

    /// Whether activating `i` (in `category`, with `focus`) interrupts `o`, and why: the
    /// interaction table's row for the pair (`interrupt`: yes, any other outcome: no), else
    /// the built-in rules (2.1, 2.6, the focus, accessibility).
    func interruption(of o: Int, by i: Int, category: Category, focus: FocusRequest) -> InterruptionReason? {
        if let k = interactionRule(o, i, incomingCategory: category) {
            return interactions.rules[k].outcome == .interrupt ? .otherSession : nil
        }
        let configuration = sessions[i].configuration
        if configuration.accessibility || focus == .transientMayDuck { return nil }
        if focus == .transientExclusive { return .otherSession }
        let mixable = category == .ambient || configuration.options.contains { $0.impliesMixWithOthers }
        if !mixable && !sessions[o].isMixable { return .otherSession }
        if configuration.options.contains(.interruptSpokenAudioAndMixWithOthers), sessions[o].configuration.mode == .spokenAudio {
            return .spokenAudio
        }
        return nil
    }

    /// Interrupts an active session; an already interrupted one just gains a cause
    /// (so it does not come back while this one still holds it). Inactive: nothing.
    mutating func interrupt(
        _ o: Int, cause: InterruptionCause, reason: InterruptionReason, by: String?, transient: Bool = false,
        journal: inout [JournalEntry]
    ) {
        // Only a phone call interrupts an accessibility session.
        if sessions[o].configuration.accessibility, cause != .phoneCall { return }
        switch sessions[o].phase {
        case .inactive:
            return
        case .interrupted:
            if sessions[o].interruption?.causes.contains(cause) == false {
                sessions[o].interruption?.causes.append(cause)
            }
            if cause == .micMuted { sessions[o].interruption?.micMuted = true }
        case .active:
            sessions[o].phase = .interrupted
            // Another session's activation (not a call, not the microphone): the loss fade applies.
            journal.append(
                .interruptionBegan(
                    session: sessions[o].id, reason: reason, by: by, transient: transient, fadeSeconds: by == nil ? 0 : lossFadeSeconds))
            var playing: [String] = []
            for k in sourceIndices(ofSession: o) where sources[k].isPlaying {
                playing.append(sources[k].id)
                pauseSource(k, reason: .interruption, journal: &journal)
            }
            sessions[o].interruption = Interruption(
                reason: reason, by: by, causes: [cause], shouldResume: true,
                micMuted: cause == .micMuted, playingSources: playing, transient: transient)
        }
    }

    /// A cause goes away; interruptions left without causes end (rule 2.4, 2.7, 2.8).
    mutating func releaseCause(_ cause: InterruptionCause, resumable: Bool, journal: inout [JournalEntry]) {
        var emptied: [Int] = []
        for i in sessions.indices {
            guard var record = sessions[i].interruption, let at = record.causes.firstIndex(of: cause) else { continue }
            record.causes.remove(at: at)
            record.shouldResume = record.shouldResume && resumable
            sessions[i].interruption = record
            if record.causes.isEmpty { emptied.append(i) }
        }
        // In registration order; an earlier resume may have interrupted a later one again.
        for i in emptied where sessions[i].phase == .interrupted && sessions[i].interruption?.causes.isEmpty == true {
            endInterruption(i, journal: &journal)
        }
    }

    /// Rule 2.5: the engine resumes like a well-behaved app, unless the session set
    /// `autoResume: false` or the microphone was muted (rule 2.8).
    mutating func endInterruption(_ i: Int, journal: inout [JournalEntry]) {
        guard let record = sessions[i].interruption else { return }
        let id = sessions[i].id
        sessions[i].interruption = nil
        sessions[i].phase = .inactive
        sessions[i].activeCategory = nil
        journal.append(.interruptionEnded(session: id, shouldResume: record.shouldResume))
        let configuration = sessions[i].configuration
        let wantsResume =
            !record.micMuted && configuration.autoResume
            && (configuration.playbackControls ? record.shouldResume : true)
        if wantsResume, !record.playingSources.isEmpty, !callActive, (try? activate(i, journal: &journal)) != nil {
            for sourceId in record.playingSources {
                if let k = sourceIndex[sourceId] { start(k, reason: .resume, journal: &journal) }
            }
        } else {
            // Not resuming (or it may not: a background session would interrupt one that plays).
            appendUnique(&sessions[i].resumeSources, record.playingSources)
            // Back to inactive without resuming: it holds nobody interrupted any more (a
            // transient holder lets them resume, as when it deactivates).
            let transient = sessions[i].focus.isTransient
            sessions[i].focus = .gain
            releaseCause(.session(id), resumable: transient, journal: &journal)
        }
    }

    /// Rules 2.3 and 2.4 (a transient focus ends its interruptions with shouldResume
    /// whatever `notifyOthers` says). A delayed activation is cancelled.
    mutating func deactivate(_ i: Int, notifyOthers: Bool, journal: inout [JournalEntry]) {
        cancelDelayedActivation(i, journal: &journal)
        guard sessions[i].phase != .inactive else { return }
        let id = sessions[i].id
        journal.append(.sessionDeactivated(session: id, notifyOthers: notifyOthers))
        for k in sourceIndices(ofSession: i) {
            pauseSource(k, reason: .deactivation, journal: &journal)
        }
        sessions[i].phase = .inactive
        sessions[i].interruption = nil
        sessions[i].activeCategory = nil
        sessions[i].resumeSources = []
        let transient = sessions[i].focus.isTransient
        sessions[i].focus = .gain
        releaseCause(.session(id), resumable: notifyOthers || transient, journal: &journal)
    }

    mutating func setCategory(
        _ i: Int, category: Category, mode: Mode?, options: Set<CategoryOption>, journal: inout [JournalEntry]
    ) throws(PolicyError) {
        var configuration = sessions[i].configuration
        configuration.category = category
        if let mode { configuration.mode = mode }
        configuration.options = options
        try Self.validate(configuration)
        sessions[i].configuration = configuration
        if sessions[i].phase != .inactive { sessions[i].activeCategory = category }
        // A change of category takes effect at once, as an activation would.
        if sessions[i].phase == .active { interruptOthers(for: i, journal: &journal) }
    }

    /// Host decision: activate, then play what was playing when the interruption came.
    mutating func resume(_ i: Int, journal: inout [JournalEntry]) throws(PolicyError) {
        var targets = sessions[i].resumeSources
        appendUnique(&targets, sessions[i].interruption?.playingSources ?? [])
        try activate(i, journal: &journal)
        for sourceId in targets {
            if let k = sourceIndex[sourceId] { start(k, reason: .resume, journal: &journal) }
        }
        sessions[i].resumeSources = []
    }

    // MARK: Route (rule 7)

    mutating func changeRoute(to route: Route, reason: RouteChangeReason?, journal: inout [JournalEntry]) {
        let previous = device.route
        if reason == nil, previous == route { return }
        let reason = reason ?? .default(from: previous, to: route)
        device.route = route
        journal.append(.routeChange(reason: reason, previous: previous, current: route))
        guard reason == .oldDeviceUnavailable else { return }
        for i in sessions.indices where sessions[i].category.pausesOnOldDeviceUnavailable {
            for k in sourceIndices(ofSession: i) {
                pauseSource(k, reason: .routeChange, journal: &journal)
            }
            // Paused until explicitly played: nothing resumes on the speaker by itself.
            sessions[i].resumeSources = []
            sessions[i].interruption?.playingSources = []
        }
    }

    // MARK: Remote commands (rule 8)

    mutating func remote(_ command: RemoteCommand, journal: inout [JournalEntry]) throws(PolicyError) {
        guard let id = remoteCommandTarget(for: command), let i = sessionIndex[id] else {
            journal.append(.remoteCommandUnhandled(command: command))
            return
        }
        journal.append(.remoteCommand(command: command, session: id))
        switch command {
        case .pause:
            remotePause(i, journal: &journal)
        case .play:
            try remotePlay(i, journal: &journal)
        case .togglePlayPause:
            if sourceIndices(ofSession: i).contains(where: { sources[$0].isPlaying }) {
                remotePause(i, journal: &journal)
            } else {
                try remotePlay(i, journal: &journal)
            }
        case .stop:
            for k in sourceIndices(ofSession: i) {
                pauseSource(k, reason: .remoteCommand, journal: &journal)
                sources[k].rewinds += 1
            }
            sessions[i].resumeSources = []
            sessions[i].interruption?.playingSources = []
        case .nextTrack, .previousTrack:
            break // track lists are the app's business
        }
    }

    /// Pauses the playing sources and remembers them for a remote `play`; an interrupted
    /// session will not resume by itself any more (the user said pause).
    mutating func remotePause(_ i: Int, journal: inout [JournalEntry]) {
        var paused: [String] = []
        for k in sourceIndices(ofSession: i) where sources[k].isPlaying {
            paused.append(sources[k].id)
            pauseSource(k, reason: .remoteCommand, journal: &journal)
        }
        if !paused.isEmpty { sessions[i].resumeSources = paused }
        if let playing = sessions[i].interruption?.playingSources {
            appendUnique(&sessions[i].resumeSources, playing)
            sessions[i].interruption?.playingSources = []
        }
    }

    /// Plays what was remembered, else (if nothing plays) every source of the session;
    /// activates it if needed.
    mutating func remotePlay(_ i: Int, journal: inout [JournalEntry]) throws(PolicyError) {
        let own = sourceIndices(ofSession: i)
        var targets = sessions[i].resumeSources
        if targets.isEmpty { targets = sessions[i].interruption?.playingSources ?? [] }
        if targets.isEmpty, !own.contains(where: { sources[$0].isPlaying }) { targets = own.map { sources[$0].id } }
        try activate(i, journal: &journal)
        for sourceId in targets {
            if let k = sourceIndex[sourceId] { start(k, reason: .remoteCommand, journal: &journal) }
        }
        sessions[i].resumeSources = []
    }
}

func appendUnique(_ list: inout [String], _ items: [String]) {
    for item in items where !list.contains(item) { list.append(item) }
}
