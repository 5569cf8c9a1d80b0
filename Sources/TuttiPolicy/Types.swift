// Vocabulary of the policy: categories, options, modes, device values.
// Raw values are the exact strings of the scene format and the events log.

/// Audio session category (§1; the table in docs/policy.md, "Categories"). Value type: any thread.
public enum Category: String, CaseIterable, Sendable, Hashable {
    /// The categories of §1: `soloAmbient` (the default) and `ambient` are silenced by the switch,
    /// lock and background (`ambient` mixes); `playback`, `playAndRecord` and `multiRoute` play on
    /// in the background; `record` and `audioProcessing` have no output.
    case soloAmbient, ambient, playback, record, playAndRecord, audioProcessing, multiRoute

    /// Silenced by the silent switch, by lock and in background (§1, §4).
    public var isSilencedBySwitchAndLock: Bool { self == .ambient || self == .soloAmbient }
    /// Captures input, so a muted microphone interrupts it (§2.8).
    public var capturesInput: Bool { self == .record || self == .playAndRecord || self == .multiRoute }
    /// Sends its sources to the output (record and audioProcessing do not).
    public var hasOutput: Bool { self != .record && self != .audioProcessing }
    /// Its playing sources pause when a device goes away (§7).
    public var pausesOnOldDeviceUnavailable: Bool { self == .playback || self == .playAndRecord }

    /// Whether `option` may be combined with this category (iOS rules; see docs/policy.md).
    public func allows(_ option: CategoryOption) -> Bool {
        switch option {
        case .mixWithOthers:
            // ambient already mixes, so saying it again is harmless.
            return self == .playback || self == .playAndRecord || self == .multiRoute || self == .ambient
        case .duckOthers, .interruptSpokenAudioAndMixWithOthers:
            return self == .playback || self == .playAndRecord || self == .multiRoute
        case .allowBluetooth:
            return self == .record || self == .playAndRecord
        case .defaultToSpeaker:
            return self == .playAndRecord
        }
    }
}

/// Category option (§1 of docs/policy.md). Value type: any thread.
public enum CategoryOption: String, CaseIterable, Sendable, Hashable {
    /// `mixWithOthers` makes the session mixable; `duckOthers` also ducks the others while it is
    /// active (§3); `interruptSpokenAudioAndMixWithOthers` also interrupts `spokenAudio` sessions
    /// (§2.6); `allowBluetooth` and `defaultToSpeaker` are route hints the policy only checks.
    /// ``Category/allows(_:)`` says which fit a category.
    case mixWithOthers, duckOthers, interruptSpokenAudioAndMixWithOthers, allowBluetooth, defaultToSpeaker

    /// Options that make a session mixable (the last two imply mixWithOthers).
    public var impliesMixWithOthers: Bool {
        self == .mixWithOthers || self == .duckOthers || self == .interruptSpokenAudioAndMixWithOthers
    }
}

/// Session mode; only `spokenAudio` changes policy (§2.6). Value type: any thread.
public enum Mode: String, CaseIterable, Sendable, Hashable {
    /// The modes of iOS audio sessions; all but `spokenAudio` (which a session with
    /// `interruptSpokenAudioAndMixWithOthers` interrupts, §2.6) are only carried for the host.
    case `default`, spokenAudio, voiceChat, videoChat, gameChat, measurement, moviePlayback, voicePrompt
}

/// How long and how exclusively an activation needs the output (Android's audio focus
/// requests). Off by default: `gain` is the seeds' and Apple's activation. Value type: any thread.
public enum FocusRequest: String, CaseIterable, Sendable, Hashable {
    /// Rules 2.1 and 2.6 as they are (the default).
    case gain
    /// Interrupts like `gain`, but the sessions it interrupts get `interruptionBegan` with
    /// `transient: true`, and when it deactivates their interruption ends with
    /// `shouldResume: true` whether or not it notified others.
    case transient
    /// Interrupts nobody: while it is active every other audible session is ducked (by the
    /// ducking rules, its own `ducking` or the engine's level), non-mixable ones included.
    case transientMayDuck
    /// Interrupts every other session, mixable ones included (transiently, as `transient`),
    /// and suppresses system sounds while it is active.
    case transientExclusive

