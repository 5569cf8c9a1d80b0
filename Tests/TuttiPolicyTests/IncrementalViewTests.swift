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
}
