import Synchronization
import TuttiDSP
import TuttiEngine
import TuttiPolicy

#if canImport(Glibc)
    import Glibc
#endif

/// An audio engine with a phone-style policy: the object a host embeds.
///
/// Create sessions (`makeSession`), give them sources, activate them; the policy decides who
/// is heard, ducked, interrupted or silenced, and every change lands at an exact frame of the
/// engine clock (`EngineTime`). Pull audio with `render(into:frameCount:)` from your own audio
/// callback. Read what happened with `pollEvents()` or `events()`.
///
/// Thread: every method may be called from any thread except the real-time one; calls are
/// serialised inside (one mutex). `render(into:frameCount:)` is the real-time method: it
/// takes no lock and never allocates; so are the calls a host makes from its own audio
/// threads on a `SourceHandle` — `write` and the status reads — which bypass the mutex. A
/// method that throws a `TuttiError` changed nothing.
public final class AudioEngine: Sendable {
    /// The settings it was created with.
    public let configuration: AudioEngineConfiguration
    let core: Mutex<AudioSystem>
    let renderer: Renderer
    /// Lock-free way from a source id to its stream or input and its status (writes and
    /// state reads take no lock).
    let directory: SourceDirectory
    /// Who drives the renderer: 0 nobody, 1 a pull render in progress, 2 an output.
    let renderOwner = Atomic<Int>(0)
    let delivery = EventDelivery()
    /// The device output while one runs (its own lock: a backend's thread reports events
    /// through the core's lock, so stopping it must not hold that one).
    let output = Mutex<(any OutputBackend)?>(nil)
    /// The MPRIS server while the output runs with `OutputConfiguration.mpris`, or why it
    /// could not start (its own lock: stopping it joins threads that take the core's lock).
    let mpris = Mutex<(server: EngineMPRIS?, error: String?)>((nil, nil))

    /// A new engine with every buffer, slot and queue allocated now. Throws `invalidArgument`
    /// naming a setting out of range. Any thread.
    public init(configuration: AudioEngineConfiguration = AudioEngineConfiguration()) throws(TuttiError) {
        self.configuration = configuration
        let system = try AudioSystem(configuration: configuration)
        renderer = system.engine.renderer
        directory = system.engine.directory
        core = Mutex(system)
    }

    deinit {
        stopOutput()
        delivery.stop()
    }

    /// Output rate, Hz: the engine clock counts frames at this rate.
    public var sampleRate: Int { configuration.sampleRate }
    /// Output channels.
    public var channelCount: Int { configuration.channelCount }

    /// Run `body` on the core, under the lock. Any thread.
    func withCore<R: Sendable>(_ body: (AudioSystem) throws(TuttiError) -> R) throws(TuttiError) -> R {
        try core.withLock { (system: inout AudioSystem) throws(TuttiError) -> R in try body(system) }
    }

    // MARK: Rendering (pull mode)

