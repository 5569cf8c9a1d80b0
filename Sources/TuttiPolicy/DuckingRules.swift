// Ducking per rule (rule 3 refined): which duck settings apply when one session ducks another.

/// One side of a ducking rule: a session (by id) or every session of a category (the category
/// in force). Value type: any thread.
public enum DuckingTarget: Hashable, Sendable, CustomStringConvertible {
    /// The session with this id.
    case session(String)
    /// Every session whose category in force is this one.
    case category(Category)

    /// The id, or the category's name.
    public var description: String {
        switch self {
        case .session(let id): id
        case .category(let c): c.rawValue
        }
    }
}

/// What makes a rule's duck go down and come back. Value type: any thread.
public enum DuckingTrigger: Hashable, Sendable {
    /// The ducker's activation: ducked while the ducker is active (the default).
    case activation
    /// The ducker's bus level: while the rule applies (the ducker is active), the ducked side
    /// ducks when the ducker's bus level (mean square over 10 ms) is above `thresholdDB`
    /// (dBFS, −120…0) and releases once it has stayed below for `holdSeconds` (≥ 0).
    case signal(thresholdDB: Double, holdSeconds: Double)

    /// The signal threshold as a linear mean square (−40 dBFS: 1e-4); 0 for `activation`.
    public var thresholdMeanSquare: Double {
        guard case .signal(let dB, _) = self else { return 0 }
        let g = decibelsToGain(dB)
        return g * g
    }

    /// "activation" or "signal": the journal's `trigger`, the scene's `trigger`.
    public var name: String {
        switch self {
        case .activation: "activation"
        case .signal: "signal"
        }
    }
}

/// "When `by` ducks `duck`, use `settings`" (level in dB, attack and release in seconds).
/// Value type: any thread.
public struct DuckingRule: Hashable, Sendable {
    /// The ducker: a session with `duckOthers`, or a category of such sessions.
    public var by: DuckingTarget
    /// The ducked session, or a category of them.
    public var duck: DuckingTarget
    /// Level (−96…0 dB), attack and release (0…3600 s).
    public var settings: DuckingSettings
    /// What makes the duck go down: the ducker's activation (default) or its bus level.
    public var trigger: DuckingTrigger

    /// "When `by` ducks `duck`, use `settings`", on `trigger` (default: the ducker's activation).
    public init(by: DuckingTarget, duck: DuckingTarget, settings: DuckingSettings, trigger: DuckingTrigger = .activation) {
        self.by = by
        self.duck = duck
        self.settings = settings
        self.trigger = trigger
    }

    /// How specific the rule is, higher first: session/session, category/session,
    /// session/category, category/category. A rule that names the ducked session beats one
    /// that names only the ducker session (the level is about what is left of the ducked
    /// session, so its side counts first).
    public var specificity: Int {
        switch (by, duck) {
        case (.session, .session): 4
        case (.category, .session): 3
        case (.session, .category): 2
        case (.category, .category): 1
        }
    }
}

/// Where the settings of a duck came from: the `duckingBegan` journal entry's `rule`.
/// Value type: any thread.
public enum DuckingRuleReference: Hashable, Sendable, CustomStringConvertible {
    /// `rules[index]` of the engine's ducking rules.
    case rule(Int)
    /// The ducker's own `ducking` settings.
    case session
    /// The engine's default ducking.
    case engine

    /// The journal value: the rule's index, or "session" / "engine".
    public var journalValue: JournalValue {
        switch self {
        case .rule(let i): .number(Double(i))
        case .session: .string("session")
        case .engine: .string("engine")
        }
    }

    /// "rule 2", "the ducker's own settings", "the engine default".
    public var description: String {
        switch self {
        case .rule(let i): "rule \(i)"
        case .session: "the ducker's own settings"
        case .engine: "the engine default"
        }
    }
}

/// The duck in force on one session: who ducks it, with which settings, from which rule.
/// Value type: any thread.
struct DuckChoice: Hashable, Sendable {
    /// The ducker's index in `PolicyState.sessions`.
    var ducker: Int
    var settings: DuckingSettings
    var rule: DuckingRuleReference
    var trigger: DuckingTrigger = .activation
}

/// The rules, indexed for lookup by (ducker side, ducked side). Value type: any thread.
struct DuckingRuleBook: Hashable, Sendable {
    struct Key: Hashable {
        var by: DuckingTarget
        var duck: DuckingTarget
    }

    private(set) var rules: [DuckingRule] = []
    private var index: [Key: Int] = [:]
    /// Sessions some rule names on its `duck` side (they need their own resolution).
    private(set) var duckedSessions: Set<String> = []

