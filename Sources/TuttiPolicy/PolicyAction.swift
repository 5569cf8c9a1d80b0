/// Every event of a scene that the policy decides on, plus the host's decisions.
/// Gains (`setGain`) are not policy: the renderer applies them directly.
/// Value type: any thread.
public enum PolicyAction: Hashable, Sendable {
    // Session.
    /// Activate the session (§2): may interrupt or duck others, or be refused (or, for a
    /// session with `acceptsDelayedActivation`, delayed until the call ends). `focus` says
    /// how long and how exclusively it needs the output (`gain`: the rules as they are).
    case activate(session: String, focus: FocusRequest = .gain)
    /// Deactivate the session; `notifyOthers` ends the interruptions it caused (§2.3).
    case deactivate(session: String, notifyOthers: Bool = false)
    /// Options omitted in the scene mean none, as on iOS; a nil mode keeps the session's mode.
    case setCategory(session: String, category: Category, mode: Mode? = nil, options: Set<CategoryOption> = [])
    /// The session's app came to the foreground.
    case foreground(session: String)
    /// The session's app went to the background (silences `soloAmbient`/`ambient`).
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
    /// Start the source (activating its session if needed).
    case play(source: String)
    /// Pause the source where it is.
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
    /// Replace the interaction table (validated: sessions that exist, not the same session on
    /// both sides, one row per pair). Ducks and silences it decides change at once;
    /// interruptions are decided at activations only.
    case setInteractions([InteractionRule])

    // Device.
    /// Turn the silent switch on or off.
    case silentSwitch(Bool)
    /// Lock the device.
    case lock
    /// Unlock the device.
    case unlock
    /// Set the system volume (0…1, clamped; NaN is refused).
    case volume(Double)
    /// Set the ringer volume (0…1, clamped; NaN is refused).
    case ringerVolume(Double)
    /// One step (1/16) up: the system volume while something is heard or a call is on,
    /// else the ringer volume.
    case volumeUp
    /// One step (1/16) down, chosen like ``volumeUp``.
    case volumeDown
    /// nil reason: the scene format's default (see `RouteChangeReason.default`).
    case route(Route, reason: RouteChangeReason? = nil)
    /// Mute or unmute the built-in microphone (muting interrupts capturing sessions, §2.8).
    case micMuted(Bool)
    /// Other apps' audio changed (rule 10): journals `otherAudioChanged` when it differs from
    /// what it was.
    case otherAudio(OtherAudio)

    // System.
    /// A phone call begins: it interrupts every session (§2.3).
    case phoneCallBegin
    /// The phone call ends: interrupted sessions get their end and may resume.
    case phoneCallEnd
    /// Play the system sound `name` (or vibrate, or suppress it).
    case systemSound(name: String)
    /// A remote command from a headset or the control centre (§8).
    case remote(RemoteCommand)
}
