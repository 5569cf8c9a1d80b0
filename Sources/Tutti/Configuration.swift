import TuttiDSP
import TuttiEngine
import TuttiPolicy

/// Settings of an `AudioEngine`, fixed at creation (the C ABI's `tutti_engine_config` plus
/// the policy's). Value type: any thread.
public struct AudioEngineConfiguration: Sendable, Equatable {
    /// Output (and mixing) rate, Hz: the engine clock counts frames at this rate.
    public var sampleRate = 48_000
    /// Output channels, 1 or 2.
    public var channelCount = 2
    /// Longest stretch rendered in one go; longer render calls are split.
    public var maxBlockFrames = 4096
    /// Sources that may exist at once.
    public var maxSources = 512
    /// Sessions that may exist at once.
    public var maxSessions = 64
    /// Commands that may wait for the render side at once (each call that changes sound
    /// queues one or a few); beyond it calls fail with `capacity` until rendering catches up.
    /// A policy action makes room for a command per session and source first (a phone call
    /// changes them all), so with thousands of sessions keep it above sessions + sources + 4
    /// (`tutti render` sizes it from the scene); below that every action fails with
    /// `capacity`, saying so.
    public var commandQueueCapacity = 4096
    /// The engine's duck envelope (rule 3): level, attack, release — what applies when no
    /// ducking rule does and the ducker has none of its own (`AudioEngine.setDuckingRules`).
    public var ducking = DuckingSettings.default
    /// Voices the whole engine may play at once (1…65536; nil: no limit). A play over a
    /// limit — its session's (`SessionConfiguration.maxVoices`) first, else this one — takes
    /// the voice of the lowest-priority voice (ties: the quietest, then the oldest), which
    /// fades out over `voiceStealFadeSeconds` and stops; a new voice below every playing one
    /// is refused. Call audio and system sounds are not voices.
    public var maxVoices: Int?
    /// Fade-out of a stolen voice, seconds.
    public var voiceStealFadeSeconds = 0.010
    /// The device state at creation (silent switch, lock, volumes, route, microphone).
    public var device = DeviceState()
    /// Converter for stream sources (real time, on the render thread).
    public var streamQuality = ResamplerQuality.sincMedium
    /// Converter for file sources (at load, off the render thread): libsoxr's high quality
    /// by default, the fastest with ≥ 120 dB SNR (docs/performance.md).
    public var fileQuality = ResamplerQuality.soxrHQ
    /// File sources longer than this (seconds at `sampleRate`) stream from disk: decoded and
    /// converted on the engine's file worker into a ring of `streamingRingSeconds`, so their
    /// memory does not grow with their length; shorter ones are loaded whole at creation.
    /// `.infinity`: never stream.
    public var streamingThresholdSeconds = 10.0
    /// Ring of each streaming file source, seconds (0.1…60).
    public var streamingRingSeconds = 1.0
    /// Pull rendering (`AudioEngine.render`) waits for the file worker when a streaming file
    /// source lacks data, instead of playing silence: for hosts that render faster than real
    /// time (offline, to a file) and want the same output every run. Leave it false on a
    /// real-time thread (the wait blocks).
    public var pullRenderWaitsForFiles = false
    /// Default ramps, fades and gate times (seconds).
    public var sourceGainRampSeconds = 0.010
    /// Default play/pause/stop/seek/remove de-click fade, seconds.
    public var transportFadeSeconds = 0.010
    /// Gate ramp when a session becomes audible or silent, seconds.
    public var gateRampSeconds = 0.020
    /// System and ringer volume ramp, seconds.
    public var volumeRampSeconds = 0.020
    /// Forced fade on loss, seconds (0…10; 0, the default: the gate ramp above): a session
    /// interrupted or silenced by another session's activation fades out over this time
    /// (its sources advance meanwhile) before they pause. Set before the engine is created.
    public var lossFadeSeconds = 0.0
    /// Output buses (named output mixes) by name: `"main"` first (where every source plays),
    /// then up to 7 more (e.g. `["main", "cue"]`). Sources of `multiRoute` sessions choose one
    /// with `SourceHandle.setOutputBus(_:at:)`; `AudioEngine.render(outputBuses:busCount:frameCount:)`
    /// renders each into its own buffer, `render(into:frameCount:)` renders main. (Not the
    /// device route, `DeviceState.route`: where the device's output goes.)
    public var outputBuses = ["main"]

