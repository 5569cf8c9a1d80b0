import Tutti
import TuttiDSP
import TuttiPolicy

/// A decoded, validated scene (see docs/scene-format.md). Value type: any thread.
public struct Scene: Sendable {
    /// The scene's `engine` object. Value type: any thread.
    public struct EngineSettings: Sendable, Equatable {
        /// Output and mixing rate, Hz (`engine.sampleRate`).
        public var sampleRate = 48_000
        /// Output channels, 1 or 2 (`engine.channels`).
        public var channelCount = 2
        /// Frames per render block (`engine.blockFrames`); it never changes the samples.
        public var blockFrames = 256
        /// How file sources at another rate are converted at load: `ResamplerQuality.fileDefault`
        /// unless the scene says (`engine.resampler`).
        public var resampler: ResamplerQuality = .fileDefault
        /// The engine's default duck: level (dB), attack and release (seconds).
        public var ducking = DuckingSettings.default
        /// `engine.ducking.rules`, resolved against the sessions (in file order: the index
        /// is the journal's `rule`).
        public var duckingRules: [DuckingRule] = []
        /// Sample format of the written WAV (`engine.output`; `tutti render --format` overrides it).
        public var output: SampleFormat = .float32
        /// Voices the whole engine may play at once (nil: no limit).
        public var maxVoices: Int?
        /// Output buses, the named output mixes (`engine.outputBuses`): "main" first, always there.
        public var outputBuses = ["main"]
        /// The output buses under their old name.
        @available(*, deprecated, renamed: "outputBuses")
        public var routes: [String] {
            get { outputBuses }
            set { outputBuses = newValue }
        }
        /// The output peak limiter (`engine.limiter`); nil: none.
        public var limiter: LimiterSettings?
        /// The master effect chain (`engine.effects`), before the system volume; nil: no
        /// master stage (see `EngineConfiguration.effects`).
        public var effects: [EffectSettings]?
        /// `engine.policy.lossFade`: seconds (0…10) a session interrupted or silenced by
        /// another's activation fades out over before pausing; 0 (default): the gate ramp.
        public var lossFade = 0.0
        /// `engine.policy.interactions`, resolved against the sessions (in file order: the
        /// index is what `explain` names).
        public var interactions: [InteractionRule] = []
    }

    /// The device state at frame 0 (the scene's `device` object). Value type: any thread.
    public struct Device: Sendable, Equatable {
        /// The silent switch is on.
        public var silentSwitch = false
        /// The screen is locked.
        public var locked = false
        /// System volume, 0…1.
        public var volume = 1.0
        /// Ringer volume, 0…1.
        public var ringerVolume = 1.0
        /// Where the output goes.
        public var route: Route = .speaker
        /// The built-in microphone is muted (privacy rule).
        public var micMuted = false
    }

    /// Where a source's (or call's, or system sound's) audio comes from.
    public enum Audio: Sendable, Equatable {
        /// Resolved against the scene's folder.
        case file(String)
        /// A sine: frequency in Hz, amplitude linear.
        case tone(frequency: Double, amplitude: Double)
        /// Digital silence (a source that only holds a voice).
        case silence
        /// Captured audio with 1 or 2 channels (sources only, in `record` / `playAndRecord`
        /// sessions): live capture, or offline the file given with `--input ID=FILE.wav`.
        case input(channelCount: Int)
    }

    /// One entry of `sources`. Value type: any thread.
    public struct Source: Sendable, Equatable {
        /// The source's id (unique in the scene).
        public var id: String
        /// The id of the session it belongs to.
        public var session: String
        /// What it plays.
        public var audio: Audio
        /// Its own level, linear 0…1.
        public var gain: Double
        /// Restart at the end instead of ending.
        public var loop: Bool
        /// Where the loop region starts, seconds into the file (`loopStart`; nil: 0). Only with
        /// `loop`; a file with a region is loaded whole (it does not stream).
        public var loopStart: Double?
        /// Where playback wraps back to `loopStart`, seconds into the file (`loopEnd`; nil:
        /// the file's end). Only with `loop`.
        public var loopEnd: Double?
        /// How many times playback wraps from `loopEnd` to `loopStart` before it plays on to
        /// the file's end and ends (`loopCount`, ≥ 1; nil: endless). Only with `loop`.
        public var loopCount: Int?
        /// Voice-stealing priority, 0…255 (default 128).
        public var priority: Int = 128
        /// The output bus it plays to (`outputBus`; only sources of multiRoute sessions may
        /// name one other than "main").
        public var outputBus = "main"
        /// The output bus under its old name.
        @available(*, deprecated, renamed: "outputBus")
        public var route: String {
            get { outputBus }
            set { outputBus = newValue }
        }
        /// Pan position at the start, −1 (left) … +1 (right) (`pan`); nil: never panned (no
        /// pan stage; mono material at unity on both channels).
        public var pan: Double?
        /// Playback rate at the start (`rate`), 0.25…4 source frames per output frame, pitch
        /// following; nil: 1 (as recorded). File sources only; one with a rate (or a `setRate`
        /// event) is loaded whole, even past the streaming threshold.
        public var rate: Double?
        /// JSON path, for errors found later (e.g. when loading the file).
        public var place: String
        /// Fades on play/resume and on pause/stop (nil: the engine's defaults).
        public var fades = Fades()
    }

    /// A source's own fades, seconds (`fadeIn`, `fadeOut`); nil keeps the engine's default
    /// (no fade-in from the top, a 10 ms de-click when resuming mid-way; a 10 ms fade-out).
    public struct Fades: Sendable, Equatable {
        /// Fade-in on play/resume, seconds (nil: the default).
        public var fadeIn: Double?
        /// Fade-out on pause/stop/remove, seconds (nil: the default 10 ms).
        public var fadeOut: Double?

