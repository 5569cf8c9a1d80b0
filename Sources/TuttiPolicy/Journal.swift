/// A field value of a journal entry, enough to write JSON without knowing the case
/// (the events log writer is TuttiScene's `LogEntry`).
/// Value type: any thread.
public enum JournalValue: Hashable, Sendable {
    /// A JSON string.
    case string(String)
    /// A JSON number (volumes 0…1, counts).
    case number(Double)
    /// A JSON boolean.
    case bool(Bool)
    /// JSON null (an absent `by`).
    case null
    /// A JSON array of strings (the `clients` of `otherAudioChanged`).
    case strings([String])
}

/// Why an activation was delayed (the `reason` of `activationDelayed`). Value type: any thread.
public enum ActivationDelayReason: String, CaseIterable, Sendable, Hashable {
    /// A phone call is in progress; the activation is granted when it ends.
    case phoneCall
}

/// One policy decision, one case per type of the events log (scene-format.md).
/// The writer adds `frame` and `time`. Value type: any thread.
public enum JournalEntry: Hashable, Sendable {
    /// `session` became active in `category` (its configured one or `categoryWhenOtherAudioPlaying`),
    /// with the focus it asked for (the `focus` field is written only when it is not `gain`).
    case sessionActivated(session: String, category: Category, focus: FocusRequest = .gain)
    /// `session` was deactivated; with `notifyOthers` the sessions it interrupted got their end.
    case sessionDeactivated(session: String, notifyOthers: Bool)
    /// Activating `session` was refused with `error`; nothing else changed.
    case activationFailed(session: String, error: PolicyError)
    /// `by` is the interrupting session, nil for the phone call and the microphone.
    /// `transient`: the interrupter asked for the output only for a while (focus `transient`
    /// or `transientExclusive`); the field is written only when true. `fadeSeconds`: the loss
    /// fade (`lossFade`) it fades out over before its sources pause; written (`fade`) when > 0.
    case interruptionBegan(session: String, reason: InterruptionReason, by: String?, transient: Bool = false, fadeSeconds: Double = 0)
    /// The interruption of `session` ended; `shouldResume` is the hint a media player acts on.
    case interruptionEnded(session: String, shouldResume: Bool)
    /// `rule`: where the duck's settings came from (a rule's index, the ducker's own, the engine's).
    case duckingBegan(session: String, by: String, rule: DuckingRuleReference)
    /// `session` is no longer ducked (its gain ramps back over the release time).
    case duckingEnded(session: String)
    /// A rule with trigger `signal` ducked `session`: `by`'s bus level went above the rule's
    /// threshold (type `duckingBegan`, with `"trigger": "signal"`).
    case signalDuckingBegan(session: String, by: String, rule: DuckingRuleReference)
    /// A signal-triggered duck of `session` ended: `by`'s level stayed below the threshold for
    /// the hold time, or the rule stopped applying (type `duckingEnded`, with `"trigger": "signal"`).
    case signalDuckingEnded(session: String)
    /// `session`'s sources keep advancing but are no longer heard. `fadeSeconds`: the loss
    /// fade when another session's activation silenced it (a recording); written (`fade`) when > 0.
    case silenced(session: String, reason: SilenceReason, fadeSeconds: Double = 0)
    /// `session` is heard again.
    case unsilenced(session: String)
    /// The output moved from `previous` to `current`.
    case routeChange(reason: RouteChangeReason, previous: Route, current: Route)
    /// `source` started playing.
    case sourceStarted(source: String, reason: SourceStartReason)
    /// `source` paused (for `stop` it also rewound).
    case sourcePaused(source: String, reason: SourcePauseReason)
    /// A non-looping `source` reached its end.
    case sourceEnded(source: String)
    /// The renderer took `source`'s voice for `by` (a voice limit; it stopped and rewound).
    case voiceStolen(source: String, by: String)
    /// The renderer did not start `source`: a voice limit was reached and every playing voice
    /// in its scope has a higher priority.
    case voiceRefused(source: String)
    /// The remote `command` went to `session` (§8).
    case remoteCommand(command: RemoteCommand, session: String)
    /// No session answers the remote `command`.
    case remoteCommandUnhandled(command: RemoteCommand)
    /// The system sound `sound` was heard.
    case systemSoundPlayed(sound: String)
    /// The system sound `sound` became a vibration (the silent switch is on).
    case vibrate(sound: String)
    /// The system sound `sound` was dropped (a recording is in progress).
    case systemSoundSuppressed(sound: String, reason: SilenceReason)
    /// The system or ringer volume is now `value` (0…1).
    case volumeChanged(target: VolumeTarget, value: Double)
    /// The activation of `session` (with `acceptsDelayedActivation`) came during a phone
    /// call: it is granted when the call ends, unless it is deactivated first.
    case activationDelayed(session: String, reason: ActivationDelayReason)
    /// The delayed activation of `session` is granted (the call ended): it activates now.
    case activationGranted(session: String)
    /// The delayed activation of `session` was given up (it was deactivated or removed).
    case activationCancelled(session: String)
    /// Other apps' audio changed (``PolicyAction/otherAudio(_:)``): whether any plays, whether
    /// one is not mixable (`silenceSecondary`), and which apps (`clients`).
    case otherAudioChanged(playing: Bool, silenceSecondary: Bool, clients: [String])

