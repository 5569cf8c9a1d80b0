import TuttiDSP
import TuttiEngine
import TuttiPolicy

/// A session of an `AudioEngine` (an "app" to the policy): its category, mode and options,
/// its activation, its sources. A handle is an id and its engine: after the session is
/// removed every call with it throws `notFound`, and it never reaches a later session.
/// Value type: any thread (every call goes through the engine's lock).
public struct SessionHandle: Hashable, Sendable {
    /// The engine it belongs to.
    public let engine: AudioEngine
    /// Its id (the C ABI's `tutti_session`).
    public let id: SessionID

    /// A handle for `id` in `engine` (it may name nothing: every call then throws `notFound`).
    public init(engine: AudioEngine, id: SessionID) {
        self.engine = engine
        self.id = id
    }

    /// Options of `setActive`.
    public struct SetActiveOptions: OptionSet, Sendable {
        /// The raw bits (the C ABI's flags).
        public let rawValue: UInt32
        /// An option set from its bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// On deactivation, tell interrupted sessions they may resume (`shouldResume`).
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Handles are equal when they name the same session of the same engine.
    public static func == (a: SessionHandle, b: SessionHandle) -> Bool { a.engine === b.engine && a.id == b.id }

    /// Hashes the engine's identity and the id.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(engine))
        hasher.combine(id)
    }

    /// Its name (unique among live sessions; the journal uses it).
    public var name: String {
        get throws(TuttiError) { try engine.withCore { (s) throws(TuttiError) in try s.sessionName(id) } }
    }

    /// Change the category, mode and options (rule 1). Takes effect at once, as on phones:
    /// an active session that becomes non-mixable interrupts the others. A nil mode keeps the
    /// current one. Throws `invalidArgument` for an option the category does not take.
    public func setCategory(_ category: Category, mode: Mode? = nil, options: Set<CategoryOption> = []) throws(TuttiError) {
        try perform { name in .setCategory(session: name, category: category, mode: mode, options: options) }
        // Its role may follow its category: a stream of its own announces it.
        engine.announceSessionStreams()
    }

    /// Activate (rules 2.1–2.3: may interrupt others; `denied` during a phone call or from the
    /// background over a playing session; delayed until the call ends instead for a session
    /// with `acceptsDelayedActivation`) or deactivate (pauses what still plays; with
    /// `.notifyOthersOnDeactivation` interrupted sessions may resume; a delayed activation is
    /// cancelled). `focus` (activation only): how long and how exclusively it needs the output
    /// — `.gain` (the default) as above, `.transient` (those it interrupts are told it is
    /// temporary and resume when it deactivates), `.transientMayDuck` (interrupts nobody, ducks
    /// everyone else), `.transientExclusive` (interrupts everyone, suppresses system sounds).
    /// Control thread (any thread; the engine's lock is taken).
    public func setActive(
        _ active: Bool, options: SetActiveOptions = [], focus: FocusRequest = .gain, at time: EngineTime = .now
    ) throws(TuttiError) {
        try perform(at: time) { name in
            active
                ? .activate(session: name, focus: focus)
                : .deactivate(session: name, notifyOthers: options.contains(.notifyOthersOnDeactivation))
        }
    }

    /// Foreground or background (rule 4: `ambient`/`soloAmbient` are silenced in the
    /// background; rule 2.3: from the background only mixable audio may start over others).
    public func setForeground(_ foreground: Bool, at time: EngineTime = .now) throws(TuttiError) {
        try perform(at: time) { name in foreground ? .foreground(session: name) : .background(session: name) }
    }

    /// The host's decision after an interruption ended (for `autoResume: false`): activate and
    /// play what was playing when it was interrupted.
    public func resume(at time: EngineTime = .now) throws(TuttiError) {
        try perform(at: time) { name in .resume(session: name) }
    }

    /// The remote commands this session answers from now on (rule 8; the guidelines: accept
    /// them only while the user is in an audio context). Empty: none.
    public func setRemoteCommands(_ commands: Set<RemoteCommand>) throws(TuttiError) {
        try perform { name in .setRemoteCommands(session: name, commands: commands) }
    }

