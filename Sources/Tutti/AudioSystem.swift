import TuttiDSP
import TuttiEngine
import TuttiPolicy

/// What a host hears about from the policy (platform-style notifications).
public enum AudioSessionNotification: Sendable, Equatable {
    public enum InterruptionType: Sendable, Equatable {
        case began(reason: InterruptionReason, by: String?)
        case ended(shouldResume: Bool)
    }

    case interruption(session: String, InterruptionType)
    case routeChange(reason: RouteChangeReason, previous: Route, current: Route)
    /// `secondaryAudioShouldBeSilencedHint` changed for `session`.
    case silenceSecondaryAudioHint(session: String, begin: Bool)
}

/// The policy wired to an engine: every `PolicyAction` goes through `PolicyState`, and the
/// difference between the render views before and after becomes render commands at the
/// action's exact frame (gates, duck envelopes, pauses, resumes, volumes).
///
/// Thread: the control thread (the one that owns the `Engine`'s command side).
public final class AudioSystem {
    public let engine: Engine
    public private(set) var policy: PolicyState
    public private(set) var view: RenderView
    /// Phone call audio: system volume, never ducked or silenced.
    public let callBus: BusID
    /// System sounds: ringer volume.
    public let ringerBus: BusID
    private var busOf: [String: BusID] = [:]
    private var sourceOf: [String: SourceID] = [:]
    private var sourceName: [SourceID: String] = [:]
    private var callSource: SourceID?
    private var hints: [String: Bool] = [:]

    /// Every command sent, in order, while `recordsCommands` is on.
    public var recordsCommands = false
    public private(set) var recordedCommands: [RenderCommand] = []

    /// Called for each notification, on the control thread, in order.
    public var notificationHandler: ((AudioSessionNotification) -> Void)?
    private var streams: [Int: AsyncStream<AudioSessionNotification>.Continuation] = [:]
    private var nextStream = 0

    public init(engine: Engine, device: DeviceState = DeviceState(), ducking: DuckingSettings = .default) throws {
        self.engine = engine
        policy = try PolicyState(device: device, ducking: ducking)
        view = policy.renderView
        try engine.send(.setMasterVolume(gain: Float(VolumeCurve.gain(forVolume: view.systemVolume)), rampFrames: 0))
        try engine.send(.setRingerVolume(gain: Float(VolumeCurve.gain(forVolume: view.ringerVolume)), rampFrames: 0))
        callBus = try engine.addBus()
        ringerBus = try engine.addBus(volumeClass: .ringer)
    }

    // MARK: Graph

    /// Register a session (inactive) and its bus.
    @discardableResult
    public func addSession(_ configuration: SessionConfiguration) throws -> AudioSession {
        try policy.addSession(configuration)
        view = policy.renderView
        busOf[configuration.id] = try engine.addBus(gateOpen: AudioSystem.gateOpen(view.session(configuration.id)))
        hints[configuration.id] = policy.secondaryAudioShouldBeSilencedHint(asker: configuration.id)
        return AudioSession(system: self, id: configuration.id)
    }

    /// Register a source of `session` (stopped).
    @discardableResult
    public func addSource(_ id: String, session: String, kind: SourceKind, gain: Float = 1, loop: Bool = false) throws -> SourceID {
        guard let bus = busOf[session] else { throw PolicyError.unknownSession(session) }
        try policy.addSource(SourceConfiguration(id: id, session: session))
        let sid = try engine.addSource(kind, bus: bus, gain: gain, loop: loop)
        sourceOf[id] = sid
        sourceName[sid] = id
        view = policy.renderView
        return sid
    }

    public func sourceID(_ name: String) -> SourceID? { sourceOf[name] }
    public func busID(session: String) -> BusID? { busOf[session] }

    // MARK: Actions

    /// Run `action` through the policy and send what changed to the render graph at `frame`.
    /// Failures (activation during a call, unknown ids, …) come back in `outcome.error`, with the state unchanged.
    @discardableResult
    public func perform(_ action: PolicyAction, at frame: Int64 = 0) throws -> PolicyOutcome {
        let outcome = policy.apply(action)
        try applyView(policy.renderView, at: frame)
        notify(outcome.journal)
        return outcome
    }

