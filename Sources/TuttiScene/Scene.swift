import Tutti
import TuttiDSP
import TuttiPolicy

/// A decoded, validated scene (see docs/scene-format.md). Value type: any thread.
public struct Scene: Sendable {
    public struct EngineSettings: Sendable, Equatable {
        public var sampleRate = 48_000
        public var channelCount = 2
        public var blockFrames = 256
        /// How file sources at another rate are converted at load: `ResamplerQuality.fileDefault`
        /// unless the scene says (`engine.resampler`).
        public var resampler: ResamplerQuality = .fileDefault
        public var ducking = DuckingSettings.default
        /// `engine.ducking.rules`, resolved against the sessions (in file order: the index
        /// is the journal's `rule`).
        public var duckingRules: [DuckingRule] = []
        public var output: SampleFormat = .float32
        /// Voices the whole engine may play at once (nil: no limit).
        public var maxVoices: Int?
        /// Output routes (`engine.routes`): "main" first, always there.
        public var routes = ["main"]
    }

    public struct Device: Sendable, Equatable {
        public var silentSwitch = false
        public var locked = false
        public var volume = 1.0
        public var ringerVolume = 1.0
        public var route: Route = .speaker
        public var micMuted = false
    }

    /// Where a source's (or call's, or system sound's) audio comes from.
    public enum Audio: Sendable, Equatable {
        /// Resolved against the scene's folder.
        case file(String)
        case tone(frequency: Double, amplitude: Double)
        case silence
        /// Captured audio with 1 or 2 channels (sources only, in `record` / `playAndRecord`
        /// sessions): live capture, or offline the file given with `--input ID=FILE.wav`.
        case input(channelCount: Int)
    }

    public struct Source: Sendable, Equatable {
        public var id: String
        public var session: String
        public var audio: Audio
        public var gain: Double
        public var loop: Bool
        /// Voice-stealing priority, 0…255 (default 128).
        public var priority: Int = 128
        /// The output route it plays to (`route`; only sources of multiRoute sessions may
        /// name one other than "main").
        public var route = "main"
        /// JSON path, for errors found later (e.g. when loading the file).
        public var place: String
        /// Fades on play/resume and on pause/stop (nil: the engine's defaults).
        public var fades = Fades()
    }

    /// A source's own fades, seconds (`fadeIn`, `fadeOut`); nil keeps the engine's default
    /// (no fade-in from the top, a 10 ms de-click when resuming mid-way; a 10 ms fade-out).
    public struct Fades: Sendable, Equatable {
        public var fadeIn: Double?
        public var fadeOut: Double?

        /// No fade of its own.
        public init(fadeIn: Double? = nil, fadeOut: Double? = nil) {
            self.fadeIn = fadeIn
            self.fadeOut = fadeOut
        }

        /// Neither fade set.
        public var isDefault: Bool { fadeIn == nil && fadeOut == nil }
    }

    public enum SessionAction: Sendable, Equatable {
        case activate
        case deactivate(notifyOthers: Bool)
        case setCategory(Category, mode: Mode?, options: Set<CategoryOption>?)
        case foreground, background
        case setGain(Double, ramp: Double?)
    }

    public enum SourceAction: Sendable, Equatable {
        case play, pause, stop
        case setGain(Double, ramp: Double?)
    }

    public enum DeviceAction: Sendable, Equatable {
        case silentSwitch(Bool)
        case lock, unlock
        case volume(Double)
        case ringerVolume(Double)
        case volumeUp, volumeDown
        case route(Route, reason: RouteChangeReason?)
        case micMuted(Bool)
    }

    public enum Action: Sendable, Equatable {
        case session(String, SessionAction)
        case source(String, SourceAction)
        case device(DeviceAction)
        case phoneCallBegin(audio: Audio?)
        case phoneCallEnd
        case systemSound(audio: Audio, duration: Double?)
        case remote(RemoteCommand)
    }

    public struct Event: Sendable, Equatable {
        public var at: Double
        public var action: Action
        /// `events[i]` in the file.
        public var place: String
        /// Fades of the audio a `phoneCall` begin or a `systemSound` plays.
        public var fades = Fades()

        /// `action` at `at` seconds; `place` names it in errors.
        public init(at: Double, action: Action, place: String, fades: Fades = Fades()) {
            self.at = at
            self.action = action
            self.place = place
            self.fades = fades
        }
    }

    public var engine = EngineSettings()
    public var duration: Double
    public var device = Device()
    public var sessions: [SessionConfiguration] = []
    public var sources: [Source] = []
    /// In time order; events at the same time keep file order.
    public var events: [Event] = []
    /// `recordTo` of sessions: session id → WAV path as written (relative to the scene's folder).
    public var recordTo: [String: String] = [:]
    /// The folder relative file paths are resolved against.
    public var baseDirectory: String

    public var durationFrames: Int { Int((duration * Double(engine.sampleRate)).rounded()) }

    public func frame(at seconds: Double) -> Int64 { Int64((seconds * Double(engine.sampleRate)).rounded()) }

    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") || baseDirectory.isEmpty ? path : baseDirectory + "/" + path
    }
}
