import Testing
import TuttiPolicy

/// The render view and the hints an action reports as changed (`applyTracked`) patch the view
/// before it into exactly the full recomputation after it, over random traces.
@Suite struct IncrementalViewTests {
    static func incrementalMatchesFull(_ t: Trace) -> [String] {
        var v: [String] = []
        var view = t.initial.renderView
        var hints = t.initial.hintPass().hints
        for (n, step) in t.steps.enumerated() {
            var state = step.before
            let (outcome, change) = state.applyTracked(step.action)
            if outcome != step.outcome { v.append("step \(n): applyTracked's outcome differs from apply's") }
            if state != step.after { v.append("step \(n): applyTracked's state differs from apply's") }
            let full = state.renderView
            let pass = state.hintPass()
            if change.isIncremental {
                view.apply(change)
                for (i, hint) in change.hints ?? [] { hints[i] = hint }
                // Every entry listed really changed or is listed once at most, ascending.
                let listed = (change.sessions ?? []).map(\.index)
                if listed != listed.sorted() || Set(listed).count != listed.count { v.append("step \(n): sessions not ascending") }
            } else {
                view = full
                hints = pass.hints
            }
            if view != full { v.append("step \(n) \(step.action): the patched view differs from the full one") }
            if hints != pass.hints { v.append("step \(n) \(step.action): the patched hints differ from the full pass") }
            if change.heardNonMixable != pass.heardNonMixable { v.append("step \(n): heardNonMixable differs") }
            if !state.derivedCacheIsConsistent { v.append("step \(n) \(step.action): the derived status kept differs from a full pass") }
            // The same step through the full pass (the reference): the same journal, state and change.
            var reference = step.before
            reference.alwaysDerivesInFull = true
            let (referenceOutcome, referenceChange) = reference.applyTracked(step.action)
            if referenceOutcome != outcome { v.append("step \(n) \(step.action): the journal differs from the full pass's") }
            if reference != state { v.append("step \(n) \(step.action): the state differs from the full pass's") }
            if referenceChange.isIncremental, change.isIncremental {
                if referenceChange.sessions?.map(\.index) != change.sessions?.map(\.index)
                    || referenceChange.sessions?.map(\.view) != change.sessions?.map(\.view)
                    || referenceChange.sources?.map(\.index) != change.sources?.map(\.index)
                    || referenceChange.sources?.map(\.view) != change.sources?.map(\.view)
                    || referenceChange.hints?.map(\.index) != change.hints?.map(\.index)
                    || referenceChange.hints?.map(\.hint) != change.hints?.map(\.hint)
                {
                    v.append("step \(n) \(step.action): the change listed differs from the full pass's")
                }
            }
            view = full
            hints = pass.hints
        }
        return v
    }

    @Test("incremental view == full view after every action (random traces)")
    func incrementalEqualsFull() {
        checkTraces("incremental", seed: 41, count: 3 * casesPerProperty, Self.incrementalMatchesFull)
    }

    @Test("incremental view == full view with many duckers (random traces)")
    func incrementalEqualsFullDucking() {
        checkTraces("incremental-ducking", seed: 42, count: casesPerProperty, duckerRate: 0.8, Self.incrementalMatchesFull)
    }

    @Test("an action on one of many sessions lists only what it changed")
    func oneSessionOfMany() throws {
        var state = try PolicyState(
            sessions: (0..<200).map { SessionConfiguration(id: "s\($0)", category: .ambient) },
            sources: (0..<200).map { SourceConfiguration(id: "t\($0)", session: "s\($0)") })
        for n in 0..<200 {
            let (outcome, change) = state.applyTracked(.play(source: "t\(n)"))
            #expect(outcome.succeeded)
            #expect(change.sessions?.map(\.index) == [n])
            #expect(change.sources?.map(\.index) == [n])
            #expect(change.sources?.first?.view.isRunning == true)
            #expect(change.hints?.isEmpty == true)
        }
        #expect(state.renderView.sources.allSatisfy { $0.isRunning })
    }

    @Test("activating and playing one of N sessions derives the status of that one only, for N up to 10 000")
    func workPerActionDoesNotGrow() throws {
        for n in [10, 1_000, 10_000] {
            var state = try PolicyState(
                sessions: (0..<n).map { SessionConfiguration(id: "s\($0)", category: .ambient) },
                sources: (0..<n).map { SourceConfiguration(id: "t\($0)", session: "s\($0)") })
            var most = 0
            for i in 0..<n {
                for action in [PolicyAction.activate(session: "s\(i)"), .play(source: "t\(i)")] {
                    let (outcome, change) = state.applyTracked(action)
                    #expect(outcome.succeeded)
                    // The first action takes the full pass (nothing is kept before it).
                    if i > 0 { most = max(most, state.lastActionSessionVisits) }
                    if i == n - 1, case .play = action { #expect(change.sources?.map(\.index) == [i]) }
                }
            }
            #expect(most == 1, "\(n) sessions: an action visited \(most)")
            let allActive = state.sessions.allSatisfy { $0.phase == .active }
            let allPlaying = state.sources.allSatisfy { $0.isPlaying }
            let allRunning = state.renderView.sources.allSatisfy { $0.isRunning }
            #expect(allActive && allPlaying && allRunning)
            #expect(state.derivedCacheIsConsistent)
        }
    }
}
