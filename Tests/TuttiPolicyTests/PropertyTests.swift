import PropertyBased
import Testing
import TuttiPolicy

// Invariants over random worlds and action sequences (see Traces.swift).
// Each checker returns its violations, so it can also be fed broken traces (CheckerTests).

let casesPerProperty = 700

func sessionOf(source: String, in state: PolicyState) -> String? { state.source(source)?.session }

// MARK: Checkers

enum Checks {
    /// Rule 3: a duck lasts exactly as long as an active ducker; the journal and the view agree.
    static func ducks(_ t: Trace) -> [String] {
        var v: [String] = []
        var open: [String: String] = [:]
        for (n, step) in t.steps.enumerated() {
            for e in step.outcome.journal {
                switch e {
                case .duckingBegan(let s, let by, _):
                    if open[s] != nil { v.append("step \(n): duck of \(s) began twice") }
                    open[s] = by
                case .duckingEnded(let s):
                    if open[s] == nil { v.append("step \(n): duck of \(s) ended without beginning") }
                    open[s] = nil
                default: break
                }
            }
            for (s, d) in open.sorted(by: { $0.key < $1.key }) {
                let ducker = step.after.session(d)
                if ducker?.ducksOthers != true {
                    v.append("step \(n) \(step.action): duck of \(s) by \(d) outlives its ducker")
                }
            }
            if case .deactivate(let d, _) = step.action, open.values.contains(d) {
                v.append("step \(n): \(d) deactivated but still ducks")
            }
            for sv in step.afterView.sessions {
                if sv.duckedBy != open[sv.id] {
                    v.append("step \(n): view says \(sv.id) ducked by \(sv.duckedBy ?? "nobody"), journal \(open[sv.id] ?? "nobody")")
                }
                if let d = sv.duckedBy {
                    let expected = referenceDuck(step.after, ducked: sv.id)
                    if expected?.by != d || sv.duck != expected?.settings || sv.duckRule != expected?.rule || sv.state != .audible
                        || !sv.hasOutput
                    {
                        v.append("step \(n): duck of \(sv.id) has wrong settings or state (expected \(String(describing: expected)))")
                    }
                    if step.after.session(sv.id)?.ducksOthers == true {
                        v.append("step \(n): ducker \(sv.id) is ducked")
                    }
                } else if sv.duck != nil {
                    v.append("step \(n): \(sv.id) has a duck but no ducker")
                }
            }
        }
        return v
    }

    /// The duck on `ducked` worked out the slow way: every active ducker, every rule scanned
    /// for the most specific match, then the ducker's own settings, then the engine's; the
    /// deepest wins, ties to the earliest activation.
    static func referenceDuck(_ st: PolicyState, ducked id: String) -> (by: String, settings: DuckingSettings, rule: DuckingRuleReference)?
    {
        guard let s = st.session(id) else { return nil }
        var best: (d: SessionState, settings: DuckingSettings, rule: DuckingRuleReference)?
        for d in st.sessions where d.id != id && d.ducksOthers {
            var pick: (specificity: Int, index: Int)?
            for (k, r) in st.duckingRuleList.enumerated() {
                let byMatches = r.by == .session(d.id) || r.by == .category(d.category)
                let duckMatches = r.duck == .session(id) || r.duck == .category(s.category)
                if byMatches, duckMatches, r.specificity > (pick?.specificity ?? 0) { pick = (r.specificity, k) }
            }
            let settings: DuckingSettings
            let rule: DuckingRuleReference
            if let pick {
                (settings, rule) = (st.duckingRuleList[pick.index].settings, .rule(pick.index))
            } else if let own = d.configuration.ducking {
                (settings, rule) = (own, .session)
            } else {
                (settings, rule) = (st.engineDucking, .engine)
            }
            if let b = best,
                b.settings.levelDB < settings.levelDB
                    || (b.settings.levelDB == settings.levelDB && b.d.activationSerial < d.activationSerial)
            {
                continue
            }
            best = (d, settings, rule)
        }
        return best.map { ($0.d.id, $0.settings, $0.rule) }
    }

