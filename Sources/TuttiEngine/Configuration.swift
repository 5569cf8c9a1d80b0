import TuttiDSP

/// Engine settings, fixed at creation. Value type: any thread.
public struct EngineConfiguration: Sendable, Equatable {
    /// Output (and mixing) rate, Hz.
    public var sampleRate: Int = 48_000
    /// Output channels, 1 or 2.
    public var channelCount: Int = 2
    /// Longest stretch rendered in one go; longer render calls are split (scratch buffers have this size).
    public var maxBlockFrames: Int = 4096
    /// Capacity of the graph (slots are preallocated; nothing grows while rendering).
    public var maxSources: Int = 512
    /// Bus slots (one per session plus the engine's own).
    public var maxBuses: Int = 64
    /// Commands that may be in flight (sent, not yet applied) at once; sending more is a
    /// `capacity` error. The render side's pending-command heap has this size, and the event
    /// ring is sized from it and `maxSources`, so no event is ever dropped.
    public var commandQueueCapacity: Int = 8192
    /// Default ramps (seconds): source gain changes, play/pause/stop fades, bus gates, volume.
    public var sourceGainRampSeconds: Double = 0.010
    /// Default play/pause/stop/seek/remove de-click fade, seconds.
    public var transportFadeSeconds: Double = 0.010
    /// Gate ramp when a session becomes audible or silent, seconds.
    public var gateRampSeconds: Double = 0.020
    /// System and ringer volume ramp, seconds.
    public var volumeRampSeconds: Double = 0.020
    /// Fade-out of a voice stolen by a play over a voice limit, seconds.
    public var voiceStealFadeSeconds: Double = 0.010
    /// Voices the whole engine may have at once (0: no limit); see `EngineCommand.setMaxVoices`.
    public var maxVoices: Int = 0
    /// File sources longer than this (seconds at the engine rate) stream from disk through a
    /// ring (`FileStream`) instead of being loaded whole; shorter ones are loaded and
    /// converted at creation. `.infinity`: never stream.
    public var streamingThresholdSeconds: Double = 10
    /// Ring of a streaming file source, seconds at the engine rate (rounded up to a power of
    /// two frames): its memory, whatever the file's length.
    public var streamingRingSeconds: Double = 1
    /// Output buses (named output mixes) by name, index = bus number: `"main"` first (bus 0,
    /// where every source plays unless sent elsewhere with `EngineCommand.setOutputBus`), at most
    /// `maxOutputBusCount`. Each is mixed into its own output (`Renderer.render(outputBuses:…)`);
    /// with only `main`, rendering costs what it did before output buses existed. Not the
    /// device route (the policy's `Route`).
    public var outputBuses: [String] = ["main"]

    /// Deprecated: `outputBuses` (the named output mixes are output buses now).
    @available(*, deprecated, renamed: "outputBuses")
    public var routes: [String] {
        get { outputBuses }
        set { outputBuses = newValue }
    }

    /// A peak limiter on every output bus, the last stage of the render (after the
    /// system and ringer volume, which sit in each bus's factor): nil (the default) for none.
    /// See `PeakLimiter`: no output sample exceeds its ceiling; output at rest below the
    /// ceiling is unchanged bit for bit; a lookahead delays every output bus by
    /// `lookaheadSeconds` (`Renderer.limiterLatencyFrames`).
    public var limiter: LimiterSettings?

    /// The master effect chain (`EffectSettings`, in order), or nil (the default) for no
    /// master stage. When set (even empty), every non-ringer bus mixes into a master stage
    /// per output bus before the system volume: the chain runs on main's, then the system
    /// volume applies to each output bus (ringer-class buses, system sounds, bypass it); the limiter
    /// still comes last. Without it the render is what it was before effects existed.
    public var effects: [EffectSettings]?

    /// Most output buses an engine may have (per-bus scratch is preallocated for each).
    public static let maxOutputBusCount = 8
    /// The name of output bus 0.
    public static let mainOutputBus = "main"
    /// Deprecated: `maxOutputBusCount`.
    @available(*, deprecated, renamed: "maxOutputBusCount")
    public static var maxRouteCount: Int { maxOutputBusCount }
    /// Deprecated: `mainOutputBus`.
    @available(*, deprecated, renamed: "mainOutputBus")
    public static var mainRoute: String { mainOutputBus }

    /// What a streaming file source holds when it is created (and what a seek waits for):
    /// the first fill, done on the creating thread.
    static let streamingPrefillSeconds = 0.1

