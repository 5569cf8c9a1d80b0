import PropertyBased
import Testing
import TuttiPolicy

// The invariants of issue 22 over random traces that use the new keys: the worlds and
// actions of Traces.swift, then (from a second generator of the same case, so the plain
// traces stay exactly as they are) some sessions pause instead of being ducked, speak, or
// accept delayed activations, and some activations ask for a focus.

/// A generated world and actions with the new keys drawn in.
struct ExtendedCase {
    var scenario: Scenario
    var actions: [PolicyAction]

    init(seed: UInt64, n: Int, weights: [ActionKind: Int], tables: Bool = false) {
        var rng = seededRNG(seed, n)
        var scenario = Worlds.scenario(duckerRate: 0.4, weights: weights).run(using: &rng)
        var extra = seededRNG(seed ^ 0x2222_2222, n)
        for i in scenario.sessions.indices {
            let roll = Int.random(in: 0..<100, using: &extra)
            scenario.sessions[i].pausesWhenDucked = roll < 30
            scenario.sessions[i].content = roll >= 85 ? .speech : (roll >= 70 ? .music : nil)
            let delay = Int.random(in: 0..<100, using: &extra) < 40
            scenario.sessions[i].acceptsDelayedActivation = delay && scenario.sessions[i].category != .ambient
            scenario.sessions[i].accessibility = Int.random(in: 0..<100, using: &extra) < 12
        }
        self.scenario = scenario
        actions = scenario.actions.map { action in
            guard case .activate(let s, _) = action else { return action }
            return .activate(session: s, focus: FocusRequest.allCases[Int.random(in: 0..<4, using: &extra)])
        }
        if tables {
            // Up to five rows over the world's sessions and a few categories (a clash makes the
            // table a refused one, which is tested too).
            var rng = seededRNG(seed ^ 0x7AB1E, n)
            let ids = scenario.sessions.map(\.id)
            func side() -> DuckingTarget {
                Int.random(in: 0..<3, using: &rng) == 0
                    ? .category([Category.playback, .ambient, .soloAmbient, .playAndRecord].randomElement(using: &rng)!)
                    : .session(ids.randomElement(using: &rng)!)
            }
            let rows = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                InteractionRule(active: side(), incoming: side(), outcome: InteractionOutcome.allCases.randomElement(using: &rng)!)
            }
            actions.insert(.setInteractions(rows), at: 0)
        }
    }
}

/// Runs `property` over `count` extended cases (with the closing actions when asked); on
/// failure shrinks the action list and records one issue.
func checkExtendedTraces(
    _ name: String, seed: UInt64, count: Int, closing: Bool = false, weights: [ActionKind: Int] = [:], tables: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation, _ property: (Trace) -> [String]
) {
    for n in 0..<count {
        let c = ExtendedCase(seed: seed, n: n, weights: weights, tables: tables)
        func violations(_ actions: [PolicyAction]) -> [String] {
            property(Trace(c.scenario.initialState(), closing ? actions + c.scenario.closing : actions))
        }
        var actions = c.actions
        var found = violations(actions)
        guard !found.isEmpty else { continue }
        var shrunk = true
        while shrunk {
            shrunk = false
            for i in actions.indices.reversed() {
                var fewer = actions
                fewer.remove(at: i)
                let v = violations(fewer)
                if !v.isEmpty {
                    (actions, found) = (fewer, v)
                    shrunk = true
                }
            }
        }
        let sessions = c.scenario.sessions.map {
            "\($0.id): \($0.category.rawValue) \($0.options.map(\.rawValue).sorted()) pauses \($0.pausesInsteadOfDucking) delay \($0.acceptsDelayedActivation) a11y \($0.accessibility) fg \($0.foreground)"
        }
        let message =
            "\(name): case \(n) of seed \(seed) fails\n\(sessions.joined(separator: "\n"))\nactions:\n"
            + actions.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
            + "\nviolations:\n  " + found.prefix(5).joined(separator: "\n  ")
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return
    }
}