    /// The sessions it interrupts are told the loss is temporary (`transient` and
    /// `transientExclusive`).
    public var isTransient: Bool { self == .transient || self == .transientExclusive }
}

/// What a session plays (Android's content types); only `speech` changes policy: a speech
/// session pauses instead of being ducked. Value type: any thread.
public enum ContentType: String, CaseIterable, Sendable, Hashable {
    /// Spoken words (an audiobook, a podcast): never ducked, paused instead.
    case speech
    /// Music, a film's sound, interface sounds: carried for the host only.
    case music, movie, sonification
}

/// A PipeWire `media.role`: the names PipeWire and WirePlumber know (WirePlumber's role-based
/// policy ducks and routes by them). Raw values are the exact property strings. A session's
/// role comes from ``SessionConfiguration/effectiveMediaRole`` (the table in
/// docs/backends.md, "Media roles"). Value type: any thread.
public enum MediaRole: String, CaseIterable, Sendable, Hashable {
    /// A film's or video's sound.
    case movie = "Movie"
    /// Music and other media (the default of a mixed stream).
    case music = "Music"
    /// A camera's sound.
    case camera = "Camera"
    /// A screen capture's sound.
    case screen = "Screen"
    /// A call: voice or video chat.
    case communication = "Communication"
    /// A game's sound.
    case game = "Game"
    /// Alerts, prompts, system sounds.
    case notification = "Notification"
    /// Signal processing.
    case dsp = "DSP"
    /// Music production.
    case production = "Production"
    /// A screen reader.
    case accessibility = "Accessibility"
    /// Test signals, measurement.
    case test = "Test"

    /// The role a session with this category, mode, content and accessibility flag plays with;
    /// nil for a session without output (`record`, `audioProcessing`: no playback stream).
    /// First match wins: accessibility → Accessibility; a voice or video chat (`voiceChat`,
    /// `videoChat`, `gameChat` mode) or `playAndRecord` → Communication; `measurement` mode →
    /// Test; `multiRoute` → Production; `moviePlayback` mode or `movie` content → Movie;
    /// `voicePrompt` mode or `sonification` content → Notification; `playback` → Music;
    /// `soloAmbient` and `ambient` → Game.
    public static func forSession(category: Category, mode: Mode, content: ContentType?, accessibility: Bool) -> MediaRole? {
        guard category.hasOutput else { return nil }
        if accessibility { return .accessibility }
        switch mode {
        case .voiceChat, .videoChat, .gameChat: return .communication
        case .measurement: return .test
        default: break
        }
        switch category {
        case .playAndRecord: return .communication
        case .multiRoute: return .production
        default: break
        }
        if mode == .moviePlayback || content == .movie { return .movie }
        if mode == .voicePrompt || content == .sonification { return .notification }
        switch category {
        case .playback: return .music
        default: return .game
        }
    }

    /// The role of system sounds (played for the engine, not for a session).
    public static let systemSounds = MediaRole.notification

    /// The role of one stream that carries the mix of `sessions` (PipeWire's main stream in
    /// single-stream mode): the role every session with output shares
    /// (``SessionConfiguration/effectiveMediaRole``), else Music (sessions that differ, or
    /// none with output). A game whose sessions are all ambient announces Game, a voice-chat
    /// application Communication; a mixed scene plays as media.
    public static func forMix(of sessions: some Sequence<SessionConfiguration>) -> MediaRole {
        var shared: MediaRole?
        for session in sessions {
            guard let role = session.effectiveMediaRole else { continue }
            if let s = shared, s != role { return .music }
            shared = role
        }
        return shared ?? .music
    }
}

/// Output route (§7). Value type: any thread.
public enum Route: String, CaseIterable, Sendable, Hashable {
    /// Where the output goes: the built-in speaker, wired headphones, a bluetooth device or an
    /// external device (line out, HDMI, a USB interface).
    case speaker, headphones, bluetooth, external
}