    /// The session's own gain (linear, 0…16), under the policy's gate and duck and the system
    /// volume. `rampFrames`: nil the default 10 ms, 0 a step at `time`.
    public func setGain(_ gain: Float, rampFrames: Int64? = nil, at time: EngineTime = .now) throws(TuttiError) {
        try checkGain(gain)
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.setSessionGain(id, gain, rampFrames: rampFrames, at: time) }
    }

    /// The effect chain on this session's bus from `time` on, in order (empty: none): biquads,
    /// compressors and delays (`EffectSettings`). The session's sources on the main route mix
    /// into it; its output then takes the session's gate, duck, gain and the volume (sources
    /// moved to another route bypass it). A chain it replaces stops at once, tail included.
    /// Bad parameters: `invalidArgument` naming `effects[i].field`, nothing changed. Any
    /// thread but the render thread (the chain is built on the caller's thread and handed over).
    public func setEffects(_ effects: [EffectSettings], at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.setSessionEffects(id, effects, at: time) }
    }

    /// Insert `effect`, the host's own DSP, on this session's bus from `time` on (nil: remove
    /// it), replacing the one there. It runs on the render thread after the bus's built-in chain
    /// (`setEffects`), on the mix of the session's main-route sources, before the session's
    /// gate, duck, gain and the volume; it keeps its place when the chain is replaced. Its
    /// `process` gets the bus's interleaved frames (the engine's channel count) once per
    /// rendered chunk, and must follow `HostEffect`'s rules (no locks, no allocation, no I/O).
    /// The engine holds a strong reference to `effect` while it is installed; from `time` on
    /// the one it replaces is no longer called, and its reference is dropped on a control
    /// thread (a later call on the engine) once the render side has let go of it, with the
    /// engine's lock held (a `deinit` then must not call the engine). Removing the
    /// host effect from a session without a built-in chain makes it mix exactly (bit for bit)
    /// as before. Errors: `notFound` for a removed session, `invalidArgument` naming `time`,
    /// nothing changed. Any thread but the render thread.
    public func setHostEffect(_ effect: (any HostEffect)?, at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        try install(effect.map { HostEffectSlot.make($0) }, releaseOnFailure: true, at: time)
    }

    /// `tutti_bus_set_effect` on a session: `callback` with `user` (nil callback: remove), and
    /// `release` (may be nil) called with `user` on a control thread once the render side no
    /// longer calls it. A failed call calls nothing. Any thread but the render thread.
    package func setHostEffect(
        callback: HostEffectCallback?, user: UnsafeMutableRawPointer?, release: HostEffectRelease?, at time: EngineTime
    ) throws(TuttiError) {
        try checkTime(time)
        try install(callback.map { HostEffectSlot.make(callback: $0, user: user, release: release) }, releaseOnFailure: false, at: time)
    }

    /// Hand `slot` to the engine; on a throw free it (releasing what it holds only when
    /// `releaseOnFailure`: a Swift effect's reference, never a C host's pointer).
    private func install(_ slot: UnsafeMutablePointer<HostEffectSlot>?, releaseOnFailure: Bool, at time: EngineTime) throws(TuttiError) {
        do {
            try engine.withCore { (s) throws(TuttiError) in try s.setSessionHostEffect(id, slot, at: time) }
        } catch {
            if let slot {
                if releaseOnFailure { HostEffectSlot.destroy(slot) } else { slot.deinitialize(count: 1).deallocate() }
            }
            throw error
        }
    }

    /// Change the biquad at `index` of this session's chain (as given to `setEffects`) to
    /// `settings`, another biquad of any form, at `time`, gliding over `glideFrames` frames
    /// without zipper noise (the new filter starts from the old one's state and the output
    /// crossfades to it; nil: the default 10 ms, 0: a step). Compressors and delays change
    /// only by replacing the chain. Errors: `invalidArgument` naming `effects[index]` or its
    /// field, nothing changed. Any thread but the render thread.
    public func setEffect(at index: Int, to settings: EffectSettings, glideFrames: Int64? = nil, at time: EngineTime = .now)
        throws(TuttiError)
    {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in
            try s.setSessionEffect(id, index: index, to: settings, glideFrames: glideFrames, at: time)
        }
    }

    /// Voices this session's sources may play at once from `time` on (1…65536; nil: no limit
    /// of its own). A play over it takes the voice of this session's lowest-priority voice
    /// (ties: the quietest, then the oldest), or is refused if all of them rank higher.
    /// Applies to the plays that follow.
    public func setMaxVoices(_ limit: Int?, at time: EngineTime = .now) throws(TuttiError) {
        if let limit { try checkVoiceLimit(limit, "maxVoices") }
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.send(.setBusMaxVoices(id.bus, Int32(limit ?? 0)), at: time) }
    }

    /// Remove the session and its sources at `time` (it deactivates first, releasing whatever
    /// it interrupted; what plays fades out). The handle and its sources' handles are stale at once.
    public func remove(at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.removeSession(id, at: time) }
        engine.delivery.wake()
    }

    /// Its render state now: audible, silenced (why), interrupted or inactive.
    public var state: SessionRenderState {
        get throws(TuttiError) {
            try engine.withCore { (s) throws(TuttiError) in
                let name = try s.sessionName(id)
                return s.view.session(name)?.state ?? .inactive
            }
        }
    }

    /// The PipeWire `media.role` it plays with: its `SessionConfiguration.mediaRole`, else the
    /// role its category (as `setCategory` last set it), mode and content give
    /// (`SessionConfiguration.effectiveMediaRole`; docs/backends.md, "Media roles"); nil for a
    /// session without output. Main's stream announces the role its sessions share when the
    /// output starts. Any thread.
    public var mediaRole: MediaRole? {
        get throws(TuttiError) {
            try engine.withCore { (s) throws(TuttiError) in
                let name = try s.sessionName(id)
                return s.policy.sessions.first { $0.id == name }?.configuration.effectiveMediaRole
            }
        }
    }

    /// Set the PipeWire `media.role` it plays with (its `SessionConfiguration.mediaRole`; nil:
    /// back to the role its category, mode and content give; docs/backends.md, "Media roles").
    /// It changes what streams opened afterwards announce: main's stream decides its role when
    /// the output starts (`MediaRole.forMix(of:)`), so a running output keeps the role it
    /// announced; the session's own stream (`OutputConfiguration.streams` `.perSession`, on
    /// PipeWire) announces the new role at once (`pw_stream_update_properties`). Not a policy decision: nothing rendered changes and nothing is journaled.
    /// A session without output keeps none (`mediaRole` stays nil). Errors: `notFound` for a
    /// removed session. Control thread (any thread; the engine's lock is taken).
    public func setMediaRole(_ role: MediaRole?) throws(TuttiError) {
        try engine.withCore { (s) throws(TuttiError) in try s.setSessionMediaRole(id, role) }
        engine.announceSessionStreams()
    }

    /// Rule 10: another session is heard, or a phone call is in progress.
    public var isOtherAudioPlaying: Bool {
        get throws(TuttiError) {
            try engine.withCore { (s) throws(TuttiError) in s.policy.isOtherAudioPlaying(asker: try s.sessionName(id)) }
        }
    }

    /// Rule 10: a non-mixable session other than this one is heard, or a call is in progress.
    public var secondaryAudioShouldBeSilencedHint: Bool {
        get throws(TuttiError) {
            try engine.withCore { (s) throws(TuttiError) in
                s.policy.secondaryAudioShouldBeSilencedHint(asker: try s.sessionName(id))
            }
        }
    }

    // MARK: Sources

    /// A sine on every channel: `frequency` Hz (finite, > 0, below Nyquist), `amplitude` 0…1.
    public func makeToneSource(frequency: Double, amplitude: Float, name: String? = nil) throws(TuttiError) -> SourceHandle {
        try makeSource(.tone(frequency: frequency, amplitude: amplitude), name: name)
    }

    /// A source the host feeds while it plays (`SourceHandle.write`): frames at `sampleRate`
    /// Hz with `channelCount` channels (1 or 2), up to `capacityFrames` waiting. It plays at its
    /// true pitch whatever its rate (converted to the engine's on the render thread; at the
    /// engine's rate it is not converted: its frames play as written, bit for bit). Run dry,
    /// it fades out over 2 ms, plays silence (`underrunFrames`, `AudioEvent.sourceUnderrun`)
    /// and fades the next data in; `SourceHandle.endStream()` ends it after its last frame.
    /// Any thread.
    public func makeStreamSource(sampleRate: Double, channelCount: Int, capacityFrames: Int = 16_384, name: String? = nil)
        throws(TuttiError) -> SourceHandle
    {
        try makeSource(
            .stream(
                sampleRate: sampleRate, channelCount: channelCount, capacityFrames: capacityFrames,
                quality: engine.configuration.streamQuality), name: name)
    }

    /// Decoded audio at any rate, 1 or 2 channels: converted to the engine's format here
    /// (with `quality`; nil: the engine's `fileQuality`), off the render thread. `loop`: it
    /// wraps sample-exactly.
    public func makeSource(buffer: AudioBuffer, loop: Bool = false, quality: ResamplerQuality? = nil, name: String? = nil)
        throws(TuttiError) -> SourceHandle
    {
        guard (1...2).contains(buffer.channelCount) else {
            throw TuttiError(.invalidArgument, "buffer has \(buffer.channelCount) channels; sources are mono or stereo")
        }
        let converted: AudioBuffer
        do {
            converted = try buffer.converted(
                toSampleRate: Double(engine.sampleRate), channelCount: engine.channelCount,
                quality: quality ?? engine.configuration.fileQuality)
        } catch {
            throw TuttiError(.format, "converting the buffer to \(engine.sampleRate) Hz failed: \(error)")
        }
        return try makeSource(.buffer(converted), loop: loop, name: name)
    }

    /// A source that plays an audio file (any format libsndfile reads, any rate, 1 or 2
    /// channels), converted to the engine's format with `quality` (nil: the engine's
    /// `fileQuality`). A file up to `streamingThresholdSeconds` long is decoded and converted
    /// now, on this thread (not under the engine's lock); a longer one streams: its first
    /// 100 ms are read now, the rest by the engine's file worker while it plays, in constant
    /// memory. With `loop`, a WAV file's sampler loop (its `smpl` chunk's first forward loop)
    /// is its loop region (see `setLoop(_:startFrame:endFrame:count:at:)`; endless, the
    /// chunk's play count is not used; each end rounded to the nearest frame at the engine
    /// rate), whether it is held in memory or streams. Throws `io` (missing,
    /// unreadable, not a regular file) or `format` (not audio, too long to hold), naming the
    /// file.
    public func makeFileSource(path: String, loop: Bool = false, quality: ResamplerQuality? = nil, name: String? = nil)
        throws(TuttiError) -> SourceHandle
    {
        guard !path.isEmpty else { throw TuttiError(.invalidArgument, "path must not be empty") }
        _ = try self.name // a stale session fails before the file is read
        let sampleLoop = loop ? AudioFile.sampleLoop(path: path, sampleRate: engine.sampleRate) : nil
        let kind = try AudioFile.sourceKind(
            path: path, configuration: engine.configuration.engineConfiguration, quality: quality ?? engine.configuration.fileQuality)
        let frames: Int
        switch kind {
        case .buffer(let buffer): frames = buffer.frameCount
        case .file(let stream): frames = stream.frameCount
        default: frames = 0
        }
        let source = try makeSource(kind, loop: loop, name: name)
        if let sampleLoop, sampleLoop.lowerBound < min(sampleLoop.upperBound, frames) {
            do {
                try source.setLoop(true, startFrame: Int64(sampleLoop.lowerBound), endFrame: Int64(min(sampleLoop.upperBound, frames)))
            } catch {
                // Only a full command queue gets here: leave nothing behind.
                try? source.remove()
                throw error
            }
        }
        return source
    }

    /// A source that plays nothing (it advances like any other).
    public func makeSilentSource(name: String? = nil) throws(TuttiError) -> SourceHandle {
        try makeSource(.silence, name: name)
    }

    func makeSource(_ kind: SourceKind, loop: Bool = false, name: String?) throws(TuttiError) -> SourceHandle {
        let session = id
        let source = try engine.withCore { (s) throws(TuttiError) in try s.addSource(kind, session: session, name: name, loop: loop) }
        return SourceHandle(engine: engine, id: source)
    }

    private func perform(at time: EngineTime = .now, _ action: (String) -> PolicyAction) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in _ = try s.performChecked(action(try s.sessionName(id)), at: time) }
        engine.delivery.wake()
    }
}