    /// Render the next `frameCount` interleaved frames into `output` (`frameCount ×
    /// channelCount` floats), applying every change due in them at its frame. Any frame count
    /// (split internally).
    ///
    /// Thread: the host's real-time thread, one at a time. Real-time safe: no lock, no
    /// allocation, no system call. Returns false — and writes silence — when an output device
    /// owns the clock (`startOutput`) or another thread is rendering: the one failure reported
    /// by value, because nothing on the real-time path may build an error message. With
    /// `pullRenderWaitsForFiles` set it waits for streaming file sources instead of playing
    /// silence, and is then not real-time safe (meant for offline hosts).
    @discardableResult
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        guard frameCount > 0 else { return true }
        guard renderOwner.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            output.update(repeating: 0, count: frameCount * configuration.channelCount)
            return false
        }
        if configuration.pullRenderWaitsForFiles {
            renderer.renderWaitingForFiles(into: output, frameCount: frameCount)
        } else {
            renderer.render(into: output, frameCount: frameCount)
        }
        renderOwner.store(0, ordering: .releasing)
        return true
    }

    /// How many output buses (named output mixes) it has (`configuration.outputBuses.count`).
    /// Any thread (real-time safe).
    public var outputBusCount: Int { renderer.outputBusCount }

    /// Deprecated: `outputBusCount` (the named output mixes are output buses now; "route" is
    /// the device route). Any thread (real-time safe).
    @available(*, deprecated, renamed: "outputBusCount")
    public var routeCount: Int { outputBusCount }

    /// Render the next `frameCount` frames of every output bus: `outputs[b]` receives
    /// `frameCount × channelCount` interleaved floats of bus `b` (`configuration.outputBuses[b]`,
    /// 0 = main) for `b` below `busCount`; buses past `busCount` are mixed and dropped.
    /// Otherwise exactly `render(into:frameCount:)`: the same thread rules, real-time safety
    /// and false return (all `busCount` buffers silent) when it may not render now.
    @discardableResult
    public func render(outputBuses outputs: UnsafePointer<UnsafeMutablePointer<Float>>, busCount: Int, frameCount: Int) -> Bool {
        guard frameCount > 0, busCount > 0 else { return true }
        guard renderOwner.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            for b in 0..<busCount { outputs[b].update(repeating: 0, count: frameCount * configuration.channelCount) }
            return false
        }
        if configuration.pullRenderWaitsForFiles {
            renderer.renderWaitingForFiles(outputBuses: outputs, busCount: busCount, frameCount: frameCount)
        } else {
            renderer.render(outputBuses: outputs, busCount: busCount, frameCount: frameCount)
        }
        renderOwner.store(0, ordering: .releasing)
        return true
    }

    /// Deprecated: `render(outputBuses:busCount:frameCount:)`, the same call. The thread that
    /// renders (as `render(into:frameCount:)`; real-time safe).
    @available(*, deprecated, renamed: "render(outputBuses:busCount:frameCount:)")
    @discardableResult
    public func render(routes outputs: UnsafePointer<UnsafeMutablePointer<Float>>, routeCount: Int, frameCount: Int) -> Bool {
        render(outputBuses: outputs, busCount: routeCount, frameCount: frameCount)
    }

    /// Frames rendered so far (the engine clock). Any thread; never races with rendering.
    public var framesRendered: Int64 { renderer.framesRendered }

    /// Frames at the engine rate for `duration` (rounded to the nearest frame). Any thread.
    public func frameCount(for duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return Int64((Double(seconds) + Double(attoseconds) * 1e-18) * Double(sampleRate) + 0.5)
    }

    // MARK: Sessions

    /// A new session, inactive, in the foreground, with the given policy settings (its `id`
    /// is its name: unique among live sessions). Throws `invalidArgument` (empty or duplicate
    /// name, an option the category does not take), `capacity` (`maxSessions`). Any thread.
    public func makeSession(_ configuration: SessionConfiguration) throws(TuttiError) -> SessionHandle {
        let id = try withCore { (s) throws(TuttiError) in try s.addSession(configuration) }
        // A running output with a stream per session gives it one.
        announceSessionStreams()
        return SessionHandle(engine: self, id: id)
    }

    /// A new session named `name` (`soloAmbient`, inactive, in the foreground, as on phones).
    /// Any thread.
    public func makeSession(named name: String, category: Category = .soloAmbient) throws(TuttiError) -> SessionHandle {
        try makeSession(SessionConfiguration(id: name, category: category))
    }

    /// The handle of a live session by name, nil if there is none. Any thread.
    public func session(named name: String) -> SessionHandle? {
        let found: SessionID?? = try? withCore { (s) throws(TuttiError) in s.sessionID(named: name) }
        guard let id = found ?? nil else { return nil }
        return SessionHandle(engine: self, id: id)
    }

    // MARK: Device and system (the device side of the policy)

    /// Silent switch on: `ambient` and `soloAmbient` sessions are silenced, system sounds vibrate.
    /// Any thread.
    public func setSilentSwitch(_ on: Bool, at time: EngineTime = .now) throws(TuttiError) {
        try perform(.silentSwitch(on), at: time)
    }

    /// Device locked: `ambient` and `soloAmbient` sessions are silenced. Any thread.
    public func setLocked(_ locked: Bool, at time: EngineTime = .now) throws(TuttiError) {
        try perform(locked ? .lock : .unlock, at: time)
    }

    /// System volume, 0…1 (a perceptual curve; the last gain stage of everything but the
    /// ringer class). Throws `invalidArgument` outside 0…1. Any thread.
    public func setVolume(_ volume: Float, at time: EngineTime = .now) throws(TuttiError) {
        try checkUnit(volume, "volume")
        try perform(.volume(Double(volume)), at: time)
    }

    /// Ringer volume, 0…1 (system sounds and ringtones). Any thread.
    public func setRingerVolume(_ volume: Float, at time: EngineTime = .now) throws(TuttiError) {
        try checkUnit(volume, "ringer volume")
        try perform(.ringerVolume(Double(volume)), at: time)
    }

    /// A volume button press: one step of 1/16 on the system volume when anything is heard or
    /// a call is active, on the ringer volume otherwise. Any thread.
    public func pressVolumeButton(up: Bool, at time: EngineTime = .now) throws(TuttiError) {
        try perform(up ? .volumeUp : .volumeDown, at: time)
    }

    /// The output route (rule 7). nil reason: `newDeviceAvailable` towards headphones, bluetooth
    /// or external, `oldDeviceUnavailable` back to the speaker. Any thread.
    public func setRoute(_ route: Route, reason: RouteChangeReason? = nil, at time: EngineTime = .now) throws(TuttiError) {
        try perform(.route(route, reason: reason), at: time)
    }

    /// Built-in microphone muted (rule 2.8: capturing sessions are interrupted and never come
    /// back by themselves). Any thread.
    public func setMicrophoneMuted(_ muted: Bool, at time: EngineTime = .now) throws(TuttiError) {
        try perform(.micMuted(muted), at: time)
    }

    /// Other apps' audio, outside this engine's sessions (rule 10): `playing` makes
    /// `isOtherAudioPlaying` true for every session (and an activating session with
    /// `categoryWhenOtherAudioPlaying` takes that category); `silenceSecondary` (one of them is
    /// not mixable: music, a movie, a call) also turns `secondaryAudioShouldBeSilencedHint`
    /// on. `clients` names the apps, for the events. A change sends
    /// ``AudioEvent/Kind/otherAudioChanged(playing:silenceSecondary:clients:)``; the same
    /// again changes nothing. Any thread.
    public func setOtherAudio(
        playing: Bool, silenceSecondary: Bool = false, clients: [String] = [], at time: EngineTime = .now
    ) throws(TuttiError) {
        try perform(.otherAudio(OtherAudio(playing: playing, silenceSecondary: silenceSecondary, clients: clients)), at: time)
    }

    /// A phone call begins: every session is interrupted (rule 2.7). Any thread.
    public func beginPhoneCall(at time: EngineTime = .now) throws(TuttiError) {
        try perform(.phoneCallBegin, at: time)
    }

    /// The phone call ends: its interruptions end with `shouldResume`. Any thread.
    public func endPhoneCall(at time: EngineTime = .now) throws(TuttiError) {
        try perform(.phoneCallEnd, at: time)
    }

    /// A remote command from headphones or a control centre: it goes to the now-playing
    /// session if that session listed it, else it is dropped (rule 8). Any thread.
    public func sendRemoteCommand(_ command: RemoteCommand, at time: EngineTime = .now) throws(TuttiError) {
        try perform(.remote(command), at: time)
    }

    // MARK: Host DSP

    /// Insert `effect`, the host's own DSP, on the master from `time` on (nil: remove it),
    /// replacing the one there. It runs on the render thread after the master chain
    /// (`AudioEngineConfiguration.effects`), on the main route's mix of every session (system
    /// sounds, the ringer class, bypass it), before the system volume and the limiter. Its
    /// `process` gets interleaved frames of the engine's channel count once per rendered chunk
    /// and must follow `HostEffect`'s rules (no locks, no allocation, no I/O). The engine holds
    /// a strong reference while it is installed; from `time` on the one it replaces is no
    /// longer called, and its reference is dropped on a control thread (a later call on the
    /// engine) once the render side has let go of it, with the engine's lock held (a `deinit`
    /// then must not call the engine). Needs a master stage: errors `state`
    /// when `AudioEngineConfiguration.effects` is nil (an empty list will do),
    /// `invalidArgument` naming `time`; nothing changed. Any thread but the render thread.
    public func setMasterHostEffect(_ effect: (any HostEffect)?, at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        let slot = effect.map { HostEffectSlot.make($0) }
        do {
            try withCore { (s) throws(TuttiError) in try s.setMasterHostEffect(slot, at: time) }
        } catch {
            if let slot { HostEffectSlot.destroy(slot) }
            throw error
        }
    }

    /// `tutti_master_set_effect`: `callback` with `user` on the master (nil callback: remove
    /// it), and `release` (may be nil) called with `user` on a control thread once the render
    /// side no longer calls it. Errors as `setMasterHostEffect`; a failed call calls nothing.
    /// Any thread but the render thread.
    package func setMasterHostEffect(
        callback: HostEffectCallback?, user: UnsafeMutableRawPointer?, release: HostEffectRelease?, at time: EngineTime
    ) throws(TuttiError) {
        try checkTime(time)
        let slot = callback.map { HostEffectSlot.make(callback: $0, user: user, release: release) }
        do {
            try withCore { (s) throws(TuttiError) in try s.setMasterHostEffect(slot, at: time) }
        } catch {
            // A C host's `user` is its own: free the slot without calling `release`.
            if let slot { slot.deinitialize(count: 1).deallocate() }
            throw error
        }
    }

    // MARK: Voice limits and ducking rules

    /// Voices the whole engine may play at once from `time` on (1…65536; nil: no limit).
    /// Applies to the plays that follow: lowering it stops nothing that plays. Any thread.
    public func setMaxVoices(_ limit: Int?, at time: EngineTime = .now) throws(TuttiError) {
        if let limit { try checkVoiceLimit(limit, "maxVoices") }
        try checkTime(time)
        try withCore { (s) throws(TuttiError) in try s.send(.setMaxVoices(Int32(limit ?? 0)), at: time) }
    }

    /// Replace the ducking rules (rule 3): when a session of `by` ducks one of `duck`, the
    /// most specific rule for the pair sets level, attack and release (session/session, then
    /// category/session, then session/category, then category/category); without one, the
    /// ducker's own `ducking`, else the engine's. Sessions ducked now move to their new level
    /// (from where they are). A rule with `trigger: .signal(thresholdDB:holdSeconds:)` ducks
    /// only while the ducker's bus level (mean square over 10 ms windows) is above the
    /// threshold and releases after `holdSeconds` below it; its `duckingBegan` /
    /// `duckingEnded` events come at those frames. Throws `invalidArgument` naming the rule and
    /// field for a level outside −96…0 dB, a time outside 0…3600 s, a `threshold` outside
    /// −120…0 dBFS or a `hold` outside 0…3600 s (or not finite), an unknown session, a session
    /// on both sides, or two rules for one pair; nothing changes then. Any thread.
    public func setDuckingRules(_ rules: [DuckingRule], at time: EngineTime = .now) throws(TuttiError) {
        try perform(.setDuckingRules(rules), at: time)
    }

    /// Replace the interaction table: for each pair of an active session (or category) and one
    /// that activates after it, what happens to the active one — `mix`, `duck`, `interrupt`,
    /// `reject` (the activation is `denied`) or `silence` — over the built-in rules (the most
    /// specific row wins: session/session, session/category, category/session,
    /// category/category; see docs/policy.md). Ducks and silences change at once;
    /// interruptions are decided at activations. Throws `invalidArgument` naming the row and
    /// field for an unknown session, a session on both sides, or two rows for one pair;
    /// nothing changes then. Any thread.
    public func setInteractions(_ rules: [InteractionRule], at time: EngineTime = .now) throws(TuttiError) {
        try perform(.setInteractions(rules), at: time)
    }

    /// The interaction table in force, in order. Any thread.
    public var interactions: [InteractionRule] {
        (try? withCore { (s) throws(TuttiError) in s.policy.interactionList }) ?? []
    }

    /// The ducking rules in force, in order (their indices are the journal's `rule`). Any thread.
    public var duckingRules: [DuckingRule] {
        (try? withCore { (s) throws(TuttiError) in s.policy.duckingRuleList }) ?? []
    }

    /// The device state the policy works with now. Any thread.
    public var deviceState: DeviceState {
        (try? withCore { (s) throws(TuttiError) in s.policy.device }) ?? configuration.device
    }

    /// Whether a phone call is in progress. Any thread.
    public var isPhoneCallActive: Bool {
        (try? withCore { (s) throws(TuttiError) in s.policy.callActive }) ?? false
    }

    func perform(_ action: PolicyAction, at time: EngineTime) throws(TuttiError) {
        try checkTime(time)
        try withCore { (s) throws(TuttiError) in _ = try s.performChecked(action, at: time) }
        delivery.wake()
    }

    // MARK: Statistics

    /// Counters of the whole engine. Value type: any thread.
    public struct Statistics: Hashable, Sendable {
        /// Frames rendered so far (the engine clock).
        public var framesRendered: Int64
        /// Live sources.
        public var sourceCount: Int
        /// Live sessions.
        public var sessionCount: Int
        /// Output deadlines missed (0 without an output).
        public var xrunCount: Int
        /// Frames stream sources rendered with no data, summed over the live ones.
        public var underrunFrames: Int64
        /// Events lost (stays 0: every queue is sized so none can be).
        public var eventsDropped: Int
        /// Output latency in frames: the device's while an output runs (else 0), plus the
        /// limiter's lookahead when `AudioEngineConfiguration.limiter` has one (it delays
        /// everything rendered by that much, pull renders included).
        public var latencyFrames: Int
    }

    /// The counters now. Any thread.
    public var statistics: Statistics {
        let output = outputStatus
        return
            (try? withCore { (s) throws(TuttiError) in
                Statistics(
                    framesRendered: s.engine.framesRendered, sourceCount: s.sourceCount, sessionCount: s.sessionCount,
                    xrunCount: output.xruns, underrunFrames: s.totalUnderrunFrames, eventsDropped: s.engine.eventsDropped,
                    latencyFrames: output.latencyFrames + s.engine.renderer.limiterLatencyFrames)
            })
            ?? Statistics(
                framesRendered: 0, sourceCount: 0, sessionCount: 0, xrunCount: 0, underrunFrames: 0, eventsDropped: 0, latencyFrames: 0)
    }
}

