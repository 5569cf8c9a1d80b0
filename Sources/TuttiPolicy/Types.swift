// Vocabulary of the policy: categories, options, modes, device values.
// Raw values are the exact strings of the scene format and the events log.

/// Audio session category (spec §1). Value type: any thread.
public enum Category: String, CaseIterable, Sendable, Hashable {
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

/// Category option (spec §1). Value type: any thread.
public enum CategoryOption: String, CaseIterable, Sendable, Hashable {
    case mixWithOthers, duckOthers, interruptSpokenAudioAndMixWithOthers, allowBluetooth, defaultToSpeaker

    /// Options that make a session mixable (the last two imply mixWithOthers).
    public var impliesMixWithOthers: Bool {
        self == .mixWithOthers || self == .duckOthers || self == .interruptSpokenAudioAndMixWithOthers
    }
}

/// Session mode; only `spokenAudio` changes policy (§2.6). Value type: any thread.
public enum Mode: String, CaseIterable, Sendable, Hashable {
    case `default`, spokenAudio, voiceChat, videoChat, gameChat, measurement, moviePlayback, voicePrompt
}

/// Output route (§7). Value type: any thread.
public enum Route: String, CaseIterable, Sendable, Hashable {
    case speaker, headphones, bluetooth, external
}

/// Why the route changed (§7). Value type: any thread.
public enum RouteChangeReason: String, CaseIterable, Sendable, Hashable {
    case newDeviceAvailable, oldDeviceUnavailable, override

    /// The scene format's default: new device when moving to a non-speaker
    /// route, old device unavailable when falling back to the speaker.
    public static func `default`(from previous: Route, to current: Route) -> RouteChangeReason {
        current == .speaker ? .oldDeviceUnavailable : .newDeviceAvailable
    }
}

/// Remote (headphone / control centre) command (§8). Value type: any thread.
public enum RemoteCommand: String, CaseIterable, Sendable, Hashable {
    case play, pause, togglePlayPause, nextTrack, previousTrack, stop
}

/// Reason field of `interruptionBegan`. Value type: any thread.
public enum InterruptionReason: String, CaseIterable, Sendable, Hashable {
    case otherSession, phoneCall, spokenAudio, builtInMicMuted
}

/// Reason field of `silenced` (and of `systemSoundSuppressed`: `recording`). Value type: any thread.
public enum SilenceReason: String, CaseIterable, Sendable, Hashable {
    case silentSwitch, locked, background, recording
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
    case system, ringer
}

/// Duck envelope (§3): level in dB, attack and release in seconds, linear in dB.
/// Value type: any thread.
public struct DuckingSettings: Hashable, Sendable {
    public var levelDB: Double
    public var attackSeconds: Double
    public var releaseSeconds: Double

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
    public var id: String
    public var category: Category
    public var options: Set<CategoryOption>
    public var mode: Mode
    public var playbackControls: Bool
    public var remoteCommands: Set<RemoteCommand>
    public var foreground: Bool
    public var autoResume: Bool
    public var categoryWhenOtherAudioPlaying: Category?
    public var ducking: DuckingSettings?
    /// Voices its sources may have at once (1…65536; nil: no limit of its own). The
    /// renderer enforces it (see the engine's voice limits); the policy only carries it.
    public var maxVoices: Int?

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
        maxVoices: Int? = nil
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
    }
}

/// A source as the policy sees it: an id and its session (gain, file, loop are the renderer's).
/// Value type: any thread.
public struct SourceConfiguration: Hashable, Sendable {
    public var id: String
    public var session: String

    public init(id: String, session: String) {
        self.id = id
        self.session = session
    }
}

/// Device state (§ vocabulary); defaults are the scene's.
/// Value type: any thread; the engine's control side owns the live copy.
public struct DeviceState: Hashable, Sendable {
    public var silentSwitch: Bool
    public var locked: Bool
    /// System volume, 0…1.
    public var volume: Double
    /// Ringer volume, 0…1.
    public var ringerVolume: Double
    public var route: Route
    public var micMuted: Bool

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
