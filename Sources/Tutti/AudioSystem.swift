import TuttiDSP
import TuttiEngine
import TuttiPolicy

/// The policy wired to an engine: every `PolicyAction` goes through `PolicyState`, and the
/// difference between the render views before and after becomes render commands at the
/// action's frame (gates, duck envelopes, pauses, resumes, volumes).
///
/// This is the single-threaded core behind `AudioEngine` (which serialises calls from any
/// thread). It speaks ids to hosts and names to the policy, and always works the same way:
/// the offline scene driver (TuttiScene's `OfflineRenderer`) calls the same methods and hears
/// what it needs beyond them (the journal of render reports, the commands sent, the render
/// view) through the `OfflineDriverObserver` it gives at creation; no mode changes that.
///
/// Thread: one control thread at a time (the owner of the `Engine`'s command side).
package final class AudioSystem {
    /// The settings it was created with (validated). Control thread.
    package let configuration: AudioEngineConfiguration
    /// The engine it drives: this system owns its control side (commands, sources, buses,
    /// events); the offline driver also renders it, on the same thread. Control thread.
    package let engine: Engine
    /// The policy's state after the last action or render report (read-only outside).
    /// Control thread.
    package private(set) var policy: PolicyState
    /// The render view the engine was last told (the policy's, patched per action).
    /// Control thread.
    package private(set) var view: RenderView
    /// Phone call audio: system volume, never ducked or silenced. Control thread.
    package let callBus: BusID
    /// System sounds: ringer volume. Control thread.
    package let ringerBus: BusID

    private var sessionNames: [SessionID: String] = [:]
    private var sessionIDs: [String: SessionID] = [:]
    /// Per ducked bus, the last signal-triggered duck armed on it (session, ducker, rule):
    /// what its `sidechainDuck` reports are journaled as.
    private var signalDucks: [BusID: (session: String, by: String, rule: DuckingRuleReference)] = [:]
    private var sources: [SourceID: SourceRecord] = [:]
    private var sourceIDs: [String: SourceID] = [:]
    private var nextSourceNumber = 1
    private var callSource: SourceID?
    private var hints: [String: Bool] = [:]
    /// Heard non-mixable sessions at the last hint pass (a new, inactive session's hint).
    private var heardNonMixable = 0
    /// `hints` may be behind the policy (a source was removed without a pass): the next
    /// notification compares every session.
    private var hintsStale = false
    /// Sessions the last policy action visited to derive their status
    /// (`PolicyState.lastActionSessionVisits`), plus the session and source views and hints it
    /// visited to send its commands and events: a measure of work that follows what the action
    /// changed, not how many sessions there are (unless it changed what every session depends
    /// on, or removed sessions or sources). Control thread.
    package private(set) var lastActionVisits = 0
    /// The most `lastActionVisits` of any policy action or render report so far. Control thread.
    package private(set) var maxActionVisits = 0

    /// What the control side knows of a source.
    struct SourceRecord {
        let name: String
        /// nil for the engine's own sources (call audio, system sounds).
        let session: SessionID?
        var gain: Float
        /// The last pan set (nil: never panned, no pan stage).
        var pan: Float?
        /// The last playback rate set (1: never set).
        var rate = 1.0
        /// Frames of content at the engine rate; nil for endless sources.
        let frameCount: Int64?
        /// A file streamed by the engine's worker (a loop region must be the whole file).
        var streams = false
        /// The route it asked for (index into `configuration.outputBuses`) and the one the engine
        /// has: the same while its session's category is multiRoute, else main (0).
        var route = 0
        var engineRoute = 0
        /// The fades the host set (`setFades`; -1 / nil: the defaults), restored after a loss fade.
        var fadeInFrames: Int32 = -1
        var fadeOutFrames: Int32?
    }

    /// Sources whose asked-for or engine route is not main (re-checked after every policy action).
    private var routedSources: Set<SourceID> = []

    /// Host events not yet delivered, in frame order (ties: the order they happened).
    private var pendingEvents: [AudioEvent] = []
    /// Told of every command sent, view change and render report (a no-op for a host).
    private let observer: any OfflineDriverObserver

    /// A host's core (`AudioEngine`'s): nobody observes it. Throws `invalidArgument` naming a
    /// setting out of range. Control thread.
    package convenience init(configuration: AudioEngineConfiguration) throws(TuttiError) {
        try self.init(configuration: configuration, observer: Unobserved())
    }

    /// An offline driver's core: the same system, with `observer` told of every command
    /// sent, view change and render report (see `OfflineDriverObserver`), held for the
    /// system's life. Errors as `init(configuration:)`. Control thread.
    package init(configuration: AudioEngineConfiguration, observer: any OfflineDriverObserver) throws(TuttiError) {
        try configuration.validate()
        self.configuration = configuration
        self.observer = observer
        engine = try Engine(configuration: configuration.engineConfiguration)
        do {
            policy = try PolicyState(device: configuration.device, ducking: configuration.ducking, lossFade: configuration.lossFadeSeconds)
        } catch {
            throw AudioSystem.error(error)
        }
        view = policy.renderView
        try engine.send(.setMasterVolume(gain: Float(VolumeCurve.gain(forVolume: view.systemVolume)), rampFrames: 0))
        try engine.send(.setRingerVolume(gain: Float(VolumeCurve.gain(forVolume: view.ringerVolume)), rampFrames: 0))
        // The engine's own buses: their sources are not voices.
        callBus = try engine.addBus(limitsVoices: false)
        ringerBus = try engine.addBus(volumeClass: .ringer, limitsVoices: false)
    }

    /// Frames at the engine rate for a duration in seconds (rounded). Control thread.
    package func frames(forSeconds seconds: Double) -> Int64 { Int64(engine.configuration.frames(forSeconds: seconds)) }

    // MARK: Sessions

    /// Register a session (inactive, its bus gate closed). A failed call changes nothing. Control thread.
    package func addSession(_ configuration: SessionConfiguration) throws(TuttiError) -> SessionID {
        guard !configuration.id.isEmpty else { throw TuttiError(.invalidArgument, "a session name must not be empty") }
        do { try policy.checkNewSession(configuration) } catch { throw AudioSystem.error(error) }
        if let limit = configuration.maxVoices { try checkVoiceLimit(limit, "session \"\(configuration.id)\": maxVoices") }
        let bus = try engine.addBus(gateOpen: false, maxVoices: configuration.maxVoices ?? 0)
        do { try policy.addSession(configuration) } catch { preconditionFailure("checked above: \(error)") }
        let id = SessionID(bus: bus)
        sessionNames[id] = configuration.id
        sessionIDs[configuration.id] = id
        // An inactive session changes nothing else in the view.
        view.sessions.append(SessionView(id: configuration.id, state: .inactive, hasOutput: configuration.category.hasOutput))
        hints[configuration.id] = policy.callActive || heardNonMixable > 0
        return id
    }

    /// Remove a session and its sources at `time` (deactivating it first, which releases what
    /// it interrupted). Its id and its sources' ids are stale at once. Control thread.
    package func removeSession(_ id: SessionID, at time: EngineTime) throws(TuttiError) {
        let name = try sessionName(id)
        try engine.checkRoom(view.sources.count + view.sessions.count + 8)
        let (outcome, change) = policy.applyTracked(.removeSession(session: name))
        if let error = outcome.error { throw AudioSystem.error(error) }
        try applyChange(change, at: time, journal: outcome.journal)
        try engine.removeBus(id.bus, at: time)
        for (sid, record) in sources where record.session == id {
            sources[sid] = nil
            sourceIDs[record.name] = nil
        }
        sessionNames[id] = nil
        sessionIDs[name] = nil
        hints[name] = nil
    }

    /// Set a session's PipeWire role override (nil: its category's role). Not a policy action:
    /// nothing rendered changes, nothing is journaled. `notFound` for a stale id. Control thread.
    package func setSessionMediaRole(_ id: SessionID, _ role: MediaRole?) throws(TuttiError) {
        let name = try sessionName(id)
        do { try policy.setMediaRole(role, session: name) } catch { throw AudioSystem.error(error) }
    }

    /// The session of a live id, or `notFound`. Control thread.
    package func sessionName(_ id: SessionID) throws(TuttiError) -> String {
        guard let name = sessionNames[id] else { throw TuttiError(.notFound, "no session \(id) (removed, or never created)") }
        return name
    }

    /// The id of a live session by name. Control thread.
    package func sessionID(named name: String) -> SessionID? { sessionIDs[name] }

    /// A stream for each session with output (`OutputSettings.sessionStreams`), in the order
    /// they were added: its name, its engine bus, its effective `media.role`. Control thread.
    package func sessionStreams() -> [(name: String, bus: BusID, mediaRole: MediaRole)] {
        policy.sessions.compactMap { session in
            guard let role = session.configuration.effectiveMediaRole, let id = sessionIDs[session.id] else { return nil }
            return (session.id, id.bus, role)
        }
    }

    // MARK: Sources

    /// Register a source of `session` (stopped at its start). `name` must be unique (the
    /// policy and the journal use it); nil picks one. A failed call changes nothing. Control thread.
    package func addSource(
        _ kind: SourceKind, session: SessionID, name: String? = nil, gain: Float = 1, loop: Bool = false, priority: UInt8 = 128
    ) throws(TuttiError) -> SourceID {
        let sessionName = try sessionName(session)
        let name = name ?? uniqueSourceName(sessionName)
        guard !name.isEmpty else { throw TuttiError(.invalidArgument, "a source name must not be empty") }
        do { try policy.checkNewSource(SourceConfiguration(id: name, session: sessionName)) } catch { throw AudioSystem.error(error) }
        let id = try engine.addSource(kind, bus: session.bus, gain: gain, loop: loop, priority: priority)
        do { try policy.addSource(SourceConfiguration(id: name, session: sessionName)) } catch {
            preconditionFailure("checked above: \(error)")
        }
        sources[id] = SourceRecord(
            name: name, session: session, gain: gain, frameCount: AudioSystem.frameCount(of: kind),
            streams: AudioSystem.streams(kind))
        sourceIDs[name] = id
        view.sources.append(SourceView(id: name, session: sessionName, isRunning: false))
        return id
    }

    /// A source of the engine's own (call audio on `callBus`, a system sound on `ringerBus`):
    /// outside the policy. Control thread.
    package func addEngineSource(_ kind: SourceKind, bus: BusID, loop: Bool = false) throws(TuttiError) -> SourceID {
        let id = try engine.addSource(kind, bus: bus, loop: loop)
        sources[id] = SourceRecord(
            name: "engine#\(id.slot)", session: nil, gain: 1, frameCount: AudioSystem.frameCount(of: kind),
            streams: AudioSystem.streams(kind))
        return id
    }

    private static func streams(_ kind: SourceKind) -> Bool {
        if case .file = kind { return true }
        return false
    }

    private static func frameCount(of kind: SourceKind) -> Int64? {
        if case .buffer(let b) = kind { return Int64(b.frameCount) }
        if case .file(let f) = kind { return Int64(f.frameCount) }
        return nil
    }

    private func uniqueSourceName(_ session: String) -> String {
        while true {
            let name = "\(session).\(nextSourceNumber)"
            nextSourceNumber += 1
            if sourceIDs[name] == nil { return name }
        }
    }

    /// Remove a source at `time` (it fades out if it plays). Its id is stale at once. Control thread.
    package func removeSource(_ id: SourceID, at time: EngineTime) throws(TuttiError) {
        let record = try source(id)
        try engine.checkRoom(4)
        if record.session != nil {
            let outcome = policy.apply(.removeSource(source: record.name))
            if let error = outcome.error { throw AudioSystem.error(error) }
            view = policy.renderView
            hintsStale = true
        }
        try engine.removeSource(id, at: time)
        sources[id] = nil
        sourceIDs[record.name] = nil
        routedSources.remove(id)
        if callSource == id { callSource = nil }
    }

    private func source(_ id: SourceID) throws(TuttiError) -> SourceRecord {
        guard let record = sources[id], engine.contains(id) else {
            throw TuttiError(.notFound, "no source \(id) (removed, or never created)")
        }
        return record
    }

    /// The policy name of a live source. Control thread.
    package func sourceName(_ id: SourceID) throws(TuttiError) -> String { try source(id).name }

    /// The id of a live source by name. Control thread.
    package func sourceID(named name: String) -> SourceID? { sourceIDs[name] }

    /// The session of a live source (nil for the engine's own). Control thread.
    package func session(of id: SourceID) throws(TuttiError) -> SessionID? { try source(id).session }

    /// What the render side last published about a source, with what the control side knows. Control thread.
    package func info(_ id: SourceID) throws(TuttiError) -> SourceInfo {
        let record = try source(id)
        let status = engine.status(id) ?? .initial
        return SourceInfo(
            state: status.state, position: status.position, frameCount: record.frameCount,
            underrunFrames: status.underrunFrames, gain: record.gain, pan: record.pan, rate: record.rate)
    }

    /// The stream of a live stream source, or `invalidArgument`. Control thread.
    package func stream(_ id: SourceID) throws(TuttiError) -> StreamSource {
        _ = try source(id)
        guard let stream = engine.stream(id) else { throw TuttiError(.invalidArgument, "source \(id) is not a stream source") }
        return stream
    }

    /// The capture rings of an input source; `invalidArgument` for another kind. Control thread.
    package func input(_ id: SourceID) throws(TuttiError) -> InputSource {
        _ = try source(id)
        guard let input = engine.input(id) else { throw TuttiError(.invalidArgument, "source \(id) is not an input source") }
        return input
    }

    // MARK: Source commands (not policy matters, but ids are checked)

    /// Source gain: a linear ramp from the current gain over `rampFrames` (nil: the default
    /// 10 ms; 0: a step). Control thread.
    package func setSourceGain(_ id: SourceID, _ gain: Float, rampFrames: Int64?, at time: EngineTime) throws(TuttiError) {
        _ = try source(id)
        try send(
            .setSourceGain(id, gain: gain, rampFrames: try rampLength(rampFrames, default: configuration.sourceGainRampSeconds)), at: time)
        sources[id]?.gain = gain
    }

    /// Source pan (−1…1): each channel's gain ramps linearly over `rampFrames` (nil: the
    /// default gain ramp) from `time` on. Control thread.
    package func setSourcePan(_ id: SourceID, _ pan: Float, rampFrames: Int64?, at time: EngineTime) throws(TuttiError) {
        _ = try source(id)
        try send(
            .setSourcePan(id, pan: pan, rampFrames: try rampLength(rampFrames, default: configuration.sourceGainRampSeconds)), at: time)
        sources[id]?.pan = pan
    }

    /// Source playback rate (0.25…4, checked by the caller): glides linearly from the current
    /// rate over `rampFrames` (nil: the default gain ramp) from `time` on. Buffer sources only:
    /// `state` for a streaming file and `invalidArgument` for a tone, silence, stream or input
    /// when the rate is not 1 (nothing changed). Control thread.
    package func setSourceRate(_ id: SourceID, _ rate: Double, rampFrames: Int64?, at time: EngineTime) throws(TuttiError) {
        let record = try source(id)
        if rate != 1 {
            if record.streams {
                throw TuttiError(
                    .state,
                    "rate must be 1 for source \(id), got \(rate): it streams from its file (longer than the streaming threshold); "
                        + "a rate needs a source held in memory (a buffer, or a file up to AudioEngineConfiguration.streamingThresholdSeconds)"
                )
            }
            guard record.frameCount != nil else {
                throw TuttiError(
                    .invalidArgument,
                    "rate must be 1 for source \(id), got \(rate): a tone, silence, stream or input has no recorded content to play at a rate"
                )
            }
        }
        try send(
            .setSourceRate(id, rate: Float(rate), rampFrames: try rampLength(rampFrames, default: configuration.sourceGainRampSeconds)),
            at: time)
        sources[id]?.rate = rate
    }

    /// Session (bus) gain, below the policy's gate and duck and the system volume. Control thread.
    package func setSessionGain(_ id: SessionID, _ gain: Float, rampFrames: Int64?, at time: EngineTime) throws(TuttiError) {
        _ = try sessionName(id)
        try send(
            .setBusGain(id.bus, gain: gain, rampFrames: try rampLength(rampFrames, default: configuration.sourceGainRampSeconds)), at: time)
    }

    /// Replace the effect chain of the session's bus at `time` (empty: none); see
    /// `Engine.setBusEffects`. Errors name `effects[i].field`; a failed call changes nothing. Control thread.
    package func setSessionEffects(_ id: SessionID, _ effects: [EffectSettings], at time: EngineTime) throws(TuttiError) {
        _ = try sessionName(id)
        try engine.setBusEffects(id.bus, effects, at: time)
    }

    /// Glide the biquad at `index` of the session's chain to `settings` over `glideFrames`
    /// (nil: the source-gain ramp time); see `Engine.setBusEffect`. Control thread.
    package func setSessionEffect(
        _ id: SessionID, index: Int, to settings: EffectSettings, glideFrames: Int64?, at time: EngineTime
    ) throws(TuttiError) {
        _ = try sessionName(id)
        let frames = try checkedFrames(glideFrames ?? self.frames(forSeconds: configuration.sourceGainRampSeconds), name: "glideFrames")
        try engine.setBusEffect(id.bus, index: index, to: settings, glideFrames: Int(frames), at: time)
    }

    /// Replace the host effect on the session's bus at `time` (nil: none); see
    /// `Engine.setBusHostEffect`. On success the engine owns `effect`; on a throw the caller
    /// still does. Control thread.
    package func setSessionHostEffect(_ id: SessionID, _ effect: UnsafeMutablePointer<HostEffectSlot>?, at time: EngineTime)
        throws(TuttiError)
    {
        _ = try sessionName(id)
        try engine.setBusHostEffect(id.bus, effect, at: time)
    }

    /// Replace the master's host effect at `time` (nil: none); see
    /// `Engine.setMasterHostEffect`. On success the engine owns `effect`; on a throw the caller
    /// still does. Control thread.
    package func setMasterHostEffect(_ effect: UnsafeMutablePointer<HostEffectSlot>?, at time: EngineTime) throws(TuttiError) {
        try engine.setMasterHostEffect(effect, at: time)
    }

    /// Move a source to `position` (frames at the engine rate; a playing buffer source
    /// crossfades from the old position to the new one at `time`, other playing sources fade
    /// out, jump and fade back in: see `SourceHandle.seek(to:at:)`). Streams cannot seek. Control thread.
    package func seek(_ id: SourceID, to position: Int64, at time: EngineTime) throws(TuttiError) {
        _ = try source(id)
        if engine.stream(id) != nil { throw TuttiError(.state, "source \(id) is a stream: it cannot seek") }
        guard position >= 0 else { throw TuttiError(.invalidArgument, "seek position must be ≥ 0 frames, got \(position)") }
        try send(.seek(id, position: position), at: time)
    }

    /// An equal-power crossfade at `time` from `other` to `id`, two sources of one session,
    /// over `durationFrames` (1…Int32.max frames at the engine rate): `id` plays through the
    /// policy (`.play`, which may be `denied`) and fades in along sin(πt/2), `other` fades out
    /// along cos(πt/2) and stops at the end (see `EngineCommand.crossfade`). `stopAt`: when
    /// the policy is told that `other` stops (`.stop`, its journal entry at that frame); nil
    /// leaves it to the caller (the scene driver does it at the crossfade's end). Checks
    /// everything first, naming the argument (`from`, `durationFrames`): `from` removed or
    /// unknown (`notFound`), the source itself or of another session (`invalidArgument`), not
    /// playing (`state`); a failed call changes nothing. A play the policy refuses comes back
    /// in the outcome's `error` (with its `activationFailed` entry), nothing else done;
    /// otherwise the outcome holds the journal entries of the play and the stop. Control thread.
    @discardableResult
    package func crossfade(
        _ id: SourceID, from other: SourceID, durationFrames: Int64, at time: EngineTime, stopAt: EngineTime?
    ) throws(TuttiError) -> PolicyOutcome {
        absorbRenderEvents()
        let record = try source(id)
        guard let session = record.session else { throw TuttiError(.invalidArgument, "source \(id) is the engine's own") }
        guard let from = sources[other], engine.contains(other) else {
            throw TuttiError(.notFound, "from: no source \(other) (removed, or never created)")
        }
        guard other != id else {
            throw TuttiError(.invalidArgument, "from: source \"\(record.name)\" cannot crossfade from itself")
        }
        guard from.session == session else {
            let theirs = from.session.flatMap { sessionNames[$0] }.map { "session \"\($0)\"" } ?? "the engine"
            throw TuttiError(
                .invalidArgument,
                "from: source \"\(from.name)\" belongs to \(theirs), not to session \"\(sessionNames[session] ?? "?")\" of \"\(record.name)\"; "
                    + "a crossfade is between two sources of one session")
        }
        guard durationFrames > 0, durationFrames <= Int64(Int32.max) else {
            throw TuttiError(.invalidArgument, "durationFrames must be in 1…\(Int32.max), got \(durationFrames)")
        }
        guard policy.source(from.name)?.isPlaying == true else {
            throw TuttiError(.state, "from: source \"\(from.name)\" is not playing; a crossfade fades out a playing source")
        }
        // Both policy actions and the crossfade, or nothing.
        try engine.checkRoom(2 * (view.sources.count + view.sessions.count + routedSources.count + 4) + 1)
        var outcome = try perform(.play(source: record.name), at: time)
        guard outcome.succeeded else { return outcome }
        try send(.crossfade(id, from: other, frames: Int32(durationFrames)), at: time)
        if let stopAt { outcome.journal += try perform(.stop(source: from.name), at: stopAt).journal }
        return outcome
    }

    /// Loop on or off from `time`, with its region (`startFrame` ..< `endFrame`, frames at the
    /// engine rate; nil end: the source's end) and `count` wraps (nil: endless): see
    /// `SourceHandle.setLoop(_:startFrame:endFrame:count:at:)`. Checks everything first
    /// (argument names in the messages); a failed call changes nothing. Control thread.
    package func setLoop(
        _ id: SourceID, _ loop: Bool, startFrame: Int64, endFrame: Int64?, count: Int?, at time: EngineTime
    ) throws(TuttiError) {
        let record = try source(id)
        guard let length = record.frameCount else {
            throw TuttiError(.invalidArgument, "source \(id) has no length to loop (a tone, silence, stream or input)")
        }
        let end = endFrame ?? length
        guard startFrame >= 0 else { throw TuttiError(.invalidArgument, "startFrame must be ≥ 0, got \(startFrame)") }
        guard end <= length else {
            throw TuttiError(.invalidArgument, "endFrame must be ≤ the source's length (\(length) frames), got \(end)")
        }
        guard end > startFrame else {
            throw TuttiError(.invalidArgument, "endFrame (\(end)) must be > startFrame (\(startFrame)): the region is empty or reversed")
        }
        if let count, count < 1 || count > Int(Int32.max) {
            throw TuttiError(.invalidArgument, "count must be in 1…\(Int32.max) (nil: endless), got \(count)")
        }
        try engine.checkRoom(2)
        try send(.setLoop(id, loop), at: time)
        try send(.setLoopRegion(id, startFrame: startFrame, endFrame: end, count: Int32(count ?? -1)), at: time)
    }

    /// Fades applied on play/resume (nil: the default, a de-click only when resuming mid-way)
    /// and on pause/stop/seek/remove (nil: the default de-click), in frames. Control thread.
    package func setFades(_ id: SourceID, fadeInFrames: Int64?, fadeOutFrames: Int64?) throws(TuttiError) {
        _ = try source(id)
        let fadeIn = try fadeInFrames.map { (f: Int64) throws(TuttiError) -> Int32 in try checkedFrames(f, name: "fadeInFrames") } ?? -1
        let fadeOut = try checkedFrames(fadeOutFrames ?? frames(forSeconds: configuration.transportFadeSeconds), name: "fadeOutFrames")
        try send(.setFades(id, fadeInFrames: fadeIn, fadeOutFrames: fadeOut), at: .now)
        sources[id]?.fadeInFrames = fadeIn
        sources[id]?.fadeOutFrames = fadeOut
    }

    /// Send a source of a multiRoute session to the output bus `name` (one of
    /// `configuration.outputBuses`) from `time` on. "main" is allowed for every source; any
    /// other bus only while the source's session has category multiRoute. When its session
    /// later leaves multiRoute the source plays to main, and back on its bus when the
    /// session returns to multiRoute. Control thread.
    package func setOutputBus(_ id: SourceID, bus name: String, at time: EngineTime) throws(TuttiError) {
        let record = try source(id)
        guard let index = configuration.outputBuses.firstIndex(of: name) else {
            throw TuttiError(
                .invalidArgument,
                "output bus: unknown output bus \"\(name)\" (output buses: \(configuration.outputBuses.joined(separator: ", ")))")
        }
        guard let session = record.session else { throw TuttiError(.state, "output bus: source \(id) is the engine's own") }
        if index != 0 {
            let category = policy.session(try sessionName(session))?.category
            guard category == .multiRoute else {
                throw TuttiError(
                    .state,
                    "output bus \"\(name)\": source \"\(record.name)\" belongs to a \(category.map { "\($0)" } ?? "unknown") session; "
                        + "only sources of multiRoute sessions play to output buses other than main")
            }
        }
        try engine.checkRoom(1)
        sources[id]?.route = index
        routedSources.insert(id)
        try syncRoutes(at: time)
    }

    /// The output bus a source asked for (its name). Control thread.
    package func outputBus(of id: SourceID) throws(TuttiError) -> String { configuration.outputBuses[try source(id).route] }

    /// Sends each routed source's route as its session's category allows (multiRoute: the
    /// route it asked for; otherwise main).
    private func syncRoutes(at time: EngineTime) throws(TuttiError) {
        for id in routedSources {
            guard let record = sources[id], let session = record.session, let name = try? sessionName(session) else { continue }
            let want = policy.session(name)?.category == .multiRoute ? record.route : 0
            if want != record.engineRoute {
                try send(.setOutputBus(id, bus: Int32(want)), at: time)
                sources[id]?.engineRoute = want
            }
            if record.route == 0, want == 0 { routedSources.remove(id) }
        }
    }

    private func rampLength(_ frames: Int64?, default seconds: Double) throws(TuttiError) -> Int32 {
        try checkedFrames(frames ?? self.frames(forSeconds: seconds), name: "rampFrames")
    }

    private func checkedFrames(_ frames: Int64, name: String) throws(TuttiError) -> Int32 {
        guard frames >= 0, frames <= Int64(Int32.max) else {
            throw TuttiError(.invalidArgument, "\(name) must be in 0…\(Int32.max), got \(frames)")
        }
        return Int32(frames)
    }

    /// Send a value command at `time` (the observer hears it). Control thread.
    package func send(_ command: EngineCommand, at time: EngineTime) throws(TuttiError) {
        try engine.send(command, at: time)
        observer.commandSent(command, at: time.frameValue)
    }

    // MARK: Policy actions

    /// Run `action` through the policy and send what changed to the render graph at `time`.
    /// A refusal comes back in `outcome.error` (with the `activationFailed` journal entry),
    /// the state unchanged; only engine failures (a full command queue) throw. Control thread.
    @discardableResult
    package func perform(_ action: PolicyAction, at time: EngineTime) throws(TuttiError) -> PolicyOutcome {
        absorbRenderEvents()
        // A view change sends a bounded number of commands per session and source.
        try engine.checkRoom(view.sources.count + view.sessions.count + routedSources.count + 4)
        let (outcome, change) = policy.applyTracked(action)
        try applyChange(change, at: time, journal: outcome.journal)
        if !routedSources.isEmpty { try syncRoutes(at: time) }
        return outcome
    }

    /// `perform`, with a refusal thrown as a `TuttiError` (`denied` for the policy's refusals). Control thread.
    @discardableResult
    package func performChecked(_ action: PolicyAction, at time: EngineTime) throws(TuttiError) -> [JournalEntry] {
        let outcome = try perform(action, at: time)
        if let error = outcome.error { throw AudioSystem.error(error) }
        return outcome.journal
    }

    /// Begin a phone call, playing `audio` (a source on `callBus`, looped) when the call starts. Control thread.
    @discardableResult
    package func beginPhoneCall(audio: SourceID?, at time: EngineTime) throws(TuttiError) -> PolicyOutcome {
        let outcome = try perform(.phoneCallBegin, at: time)
        if let audio, view.callActive, callSource == nil {
            callSource = audio
            try send(.play(audio), at: time)
        }
        return outcome
    }

    /// A system sound: plays `audio` (a source on `ringerBus`) unless the policy turns it
    /// into a vibration or suppresses it. Returns whether it plays. Control thread.
    @discardableResult
    package func playSystemSound(name: String, audio: SourceID, at time: EngineTime) throws(TuttiError) -> (
        outcome: PolicyOutcome, plays: Bool
    ) {
        let outcome = try perform(.systemSound(name: name), at: time)
        let plays = outcome.journal.contains {
            if case .systemSoundPlayed = $0 { true } else { false }
        }
        if plays { try send(.play(audio), at: time) }
        return (outcome, plays)
    }

    // MARK: Render events

    /// Bring the policy up to date with what the render side reported (before an action, so
    /// it does not act on a source that ended or lost its voice meanwhile): a source that
    /// ended, a voice stolen or refused goes through the policy (it no longer plays). Each
    /// report becomes host events and, with its journal entries, goes to the observer, in
    /// frame order.
    private func absorbRenderEvents() {
        for e in engine.pollEvents() {
            let action: PolicyAction
            let event: AudioEvent.Kind
            switch e.kind {
            case .sourceEnded(let id):
                guard let record = sources[id], let session = record.session else { continue }
                action = .sourceEnded(source: record.name)
                event = .sourceEnded(source: id, session: session)
            case .voiceStolen(let id, let by):
                guard let record = sources[id], let session = record.session, let thief = sources[by] else { continue }
                action = .voiceStolen(source: record.name, by: thief.name)
                event = .voiceStolen(source: id, by: by, session: session)
            case .voiceRefused(let id):
                guard let record = sources[id], let session = record.session else { continue }
                action = .voiceRefused(source: record.name)
                event = .voiceRefused(source: id, session: session)
            case .sourceFailed(let id, let reason):
                if let record = sources[id] {
                    enqueue(AudioEvent(frame: e.frame, kind: .sourceFailed(source: id, session: record.session, reason: reason)))
                }
                continue
            case .sourceUnderrun(let id, let frames):
                if let record = sources[id] {
                    enqueue(AudioEvent(frame: e.frame, kind: .sourceUnderrun(source: id, session: record.session, frames: frames)))
                }
                continue
            case .sidechainDuck(let bus, let began):
                guard let d = signalDucks[bus] else { continue }
                let entry: JournalEntry =
                    began ? .signalDuckingBegan(session: d.session, by: d.by, rule: d.rule) : .signalDuckingEnded(session: d.session)
                if let id = sessionIDs[d.session] {
                    if began, let by = sessionIDs[d.by] {
                        enqueue(AudioEvent(frame: e.frame, kind: .duckingBegan(session: id, by: by)))
                    } else if !began {
                        enqueue(AudioEvent(frame: e.frame, kind: .duckingEnded(session: id)))
                    }
                }
                observer.renderReported([entry], at: e.frame)
                continue
            case .sourceHalted, .sourceRemoved, .busRemoved:
                continue
            }
            enqueue(AudioEvent(frame: e.frame, kind: event))
            let (outcome, change) = policy.applyTracked(action)
            // The renderer already stopped it (or never started it): take the new view without commands.
            if change.isIncremental { view.apply(change) } else { view = policy.renderView }
            observer.viewChanged(view, at: e.frame)
            lastActionVisits =
                policy.lastActionSessionVisits
                + (change.isIncremental
                    ? (change.sessions?.count ?? 0) + (change.sources?.count ?? 0) : view.sessions.count + view.sources.count)
            notify(outcome.journal, at: e.frame, change: change)
            maxActionVisits = max(maxActionVisits, lastActionVisits)
            observer.renderReported(outcome.journal, at: e.frame)
        }
    }

    /// Host events whose frame rendering has passed, in frame order; they leave the queue.
    /// Absorbs the render side's reports first (the observer hears them). Control thread.
    package func takeDeliverableEvents() -> [AudioEvent] {
        absorbRenderEvents()
        let rendered = engine.framesRendered
        let n = pendingEvents.prefix { $0.frame <= rendered }.count
        defer { pendingEvents.removeFirst(n) }
        return Array(pendingEvents.prefix(n))
    }

    /// Live sessions. Control thread.
    package var sessionCount: Int { sessionNames.count }
    /// Live sources of sessions (not the engine's own). Control thread.
    package var sourceCount: Int { sources.values.reduce(0) { $0 + ($1.session == nil ? 0 : 1) } }

    /// Frames the live stream sources rendered with no data, summed. Control thread.
    package var totalUnderrunFrames: Int64 {
        sources.keys.reduce(0) { sum, id in engine.stream(id) == nil ? sum : sum + (engine.status(id)?.underrunFrames ?? 0) }
    }

    /// Whether a host event is waiting (deliverable or not). Control thread.
    package var hasPendingEvents: Bool { !pendingEvents.isEmpty }

    /// Queue a host event in frame order. Control thread.
    package func enqueue(_ event: AudioEvent) {
        var i = pendingEvents.count
        while i > 0, pendingEvents[i - 1].frame > event.frame { i -= 1 }
        pendingEvents.insert(event, at: i)
    }

    // MARK: Notifications

    /// Host events of `journal`, and the hint changes (those in `change`, else every session's).
    private func notify(_ journal: [JournalEntry], at frame: Int64, change: ViewChange) {
        var events: [AudioEvent.Kind] = []
        for e in journal {
            switch e {
            case .interruptionBegan(let s, let reason, let by, _, _):
                if let id = sessionIDs[s] {
                    events.append(.interruptionBegan(session: id, reason: reason, by: by.flatMap { sessionIDs[$0] }))
                }
            case .interruptionEnded(let s, let resume):
                if let id = sessionIDs[s] { events.append(.interruptionEnded(session: id, shouldResume: resume)) }
            case .duckingBegan(let s, let by, _):
                if let id = sessionIDs[s], let by = sessionIDs[by] { events.append(.duckingBegan(session: id, by: by)) }
            case .duckingEnded(let s):
                if let id = sessionIDs[s] { events.append(.duckingEnded(session: id)) }
            case .activationDelayed(let s, _):
                if let id = sessionIDs[s] { events.append(.activationDelayed(session: id)) }
            case .activationGranted(let s):
                if let id = sessionIDs[s] { events.append(.activationGranted(session: id)) }
            case .activationCancelled(let s):
                if let id = sessionIDs[s] { events.append(.activationCancelled(session: id)) }
            case .routeChange(let reason, let previous, let current):
                events.append(.routeChanged(reason: reason, previous: previous, current: current))
            case .otherAudioChanged(let playing, let silence, let clients):
                events.append(.otherAudioChanged(playing: playing, silenceSecondary: silence, clients: clients))
            default:
                break
            }
        }
        func update(_ name: String, _ hint: Bool) {
            if hints[name] != hint {
                hints[name] = hint
                if let id = sessionIDs[name] { events.append(.silenceSecondaryAudioHint(session: id, begin: hint)) }
            }
        }
        if let changed = change.hints, !hintsStale {
            for (i, hint) in changed { update(policy.sessions[i].id, hint) }
            lastActionVisits += changed.count
            heardNonMixable = change.heardNonMixable
        } else {
            let pass = policy.hintPass()
            for (i, s) in policy.sessions.enumerated() { update(s.id, pass.hints[i]) }
            lastActionVisits += policy.sessions.count
            heardNonMixable = pass.heardNonMixable
            hintsStale = false
        }
        for kind in events { enqueue(AudioEvent(frame: frame, kind: kind)) }
    }

    // MARK: View → commands

    static func gateOpen(_ session: SessionView?) -> Bool {
        guard let session else { return false }
        return session.state == .audible && session.hasOutput
    }

    /// Send what an action changed at `time`: the entries `change` lists and the global
    /// stages, or (when sessions or sources were removed) everything that differs between
    /// the current view and the policy's.
    private func applyChange(_ change: ViewChange, at time: EngineTime, journal: [JournalEntry]) throws(TuttiError) {
        lastActionVisits = policy.lastActionSessionVisits
        let old = (systemVolume: view.systemVolume, ringerVolume: view.ringerVolume, callActive: view.callActive)
        // Incremental: the entries the change replaces, and whether each changed session had a
        // source running, taken before the view is patched in place (no copy of the view).
        var oldSessionAt: [Int: SessionView] = [:]
        var oldSourceAt: [Int: SourceView] = [:]
        var soundingAt: [Int: Bool] = [:]
        // Otherwise: the whole view before.
        var oldView: RenderView?
        if let sessions = change.sessions, let sources = change.sources {
            for (i, _) in sessions {
                oldSessionAt[i] = view.sessions[i]
                let own = policy.sourceIndices(ofSession: i)
                lastActionVisits += own.count
                soundingAt[i] = own.contains { view.sources[$0].isRunning }
            }
            for (k, _) in sources { oldSourceAt[k] = view.sources[k] }
            view.apply(change)
        } else {
            oldView = view
            view = policy.renderView
        }
        let new = view
        let frame = time.frameValue >= 0 ? time.frameValue : engine.framesRendered
        let gateRamp = Int32(clamping: frames(forSeconds: configuration.gateRampSeconds))
        var oldSession = AlignedLookup(oldView?.sessions ?? [], id: \.id)
        var oldSource = AlignedLookup(oldView?.sources ?? [], id: \.id)
        // Whether a source of the session was running before (one pass over the old view
        // when it is not incremental).
        var soundingSessions: Set<String>?
        func sounding(_ k: Int, _ id: String) -> Bool {
            if let known = soundingAt[k] { return known }
            if soundingSessions == nil {
                var set = Set<String>()
                for s in oldView?.sources ?? [] where s.isRunning { set.insert(s.session) }
                soundingSessions = set
            }
            return soundingSessions?.contains(id) ?? false
        }
        let sessionIndices = change.sessions.map { $0.map(\.index) } ?? Array(new.sessions.indices)
        let sourceIndices = change.sources.map { $0.map(\.index) } ?? Array(new.sources.indices)
        lastActionVisits += sessionIndices.count + sourceIndices.count
        // Sessions that lose the output to another's activation with a loss fade: their gate
        // closes over it and their sources pause with it as their fade-out (empty without lossFade).
        var lossFades: [String: Int32] = [:]
        if policy.lossFadeSeconds > 0 {
            for e in journal {
                switch e {
                case .interruptionBegan(let s, _, _, _, let fade) where fade > 0,
                    .silenced(let s, _, let fade) where fade > 0:
                    lossFades[s] = Int32(clamping: frames(forSeconds: fade))
                default: break
                }
            }
        }
        for k in sessionIndices {
            let after = new.sessions[k]
            guard let bus = sessionIDs[after.id]?.bus else { continue }
            let before = oldView == nil ? oldSessionAt[k] : oldSession.find(after.id, near: k)
            let open = AudioSystem.gateOpen(after)
            if AudioSystem.gateOpen(before) != open {
                // Nothing of the session sounding (e.g. it is being activated): nothing can click, so no ramp.
                let ramp = !open ? lossFades[after.id] ?? gateRamp : gateRamp
                try send(.setBusGate(bus, gain: open ? 1 : 0, rampFrames: sounding(k, after.id) ? ramp : 0), at: time)
            }
            // A signal-triggered duck: the render side's sidechain moves the duck envelope.
            var beforeDuck = before?.duck
            var afterDuck = after.duck
            if case .signal = before?.duckTrigger { beforeDuck = nil }
            if case .signal(_, let holdSeconds) = after.duckTrigger, let duck = after.duck, let by = after.duckedBy,
                let key = sessionIDs[by]?.bus
            {
                afterDuck = nil
                if before?.duck != after.duck || before?.duckedBy != after.duckedBy || before?.duckTrigger != after.duckTrigger {
                    let range = Float(duck.levelDB)
                    let sidechain = Sidechain(
                        key: key, thresholdMeanSquare: Float(after.duckTrigger?.thresholdMeanSquare ?? 0),
                        holdFrames: Int32(clamping: frames(forSeconds: holdSeconds)), targetDB: range,
                        attackDBPerFrame: DuckEnvelope.rate(rangeDB: range, frameCount: Int(frames(forSeconds: duck.attackSeconds))),
                        releaseDBPerFrame: DuckEnvelope.rate(rangeDB: range, frameCount: Int(frames(forSeconds: duck.releaseSeconds))))
                    signalDucks[bus] = (after.id, by, after.duckRule ?? .engine)
                    try send(.setBusSidechain(bus, sidechain), at: time)
                }
            } else if case .signal = before?.duckTrigger {
                try send(.clearBusSidechain(bus), at: time)
            }
            if beforeDuck != afterDuck {
                if let duck = afterDuck {
                    // Deeper: the new duck's attack. Shallower (a deeper ducker left, or a rule
                    // changed): the old duck releases to the new level. Either way the envelope
                    // moves on from the level it is at.
                    var rate = DuckEnvelope.rate(rangeDB: Float(duck.levelDB), frameCount: Int(frames(forSeconds: duck.attackSeconds)))
                    if let old = beforeDuck, duck.levelDB > old.levelDB {
                        rate = DuckEnvelope.rate(rangeDB: Float(old.levelDB), frameCount: Int(frames(forSeconds: old.releaseSeconds)))
                    }
                    try send(.setBusDuck(bus, targetDB: Float(duck.levelDB), dBPerFrame: rate), at: time)
                } else if let duck = beforeDuck {
                    let rate = DuckEnvelope.rate(rangeDB: Float(duck.levelDB), frameCount: Int(frames(forSeconds: duck.releaseSeconds)))
                    try send(.setBusDuck(bus, targetDB: 0, dBPerFrame: rate), at: time)
                }
            }
        }
        for k in sourceIndices {
            let now = new.sources[k]
            guard let id = sourceIDs[now.id] else { continue }
            let was = oldView == nil ? oldSourceAt[k] : oldSource.find(now.id, near: k)
            let rewind = was != nil && was?.rewinds != now.rewinds
            let wasRunning = was?.isRunning ?? false
            // Stop (fade out and rewind) first, so a play in the same action starts from the top.
            if rewind { try send(.stop(id), at: time) }
            if now.isRunning, !wasRunning || rewind {
                try send(.play(id), at: time)
            } else if wasRunning, !now.isRunning, !rewind {
                if let fade = lossFades[now.session], let record = sources[id] {
                    // The pause fades over the loss fade (the source advances meanwhile), then the
                    // source's own fades are back for what follows.
                    let own = record.fadeOutFrames ?? Int32(clamping: frames(forSeconds: configuration.transportFadeSeconds))
                    try send(.setFades(id, fadeInFrames: record.fadeInFrames, fadeOutFrames: fade), at: time)
                    try send(.pause(id), at: time)
                    try send(.setFades(id, fadeInFrames: record.fadeInFrames, fadeOutFrames: own), at: time)
                } else {
                    try send(.pause(id), at: time)
                }
            }
        }
        let volumeRamp = Int32(clamping: frames(forSeconds: configuration.volumeRampSeconds))
        if old.systemVolume != new.systemVolume {
            try send(.setMasterVolume(gain: Float(VolumeCurve.gain(forVolume: new.systemVolume)), rampFrames: volumeRamp), at: time)
        }
        if old.ringerVolume != new.ringerVolume {
            try send(.setRingerVolume(gain: Float(VolumeCurve.gain(forVolume: new.ringerVolume)), rampFrames: volumeRamp), at: time)
        }
        if old.callActive, !new.callActive, let call = callSource {
            try send(.stop(call), at: time)
            callSource = nil
        }
        observer.viewChanged(new, at: frame)
        notify(journal, at: frame, change: change)
        maxActionVisits = max(maxActionVisits, lastActionVisits)
    }

    // MARK: Errors

    /// The `TuttiError` of a policy refusal. Any thread.
    package static func error(_ e: PolicyError) -> TuttiError {
        switch e {
        case .insufficientPriority, .cannotInterruptOthers, .rejectedByTable: TuttiError(.denied, e.description)
        case .unknownSession, .unknownSource: TuttiError(.notFound, e.description)
        case .optionNotAllowed, .duplicateSession, .duplicateSource, .invalidValue, .invalidDuckingRule, .invalidSessionSetting,
            .invalidInteraction:
            TuttiError(.invalidArgument, e.description)
        }
    }
}