    init() {}

    /// Throws `invalidDuckingRule` for the first bad rule: a level outside −96…0 dB, a time
    /// outside 0…3600 s or not finite, a signal threshold outside −120…0 dBFS, the same session on both sides, two rules for the
    /// same pair, or a session not in `sessions`.
    init(_ rules: [DuckingRule], sessions: Set<String>) throws(PolicyError) {
        for (i, r) in rules.enumerated() {
            let s = r.settings
            guard s.levelDB.isFinite, s.levelDB >= -96, s.levelDB <= 0 else {
                throw .invalidDuckingRule(index: i, field: "level", message: "must be in −96…0 dB, got \(s.levelDB)")
            }
            for (field, t) in [("attack", s.attackSeconds), ("release", s.releaseSeconds)] where !(t.isFinite && t >= 0 && t <= 3600) {
                throw .invalidDuckingRule(index: i, field: field, message: "must be in 0…3600 s, got \(t)")
            }
            if case .signal(let threshold, let hold) = r.trigger {
                guard threshold.isFinite, threshold >= -120, threshold <= 0 else {
                    throw .invalidDuckingRule(index: i, field: "threshold", message: "must be in −120…0 dBFS, got \(threshold)")
                }
                guard hold.isFinite, hold >= 0, hold <= 3600 else {
                    throw .invalidDuckingRule(index: i, field: "hold", message: "must be in 0…3600 s, got \(hold)")
                }
            }
            for (field, side) in [("by", r.by), ("duck", r.duck)] {
                if case .session(let id) = side, !sessions.contains(id) {
                    throw .invalidDuckingRule(index: i, field: field, message: "unknown session \"\(id)\"")
                }
            }
            if case .session(let a) = r.by, case .session(let b) = r.duck, a == b {
                throw .invalidDuckingRule(index: i, field: "duck", message: "a session cannot duck itself (\"\(a)\" on both sides)")
            }
            let key = Key(by: r.by, duck: r.duck)
            if let earlier = index[key] {
                throw .invalidDuckingRule(
                    index: i, field: "", message: "rules[\(earlier)] already covers by \"\(r.by)\", duck \"\(r.duck)\"")
            }
            index[key] = i
            if case .session(let id) = r.duck { duckedSessions.insert(id) }
        }
        self.rules = rules
    }

    var isEmpty: Bool { rules.isEmpty }

    func lookup(by: DuckingTarget, duck: DuckingTarget) -> Int? { index[Key(by: by, duck: duck)] }
}

extension PolicyState {
    /// The settings `ducker` uses on a session with id `duckedID` (nil: any session of the
    /// category that no rule names) in category `duckedCategory`: the most specific rule,
    /// else the ducker's own `ducking`, else the engine's.
    func duckChoice(ducker d: Int, duckedID: String?, duckedCategory: Category) -> DuckChoice {
        if !duckingRules.isEmpty {
            let bySession = DuckingTarget.session(sessions[d].id)
            let byCategory = DuckingTarget.category(sessions[d].category)
            var keys: [(DuckingTarget, DuckingTarget)] = []
            if let duckedID { keys += [(bySession, .session(duckedID)), (byCategory, .session(duckedID))] }
            keys += [(bySession, .category(duckedCategory)), (byCategory, .category(duckedCategory))]
            for (by, duck) in keys {
                if let i = duckingRules.lookup(by: by, duck: duck) {
                    return DuckChoice(
                        ducker: d, settings: duckingRules.rules[i].settings, rule: .rule(i), trigger: duckingRules.rules[i].trigger)
                }
            }
        }
        if let own = sessions[d].configuration.ducking { return DuckChoice(ducker: d, settings: own, rule: .session) }
        return DuckChoice(ducker: d, settings: engineDucking, rule: .engine)
    }

    /// Of the active duckers, the one whose duck on (`duckedID`, `duckedCategory`) goes
    /// deepest; ties go to the earliest activation. O(duckers).
    func strongestDuck(_ duckers: [Int], duckedID: String?, duckedCategory: Category) -> DuckChoice? {
        var best: DuckChoice?
        for d in duckers {
            let c = duckChoice(ducker: d, duckedID: duckedID, duckedCategory: duckedCategory)
            guard let b = best else {
                best = c
                continue
            }
            let (lc, lb) = (c.settings.levelDB, b.settings.levelDB)
            if lc < lb || (lc == lb && sessions[d].activationSerial < sessions[b.ducker].activationSerial) { best = c }
        }
        return best
    }
}
