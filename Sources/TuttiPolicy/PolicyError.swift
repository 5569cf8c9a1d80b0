/// Why an action was refused; the state is then unchanged.
/// Value type: any thread.
public enum PolicyError: Error, Hashable, Sendable {
    /// Activation while a phone call is in progress (§2.3).
    case insufficientPriority(session: String)
    /// A session in the background whose activation would interrupt a session that is
    /// playing (§2.3; AVAudioSession's `cannotInterruptOthers`).
    case cannotInterruptOthers(session: String, playing: String)
    /// An option the category does not allow (§1).
    case optionNotAllowed(session: String, category: Category, option: CategoryOption)
    /// No session has this id.
    case unknownSession(String)
    /// No source has this id.
    case unknownSource(String)
    /// A session with this id exists already.
    case duplicateSession(String)
    /// A source with this id exists already.
    case duplicateSource(String)
    /// A volume that is not a number.
    case invalidValue(name: String, value: Double)
    /// `rules[index]` of the ducking rules is not valid; `field` is `by`, `duck`, `level`,
    /// `attack`, `release` or empty (the whole rule).
    case invalidDuckingRule(index: Int, field: String, message: String)
    /// A setting of session `session` that does not fit the rest of it; `field` names it
    /// (e.g. `acceptsDelayedActivation` on an `ambient` session).
    case invalidSessionSetting(session: String, field: String, message: String)
    /// `interactions[index]` is not valid; `field` is `active`, `incoming` or empty (the whole row).
    case invalidInteraction(index: Int, field: String, message: String)
    /// The interaction table's `rules[rule]` rejects `session`'s activation while `active` is
    /// active; nothing changed.
    case rejectedByTable(session: String, active: String, rule: Int)

    /// Short machine code (the `error` field of `activationFailed`).
    public var code: String {
        switch self {
        case .insufficientPriority: return "insufficientPriority"
        case .cannotInterruptOthers: return "cannotInterruptOthers"
        case .optionNotAllowed: return "optionNotAllowed"
        case .unknownSession: return "unknownSession"
        case .unknownSource: return "unknownSource"
        case .duplicateSession: return "duplicateSession"
        case .duplicateSource: return "duplicateSource"
        case .invalidValue: return "invalidValue"
        case .invalidDuckingRule: return "invalidDuckingRule"
        case .invalidSessionSetting: return "invalidSessionSetting"
        case .invalidInteraction: return "invalidInteraction"
        case .rejectedByTable: return "rejectedByTable"
        }
    }
}

extension PolicyError: CustomStringConvertible {
    /// A sentence naming the session, source or field and the rule, for the host's message.
    public var description: String {
        switch self {
        case .insufficientPriority(let session):
            return "session \"\(session)\" cannot be activated while a phone call is in progress (insufficientPriority)"
        case .cannotInterruptOthers(let session, let playing):
            return
                "session \"\(session)\" is in the background and its activation would interrupt \"\(playing)\", which is playing (cannotInterruptOthers): a background app may only start mixable audio"
        case .optionNotAllowed(let session, let category, let option):
            return "session \"\(session)\": option \"\(option.rawValue)\" is not allowed with category \"\(category.rawValue)\""
        case .unknownSession(let id):
            return "unknown session \"\(id)\""
        case .unknownSource(let id):
            return "unknown source \"\(id)\""
        case .duplicateSession(let id):
            return "duplicate session id \"\(id)\""
        case .duplicateSource(let id):
            return "duplicate source id \"\(id)\""
        case .invalidValue(let name, let value):
            return "invalid \(name) \(value): expected " + (name == "lossFade" ? "0…10 s" : "a number in 0…1")
        case .invalidDuckingRule(let index, let field, let message):
            return "ducking rules[\(index)]\(field.isEmpty ? "" : ".\(field)"): \(message)"
        case .invalidSessionSetting(let session, let field, let message):
            return "session \"\(session)\": \(field): \(message)"
        case .invalidInteraction(let index, let field, let message):
            return "interactions[\(index)]\(field.isEmpty ? "" : ".\(field)"): \(message)"
        case .rejectedByTable(let session, let active, let rule):
            return
                "session \"\(session)\" cannot be activated while \"\(active)\" is active: interactions[\(rule)] rejects it (rejectedByTable)"
        }
    }
}