    /// Source gain (not a policy matter): a linear ramp from the current gain.
    public func setSourceGain(_ source: String, _ gain: Double, rampSeconds: Double? = nil, at frame: Int64 = 0) throws {
        guard let id = sourceOf[source] else { throw PolicyError.unknownSource(source) }
        try send(
            .setSourceGain(id, gain: Float(gain), rampFrames: engine.rampFrames(rampSeconds ?? engine.configuration.sourceGainRampSeconds)),
            at: frame)
    }

    /// Session (bus) gain, below the policy's gate and duck and the system volume.
    public func setSessionGain(_ session: String, _ gain: Double, rampSeconds: Double? = nil, at frame: Int64 = 0) throws {
        guard let bus = busOf[session] else { throw PolicyError.unknownSession(session) }
        try send(
            .setBusGain(bus, gain: Float(gain), rampFrames: engine.rampFrames(rampSeconds ?? engine.configuration.sourceGainRampSeconds)),
            at: frame)
    }

    /// Begin a phone call, playing `audio` (a source on `callBus`, looped) when the call starts.
    @discardableResult
    public func beginPhoneCall(audio: SourceID?, at frame: Int64 = 0) throws -> PolicyOutcome {
        let outcome = try perform(.phoneCallBegin, at: frame)
        if let audio, view.callActive, callSource == nil {
            callSource = audio
            try send(.play(audio), at: frame)
        }
        return outcome
    }

    /// A system sound: plays `audio` (a source on `ringerBus`) unless the policy turns it
    /// into a vibration or suppresses it. Returns whether it plays.
    @discardableResult
    public func playSystemSound(name: String, audio: SourceID, at frame: Int64 = 0) throws -> (outcome: PolicyOutcome, plays: Bool) {
        let outcome = try perform(.systemSound(name: name), at: frame)
        let plays = outcome.journal.contains { if case .systemSoundPlayed = $0 { true } else { false } }
        if plays { try send(.play(audio), at: frame) }
        return (outcome, plays)
    }

    /// Send a raw command (recorded like the rest).
    public func send(_ action: RenderCommand.Action, at frame: Int64) throws {
        try engine.send(action, at: frame)
        if recordsCommands { recordedCommands.append(RenderCommand(at: frame, action)) }
    }

    /// Drain render events: a source that reached its end goes through the policy.
    /// Returns the journal entries with the frame they happened at.
    @discardableResult
    public func pollEvents(_ handler: (RenderEvent) -> Void = { _ in }) -> [(frame: Int64, entries: [JournalEntry])] {
        var ended: [RenderEvent] = []
        engine.pollEvents { e in
            if case .sourceEnded = e.kind { ended.append(e) }
            handler(e)
        }
        var out: [(Int64, [JournalEntry])] = []
        for e in ended {
            guard case .sourceEnded(let id) = e.kind, let name = sourceName[id] else { continue }
            let outcome = policy.apply(.sourceEnded(source: name))
            // The renderer already stopped and rewound it: take the new view without commands.
            view = policy.renderView
            notify(outcome.journal)
            out.append((e.frame, outcome.journal))
        }
        return out
    }

    // MARK: Notifications

    /// A new stream of notifications (each call gets its own).
    public func notifications() -> AsyncStream<AudioSessionNotification> {
        let key = nextStream
        nextStream += 1
        return AsyncStream { continuation in
            streams[key] = continuation
        }
    }

    private func notify(_ journal: [JournalEntry]) {
        var notes: [AudioSessionNotification] = []
        for e in journal {
            switch e {
            case .interruptionBegan(let s, let reason, let by): notes.append(.interruption(session: s, .began(reason: reason, by: by)))
            case .interruptionEnded(let s, let resume): notes.append(.interruption(session: s, .ended(shouldResume: resume)))
            case .routeChange(let reason, let previous, let current):
                notes.append(.routeChange(reason: reason, previous: previous, current: current))
            default: break
            }
        }
        for s in policy.sessions {
            let hint = policy.secondaryAudioShouldBeSilencedHint(asker: s.id)
            if hints[s.id] != hint {
                hints[s.id] = hint
                notes.append(.silenceSecondaryAudioHint(session: s.id, begin: hint))
            }
        }
        for n in notes {
            notificationHandler?(n)
            for c in streams.values { c.yield(n) }
        }
    }

    // MARK: View → commands

    static func gateOpen(_ session: SessionView?) -> Bool {
        guard let session else { return false }
        return session.state == .audible && session.hasOutput
    }

