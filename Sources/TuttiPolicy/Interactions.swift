// The interaction table (issue 22): what happens to an active session when another activates,
// per pair of sessions or categories, over the built-in rules.

/// What happens to the active session of a pair when the incoming one activates.
/// Value type: any thread.
public enum InteractionOutcome: String, CaseIterable, Sendable, Hashable {
    /// Both play: the active session is neither interrupted nor ducked nor silenced by it.
    case mix
    /// The active session is ducked while the incoming one is active (rule 3's settings).
    case duck
    /// The active session is interrupted (reason `otherSession`), mixable or not.
    case interrupt
    /// The incoming activation fails (`rejectedByTable`); nothing changes.
    case reject
    /// The active session is silenced (reason `interaction`) while the incoming one is active.
    case silence
}

/// "When `incoming` activates while `active` is active: `outcome`". Each side is a session
/// (by id) or a category (the category in force). Value type: any thread.
public struct InteractionRule: Hashable, Sendable {
    /// The session that is active, or a category of them.
    public var active: DuckingTarget
    /// The session that activates, or a category of them.
    public var incoming: DuckingTarget
    /// What happens to the active one.
    public var outcome: InteractionOutcome

    /// "When `incoming` activates while `active` is active: `outcome`".
    public init(active: DuckingTarget, incoming: DuckingTarget, outcome: InteractionOutcome) {
        self.active = active
        self.incoming = incoming
        self.outcome = outcome
    }

    /// How specific the rule is, higher first: session/session, session/category (the active
    /// session named), category/session, category/category.
    public var specificity: Int {
        switch (active, incoming) {
        case (.session, .session): 4
        case (.session, .category): 3
        case (.category, .session): 2
        case (.category, .category): 1
        }
    }
}

/// The rules, indexed by (active side, incoming side). Value type: any thread.
struct InteractionTable: Hashable, Sendable {
    struct Key: Hashable {
        var active: DuckingTarget
        var incoming: DuckingTarget
    }

    private(set) var rules: [InteractionRule] = []
    private var index: [Key: Int] = [:]

    init() {}

    /// Throws `invalidInteraction` for the first bad rule: a session not in `sessions`, the
    /// same session on both sides, or two rules for the same pair.
    init(_ rules: [InteractionRule], sessions: Set<String>) throws(PolicyError) {
        for (i, r) in rules.enumerated() {
            for (field, side) in [("active", r.active), ("incoming", r.incoming)] {
                if case .session(let id) = side, !sessions.contains(id) {
                    throw .invalidInteraction(index: i, field: field, message: "unknown session \"\(id)\"")
                }
            }
            if case .session(let a) = r.active, case .session(let b) = r.incoming, a == b {
                throw .invalidInteraction(index: i, field: "incoming", message: "a session does not meet itself (\"\(a)\" on both sides)")
            }
            let key = Key(active: r.active, incoming: r.incoming)
            if let earlier = index[key] {
                throw .invalidInteraction(
                    index: i, field: "",
                    message: "interactions[\(earlier)] already covers active \"\(r.active)\", incoming \"\(r.incoming)\"")
            }
            index[key] = i
        }
        self.rules = rules
    }

    var isEmpty: Bool { rules.isEmpty }

    /// The most specific rule for `active` (id, category in force) meeting `incoming`.
    func lookup(active: String, _ activeCategory: Category, incoming: String, _ incomingCategory: Category) -> Int? {
        guard !rules.isEmpty else { return nil }
        let keys: [(DuckingTarget, DuckingTarget)] = [
            (.session(active), .session(incoming)), (.session(active), .category(incomingCategory)),
            (.category(activeCategory), .session(incoming)), (.category(activeCategory), .category(incomingCategory)),
        ]
        for (a, b) in keys {
            if let i = index[Key(active: a, incoming: b)] { return i }
        }
        return nil
    }
}

extension PolicyState {
    /// The interaction rules in force, in the order given (their indices are what `explain`
    /// names).
    public var interactionList: [InteractionRule] { interactions.rules }

    /// The index of the rule that decides what happens to session `active` while session
    /// `incoming` (which activated after it) is active; nil: the built-in rules decide.
    public func interactionRule(active: String, incoming: String) -> Int? {
        guard let a = sessionIndex[active], let b = sessionIndex[incoming] else { return nil }
        return interactionRule(a, b)
    }

    func interactionRule(_ a: Int, _ b: Int, incomingCategory: Category? = nil) -> Int? {
        interactions.lookup(
            active: sessions[a].id, sessions[a].category, incoming: sessions[b].id, incomingCategory ?? sessions[b].category)
    }

    /// The table's outcome for active `a` and `b`, when `b` is active and activated after `a`.
    func tableOutcome(_ a: Int, by b: Int) -> (outcome: InteractionOutcome, rule: Int)? {
        guard !interactions.isEmpty, a != b, sessions[b].phase == .active,
            sessions[b].activationSerial > sessions[a].activationSerial, let k = interactionRule(a, b)
        else { return nil }
        return (interactions.rules[k].outcome, k)
    }

    /// Whether `b` ducks `a` now: the table's row for the pair when there is one (b activated
    /// after a), else the built-in rule (b ducks others).
    func ducks(_ b: Int, _ a: Int) -> Bool {
        guard a != b, sessions[b].phase == .active else { return false }
        if let t = tableOutcome(a, by: b) { return t.outcome == .duck }
        return sessions[b].ducksOthers
    }

    /// The session that silences `a` by the table (row `silence`), if any: the first in
    /// registration order.
    func tableSilencer(_ a: Int) -> Int? {
        guard !interactions.isEmpty else { return nil }
        return sessions.indices.first { b in tableOutcome(a, by: b)?.outcome == .silence }
    }

    /// Who silences session `id` by the interaction table, and by which rule (the reason
    /// `interaction`); nil when the table does not silence it.
    public func tableSilence(of id: String) -> (by: String, rule: Int)? {
        guard let a = sessionIndex[id], let b = tableSilencer(a), let t = tableOutcome(a, by: b) else { return nil }
        return (sessions[b].id, t.rule)
    }
}