enum ExtendedChecks {
    /// The table's outcomes hold in every view: a pair's `silence` row silences the active
    /// session (unless something else already does), a `duck` row leaves it ducked (unless it
    /// ducks itself, has no output or is not audible), a `mix` row never lets that session duck it.
    static func table(_ t: Trace) -> [String] {
        var v: [String] = []
        for (n, step) in t.steps.enumerated() {
            let st = step.after
            guard !st.interactionList.isEmpty else { continue }
            for a in st.sessions where a.phase == .active {
                let view = step.afterView.session(a.id)
                for b in st.sessions where b.id != a.id && b.phase == .active && b.activationSerial > a.activationSerial {
                    guard let k = st.interactionRule(active: a.id, incoming: b.id) else { continue }
                    switch st.interactionList[k].outcome {
                    case .silence:
                        if view?.state == .audible, a.hasOutput {
                            v.append("step \(n) \(step.action): \(a.id) audible despite silence row \(k) (\(b.id))")
                        }
                    case .duck:
                        if view?.state == .audible, a.hasOutput, !a.ducksOthers, !a.configuration.accessibility, view?.duckedBy == nil {
                            v.append("step \(n) \(step.action): \(a.id) not ducked despite duck row \(k) (\(b.id))")
                        }
                    case .mix, .interrupt, .reject:
                        if view?.duckedBy == b.id { v.append("step \(n) \(step.action): \(a.id) ducked by \(b.id) despite row \(k)") }
                    }
                }
            }
        }
        return v
    }

    /// An accessibility session is never ducked, never silenced by the switch, lock or
    /// background, and interrupted only by a phone call; while it is active with output no
    /// other audible session with output is left at full level.
    static func accessibility(_ t: Trace) -> [String] {
        var v: [String] = []
        for (n, step) in t.steps.enumerated() {
            for s in step.after.sessions where s.configuration.accessibility {
                let view = step.afterView.session(s.id)
                if let by = view?.duckedBy { v.append("step \(n) \(step.action): accessibility \(s.id) ducked by \(by)") }
                if case .silenced(let reason) = view?.state, reason != .recording {
                    v.append("step \(n) \(step.action): accessibility \(s.id) silenced (\(reason))")
                }
                if s.phase == .active, s.hasOutput {
                    for o in step.afterView.sessions where o.id != s.id && o.isAudible && o.duck == nil {
                        if step.after.session(o.id)?.ducksOthers != true {
                            v.append("step \(n) \(step.action): \(o.id) at full level beside accessibility \(s.id)")
                        }
                    }
                }
            }
            for e in step.outcome.journal {
                if case .interruptionBegan(let s, let reason, _, _, _) = e, reason != .phoneCall,
                    step.after.session(s)?.configuration.accessibility == true
                {
                    v.append("step \(n) \(step.action): accessibility \(s) interrupted (\(reason))")
                }
            }
        }
        return v
    }

    /// A session that pauses instead of ducking is never ducked, and never active while
    /// another session ducks the others (so never audible and ducked in the same block).
    static func pausesNotDucks(_ t: Trace) -> [String] {
        var v: [String] = []
        for (n, step) in t.steps.enumerated() {
            for s in step.after.sessions where s.configuration.pausesInsteadOfDucking {
                if let by = step.afterView.session(s.id)?.duckedBy { v.append("step \(n) \(step.action): \(s.id) ducked by \(by)") }
                if s.phase == .active, let d = step.after.pauseDucker(of: s.id) {
                    v.append("step \(n) \(step.action): \(s.id) is active while \(d) ducks it")
                }
            }
            for e in step.outcome.journal {
                if case .interruptionBegan(let s, .ducked, let by, _, _) = e {
                    if step.after.session(s)?.configuration.pausesInsteadOfDucking != true {
                        v.append("step \(n): \(s) paused for a duck without pausesWhenDucked")
                    }
                    if by == nil || step.after.pauseDucker(of: s) == nil {
                        v.append("step \(n): \(s) paused for a duck by \(by ?? "nobody"), who does not duck")
                    }
                }
            }
        }
        return v
    }