    private func applyView(_ new: RenderView, at frame: Int64) throws {
        let old = view
        view = new
        let gateRamp = engine.rampFrames(engine.configuration.gateRampSeconds)
        for after in new.sessions {
            guard let bus = busOf[after.id] else { continue }
            let before = old.session(after.id)
            let open = AudioSystem.gateOpen(after)
            if AudioSystem.gateOpen(before) != open {
                // Nothing of the session sounding (e.g. it is being activated): nothing can click, so no ramp.
                let sounding = old.sources.contains { $0.session == after.id && $0.isRunning }
                try send(.setBusGate(bus, gain: open ? 1 : 0, rampFrames: sounding ? gateRamp : 0), at: frame)
            }
            if before?.duck != after.duck {
                if let duck = after.duck {
                    let rate = DuckEnvelope.rate(rangeDB: Float(duck.levelDB), frameCount: engine.frames(forSeconds: duck.attackSeconds))
                    try send(.setBusDuck(bus, targetDB: Float(duck.levelDB), dBPerFrame: rate), at: frame)
                } else if let duck = before?.duck {
                    let rate = DuckEnvelope.rate(rangeDB: Float(duck.levelDB), frameCount: engine.frames(forSeconds: duck.releaseSeconds))
                    try send(.setBusDuck(bus, targetDB: 0, dBPerFrame: rate), at: frame)
                }
            }
        }
        for now in new.sources {
            guard let id = sourceOf[now.id] else { continue }
            let was = old.source(now.id)
            let rewind = was != nil && was?.rewinds != now.rewinds
            let wasRunning = was?.isRunning ?? false
            // Stop (fade out and rewind) first, so a play in the same action starts from the top.
            if rewind { try send(.stop(id), at: frame) }
            if now.isRunning, !wasRunning || rewind {
                try send(.play(id), at: frame)
            } else if wasRunning, !now.isRunning, !rewind {
                try send(.pause(id), at: frame)
            }
        }
        if old.systemVolume != new.systemVolume {
            try send(
                .setMasterVolume(
                    gain: Float(VolumeCurve.gain(forVolume: new.systemVolume)),
                    rampFrames: engine.rampFrames(engine.configuration.volumeRampSeconds)), at: frame)
        }
        if old.ringerVolume != new.ringerVolume {
            try send(
                .setRingerVolume(
                    gain: Float(VolumeCurve.gain(forVolume: new.ringerVolume)),
                    rampFrames: engine.rampFrames(engine.configuration.volumeRampSeconds)), at: frame)
        }
        if old.callActive, !new.callActive, let call = callSource {
            try send(.stop(call), at: frame)
            callSource = nil
        }
    }
}

/// Control-side handle of one session, with the platform's names.
/// Thread: the control thread. Holds no audio state: it forwards to its `AudioSystem`.
public struct AudioSession {
    public unowned let system: AudioSystem
    public let id: String

    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// On deactivation, tell interrupted sessions they may resume.
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Change the category, mode and options of the session. Throws `optionNotAllowed` for
    /// options the category does not take. A nil mode keeps the current one.
    public func setCategory(
        _ category: TuttiPolicy.Category, mode: Mode? = nil, options: Set<CategoryOption> = [],
        at frame: Int64 = 0
    ) throws {
        let outcome = try system.perform(.setCategory(session: id, category: category, mode: mode, options: options), at: frame)
        if let error = outcome.error { throw error }
    }

    /// Activate or deactivate. Activation fails with `insufficientPriority` during a call.
    public func setActive(_ active: Bool, options: SetActiveOptions = [], at frame: Int64 = 0) throws {
        let action: PolicyAction =
            active
            ? .activate(session: id)
            : .deactivate(session: id, notifyOthers: options.contains(.notifyOthersOnDeactivation))
        let outcome = try system.perform(action, at: frame)
        if let error = outcome.error { throw error }
    }

    /// The host's decision after an interruption ended, for sessions with `autoResume: false`.
    public func resume(at frame: Int64 = 0) throws {
        let outcome = try system.perform(.resume(session: id), at: frame)
        if let error = outcome.error { throw error }
    }

    public var isOtherAudioPlaying: Bool { system.policy.isOtherAudioPlaying(asker: id) }
    public var secondaryAudioShouldBeSilencedHint: Bool { system.policy.secondaryAudioShouldBeSilencedHint(asker: id) }
}