    /// Defaults, at `sampleRate` Hz with `channelCount` channels.
    public init(sampleRate: Int = 48_000, channelCount: Int = 2) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// The output bus number of `name` (its index in `outputBuses`), nil if there is none.
    public func outputBusIndex(named name: String) -> Int? { outputBuses.firstIndex(of: name) }

    /// Deprecated: `outputBusIndex(named:)`.
    @available(*, deprecated, renamed: "outputBusIndex(named:)")
    public func routeIndex(named name: String) -> Int? { outputBusIndex(named: name) }

    /// Seconds → frames at the engine rate (rounded to the nearest frame).
    @inlinable public func frames(forSeconds seconds: Double) -> Int {
        Int((seconds * Double(sampleRate)).rounded())
    }

    /// Event ring capacity: two events per command in flight and two per source (a fade-out
    /// or an end that completes after its command was applied), so the render side never
    /// finds it full. A play over a voice limit keeps within that: it reports `voiceStolen`
    /// or `voiceRefused` (one event) and at most the stolen voice's halt at once (a second);
    /// the stolen voice's later halt is the one completion its own run may report, and the
    /// new voice's run reports at most one completion of its own.
    /// Room for every report the render side can have outstanding: two per command, two per
    /// source (ended or halted, then removed), three per bus (removed, its chain and its host
    /// effect retired), and one underrun report per source.
    var eventQueueCapacity: Int { 2 * commandQueueCapacity + 3 * maxSources + 3 * maxBuses + 16 }

    /// Throws `invalidArgument` naming the first setting out of range.
    public func validate() throws(TuttiError) {
        guard (8_000...384_000).contains(sampleRate) else {
            throw .invalid("sampleRate must be in 8000…384000 Hz, got \(sampleRate)")
        }
        guard (1...2).contains(channelCount) else { throw .invalid("channelCount must be 1 or 2, got \(channelCount)") }
        guard (16...65_536).contains(maxBlockFrames) else {
            throw .invalid("maxBlockFrames must be in 16…65536, got \(maxBlockFrames)")
        }
        guard (1...65_536).contains(maxSources) else { throw .invalid("maxSources must be in 1…65536, got \(maxSources)") }
        guard (1...65_536).contains(maxBuses) else { throw .invalid("maxBuses must be in 1…65536, got \(maxBuses)") }
        guard (0...65_536).contains(maxVoices) else { throw .invalid("maxVoices must be in 0…65536 (0: no limit), got \(maxVoices)") }
        guard (16...1 << 20).contains(commandQueueCapacity) else {
            throw .invalid("commandQueueCapacity must be in 16…1048576, got \(commandQueueCapacity)")
        }
        guard !streamingThresholdSeconds.isNaN, streamingThresholdSeconds >= 0 else {
            throw .invalid("streamingThresholdSeconds must be ≥ 0 (or infinity), got \(streamingThresholdSeconds)")
        }
        guard streamingRingSeconds.isFinite, (0.1...60).contains(streamingRingSeconds) else {
            throw .invalid("streamingRingSeconds must be in 0.1…60 s, got \(streamingRingSeconds)")
        }
        guard outputBuses.first == Self.mainOutputBus else {
            throw .invalid("outputBuses must start with \"\(Self.mainOutputBus)\", got \(outputBuses)")
        }
        guard outputBuses.count <= Self.maxOutputBusCount else {
            throw .invalid("outputBuses: at most \(Self.maxOutputBusCount), got \(outputBuses.count)")
        }
        for (i, name) in outputBuses.enumerated() {
            guard !name.isEmpty else { throw .invalid("outputBuses[\(i)] is empty") }
            guard outputBuses.firstIndex(of: name) == i else { throw .invalid("outputBuses[\(i)]: \"\(name)\" is listed twice") }
        }
        for (i, e) in (effects ?? []).enumerated() {
            if let problem = e.problem(place: "effects[\(i)]", sampleRate: sampleRate) { throw .invalid(problem) }
        }
        if let limiter, let problem = limiter.problem(names: ("limiter.ceilingDB", "limiter.releaseSeconds", "limiter.lookaheadSeconds")) {
            throw .invalid(problem)
        }
        for (name, value) in [
            ("sourceGainRampSeconds", sourceGainRampSeconds), ("transportFadeSeconds", transportFadeSeconds),
            ("gateRampSeconds", gateRampSeconds), ("volumeRampSeconds", volumeRampSeconds),
            ("voiceStealFadeSeconds", voiceStealFadeSeconds),
        ] where !(value.isFinite && value >= 0 && value <= 10) {
            throw .invalid("\(name) must be in 0…10 s, got \(value)")
        }
    }
}