/// What a host can read about a source. Value type: any thread.
public struct SourceInfo: Hashable, Sendable {
    /// Where it is in its life, as the render side last published.
    public var state: PlaybackState
    /// Frames played since the last rewind (engine rate).
    public var position: Int64
    /// Length in frames at the engine rate; nil for tones, silence and streams.
    public var frameCount: Int64?
    /// Streams: frames rendered with no data.
    public var underrunFrames: Int64
    /// The last gain set (linear).
    public var gain: Float
    /// The last pan set (−1 left … +1 right); nil while it was never panned (it mixes without
    /// a pan stage: mono material at unity on both channels).
    public var pan: Float?
    /// The last playback rate set (`SourceHandle.setRate(_:rampFrames:at:)`; with a ramp, the
    /// rate it glides to), source frames per output frame; 1 until set.
    public var rate: Double
}

extension EngineTime {
    /// The frame, -1 for now.
    var frameValue: Int64 {
        switch self {
        case .now: -1
        case .frame(let f): f
        }
    }
}

/// Finds an element by id in an array that is usually aligned with another one (same order,
/// the same index): O(1) then, O(n) once (a dictionary) when they differ.
private struct AlignedLookup<Element> {
    let elements: [Element]
    let id: KeyPath<Element, String>
    private var index: [String: Int]?

    init(_ elements: [Element], id: KeyPath<Element, String>) {
        self.elements = elements
        self.id = id
    }

    mutating func find(_ key: String, near k: Int) -> Element? {
        if k < elements.count, elements[k][keyPath: id] == key { return elements[k] }
        if index == nil {
            index = Dictionary(elements.indices.map { (elements[$0][keyPath: id], $0) }, uniquingKeysWith: { a, _ in a })
        }
        return index?[key].map { elements[$0] }
    }
}