        /// No fade of its own.
        public init(fadeIn: Double? = nil, fadeOut: Double? = nil) {
            self.fadeIn = fadeIn
            self.fadeOut = fadeOut
        }

        /// Neither fade set.
        public var isDefault: Bool { fadeIn == nil && fadeOut == nil }
    }

    /// What an event does to a session (`"session": id, "action": …`). Value type: any thread.
    public enum SessionAction: Sendable, Equatable {
        /// `setActive(true)` with the focus asked for (`focus`, default `gain`): the policy
        /// decides who is heard.
        case activate(focus: FocusRequest = .gain)
        /// `setActive(false)`; `notifyOthers` lets interrupted sessions resume.
        case deactivate(notifyOthers: Bool)
        /// A new category, mode and options (nil: keep them).
        case setCategory(Category, mode: Mode?, options: Set<CategoryOption>?)
        /// The app goes to the foreground or the background.
        case foreground, background
        case setGain(Double, ramp: Double?)
        /// The biquad at `index` of the session's `effects` becomes `effect` (another
        /// biquad), gliding over `glide` seconds (nil: the default 10 ms; 0: a step).
        case setEffect(index: Int, EffectSettings, glide: Double?)
    }

    /// What an event does to a source (`"source": id, "action": …`). Value type: any thread.
    public enum SourceAction: Sendable, Equatable {
        /// Transport: play (or resume), pause (keep the position), stop (rewind).
        case play, pause, stop
        /// Its gain (linear 0…1), ramped over `ramp` seconds (nil: the default 10 ms).
        case setGain(Double, ramp: Double?)
        /// Its pan position (−1…1), each channel's gain ramped over `ramp` seconds (nil: the
        /// default 10 ms).
        case setPan(Double, ramp: Double?)
        /// An equal-power crossfade from the source `from` (same session, playing) over
        /// `duration` seconds (> 0): this source plays and fades in along sin(πt/2), `from`
        /// fades out along cos(πt/2) and stops at the end (the policy's stop, journalled at
        /// the crossfade's last frame).
        case crossfade(from: String, duration: Double)
        /// Its playback rate (0.25…4; a file source), gliding linearly over `ramp` seconds
        /// (nil: the default 10 ms, the gain ramp).
        case setRate(Double, ramp: Double?)
    }

    /// A change of the device (`"device": …, "value": …`). Value type: any thread.
    public enum DeviceAction: Sendable, Equatable {
        /// The silent switch on or off.
        case silentSwitch(Bool)
        /// The screen locks or unlocks.
        case lock, unlock
        /// System volume, 0…1.
        case volume(Double)
        /// Ringer volume, 0…1.
        case ringerVolume(Double)
        /// A volume button press (one step of the volume curve).
        case volumeUp, volumeDown
        /// A new output route (nil reason: the scene format's default for the move).
        case route(Route, reason: RouteChangeReason?)
        /// The built-in microphone muted or not.
        case micMuted(Bool)
        /// Other apps' audio (`"device": "otherAudio"`, `playing`, `silenceSecondary`,
        /// `clients`): what rule 10 counts beside the scene's sessions.
        case otherAudio(OtherAudio)
    }

    /// What an event does. Value type: any thread.
    public enum Action: Sendable, Equatable {
        /// To the session with this id.
        case session(String, SessionAction)
        /// To the source with this id.
        case source(String, SourceAction)
        /// To the device.
        case device(DeviceAction)
        /// A phone call begins (interrupts everything), optionally playing `audio`.
        case phoneCallBegin(audio: Audio?)
        /// The phone call ends (interruptions end with shouldResume).
        case phoneCallEnd
        /// A system sound on the ringer bus, for `duration` seconds (nil: its whole length).
        case systemSound(audio: Audio, duration: Double?)
        /// A remote (headphone, control centre) command.
        case remote(RemoteCommand)
    }

    /// One entry of `events`. Value type: any thread.
    public struct Event: Sendable, Equatable {
        /// When, seconds from the start.
        public var at: Double
        /// What it does.
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

    /// The `engine` object.
    public var engine = EngineSettings()
    /// The render's length, seconds.
    public var duration: Double
    /// The device state at frame 0.
    public var device = Device()
    /// The sessions, in file order.
    public var sessions: [SessionConfiguration] = []
    /// The sources, in file order.
    public var sources: [Source] = []
    /// In time order; events at the same time keep file order.
    public var events: [Event] = []
    /// `recordTo` of sessions: session id → WAV path as written (relative to the scene's folder).
    public var recordTo: [String: String] = [:]
    /// `effects` of sessions: session id → its bus's effect chain, in order (sessions without
    /// one, or with an empty one, are absent).
    public var sessionEffects: [String: [EffectSettings]] = [:]
    /// The folder relative file paths are resolved against.
    public var baseDirectory: String
    /// What the decoder read but warns about, one line each in file order, e.g.
    /// `sources[2].route is deprecated, use outputBus (…)`: a deprecated key read under its old
    /// name. `tutti render` and `tutti play` print each as `tutti: warning: LINE` on stderr.
    public var warnings: [String] = []

    /// The render's length in output frames.
    public var durationFrames: Int { Int((duration * Double(engine.sampleRate)).rounded()) }

    /// The output frame of a time in seconds (rounded to the nearest frame).
    public func frame(at seconds: Double) -> Int64 { Int64((seconds * Double(engine.sampleRate)).rounded()) }

    /// An audio or output path as written in the scene, made absolute against `baseDirectory`.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") || baseDirectory.isEmpty ? path : baseDirectory + "/" + path
    }
}