    /// Rule 2.7: during a call nothing but the call is heard and the call is never attenuated.
    static func call(_ t: Trace) -> [String] {
        var v: [String] = []
        for (n, step) in t.steps.enumerated() {
            let view = step.afterView
            if view.callActive {
                for s in view.sessions where s.state != .interrupted && s.state != .inactive {
                    v.append("step \(n) \(step.action): \(s.id) is \(s.state) during a call")
                }
                for s in view.sessions where s.policyGain != 0 { v.append("step \(n): \(s.id) has gain during a call") }
                for x in view.sources where x.isRunning { v.append("step \(n): \(x.id) runs during a call") }
                if view.callGain != view.systemGain { v.append("step \(n): call audio attenuated") }
                if step.beforeView.callActive {
                    for e in step.outcome.journal {
                        if case .sessionActivated = e { v.append("step \(n): \(e) during a call") }
                        if case .sourceStarted = e { v.append("step \(n): \(e) during a call") }
                    }
                }
            } else if view.callGain != 0 {
                v.append("step \(n): call gain without a call")
            }
            if step.action == .phoneCallBegin, !step.before.callActive {
                for s in step.before.sessions where s.phase == .active {
                    if !step.outcome.journal.contains(.interruptionBegan(session: s.id, reason: .phoneCall, by: nil)) {
                        v.append("step \(n): call did not interrupt \(s.id)")
                    }
                }
            }
        }
        return v
    }

    /// Sessions an action explicitly addresses (the host or the user acting on them), and
    /// those whose delayed activation (the host's, earlier) is granted.
    static func touched(_ step: Step) -> Set<String> {
        let granted = step.outcome.journal.compactMap { e -> String? in
            if case .activationGranted(let s) = e { return s } else { return nil }
        }
        return Set(granted).union(addressed(step))
    }

    static func addressed(_ step: Step) -> Set<String> {
        switch step.action {
        case .activate(let s, _), .resume(let s), .deactivate(let s, _): return [s]
        case .play(let x): return Set([sessionOf(source: x, in: step.before)].compactMap { $0 })
        case .remote:
            return Set(
                step.outcome.journal.compactMap { e -> String? in
                    if case .remoteCommand(_, let s) = e { return s } else { return nil }
                })
        default: return []
        }
    }

    /// Rule 2.8: once the microphone interrupted a session, nothing of it starts again until
    /// the host or the user addresses it; its interruption never ends with shouldResume.
    static func micMuted(_ t: Trace) -> [String] {
        var v: [String] = []
        var held = Set<String>()
        for (n, step) in t.steps.enumerated() {
            let touched = touched(step)
            for e in step.outcome.journal {
                switch e {
                case .sessionActivated(let s, _, _) where held.contains(s) && !touched.contains(s):
                    v.append("step \(n) \(step.action): mic-muted \(s) re-activated by itself")
                case .sourceStarted(let x, _):
                    if let s = sessionOf(source: x, in: step.after), held.contains(s), !touched.contains(s) {
                        v.append("step \(n) \(step.action): source \(x) of mic-muted \(s) restarted by itself")
                    }
                case .interruptionEnded(let s, true) where step.before.session(s)?.interruption?.micMuted == true:
                    v.append("step \(n): mic-muted \(s) told to resume")
                default: break
                }
            }
            held.subtract(touched)
            for e in step.outcome.journal {
                if case .interruptionBegan(let s, .builtInMicMuted, _, _, _) = e { held.insert(s) }
            }
            for s in step.after.sessions where s.interruption?.micMuted == true { held.insert(s.id) }
            if step.action == .micMuted(true), !step.before.device.micMuted {
                // (An accessibility session is interrupted by nothing but a call.)
                for s in step.before.sessions where s.phase == .active && s.category.capturesInput && !s.configuration.accessibility {
                    if step.after.session(s.id)?.phase != .interrupted { v.append("step \(n): \(s.id) kept the mic") }
                }
            }
        }
        return v
    }