    /// A delayed activation happens only during a call, changes nothing else, is granted at
    /// most once and only when the call ends (never during a call), or is cancelled.
    static func delayedGrants(_ t: Trace) -> [String] {
        var v: [String] = []
        var waiting = Set<String>()
        for (n, step) in t.steps.enumerated() {
            var delayedNow = false
            for e in step.outcome.journal {
                switch e {
                case .activationDelayed(let s, .phoneCall):
                    delayedNow = true
                    if !step.before.callActive { v.append("step \(n) \(step.action): \(s) delayed without a call") }
                    if step.before.session(s)?.configuration.acceptsDelayedActivation != true {
                        v.append("step \(n): \(s) delayed without acceptsDelayedActivation")
                    }
                    if !waiting.insert(s).inserted { v.append("step \(n): \(s) delayed twice") }
                case .activationGranted(let s):
                    if step.action != .phoneCallEnd || step.after.callActive {
                        v.append("step \(n) \(step.action): \(s) granted during a call")
                    }
                    if waiting.remove(s) == nil { v.append("step \(n): \(s) granted without a delay (or twice)") }
                case .activationCancelled(let s):
                    if waiting.remove(s) == nil { v.append("step \(n): \(s) cancelled without a delay") }
                default: break
                }
            }
            if delayedNow {
                let others = step.outcome.journal.filter {
                    if case .activationDelayed = $0 { return false }
                    if case .remoteCommand = $0 { return false }
                    return true
                }
                if !others.isEmpty { v.append("step \(n) \(step.action): a delay came with \(others)") }
                if step.afterView != step.beforeView { v.append("step \(n) \(step.action): a delay changed what is heard") }
                if step.after.sessions.map(\.phase) != step.before.sessions.map(\.phase) {
                    v.append("step \(n) \(step.action): a delay changed a phase")
                }
            }
            let pending = Set(step.after.sessions.filter { $0.delayedActivation != nil }.map(\.id))
            if pending != waiting || Set(step.after.delayedActivations) != waiting {
                v.append("step \(n) \(step.action): waiting \(waiting.sorted()), state \(pending.sorted())")
            }
            if !step.after.callActive, !waiting.isEmpty { v.append("step \(n): \(waiting.sorted()) still waiting after the call") }
        }
        return v
    }

    /// Focus: transientMayDuck interrupts nobody (only sessions that pause instead of being
    /// ducked); after a transientExclusive activation no other session is active and system
    /// sounds are not allowed.
    static func focus(_ t: Trace) -> [String] {
        var v: [String] = []
        for (n, step) in t.steps.enumerated() {
            guard case .activate(let s, let focus) = step.action, step.outcome.error == nil,
                step.before.session(s)?.phase != .active, step.after.session(s)?.phase == .active
            else { continue }
            switch focus {
            case .transientMayDuck:
                for e in step.outcome.journal {
                    if case .interruptionBegan(let o, let reason, _, _, _) = e, reason != .ducked {
                        v.append("step \(n): transientMayDuck \(s) interrupted \(o) (\(reason))")
                    }
                }
            case .transientExclusive:
                // An accessibility session interrupts nobody, whatever its focus; nothing but a call interrupts one.
                let activator = step.after.session(s)?.configuration.accessibility == true
                for o in step.after.sessions where !activator && o.id != s && o.phase == .active && !o.configuration.accessibility {
                    v.append("step \(n): \(o.id) still active beside transientExclusive \(s)")
                }
                if step.afterView.systemSoundsAllowed { v.append("step \(n): system sounds allowed during transientExclusive") }
            case .transient, .gain:
                for e in step.outcome.journal {
                    if case .interruptionBegan(let o, let reason, let by, let transient, _) = e, by == s, reason != .ducked,
                        transient != (focus == .transient)
                    {
                        v.append("step \(n): \(o) interrupted by \(s) (\(focus)) with transient \(transient)")
                    }
                }
            }
        }
        return v
    }
}

@Suite("properties with the new keys (focus, pause instead of duck, delayed grants)")
struct ExtendedPropertyTests {
    static let weights: [ActionKind: Int] = [.callBegin: 4, .callEnd: 4, .setDuckingRules: 1, .setCategory: 2]

    @Test("a session that pauses instead of ducking is never ducked and audible at once")
    func pausesNotDucks() {
        checkExtendedTraces("pauses", seed: 31, count: casesPerProperty, weights: Self.weights, ExtendedChecks.pausesNotDucks)
    }