    /// The `type` of the JSON line.
    public var type: String {
        switch self {
        case .sessionActivated: return "sessionActivated"
        case .sessionDeactivated: return "sessionDeactivated"
        case .activationFailed: return "activationFailed"
        case .interruptionBegan: return "interruptionBegan"
        case .interruptionEnded: return "interruptionEnded"
        case .duckingBegan: return "duckingBegan"
        case .duckingEnded: return "duckingEnded"
        case .signalDuckingBegan: return "duckingBegan"
        case .signalDuckingEnded: return "duckingEnded"
        case .silenced: return "silenced"
        case .unsilenced: return "unsilenced"
        case .routeChange: return "routeChange"
        case .sourceStarted: return "sourceStarted"
        case .sourcePaused: return "sourcePaused"
        case .sourceEnded: return "sourceEnded"
        case .voiceStolen: return "voiceStolen"
        case .voiceRefused: return "voiceRefused"
        case .remoteCommand: return "remoteCommand"
        case .remoteCommandUnhandled: return "remoteCommandUnhandled"
        case .systemSoundPlayed: return "systemSoundPlayed"
        case .vibrate: return "vibrate"
        case .systemSoundSuppressed: return "systemSoundSuppressed"
        case .volumeChanged: return "volumeChanged"
        case .activationDelayed: return "activationDelayed"
        case .activationGranted: return "activationGranted"
        case .activationCancelled: return "activationCancelled"
        case .otherAudioChanged: return "otherAudioChanged"
        }
    }

    /// The fields after `type`, in the order of the events log table in docs/scene-format.md.
    public var fields: [(key: String, value: JournalValue)] {
        func s(_ v: String) -> JournalValue { .string(v) }
        switch self {
        case .sessionActivated(let session, let category, let focus):
            let base: [(key: String, value: JournalValue)] = [("session", s(session)), ("category", s(category.rawValue))]
            return focus == .gain ? base : base + [("focus", s(focus.rawValue))]
        case .sessionDeactivated(let session, let notifyOthers):
            return [("session", s(session)), ("notifyOthers", .bool(notifyOthers))]
        case .activationFailed(let session, let error):
            return [("session", s(session)), ("error", s(error.code))]
        case .interruptionBegan(let session, let reason, let by, let transient, let fade):
            var out: [(key: String, value: JournalValue)] = [
                ("session", s(session)), ("reason", s(reason.rawValue)), ("by", by.map(s) ?? .null),
            ]
            if transient { out.append(("transient", .bool(true))) }
            if fade > 0 { out.append(("fade", .number(fade))) }
            return out
        case .interruptionEnded(let session, let shouldResume):
            return [("session", s(session)), ("shouldResume", .bool(shouldResume))]
        case .duckingBegan(let session, let by, let rule):
            return [("session", s(session)), ("by", s(by)), ("rule", rule.journalValue)]
        case .duckingEnded(let session):
            return [("session", s(session))]
        case .signalDuckingBegan(let session, let by, let rule):
            return [("session", s(session)), ("by", s(by)), ("rule", rule.journalValue), ("trigger", s("signal"))]
        case .signalDuckingEnded(let session):
            return [("session", s(session)), ("trigger", s("signal"))]
        case .silenced(let session, let reason, let fade):
            let base: [(key: String, value: JournalValue)] = [("session", s(session)), ("reason", s(reason.rawValue))]
            return fade > 0 ? base + [("fade", .number(fade))] : base
        case .unsilenced(let session):
            return [("session", s(session))]
        case .routeChange(let reason, let previous, let current):
            return [("reason", s(reason.rawValue)), ("previous", s(previous.rawValue)), ("current", s(current.rawValue))]
        case .sourceStarted(let source, let reason):
            return [("source", s(source)), ("reason", s(reason.rawValue))]
        case .sourcePaused(let source, let reason):
            return [("source", s(source)), ("reason", s(reason.rawValue))]
        case .sourceEnded(let source), .voiceRefused(let source):
            return [("source", s(source))]
        case .voiceStolen(let source, let by):
            return [("source", s(source)), ("by", s(by))]
        case .remoteCommand(let command, let session):
            return [("command", s(command.rawValue)), ("session", s(session))]
        case .remoteCommandUnhandled(let command):
            return [("command", s(command.rawValue))]
        case .systemSoundPlayed(let sound), .vibrate(let sound):
            return [("sound", s(sound))]
        case .systemSoundSuppressed(let sound, let reason):
            return [("sound", s(sound)), ("reason", s(reason.rawValue))]
        case .volumeChanged(let target, let value):
            return [("target", s(target.rawValue)), ("value", .number(value))]
        case .activationDelayed(let session, let reason):
            return [("session", s(session)), ("reason", s(reason.rawValue))]
        case .activationGranted(let session), .activationCancelled(let session):
            return [("session", s(session))]
        case .otherAudioChanged(let playing, let silenceSecondary, let clients):
            return [("playing", .bool(playing)), ("silenceSecondary", .bool(silenceSecondary)), ("clients", .strings(clients))]
        }
    }

    /// The session the entry is about, if any (for filtering a log per session).
    public var session: String? {
        switch self {
        case .sessionActivated(let s, _, _), .sessionDeactivated(let s, _), .activationFailed(let s, _),
            .interruptionBegan(let s, _, _, _, _), .interruptionEnded(let s, _), .duckingBegan(let s, _, _),
            .duckingEnded(let s), .signalDuckingBegan(let s, _, _), .signalDuckingEnded(let s), .silenced(let s, _, _), .unsilenced(let s),
            .remoteCommand(_, let s),
            .activationDelayed(let s, _), .activationGranted(let s), .activationCancelled(let s):
            return s
        default:
            return nil
        }
    }
}

extension JournalEntry: CustomStringConvertible {
    /// `type(field: value, ...)`, for logs and test failures.
    public var description: String {
        type + "(" + fields.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
    }
}

extension JournalValue: CustomStringConvertible {
    /// The value as JSON text.
    public var description: String {
        switch self {
        case .string(let s): return s.debugDescription
        case .number(let n): return "\(n)"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .strings(let a): return "[" + a.map(\.debugDescription).joined(separator: ", ") + "]"
        }
    }
}