    /// Every interruptionBegan gets exactly one interruptionEnded, or its session deactivates;
    /// the journal and the state agree on who is interrupted. Run with the closing actions.
    static func interruptions(_ t: Trace) -> [String] {
        var v: [String] = []
        var open = Set<String>()
        for (n, step) in t.steps.enumerated() {
            for e in step.outcome.journal {
                switch e {
                case .interruptionBegan(let s, _, _, _, _):
                    if open.contains(s) { v.append("step \(n) \(step.action): \(s) interrupted twice") }
                    open.insert(s)
                case .interruptionEnded(let s, _):
                    if !open.contains(s) { v.append("step \(n) \(step.action): \(s) ended an interruption it did not have") }
                    open.remove(s)
                case .sessionDeactivated(let s, _):
                    open.remove(s)
                default: break
                }
            }
            for s in step.after.sessions where open.contains(s.id) != (s.phase == .interrupted) {
                v.append("step \(n) \(step.action): journal and state disagree on \(s.id) (\(s.phase))")
            }
            // An interruption is held only by what is still there.
            for s in step.after.sessions {
                for cause in s.interruption?.causes ?? [] {
                    let live: Bool
                    switch cause {
                    case .phoneCall: live = step.after.callActive
                    case .micMuted: live = step.after.device.micMuted
                    case .session(let x): live = step.after.session(x).map { $0.phase != .inactive } ?? false
                    case .ducked: live = step.after.pauseDucker(of: s.id) != nil
                    }
                    if !live { v.append("step \(n) \(step.action): \(s.id) still held by \(cause)") }
                }
            }
        }
        if !open.isEmpty { v.append("interruptions never ended: \(open.sorted())") }
        return v
    }

    /// Rule 8, against an oracle built from the journal: a command goes to the latest session
    /// that started non-mixable playback, lists it and is active or interrupted; otherwise it is
    /// dropped and nothing changes. It never pauses or stops another session's audio (a `play`
    /// re-activating its target may interrupt others, by rule 2.1, and only that way).
    static func remote(_ t: Trace) -> [String] {
        var v: [String] = []
        var order: [String] = []
        for (n, step) in t.steps.enumerated() {
            if case .remote(let command) = step.action {
                let expected = order.last { id in
                    guard let s = step.before.session(id) else { return false }
                    return s.phase != .inactive && s.configuration.remoteCommands.contains(command)
                }
                let journal = step.outcome.journal
                if let target = expected {
                    if journal.first != .remoteCommand(command: command, session: target) {
                        v.append("step \(n): \(command) should go to \(target), journal \(journal)")
                    }
                    let starts = command == .play || command == .togglePlayPause
                    for e in journal {
                        switch e {
                        case .sourcePaused(let x, let reason):
                            guard let s = sessionOf(source: x, in: step.before), s != target else { continue }
                            if !(starts && reason == .interruption
                                && journal.contains(where: {
                                    if case .interruptionBegan(s, _, target, _, _) = $0 { return true } else { return false }
                                }))
                            {
                                v.append("step \(n): \(command) to \(target) paused \(x) of \(s)")
                            }
                        case .sourceStarted(let x, _):
                            if sessionOf(source: x, in: step.before) != target {
                                v.append("step \(n): \(command) to \(target) started \(x)")
                            }
                        case .interruptionBegan(let s, _, let by, _, _):
                            if !starts || by != target { v.append("step \(n): \(command) interrupted \(s)") }
                        case .sessionDeactivated, .interruptionEnded(_, true):
                            v.append("step \(n): \(command) caused \(e)")
                        case .interruptionEnded(let s, false) where s != target:
                            v.append("step \(n): \(command) caused \(e)")
                        default: break
                        }
                    }
                    for x in step.before.sources where x.session != target && x.isPlaying {
                        let stillPlaying = step.after.source(x.id)?.isPlaying == true
                        let interrupted = step.after.session(x.session)?.interruption?.causes.contains(.session(target)) == true
                        if !stillPlaying && !(starts && interrupted) {
                            v.append("step \(n): \(command) to \(target) stopped \(x.id)")
                        }
                    }
                } else {
                    if journal != [.remoteCommandUnhandled(command: command)] || step.after != step.before {
                        v.append("step \(n): \(command) should be dropped, journal \(journal)")
                    }
                }
            }
            for e in step.outcome.journal {
                if case .sourceStarted(let x, _) = e, let s = sessionOf(source: x, in: step.after),
                    step.after.session(s)?.isMixable == false
                {
                    order.removeAll { $0 == s }
                    order.append(s)
                }
            }
        }
        return v
    }

    static let appGains: [Double] = [0, 0.25, 1, 1.5, 4, -1, .infinity, .nan]