    @Test("a delayed activation changes nothing else, is granted at most once and never during a call")
    func delayedGrants() {
        checkExtendedTraces("delayed", seed: 32, count: casesPerProperty, weights: Self.weights, ExtendedChecks.delayedGrants)
    }

    @Test(
        "an accessibility session is never ducked or silenced by switch, lock or background, only a call interrupts it, and it ducks the rest"
    )
    func accessibility() {
        checkExtendedTraces(
            "accessibility", seed: 40, count: casesPerProperty,
            weights: Self.weights.merging([.lock: 3, .background: 3, .silentSwitch: 3]) { $1 },
            ExtendedChecks.accessibility)
    }

    @Test("transientMayDuck interrupts nobody; transientExclusive leaves nothing else active")
    func focus() { checkExtendedTraces("focus", seed: 33, count: casesPerProperty, weights: Self.weights, ExtendedChecks.focus) }

    @Test("the existing invariants hold with the new keys: ducks, calls, microphone, interruptions, coherence, volume")
    func existingInvariants() {
        checkExtendedTraces("ducks", seed: 34, count: casesPerProperty, weights: Self.weights, Checks.ducks)
        checkExtendedTraces("call", seed: 35, count: casesPerProperty, weights: Self.weights, Checks.call)
        checkExtendedTraces("mic", seed: 36, count: casesPerProperty, Checks.micMuted)
        checkExtendedTraces("interruptions", seed: 37, count: casesPerProperty, closing: true, weights: Self.weights, Checks.interruptions)
        checkExtendedTraces("coherence", seed: 38, count: casesPerProperty, weights: Self.weights, Checks.coherence)
        checkExtendedTraces("volume", seed: 39, count: casesPerProperty / 2, Checks.volume)
    }

    @Test("with random interaction tables: a rejection changes nothing, calls, interruptions and the rest stay coherent")
    func tables() {
        checkExtendedTraces("table coherence", seed: 41, count: casesPerProperty, weights: Self.weights, tables: true, Checks.coherence)
        checkExtendedTraces(
            "table interruptions", seed: 42, count: casesPerProperty, closing: true, weights: Self.weights, tables: true,
            Checks.interruptions)
        checkExtendedTraces("table call", seed: 43, count: casesPerProperty, weights: Self.weights, tables: true, Checks.call)
        checkExtendedTraces(
            "table pauses", seed: 44, count: casesPerProperty, weights: Self.weights, tables: true, ExtendedChecks.pausesNotDucks)
        checkExtendedTraces("table outcomes", seed: 45, count: casesPerProperty, weights: Self.weights, tables: true, ExtendedChecks.table)
        var rejected = 0
        for n in 0..<300 {
            let c = ExtendedCase(seed: 46, n: n, weights: Self.weights, tables: true)
            for step in Trace(c.scenario.initialState(), c.actions).steps {
                if case .rejectedByTable? = step.outcome.error { rejected += 1 }
            }
        }
        #expect(rejected > 0, "no rejection generated")
    }

    @Test("the extended traces exercise the new entries (so the properties are not vacuous)")
    func coverage() {
        var seen = Set<String>()
        for n in 0..<300 {
            let c = ExtendedCase(seed: 99, n: n, weights: Self.weights)
            for step in Trace(c.scenario.initialState(), c.actions + c.scenario.closing).steps {
                for e in step.outcome.journal {
                    seen.insert(e.type)
                    if case .interruptionBegan(_, .ducked, _, _, _) = e { seen.insert("interruption.ducked") }
                    if case .interruptionBegan(_, _, _, true, _) = e { seen.insert("interruption.transient") }
                    if case .sessionActivated(_, _, let focus) = e { seen.insert("focus." + focus.rawValue) }
                    if case .systemSoundSuppressed(_, .transientExclusive) = e { seen.insert("suppressed.exclusive") }
                }
            }
        }
        let wanted =
            ["activationDelayed", "activationGranted", "activationCancelled", "interruption.ducked", "interruption.transient"]
            + FocusRequest.allCases.map { "focus." + $0.rawValue }
        #expect(Set(wanted).subtracting(seen).isEmpty, "never produced: \(Set(wanted).subtracting(seen).sorted())")
    }
}