/// Why the route changed (§7). Value type: any thread.
public enum RouteChangeReason: String, CaseIterable, Sendable, Hashable {
    /// A device came (`newDeviceAvailable`), the current one went away (`oldDeviceUnavailable`:
    /// media sessions pause), or the host moved the route itself (`override`).
    case newDeviceAvailable, oldDeviceUnavailable, override

    /// The scene format's default: new device when moving to a non-speaker
    /// route, old device unavailable when falling back to the speaker.
    public static func `default`(from previous: Route, to current: Route) -> RouteChangeReason {
        current == .speaker ? .oldDeviceUnavailable : .newDeviceAvailable
    }
}

/// Remote (headphone / control centre) command (§8). Value type: any thread.
public enum RemoteCommand: String, CaseIterable, Sendable, Hashable {
    /// The transport commands a headset or control centre sends; a session answers those listed
    /// in ``SessionConfiguration/remoteCommands``.
    case play, pause, togglePlayPause, nextTrack, previousTrack, stop
}

/// Reason field of `interruptionBegan`. Value type: any thread.
public enum InterruptionReason: String, CaseIterable, Sendable, Hashable {
    /// Who interrupted: a non-mixable session (`otherSession`), a phone call, a session that
    /// interrupts spoken audio (`spokenAudio`), or the muted built-in microphone of a capturing
    /// session (`builtInMicMuted`).
    case otherSession, phoneCall, spokenAudio, builtInMicMuted
    /// A session that pauses instead of being ducked (``SessionConfiguration/pausesWhenDucked``
    /// or `content: speech`) while another session ducks the others; it ends (with
    /// shouldResume) when nothing ducks it any more.
    case ducked
}

/// Reason field of `silenced` (and of `systemSoundSuppressed`: `recording`). Value type: any thread.
public enum SilenceReason: String, CaseIterable, Sendable, Hashable {
    /// Why it is silent: the silent switch, the locked device, the session in the background
    /// (all three for `soloAmbient`/`ambient` only), or another session recording (§5).
    case silentSwitch, locked, background, recording
    /// Only for `systemSoundSuppressed`: a session holds the output with the focus request
    /// ``FocusRequest/transientExclusive``.
    case transientExclusive
    /// A row of the interaction table (outcome `silence`) silences it while a session that
    /// activated after it is active.
    case interaction
}

/// Reason field of `sourceStarted`. Value type: any thread.
public enum SourceStartReason: String, CaseIterable, Sendable, Hashable {
    /// The host played it (scene `play`, control API).
    case play
    /// The resume rule (§2.5) or the host's `resume(session:)`.
    case resume
    /// A remote `play` / `togglePlayPause`.
    case remoteCommand
}

/// Reason field of `sourcePaused`. Value type: any thread.
public enum SourcePauseReason: String, CaseIterable, Sendable, Hashable {
    /// The host paused it.
    case pause
    /// The host stopped it (it also rewinds).
    case stop
    /// Its session was interrupted (§2).
    case interruption
    /// Its session was deactivated (§2.3).
    case deactivation
    /// Headphones / bluetooth went away (§7).
    case routeChange
    /// A remote `pause`, `togglePlayPause` or `stop` (§8).
    case remoteCommand
}

/// Target field of `volumeChanged`. Value type: any thread.
public enum VolumeTarget: String, CaseIterable, Sendable, Hashable {
    /// The system (media) volume or the ringer volume (system sounds).
    case system, ringer
}

/// Duck envelope (§3): level in dB, attack and release in seconds, linear in dB.
/// Value type: any thread.
public struct DuckingSettings: Hashable, Sendable {
    /// Gain of a ducked session in dB (e.g. -15); values above 0 are treated as 0.
    public var levelDB: Double
    /// Time to ramp down to `levelDB`, in seconds.
    public var attackSeconds: Double
    /// Time to ramp back to unity when the ducking ends, in seconds.
    public var releaseSeconds: Double