    /// Rule 6: the system volume is the last stage: no session's output gets above it, whatever
    /// the app gains; 0 is silence; volume events report the new value; buttons step by 1/16.
    static func volume(_ t: Trace) -> [String] {
        var v: [String] = []
        for (n, step) in t.steps.enumerated() {
            let view = step.afterView
            guard (0...1).contains(view.systemVolume), (0...1).contains(view.ringerVolume),
                (0...1).contains(view.systemGain), (0...1).contains(view.ringerGain)
            else {
                v.append("step \(n): volume out of range")
                continue
            }
            for s in view.sessions {
                if !(0...1).contains(s.policyGain) { v.append("step \(n): \(s.id) policy gain \(s.policyGain)") }
                for g1 in appGains {
                    for g2 in appGains {
                        let out = view.outputGain(session: s.id, sessionGain: g1, sourceGain: g2)
                        if !(out >= 0 && out <= view.systemGain) {
                            v.append("step \(n): \(s.id) output \(out) above system gain \(view.systemGain)")
                        }
                        if view.systemVolume == 0, out != 0 { v.append("step \(n): \(s.id) heard at volume 0") }
                    }
                }
            }
            for e in step.outcome.journal {
                guard case .volumeChanged(let target, let value) = e else { continue }
                let now = target == .system ? step.after.device.volume : step.after.device.ringerVolume
                let was = target == .system ? step.before.device.volume : step.before.device.ringerVolume
                if now != value || was == value { v.append("step \(n): \(e) but \(was) → \(now)") }
                if step.action == .volumeUp || step.action == .volumeDown {
                    if abs(now - was) > 1.0 / 16 + 1e-12 || (now * 16).rounded() != now * 16 {
                        v.append("step \(n): button step \(was) → \(now)")
                    }
                    if (step.action == .volumeUp) != (now > was) { v.append("step \(n): wrong direction") }
                    let heard =
                        step.before.callActive
                        || step.beforeView.sessions.contains { s in
                            s.isAudible && step.beforeView.sources.contains { $0.session == s.id && $0.isRunning }
                        }
                    if heard != (target == .system) { v.append("step \(n): button changed the \(target) volume") }
                }
            }
        }
        return v
    }

    /// Everything else that must always hold.
    static func coherence(_ t: Trace) -> [String] {
        var v: [String] = []
        var silenced = Set<String>()
        for (n, step) in t.steps.enumerated() {
            let a = step.after
            if let error = step.outcome.error {
                if a != step.before { v.append("step \(n) \(step.action): refused (\(error)) but the state changed") }
                let allowed = step.outcome.journal.allSatisfy {
                    if case .remoteCommand = $0 { return true }
                    if case .activationFailed(_, let e) = $0, case .rejectedByTable = e { return e == error }
                    if case .activationFailed(let session, let e) = $0 {
                        // Rule 2.3: refused during a call, or from the background over a playing session.
                        if case .cannotInterruptOthers = e {
                            return e == error && step.before.session(session)?.configuration.foreground == false
                        }
                        return e == error && step.before.callActive
                    }
                    return false
                }
                if !allowed { v.append("step \(n): refused with journal \(step.outcome.journal)") }
            }
            // A transientMayDuck request interrupts nobody: it may be active beside a non-mixable one.
            // Nor does an accessibility session, and only a call interrupts it.
            let activeSolo = a.sessions.filter {
                $0.phase == .active && !$0.isMixable && $0.focus != .transientMayDuck && !$0.configuration.accessibility
            }
            // (A `mix` row of the interaction table lets two of them play.)
            if activeSolo.count > 1, a.interactionList.isEmpty {
                v.append("step \(n) \(step.action): several non-mixable sessions active: \(activeSolo.map(\.id))")
            }
            for x in a.sources {
                let running = step.afterView.isRunning(x.id)
                if x.isPlaying, a.session(x.session)?.phase != .active { v.append("step \(n): \(x.id) plays in a session not active") }
                if running != x.isPlaying { v.append("step \(n): \(x.id) running \(running) playing \(x.isPlaying)") }
            }
            for s in a.sessions {
                if (s.phase == .interrupted) != (s.interruption != nil) || s.interruption?.causes.isEmpty == true {
                    v.append("step \(n): \(s.id) interruption bookkeeping \(s.phase) \(String(describing: s.interruption))")
                }
                if (s.phase == .inactive) != (s.activeCategory == nil) { v.append("step \(n): \(s.id) active category") }
            }
            for e in step.outcome.journal {
                switch e {
                case .silenced(let s, _, _):
                    if silenced.contains(s) { v.append("step \(n): \(s) silenced twice") }
                    silenced.insert(s)
                case .unsilenced(let s):
                    if !silenced.contains(s) { v.append("step \(n): \(s) unsilenced while not silenced") }
                    silenced.remove(s)
                default: break
                }
            }
            for s in step.afterView.sessions {
                let isSilenced: Bool
                if case .silenced = s.state { isSilenced = true } else { isSilenced = false }
                if isSilenced != silenced.contains(s.id) { v.append("step \(n): journal and view disagree on silence of \(s.id)") }
            }
            if step.afterView.systemSoundsAllowed == a.device.silentSwitch && !a.device.silentSwitch
                && !a.sessions.contains(where: { $0.phase == .active && ($0.category == .record || $0.focus == .transientExclusive) })
            {
                v.append("step \(n): system sounds not allowed for no reason")
            }
            if a.renderView != step.afterView { v.append("step \(n): the view is not a function of the state") }
        }
        return v
    }
}

