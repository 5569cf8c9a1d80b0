/// Every event of a scene that the policy decides on, plus the host's decisions.
/// Gains (`setGain`) are not policy: the renderer applies them directly.
/// Value type: any thread.
public enum PolicyAction: Hashable, Sendable {
    // Session.
    case activate(session: String)
    case deactivate(session: String, notifyOthers: Bool = false)
    /// Options omitted in the scene mean none, as on iOS; a nil mode keeps the session's mode.
    case setCategory(session: String, category: Category, mode: Mode? = nil, options: Set<CategoryOption> = [])
    case foreground(session: String)
    case background(session: String)
    /// Host decision after an interruption (for `autoResume: false`): activate
    /// and play what was playing when it was interrupted.
    case resume(session: String)
    /// Which remote commands the session answers from now on (rule 8: accept remote events
    /// only while the user is in an audio context).
    case setRemoteCommands(session: String, commands: Set<RemoteCommand>)
    /// Take the session and its sources out of the policy: it deactivates first (without
    /// notifying others), so whatever it interrupted is released.
    case removeSession(session: String)

    // Source.
    case play(source: String)
    case pause(source: String)
    /// Pauses and rewinds.
    case stop(source: String)
    /// Reported by the renderer when a non-looping file source reaches its end.
    case sourceEnded(source: String)
    /// Take the source out of the policy (it stops being part of its session).
    case removeSource(source: String)
    /// Reported by the renderer: a voice limit took `source`'s voice for `by` (it stopped
    /// and rewound).
    case voiceStolen(source: String, by: String)
    /// Reported by the renderer: `source` did not start (a voice limit, every voice in its
    /// scope of a higher priority).
    case voiceRefused(source: String)

    // Engine settings.
    /// Replace the ducking rules (validated: levels −96…0 dB, times 0…3600 s, sessions that
    /// exist, one rule per pair). Sessions ducked now move to their new settings.
    case setDuckingRules([DuckingRule])

    // Device.
    case silentSwitch(Bool)
    case lock
    case unlock
    case volume(Double)
    case ringerVolume(Double)
    case volumeUp
    case volumeDown
    /// nil reason: the scene format's default (see `RouteChangeReason.default`).
    case route(Route, reason: RouteChangeReason? = nil)
    case micMuted(Bool)

    // System.
    case phoneCallBegin
    case phoneCallEnd
    case systemSound(name: String)
    case remote(RemoteCommand)
}