// MARK: - Argument checks shared by the handles

func checkTime(_ time: EngineTime) throws(TuttiError) {
    if case .frame(let f) = time, f < 0 {
        throw TuttiError(.invalidArgument, "time must be .now or a frame ≥ 0, got frame \(f)")
    }
}

func checkUnit(_ value: Float, _ name: String) throws(TuttiError) {
    guard value.isFinite, (0...1).contains(value) else {
        throw TuttiError(.invalidArgument, "\(name) must be finite and in [0, 1], got \(value)")
    }
}

/// A voice limit: 1…65536 (nil elsewhere means none).
func checkVoiceLimit(_ limit: Int, _ name: String) throws(TuttiError) {
    guard (1...65_536).contains(limit) else {
        throw TuttiError(.invalidArgument, "\(name) must be in 1…65536 (or nil: no limit), got \(limit)")
    }
}

func checkPan(_ pan: Float) throws(TuttiError) {
    guard pan.isFinite, (-1...1).contains(pan) else {
        throw TuttiError(.invalidArgument, "pan must be finite and in [-1, 1], got \(pan)")
    }
}

func checkRate(_ rate: Double) throws(TuttiError) {
    guard rate.isFinite, (0.25...4).contains(rate) else {
        throw TuttiError(.invalidArgument, "rate must be finite and in [0.25, 4], got \(rate)")
    }
}

func checkGain(_ gain: Float) throws(TuttiError) {
    guard gain.isFinite, (0...16).contains(gain) else {
        throw TuttiError(.invalidArgument, "gain must be finite and in [0, 16], got \(gain)")
    }
}