    /// Deprecated: `outputBuses` (the named output mixes are output buses now).
    @available(*, deprecated, renamed: "outputBuses")
    public var routes: [String] {
        get { outputBuses }
        set { outputBuses = newValue }
    }

    /// A peak limiter on the output (every output bus), after everything else including the
    /// system volume; nil (the default): none. No output sample exceeds `ceilingDB`; output
    /// at rest below it is unchanged bit for bit; `lookaheadSeconds` (default 0: no latency)
    /// delays the output by that much. See `LimiterSettings`.
    public var limiter: LimiterSettings?

    /// The master effect chain (`EffectSettings`, in order), before the system volume; nil
    /// (the default): no master stage, the render is what it was before effects existed. Set
    /// (even empty), every non-ringer session mixes into it on the main output bus; system sounds
    /// (the ringer class) bypass it; the limiter comes after. See `EngineConfiguration.effects`.
    public var effects: [EffectSettings]?

    /// The defaults: 48 kHz stereo, 512 sources, 64 sessions.
    public init() {}

    /// The render graph's settings: one bus per session plus the engine's call and ringer buses.
    var engineConfiguration: EngineConfiguration {
        var c = EngineConfiguration(sampleRate: sampleRate, channelCount: channelCount)
        c.maxBlockFrames = maxBlockFrames
        c.maxSources = maxSources
        c.maxBuses = maxSessions + 2
        c.commandQueueCapacity = commandQueueCapacity
        c.sourceGainRampSeconds = sourceGainRampSeconds
        c.transportFadeSeconds = transportFadeSeconds
        c.gateRampSeconds = gateRampSeconds
        c.volumeRampSeconds = volumeRampSeconds
        c.voiceStealFadeSeconds = voiceStealFadeSeconds
        c.maxVoices = maxVoices ?? 0
        c.streamingThresholdSeconds = streamingThresholdSeconds
        c.streamingRingSeconds = streamingRingSeconds
        c.outputBuses = outputBuses
        c.limiter = limiter
        c.effects = effects
        return c
    }

    /// Throws `invalidArgument` naming the first setting out of range.
    public func validate() throws(TuttiError) {
        guard (1...65_534).contains(maxSessions) else {
            throw TuttiError(.invalidArgument, "maxSessions must be in 1…65534, got \(maxSessions)")
        }
        if let maxVoices { try checkVoiceLimit(maxVoices, "maxVoices") }
        try engineConfiguration.validate()
        for (name, value) in [
            ("ducking.level", ducking.levelDB), ("ducking.attack", ducking.attackSeconds), ("ducking.release", ducking.releaseSeconds),
        ]
        where !value.isFinite {
            throw TuttiError(.invalidArgument, "\(name) must be finite, got \(value)")
        }
        guard ducking.levelDB <= 0, ducking.levelDB >= -96 else {
            throw TuttiError(.invalidArgument, "ducking.level must be in −96…0 dB, got \(ducking.levelDB)")
        }
        guard ducking.attackSeconds >= 0, ducking.releaseSeconds >= 0 else {
            throw TuttiError(.invalidArgument, "ducking attack and release must be ≥ 0 s")
        }
        guard lossFadeSeconds.isFinite, (0...10).contains(lossFadeSeconds) else {
            throw TuttiError(.invalidArgument, "lossFadeSeconds must be in 0…10 s, got \(lossFadeSeconds)")
        }
        for (name, v) in [("device.volume", device.volume), ("device.ringerVolume", device.ringerVolume)]
        where !(v.isFinite && (0...1).contains(v)) {
            throw TuttiError(.invalidArgument, "\(name) must be in 0…1, got \(v)")
        }
    }
}