// MARK: Properties

@Suite("properties over random action sequences")
struct PropertyTests {
    @Test("rule 3: every duck ends when its ducker deactivates")
    func ducksEnd() {
        checkTraces(
            "ducks", seed: 1, count: casesPerProperty, duckerRate: 0.6,
            weights: [.activate: 8, .deactivate: 5, .callBegin: 1, .callEnd: 1, .micMuted: 1, .setDuckingRules: 3, .setCategory: 2],
            Checks.ducks)
    }

    @Test("rule 2.7: call audio is never attenuated and nothing else is audible during a call")
    func callAlone() { checkTraces("call", seed: 2, count: casesPerProperty, Checks.call) }

    @Test("rule 2.8: a mic-muted session never restarts by itself")
    func micMutedStaysDown() { checkTraces("mic", seed: 3, count: 3 * casesPerProperty, Checks.micMuted) }

    @Test("rule 2: every interruptionBegan gets exactly one interruptionEnded or its session deactivates")
    func interruptionsPair() {
        checkTraces("interruptions", seed: 4, count: casesPerProperty, closing: true, Checks.interruptions)
    }

    @Test("rule 8: a remote command reaches only a session that listed it and never stops another session's audio")
    func remoteCommands() { checkTraces("remote", seed: 5, count: casesPerProperty, Checks.remote) }

    @Test("rule 6: the system volume is the last gain stage")
    func volumeLast() { checkTraces("volume", seed: 6, count: casesPerProperty, Checks.volume) }

    @Test("state, journal and view stay coherent; refused actions change nothing")
    func coherent() {
        checkTraces(
            "coherence", seed: 7, count: casesPerProperty, weights: [.voiceStolen: 1, .voiceRefused: 1, .setDuckingRules: 1],
            Checks.coherence)
    }

    @Test("the generated traces exercise the rules (so the properties are not vacuous)")
    func coverage() {
        var seen = Set<String>()
        for n in 0..<200 {
            var rng = seededRNG(99, n)
            let scenario = Worlds.scenario(weights: [.voiceStolen: 1, .voiceRefused: 1, .setDuckingRules: 1]).run(using: &rng)
            for step in Trace(scenario, scenario.actions + scenario.closing).steps {
                for e in step.outcome.journal {
                    seen.insert(e.type)
                    if case .interruptionBegan(_, let reason, _, _, _) = e { seen.insert("interruption." + reason.rawValue) }
                    if case .interruptionEnded(_, let resume) = e { seen.insert("ended.\(resume)") }
                    if case .duckingBegan(_, _, .rule) = e { seen.insert("duck.rule") }
                    if case .duckingBegan(_, _, .session) = e { seen.insert("duck.session") }
                }
                if let error = step.outcome.error { seen.insert("error." + error.code) }
            }
        }
        let wanted =
            JournalTests.samples.map(\.0.type)
            // `ducked` needs a session with pausesWhenDucked: the extended traces cover it.
            + InterruptionReason.allCases.filter { $0 != .ducked }.map { "interruption." + $0.rawValue }
            + [
                "ended.true", "ended.false", "error.insufficientPriority", "error.optionNotAllowed", "error.unknownSession",
                "error.unknownSource", "error.invalidDuckingRule", "duck.rule", "duck.session",
            ]
        #expect(Set(wanted).subtracting(seen).isEmpty, "never produced: \(Set(wanted).subtracting(seen).sorted())")
    }
}