/// A source of a session: a file or buffer, a tone, silence, a stream the host feeds, or an
/// input (captured audio the host feeds, see `SessionHandle.makeInputSource`).
/// A handle is an id and its engine: after the source is removed every call with it throws
/// `notFound`, and it never reaches a later source. Value type: any thread.
public struct SourceHandle: Hashable, Sendable {
    /// The engine it belongs to.
    public let engine: AudioEngine
    /// Its id (the C ABI's `tutti_source`).
    public let id: SourceID

    /// A handle for `id` in `engine` (it may name nothing: every call then throws `notFound`).
    public init(engine: AudioEngine, id: SourceID) {
        self.engine = engine
        self.id = id
    }

    /// Handles are equal when they name the same source of the same engine.
    public static func == (a: SourceHandle, b: SourceHandle) -> Bool { a.engine === b.engine && a.id == b.id }

    /// Hashes the engine's identity and the id.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(engine))
        hasher.combine(id)
    }

    /// Play (or resume) at `time`, through the policy: an inactive session is activated
    /// (which may be `denied`); a session that is not audible keeps it silent until the policy
    /// lets it play.
    public func play(at time: EngineTime = .now) throws(TuttiError) { try perform(at: time) { .play(source: $0) } }

    /// Pause at `time` (a short fade-out, then the position holds).
    public func pause(at time: EngineTime = .now) throws(TuttiError) { try perform(at: time) { .pause(source: $0) } }

    /// Stop at `time`: fade out, then rewind to the start.
    public func stop(at time: EngineTime = .now) throws(TuttiError) { try perform(at: time) { .stop(source: $0) } }

    /// An equal-power crossfade from `source` to this source at `time`, over `durationFrames`
    /// (frames at the engine rate, 1…2147483647): this source plays (through the policy, as
    /// `play(at:)`: it may be `denied`) and fades in along sin(πt/2) — from silence when it
    /// starts at `time`; one already playing at full level stays there — while `source`, of
    /// the same session and playing, fades out along cos(πt/2) (−3.01 dB each half-way: the
    /// powers sum to 1) and stops at the end exactly as `stop(at:)` stops it (rewound; the
    /// policy is told now, its journal entry at the crossfade's last frame, or now for
    /// `.now`). Frame-exact: the curves start at the frame of `time`. A `stop` of `source`
    /// meanwhile leaves its crossfade running; a pause, a play or a seek of either during it
    /// works as on a normal fade (see `EngineCommand.crossfade`).
    ///
    /// Throws, changing nothing: `invalidArgument` naming `from` (the source itself, or one of
    /// another session) or `durationFrames` (≤ 0 or too long), `notFound` for a removed handle
    /// (naming `from` for `source`), `state` naming `from` when it is not playing, `denied`
    /// when the policy refuses the play. Any thread (through the engine's lock).
    public func crossfade(from source: SourceHandle, durationFrames: Int64, at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        guard source.engine === engine else {
            throw TuttiError(.invalidArgument, "from: source \(source.id) belongs to another engine")
        }
        let stopAt: EngineTime
        switch time {
        case .now: stopAt = .now
        case .frame(let f): stopAt = .frame(f &+ max(durationFrames, 0))
        }
        try engine.withCore { (s) throws(TuttiError) in
            let outcome = try s.crossfade(id, from: source.id, durationFrames: durationFrames, at: time, stopAt: stopAt)
            if let error = outcome.error { throw AudioSystem.error(error) }
        }
        engine.delivery.wake()
    }

    /// Move to `position` (frames at the engine rate, ≥ 0; past the end: the end) at `time`.
    /// A playing source held in memory (a buffer, a file up to the streaming threshold)
    /// crossfades there: from the frame of `time` the old position fades out while the new
    /// one fades in, linearly over the 10 ms de-click whatever its fades (equal gain: the two
    /// gains sum to 1), so the new material is heard from that frame and ``position`` counts
    /// from `position` there. A playing streaming file, tone or silence source, one fading
    /// out for a pause or stop, and one still in an earlier seek's crossfade fade out, jump
    /// and fade back in (10 ms each): the new material from 10 ms after `time`. A source that
    /// is not playing just moves. Throws `invalidArgument` for a negative position and
    /// `state` for a stream (nothing changed). Any thread.
    public func seek(to position: Int64, at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.seek(id, to: position, at: time) }
    }

    /// Gain (linear, finite, 0…16) at `time`: `rampFrames` 0 a step, nil the default 10 ms,
    /// otherwise a linear ramp that starts at `time`.
    public func setGain(_ gain: Float, rampFrames: Int64? = nil, at time: EngineTime = .now) throws(TuttiError) {
        try checkGain(gain)
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.setSourceGain(id, gain, rampFrames: rampFrames, at: time) }
    }

    /// Pan position at `time`, −1 (left) … 0 (centre) … +1 (right), finite
    /// (`invalidArgument` otherwise, nothing changed). Mono material (a mono file, a tone, a
    /// mono stream or input) is placed with the constant-power law: −3.01 dB on each channel
    /// at 0, the far channel silent at ±1; stereo material is balanced: the far channel is
    /// attenuated (silent at ±1), the near one kept. Each channel's gain ramps linearly over
    /// `rampFrames` (0 a step, nil the default 10 ms), like a gain change. A source never
    /// panned has no pan stage (mono material at unity on both channels); a mono engine
    /// ignores pan. Any thread (through the engine's lock).
    public func setPan(_ pan: Float, rampFrames: Int64? = nil, at time: EngineTime = .now) throws(TuttiError) {
        try checkPan(pan)
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.setSourcePan(id, pan, rampFrames: rampFrames, at: time) }
    }

    /// Playback rate at `time`: source frames per output frame, finite in [0.25, 4] (1 as
    /// recorded, 2 twice as fast and an octave up, 0.5 half as fast and an octave down). Pitch
    /// follows the rate (no time-stretching). The rate glides linearly from the current one
    /// over `rampFrames` (0 a step, nil the default 10 ms gain ramp), like a gain change.
    /// ``position``, ``duration``, seeks and loop regions stay in the source's
    /// own frames: at rate 2 a source of N frames ends after N/2 output frames. Read at a
    /// fractional position with 4-point, 3rd-order Hermite interpolation (no band-limiting: at
    /// rates above 1, content above the sample rate / (2 · rate) folds down); at exactly 1
    /// from a whole frame (a new source, after a stop, a seek or the end) it mixes bit for bit
    /// as a source never given a rate.
    ///
    /// Buffer sources (in memory, and files up to the streaming threshold). Throws
    /// `invalidArgument` naming `rate` when it is not finite or outside [0.25, 4], and for a
    /// rate other than 1 on a tone, silence, stream or input; `state` for a rate other than 1
    /// on a file that streams (longer than
    /// `AudioEngineConfiguration.streamingThresholdSeconds`). Nothing changes when it throws.
    /// Any thread (through the engine's lock).
    public func setRate(_ rate: Double, rampFrames: Int64? = nil, at time: EngineTime = .now) throws(TuttiError) {
        try checkRate(rate)
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.setSourceRate(id, rate, rampFrames: rampFrames, at: time) }
    }

    /// Loop on or off from `time`, with a loop region and a count (buffers and files).
    /// While `loop` is on, playback that reaches `endFrame` goes on at `startFrame`
    /// sample-exactly — no fade at the seam, as at the end of a whole-file loop: a seamless
    /// region is the material's — `count` times (nil: endless); after the last wrap it plays
    /// on to the source's end and ends there (`AudioEvent.sourceEnded`), so the region is
    /// heard `count` + 1 times. The count starts over with this call and at every rewind
    /// (stop, end); a seek keeps it. Playback from past `endFrame` (after a seek) wraps at the
    /// source's end. Frames at the engine rate (the source's own frames: ``position`` counts
    /// them); `startFrame` 0 and `endFrame` nil (the source's end) loop it whole, as the
    /// `loop` flag of its creation does.
    ///
    /// Throws `invalidArgument` naming the argument for `startFrame` < 0, `endFrame` past the
    /// source's length, an empty or reversed region (`endFrame` ≤ `startFrame`), `count` < 1,
    /// and for a source with no length (tone, silence, stream, input). A file that streams
    /// (longer than `AudioEngineConfiguration.streamingThresholdSeconds`) loops a region as
    /// one held in memory does (its worker reads the region's start again right after its
    /// end): sample for sample at the engine rate; a converted file differs by less than 1e-5
    /// after each seam of a region not starting at 0. Setting a region other than the whole
    /// file on it refills its ring from where it is, so while it plays it may go silent for a
    /// moment (faded) as after a seek.
    /// Nothing changes when it throws. Any thread (through the engine's lock).
    public func setLoop(_ loop: Bool, startFrame: Int64 = 0, endFrame: Int64? = nil, count: Int? = nil, at time: EngineTime = .now)
        throws(TuttiError)
    {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in
            try s.setLoop(id, loop, startFrame: startFrame, endFrame: endFrame, count: count, at: time)
        }
    }

    /// Fades in frames: `fadeInFrames` on play/resume (nil: the default, none from the start
    /// and a 10 ms de-click when resuming mid-way), `fadeOutFrames` on pause/stop/seek/remove
    /// (nil: the default 10 ms de-click). Applies from the next block.
    public func setFades(inFrames fadeInFrames: Int64?, outFrames fadeOutFrames: Int64?) throws(TuttiError) {
        try engine.withCore { (s) throws(TuttiError) in try s.setFades(id, fadeInFrames: fadeInFrames, fadeOutFrames: fadeOutFrames) }
    }

    /// Remove at `time` (it fades out if it plays). The handle is stale at once.
    public func remove(at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.removeSource(id, at: time) }
    }

    /// Voice-stealing priority, 0…255 (default 128), from `time` on: under a voice limit the
    /// lowest priority loses its voice first, and a play below every playing voice is refused.
    public func setPriority(_ priority: Int, at time: EngineTime = .now) throws(TuttiError) {
        guard (0...255).contains(priority) else {
            throw TuttiError(.invalidArgument, "priority must be in 0…255, got \(priority)")
        }
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in
            _ = try s.sourceName(id)
            try s.send(.setPriority(id, UInt8(priority)), at: time)
        }
    }

    /// Control thread: the output bus (named output mix) it plays to from `time` on, by name
    /// (one of `AudioEngineConfiguration.outputBuses`; a step, so set it before playing).
    /// "main" suits every source; another bus needs the source's session to have category
    /// multiRoute (`state` error otherwise; an unknown name is `invalidArgument`). When the
    /// session leaves multiRoute the source plays to main, and back on its bus when it returns.
    public func setOutputBus(_ bus: String, at time: EngineTime = .now) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in try s.setOutputBus(id, bus: bus, at: time) }
    }

    /// Control thread: the name of the output bus it asked for (`setOutputBus(_:at:)`; "main"
    /// by default).
    public var outputBus: String {
        get throws(TuttiError) { try engine.withCore { (s) throws(TuttiError) in try s.outputBus(of: id) } }
    }

    /// Deprecated: `setOutputBus(_:at:)` (a source's named output mix is its output bus now;
    /// "route" is the device route, `AudioEngine.setRoute(_:reason:at:)`). Control thread.
    @available(*, deprecated, renamed: "setOutputBus(_:at:)")
    public func setRoute(_ route: String, at time: EngineTime = .now) throws(TuttiError) {
        try setOutputBus(route, at: time)
    }

    /// Deprecated: `outputBus`. Control thread.
    @available(*, deprecated, renamed: "outputBus")
    public var route: String { get throws(TuttiError) { try outputBus } }

    /// What the render side last published about it, with what the control side knows.
    public var info: SourceInfo {
        get throws(TuttiError) { try engine.withCore { (s) throws(TuttiError) in try s.info(id) } }
    }

    /// What the render side last published about it (state, position, underruns), read
    /// without the engine's lock: no lock, no allocation (unless it throws `notFound`). Any
    /// thread, the real-time one included.
    public var status: SourceStatus {
        get throws(TuttiError) {
            guard engine.directory.isLive(id) else { throw TuttiError(.notFound, "no source \(id) (removed, or never created)") }
            return engine.renderer.publishedStatus(id) ?? .initial
        }
    }

    /// Where it is in its life (stopped, playing, paused, ended). Takes no lock and allocates
    /// nothing (unless it throws `notFound`): any thread, the real-time one included.
    public var state: PlaybackState { get throws(TuttiError) { try status.state } }
    /// Frames played since the last rewind, at the engine rate. Takes no lock and allocates
    /// nothing (unless it throws `notFound`): any thread, the real-time one included.
    public var position: Int64 { get throws(TuttiError) { try status.position } }
    /// Length in frames at the engine rate; nil for tones, silence and streams.
    public var duration: Int64? { get throws(TuttiError) { try info.frameCount } }
    /// Streams and inputs: frames rendered with no data. Takes no lock and allocates nothing
    /// (unless it throws `notFound`): any thread, the real-time one included.
    public var underrunFrames: Int64 { get throws(TuttiError) { try status.underrunFrames } }

    /// The session it belongs to.
    public var session: SessionHandle {
        get throws(TuttiError) {
            let sessionID = try engine.withCore { (s) throws(TuttiError) in try s.session(of: id) }
            guard let sessionID else { throw TuttiError(.notFound, "source \(id) belongs to no session") }
            return SessionHandle(engine: engine, id: sessionID)
        }
    }

    /// Streams and inputs: append whole interleaved frames (a stream's at its rate, an
    /// input's captured at the engine rate); returns the frames taken (fewer when its buffer
    /// is full: retry the rest later). Throws `invalidArgument` for a source that is neither
    /// or a sample count that is not whole frames, `notFound` for a removed source.
    ///
    /// Thread: one producer per source at a time, any thread, the real-time one included: it
    /// takes no lock and allocates nothing (unless it throws), going straight to the source's
    /// ring (`SourceDirectory`).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(TuttiError) -> Int {
        guard let base = samples.baseAddress else {
            guard engine.directory.isLive(id) else { throw TuttiError(.notFound, "no source \(id) (removed, or never created)") }
            return 0
        }
        return try engine.write(id, base, count: samples.count)
    }

    /// Streams: no more frames will come. Every frame written is heard — the converter's
    /// tail included, so a stream at another rate loses nothing — then the source ends
    /// (`sourceEnded`, as a buffer does at its last frame). Later writes throw `state`.
    /// Throws `invalidArgument` for a source that is not a stream, `state` when it was already
    /// ended, `notFound` for a removed one. Any thread (the producer's, typically).
    public func endStream() throws(TuttiError) {
        let stream = try engine.withCore { (s) throws(TuttiError) in try s.stream(id) }
        guard stream.end() else { throw TuttiError(.state, "source \(id) was already ended (endStream)") }
    }

    private func perform(at time: EngineTime, _ action: (String) -> PolicyAction) throws(TuttiError) {
        try checkTime(time)
        try engine.withCore { (s) throws(TuttiError) in
            guard try s.session(of: id) != nil else { throw TuttiError(.invalidArgument, "source \(id) is the engine's own") }
            _ = try s.performChecked(action(try s.sourceName(id)), at: time)
        }
        engine.delivery.wake()
    }
}