    /// Settings with the given level (dB) and attack and release times (seconds); not validated
    /// here (the host API and the ducking rules check them).
    public init(levelDB: Double, attackSeconds: Double, releaseSeconds: Double) {
        self.levelDB = levelDB
        self.attackSeconds = attackSeconds
        self.releaseSeconds = releaseSeconds
    }

    /// Engine defaults: -15 dB, 100 ms attack, 400 ms release.
    public static let `default` = DuckingSettings(levelDB: -15, attackSeconds: 0.1, releaseSeconds: 0.4)

    /// Linear gain of `levelDB` (clamped to at most unity: a duck never boosts).
    public var linearGain: Double { decibelsToGain(min(levelDB, 0)) }
}

/// A session as declared in the scene or registered by the host; defaults are the scene's.
/// Value type: any thread; the engine's control side owns the live copy.
public struct SessionConfiguration: Hashable, Sendable {
    /// The session's name, unique among the sessions.
    public var id: String
    /// What kind of audio it plays (§1).
    public var category: Category
    /// Options of the category; ``Category/allows(_:)`` says which are allowed.
    public var options: Set<CategoryOption>
    /// The session mode (only `spokenAudio` changes policy).
    public var mode: Mode
    /// It shows play/pause controls (a media player): it can receive remote commands (§8).
    public var playbackControls: Bool
    /// The remote commands it answers.
    public var remoteCommands: Set<RemoteCommand>
    /// Whether it is in the foreground (background silences `soloAmbient`/`ambient`).
    public var foreground: Bool
    /// Whether its interrupted sources resume when the interruption ends (for a session with
    /// `playbackControls`, only when the end says shouldResume; §2.5).
    public var autoResume: Bool
    /// The category it takes instead when another session is already playing at activation
    /// (a game that yields to the user's music); nil: always `category`.
    public var categoryWhenOtherAudioPlaying: Category?
    /// The envelope it applies to the sessions it ducks (when no ducking rule matches);
    /// nil: the engine's default.
    public var ducking: DuckingSettings?
    /// Voices its sources may have at once (1…65536; nil: no limit of its own). The
    /// renderer enforces it (see the engine's voice limits); the policy only carries it.
    public var maxVoices: Int?
    /// It would rather pause than be ducked: when another session would duck it, it is
    /// interrupted instead (reason `ducked`) and resumes when the ducking ends. Off by default.
    public var pausesWhenDucked: Bool
    /// What it plays (nil: not said). `speech` implies ``pausesWhenDucked``.
    public var content: ContentType?
    /// An activation during a phone call is delayed instead of refused: it is granted when
    /// the call ends (journal `activationDelayed`, `activationGranted`). Not for `ambient`.
    public var acceptsDelayedActivation: Bool
    /// An accessibility session (a screen reader): never ducked, never silenced by the silent
    /// switch, lock or background, never interrupted by anything but a phone call; it
    /// interrupts nobody, and while it is active (with output) every other session is ducked.
    /// Off by default.
    public var accessibility: Bool
    /// The PipeWire `media.role` its stream carries instead of the one the table gives
    /// (nil: ``MediaRole/forSession(category:mode:content:accessibility:)``). Only the desktop
    /// sees it; the policy ignores it.
    public var mediaRole: MediaRole?

    /// The role its playback stream carries: ``mediaRole`` when set, else the table's role for
    /// its category, mode, content and accessibility flag; nil for a session without output.
    public var effectiveMediaRole: MediaRole? {
        guard category.hasOutput else { return nil }
        return mediaRole ?? MediaRole.forSession(category: category, mode: mode, content: content, accessibility: accessibility)
    }

    /// It pauses instead of being ducked: ``pausesWhenDucked``, or ``content`` `speech`.
    public var pausesInsteadOfDucking: Bool { pausesWhenDucked || content == .speech }

    /// A session with the scene format's defaults; nothing is validated here
    /// (`PolicyState.addSession(_:)` checks the options against the category).
    public init(
        id: String,
        category: Category = .soloAmbient,
        options: Set<CategoryOption> = [],
        mode: Mode = .default,
        playbackControls: Bool = false,
        remoteCommands: Set<RemoteCommand> = [],
        foreground: Bool = true,
        autoResume: Bool = true,
        categoryWhenOtherAudioPlaying: Category? = nil,
        ducking: DuckingSettings? = nil,
        maxVoices: Int? = nil,
        pausesWhenDucked: Bool = false,
        content: ContentType? = nil,
        acceptsDelayedActivation: Bool = false,
        accessibility: Bool = false,
        mediaRole: MediaRole? = nil
    ) {
        self.id = id
        self.category = category
        self.options = options
        self.mode = mode
        self.playbackControls = playbackControls
        self.remoteCommands = remoteCommands
        self.foreground = foreground
        self.autoResume = autoResume
        self.categoryWhenOtherAudioPlaying = categoryWhenOtherAudioPlaying
        self.ducking = ducking
        self.maxVoices = maxVoices
        self.pausesWhenDucked = pausesWhenDucked
        self.content = content
        self.acceptsDelayedActivation = acceptsDelayedActivation
        self.accessibility = accessibility
        self.mediaRole = mediaRole
    }
}

/// A source as the policy sees it: an id and its session (gain, file, loop are the renderer's).
/// Value type: any thread.
public struct SourceConfiguration: Hashable, Sendable {
    /// The source's name, unique among the sources.
    public var id: String
    /// The id of the session it belongs to.
    public var session: String

    /// A source `id` of session `session`.
    public init(id: String, session: String) {
        self.id = id
        self.session = session
    }
}

/// Device state (§ vocabulary); defaults are the scene's.
/// Value type: any thread; the engine's control side owns the live copy.
public struct DeviceState: Hashable, Sendable {
    /// The silent switch is on: silences `soloAmbient` and `ambient` sessions and system sounds.
    public var silentSwitch: Bool
    /// The device is locked: silences `soloAmbient` and `ambient` sessions.
    public var locked: Bool
    /// System volume, 0…1.
    public var volume: Double
    /// Ringer volume, 0…1.
    public var ringerVolume: Double
    /// The current output route.
    public var route: Route
    /// The built-in microphone is muted: interrupts capturing sessions (§2.8).
    public var micMuted: Bool
    /// Other apps' audio (outside the scene's sessions), as the host reports it
    /// (`AudioEngine.setOtherAudio`, the policy action `PolicyAction.otherAudio`); none by default.
    public var otherAudio: OtherAudio = OtherAudio()

    /// A device state; the defaults are the scene's (switch off, unlocked, full volumes, speaker).
    public init(
        silentSwitch: Bool = false, locked: Bool = false, volume: Double = 1, ringerVolume: Double = 1,
        route: Route = .speaker, micMuted: Bool = false
    ) {
        self.silentSwitch = silentSwitch
        self.locked = locked
        self.volume = volume
        self.ringerVolume = ringerVolume
        self.route = route
        self.micMuted = micMuted
    }
}

/// Other apps' audio: output outside the scene's sessions (on Linux, other PipeWire clients'
/// running playback streams), as the host reports it. Counts for rule 10
/// (`isOtherAudioPlaying`, `secondaryAudioShouldBeSilencedHint`, `categoryWhenOtherAudioPlaying`).
/// Value type: any thread.
public struct OtherAudio: Hashable, Sendable {
    /// Some other app plays audio.
    public var playing: Bool
    /// One of them is not mixable (its role is music, a movie, a call…): the hint to silence
    /// secondary audio is on. Counts only while `playing`.
    public var silenceSecondary: Bool
    /// The names of the apps that play (for the journal), in the host's order.
    public var clients: [String]

    /// Other apps' audio; the default is none.
    public init(playing: Bool = false, silenceSecondary: Bool = false, clients: [String] = []) {
        self.playing = playing
        self.silenceSecondary = silenceSecondary
        self.clients = clients
    }
}
