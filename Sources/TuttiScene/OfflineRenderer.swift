import Foundation
import Tutti
import TuttiDSP
import TuttiEngine
import TuttiPolicy

/// Renders a scene offline: every scene event goes through the policy (`AudioSystem`);
/// the decisions reach the render graph as commands at the event's exact frame. It drives
/// its `AudioSystem` through the same methods a host's engine uses, and hears the render
/// reports' journal, the commands sent and the view changes through a `SceneObserver` (the
/// system's `OfflineDriverObserver`); scene ids are the system's session and source names,
/// looked up there.
///
/// Thread: one thread does everything (it is both the control side and the render side
/// of its engine); the renderer is the same one a real-time backend drives.
public final class OfflineRenderer {
    /// The scene it renders. The renderer's thread.
    public let scene: Scene
    /// The policy wired to the engine: the scene's sessions and sources by their ids.
    /// Control thread (the renderer's).
    package let system: AudioSystem
    /// What `system` reports beyond its methods' results.
    private let observer: SceneObserver
    /// The engine the scene renders on (`system`'s). Control thread, which also renders it.
    package var engine: Engine { system.engine }
    /// Call audio and system sounds, one source per scene event that has audio.
    private var eventSource: [Int: SourceID] = [:]
    private var stopsAfter: [(frame: Int64, source: SourceID)] = []
    /// Sources a crossfade fades out, with the frame it ends: the policy stops them there.
    private var crossfadeStops: [(frame: Int64, source: String)] = []
    /// The policy journal so far (what `--events` writes). The renderer's thread.
    public private(set) var journal: [LogEntry] = []
    /// Output frames rendered (or decided) so far. The renderer's thread.
    public private(set) var framePosition: Int64 = 0
    /// Index of the next scene event to dispatch.
    private var nextEvent = 0
    /// The scene's input sources, in file order (fed and recorded by `SceneInputs`).
    var inputs: [SceneInput] = []
    /// While a timeline is recorded (`recordTimeline`): what the renderer applied, and the
    /// policy's view changes (`observer.recorder`).
    private var probe: RenderProbe?
    private var recorder: TimelineRecorder? { observer.recorder }

    /// When true, `render` adds the wall-clock time of each engine render call to
    /// `engineNanoseconds` (CLOCK_MONOTONIC; the policy and the journal around the calls are
    /// not counted): what `tutti bench scene` times per block. Control thread.
    package var timesEngineCalls = false
    /// Engine render time summed since the caller last reset it (see `timesEngineCalls`). The renderer's thread.
    package var engineNanoseconds: UInt64 = 0

    /// Every value command sent while `recordsCommands` is on, in order, with its frame (for
    /// replaying the scene on a live engine). Control thread.
    package var recordedCommands: [(frame: Int64, command: EngineCommand)] { observer.recordedCommands }
    /// Whether the commands sent from now on are recorded (`recordedCommands`); off at first,
    /// so the set-up the constructor sends is not. Control thread.
    package var recordsCommands: Bool {
        get { observer.recordsCommands }
        set { observer.recordsCommands = newValue }
    }

    /// The engine settings a scene asks for (and the capacity its graph needs). Any thread.
    public static func engineConfiguration(for scene: Scene) -> AudioEngineConfiguration {
        var config = AudioEngineConfiguration()
        config.sampleRate = scene.engine.sampleRate
        config.channelCount = scene.engine.channelCount
        let eventAudio = scene.events.filter {
            switch $0.action {
            case .phoneCallBegin(audio: .some), .systemSound: true
            default: false
            }
        }.count
        config.maxSources = max(8, scene.sources.count + eventAudio + 1)
        config.maxSessions = max(1, scene.sessions.count)
        // Everything the scene schedules inside one block must fit; be generous.
        config.commandQueueCapacity = max(4096, 8 * (scene.events.count + scene.sources.count + scene.sessions.count))
        config.ducking = scene.engine.ducking
        config.lossFadeSeconds = scene.engine.lossFade
        config.maxVoices = scene.engine.maxVoices
        config.outputBuses = scene.engine.outputBuses
        config.limiter = scene.engine.limiter
        config.effects = scene.engine.effects
        config.device = DeviceState(
            silentSwitch: scene.device.silentSwitch, locked: scene.device.locked,
            volume: scene.device.volume, ringerVolume: scene.device.ringerVolume,
            route: scene.device.route, micMuted: scene.device.micMuted)
        return config
    }

    /// Loads every audio file (resampled and channel-mapped at the scene's quality) and
    /// builds the graph. Files longer than `streamingThresholdSeconds` (default: the engine
    /// default, 10 s) stream while rendering; the render waits for them, so the output is the
    /// same as with every file loaded whole (`.infinity`). Errors name the scene place and
    /// the file. The renderer's thread.
    public convenience init(
        scene: Scene, streamingThresholdSeconds: Double = AudioEngineConfiguration().streamingThresholdSeconds
    ) throws {
        try self.init(scene: scene, audio: AudioLoader(scene: scene, streamingThresholdSeconds: streamingThresholdSeconds))
    }

    /// The same, taking the files from `loader` (which keeps them for other renderers).
    init(scene: Scene, audio loader: AudioLoader) throws {
        self.scene = scene
        let observer = SceneObserver()
        self.observer = observer
        do {
            system = try AudioSystem(configuration: OfflineRenderer.engineConfiguration(for: scene), observer: observer)
        } catch {
            throw SceneError("engine", error.message)
        }
        for (i, s) in scene.sessions.enumerated() {
            let id: SessionID
            do { id = try system.addSession(s) } catch { throw SceneError("sessions[\(i)]", error.message) }
            if let effects = scene.sessionEffects[s.id] {
                do { try system.setSessionEffects(id, effects, at: .frame(0)) } catch {
                    throw SceneError("sessions[\(i)].effects", error.message)
                }
            }
        }
        if !scene.engine.duckingRules.isEmpty {
            // Validated by the decoder; a refusal here would name the rule all the same.
            if let error = try system.perform(.setDuckingRules(scene.engine.duckingRules), at: .frame(0)).error {
                throw SceneError("engine.ducking", error.description)
            }
        }
        if !scene.engine.interactions.isEmpty {
            if let error = try system.perform(.setInteractions(scene.engine.interactions), at: .frame(0)).error {
                throw SceneError("engine.policy.interactions", error.description)
            }
        }
        // Sources that play at a rate are loaded whole: a file that streams takes none.
        let rated = Set(scene.events.compactMap { e -> String? in if case .source(let name, .setRate) = e.action { name } else { nil } })
        for s in scene.sources {
            var kind: SourceKind
            var sampleLoop: Range<Int>?
            if case .input(let channels) = s.audio {
                kind = OfflineRenderer.inputKind(channelCount: channels, scene: scene, records: scene.recordTo[s.session] != nil)
            } else {
                sampleLoop = OfflineRenderer.sampleLoop(of: s, scene: scene)
                let whole = s.rate != nil || rated.contains(s.id)
                kind = try loader.kind(s.audio, place: s.place, whole: whole)
            }
            let loopRegion = try OfflineRenderer.loopRegion(of: s, kind: kind, sampleRate: scene.engine.sampleRate, sampleLoop: sampleLoop)
            guard let session = system.sessionID(named: s.session) else {
                throw SceneError("\(s.place).session", "unknown session \"\(s.session)\"")
            }
            do {
                let id = try system.addSource(
                    kind, session: session, name: s.id, gain: Float(s.gain), loop: s.loop, priority: UInt8(s.priority))
                if let input = engine.input(id) {
                    inputs.append(SceneInput(sceneID: s.id, session: s.session, source: input, blockFrames: scene.engine.blockFrames))
                }
                try setFades(s.fades, of: id)
                if let loopRegion {
                    try system.setLoop(
                        id, true, startFrame: loopRegion.start, endFrame: loopRegion.end, count: s.loopCount, at: .frame(0))
                }
                if let pan = s.pan { try system.setSourcePan(id, Float(pan), rampFrames: 0, at: .frame(0)) }
                if s.outputBus != "main" { try system.setOutputBus(id, bus: s.outputBus, at: .now) }
            } catch {
                throw SceneError(s.place, error.message)
            }
            if let rate = s.rate, let id = system.sourceID(named: s.id) {
                do { try system.setSourceRate(id, rate, rampFrames: 0, at: .frame(0)) } catch {
                    throw SceneError("\(s.place).rate", error.message)
                }
            }
        }
        for (i, e) in scene.events.enumerated() {
            switch e.action {
            case .phoneCallBegin(audio: .some(let audio)):
                eventSource[i] = try system.addEngineSource(try loader.kind(audio, place: e.place), bus: system.callBus, loop: true)
            case .systemSound(let audio, _):
                eventSource[i] = try system.addEngineSource(try loader.kind(audio, place: e.place), bus: system.ringerBus)
            default:
                break
            }
            if let id = eventSource[i] {
                do { try setFades(e.fades, of: id) } catch { throw SceneError(e.place, error.message) }
            }
        }
    }

    /// A source's loop region in frames at the engine rate (seconds rounded to the nearest
    /// frame; nil: it has no loop key), checked against the file's length there: errors name
    /// the key (`sources[i].loopStart`, `.loopEnd`).
    static func loopRegion(of s: Scene.Source, kind: SourceKind, sampleRate: Int, sampleLoop: Range<Int>? = nil) throws -> (
        start: Int64, end: Int64?
    )? {
        guard s.loop, s.loopStart != nil || s.loopEnd != nil || s.loopCount != nil || sampleLoop != nil else { return nil }
        let length: Int64
        switch kind {
        case .buffer(let b): length = Int64(b.frameCount)
        case .file(let f): length = Int64(f.frameCount)
        default: return nil
        }
        // The file's own loop (no region keys): kept when it still holds a frame once converted.
        if let sampleLoop, s.loopStart == nil, s.loopEnd == nil {
            let end = min(Int64(sampleLoop.upperBound), length)
            if Int64(sampleLoop.lowerBound) < end { return (Int64(sampleLoop.lowerBound), end) }
        }
        let seconds = Double(length) / Double(sampleRate)
        // A scene built in code has not been through the decoder's checks.
        for (key, t) in [("loopStart", s.loopStart), ("loopEnd", s.loopEnd)] {
            if let t, !(t.isFinite && t >= 0) {
                throw SceneError("\(s.place).\(key)", "expected a finite number of seconds ≥ 0, found \(t)")
            }
        }
        if let count = s.loopCount, count < 1 || count > Int(Int32.max) {
            throw SceneError("\(s.place).loopCount", "must be ≥ 1 (at most \(Int32.max)), found \(count)")
        }
        // Clamped: a time far past any file still converts (and is refused below).
        func frames(_ t: Double) -> Int64 { Int64(min((t * Double(sampleRate)).rounded(), 9e18)) }
        let start = frames(s.loopStart ?? 0)
        let end = s.loopEnd.map(frames) ?? length
        if let t = s.loopEnd, end > length {
            throw SceneError(
                "\(s.place).loopEnd", "\(JSONWriter.number(t)) s is past the end of the file (\(JSONWriter.number(seconds)) s)")
        }
        if let t = s.loopStart, start >= length {
            throw SceneError(
                "\(s.place).loopStart", "\(JSONWriter.number(t)) s is at or past the end of the file (\(JSONWriter.number(seconds)) s)")
        }
        guard end > start else {
            throw SceneError(
                "\(s.place).loopEnd",
                "the region is empty at \(sampleRate) Hz (loopStart frame \(start), loopEnd frame \(end)): empty or reversed")
        }
        return (start, s.loopEnd == nil ? nil : end)
    }

    /// The sampler loop of a looping file source without `loopStart` / `loopEnd` (a WAV
    /// `smpl` chunk's first forward loop), in frames at the engine rate; nil otherwise.
    static func sampleLoop(of s: Scene.Source, scene: Scene) -> Range<Int>? {
        guard s.loop, s.loopStart == nil, s.loopEnd == nil, case .file(let path) = s.audio else { return nil }
        return AudioFile.sampleLoop(path: scene.resolve(path), sampleRate: scene.engine.sampleRate)
    }

    /// A source's own fades (`fadeIn` / `fadeOut`, seconds) as the engine's, in frames.
    private func setFades(_ fades: Scene.Fades, of id: SourceID) throws(TuttiError) {
        guard !fades.isDefault else { return }
        try system.setFades(
            id, fadeInFrames: fades.fadeIn.map { system.frames(forSeconds: $0) },
            fadeOutFrames: fades.fadeOut.map { system.frames(forSeconds: $0) })
    }

    /// The scene's length in output frames. The renderer's thread.
    public var totalFrames: Int64 { Int64(scene.durationFrames) }

    /// The engine ids of the scene's sources and of its events' audio.
    var sourceIDsInUse: [SourceID] { scene.sources.compactMap { system.sourceID(named: $0.id) } + Array(eventSource.values) }

    /// Probe memory is capped near this many gain values (32 MB): longer scenes with many
    /// sessions get coarser records.
    static let probeValueBudget = 8 << 20

    /// Record what the render does for `timeline(title:)`: the gain each session's bus
    /// applied, once per `engine.blockFrames` frames (coarser if the scene is very long and
    /// has very many sessions), the compressors' and the limiter's gain reduction over each
    /// record, the output peaks, and every change of the policy's view.
    /// Call before `render`. Costs one probe write per mixed chunk; nothing when not called. The renderer's thread.
    public func recordTimeline() throws {
        guard probe == nil else { return }
        let busSlots = engine.configuration.maxBuses
        var interval = scene.engine.blockFrames
        let total = max(totalFrames, 1)
        // Per record: a gain and a compressor gain per bus slot, the master compressor's, the
        // limiter's and the peak.
        while (total / Int64(interval) + 1) * Int64(2 * busSlots + 3) > Int64(OfflineRenderer.probeValueBudget) { interval *= 2 }
        let p = RenderProbe(intervalFrames: interval, recordCapacity: Int(total / Int64(interval)) + 1, busSlots: busSlots)
        do { try engine.attachProbe(p, at: .frame(framePosition)) } catch { throw SceneError("engine", error.message) }
        probe = p
        let r = TimelineRecorder(sessions: scene.sessions.map(\.id), sources: scene.sources.map(\.id))
        r.capture(framePosition, system.view)
        observer.recorder = r
    }

    /// What the render did, for the picture (after `recordTimeline` and `render`); nil when
    /// no timeline was recorded. The renderer's thread.
    public func timeline(title: String) -> Timeline? {
        guard let probe, let recorder else { return nil }
        recorder.finish(at: framePosition)
        let records = probe.recordCount
        var lanes: [Timeline.Lane] = []
        for (i, s) in scene.sessions.enumerated() {
            let slot = system.sessionID(named: s.id).map { BusID(rawValue: $0.rawValue).slot } ?? -1
            let gains = (0..<records).map { r in slot >= 0 ? probe.gain(record: r, bus: slot) ?? .nan : .nan }
            let hasCompressor = scene.sessionEffects[s.id]?.contains { if case .compressor = $0 { true } else { false } } == true
            let reductions =
                hasCompressor ? (0..<records).map { r in slot >= 0 ? probe.compressorGain(record: r, bus: slot) ?? .nan : .nan } : nil
            let sources = scene.sources.enumerated().filter { $0.element.session == s.id }.map {
                Timeline.SourceTrack(id: $0.element.id, spans: recorder.spans[$0.offset])
            }
            lanes.append(
                Timeline.Lane(
                    id: s.id, category: s.category.rawValue, gains: gains, compressorGains: reductions, states: recorder.states[i],
                    sources: sources))
        }
        let masterCompressor = scene.engine.effects?.contains { if case .compressor = $0 { true } else { false } } == true
        return Timeline(
            title: title, sampleRate: scene.engine.sampleRate, frameCount: framePosition, intervalFrames: probe.intervalFrames,
            lanes: lanes, peaks: (0..<records).map { probe.peak(record: $0) },
            limiterGains: scene.engine.limiter == nil ? nil : (0..<records).map { probe.limiterGain(record: $0) ?? .nan },
            masterCompressorGains: masterCompressor ? (0..<records).map { probe.masterCompressorGain(record: $0) ?? .nan } : nil,
            markers: Timeline.markers(scene: scene, journal: journal))
    }

    /// `render(through:progress:busSink:sink:)` under its old parameter name. The renderer's thread.
    @available(*, deprecated, renamed: "render(through:progress:busSink:sink:)")
    public func render(
        through endFrame: Int64? = nil, progress: (Double) -> Void = { _ in },
        routeSink: (_ route: Int, UnsafeBufferPointer<Float>) throws -> Void,
        sink: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        try render(through: endFrame, progress: progress, busSink: routeSink, sink: sink)
    }

    /// Render the scene (up to `endFrame`, default: its end), handing each block of
    /// interleaved float samples to `sink` (output bus main). Events at `endFrame` itself are
    /// applied. With more output buses (`engine.outputBuses`), each block of bus b ≥ 1 goes to
    /// `busSink(b, samples)` right after main's, the same length (sample-aligned). The renderer's thread.
    public func render(
        through endFrame: Int64? = nil, progress: (Double) -> Void = { _ in },
        busSink: (_ bus: Int, UnsafeBufferPointer<Float>) throws -> Void = { _, _ in },
        sink: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        let ch = scene.engine.channelCount
        let block = scene.engine.blockFrames
        // Main's block buffer and, for output buses past main, theirs (`busStride` apart), each
        // 64-byte aligned like the engine's own (`allocateAudio`); the pointers handed to the engine.
        let buffer = allocateAudio(Float.self, capacity: block * ch)
        buffer.initialize(repeating: 0, count: block * ch)
        let busCount = scene.engine.outputBuses.count
        let busStride = alignedAudioStride(block * ch, of: Float.self)
        let busBuffers = allocateAudio(Float.self, capacity: max(busCount - 1, 1) * busStride)
        let busPointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: busCount)
        defer {
            deallocateAudio(buffer)
            deallocateAudio(busBuffers)
            busPointers.deallocate()
        }
        let events = scene.events
        let last = min(endFrame ?? totalFrames, totalFrames)
        while framePosition < last || (nextEvent < events.count && scene.frame(at: events[nextEvent].at) <= last && framePosition == last) {
            let blockStart = framePosition
            let blockEnd = min(blockStart + Int64(block), last)
            // Render up to each event so render-side reports (a source that ended) reach the
            // policy before later events. The renderer splits at command frames anyway, so
            // the samples do not depend on this.
            do {
                let out = UnsafeMutableBufferPointer(start: buffer, count: block * ch)
                while true {
                    var upTo = blockEnd
                    if nextEvent < events.count { upTo = min(upTo, scene.frame(at: events[nextEvent].at)) }
                    if let stop = stopsAfter.first { upTo = min(upTo, stop.frame) }
                    if let stop = crossfadeStops.first { upTo = min(upTo, stop.frame) }
                    if upTo > framePosition {
                        // Inputs get exactly the frames about to be rendered: never an underrun.
                        feedInputs(frameCount: Int(upTo - framePosition))
                        // Waits for streaming files instead of underrunning: the same output every run.
                        let at = Int(framePosition - blockStart) * ch
                        let started = timesEngineCalls ? monotonicNanoseconds() : 0
                        if busCount > 1 {
                            busPointers[0] = out.baseAddress! + at
                            for r in 1..<busCount { busPointers[r] = busBuffers + (r - 1) * busStride + at }
                            engine.renderWaitingForFiles(
                                outputBuses: busPointers, busCount: busCount, frameCount: Int(upTo - framePosition))
                        } else {
                            engine.renderWaitingForFiles(into: out.baseAddress! + at, frameCount: Int(upTo - framePosition))
                        }
                        if timesEngineCalls { engineNanoseconds &+= monotonicNanoseconds() &- started }
                        framePosition = upTo
                        // The policy hears the render's reports (the observer keeps their journal);
                        // the host events they make are the journal's, in another form: dropped.
                        _ = system.takeDeliverableEvents()
                        for (frame, entries) in observer.takeReports() { log(entries, at: frame) }
                        try drainRecordings()
                    }
                    while let stop = stopsAfter.first, stop.frame <= framePosition {
                        stopsAfter.removeFirst()
                        try system.send(.stop(stop.source), at: .frame(stop.frame))
                    }
                    while let stop = crossfadeStops.first, stop.frame <= framePosition {
                        crossfadeStops.removeFirst()
                        // Unless something stopped it meanwhile.
                        if system.policy.source(stop.source)?.isPlaying == true {
                            log(try system.perform(.stop(source: stop.source), at: .frame(stop.frame)).journal, at: stop.frame)
                        }
                    }
                    while nextEvent < events.count, scene.frame(at: events[nextEvent].at) <= framePosition {
                        try dispatch(events[nextEvent], index: nextEvent, frame: framePosition)
                        nextEvent += 1
                    }
                    if framePosition >= blockEnd { break }
                }
            }
            if blockEnd > blockStart {
                try sink(UnsafeBufferPointer(start: buffer, count: Int(blockEnd - blockStart) * ch))
                for r in 1..<max(busCount, 1) {
                    try busSink(
                        r, UnsafeBufferPointer(start: busBuffers + (r - 1) * busStride, count: Int(blockEnd - blockStart) * ch))
                }
            }
            progress(Double(framePosition) / Double(max(totalFrames, 1)))
        }
    }

    // MARK: - Events

    func appendJournal(_ entry: LogEntry) { journal.append(entry) }

    private func log(_ entries: [JournalEntry], at frame: Int64) {
        for e in entries {
            journal.append(LogEntry(e, frame: frame, sampleRate: scene.engine.sampleRate))
            // The lane of a signal-driven duck is shaded from the render's reports.
            switch e {
            case .signalDuckingBegan(let session, _, _): recorder?.signalDuck(session, ducked: true, at: frame)
            case .signalDuckingEnded(let session): recorder?.signalDuck(session, ducked: false, at: frame)
            default: break
            }
        }
    }

    /// Apply `action` at the first frame not rendered yet, as a scene event there would be
    /// (after the events already due at that frame): a control line of `tutti play`. Returns
    /// the journal entries it made. Errors (an unknown source or session id) change nothing.
    /// Control thread, between `render` calls.
    package func applyNow(_ action: Scene.Action) throws -> ArraySlice<LogEntry> {
        let before = journal.count
        // -1: no scene event, so no audio of its own (a call begun here plays nothing).
        try dispatch(
            Scene.Event(at: Double(framePosition) / Double(scene.engine.sampleRate), action: action, place: "control"), index: -1,
            frame: framePosition)
        return journal[before...]
    }

    private func dispatch(_ event: Scene.Event, index: Int, frame: Int64) throws {
        switch event.action {
        case .source(let name, .setGain(let value, let ramp)):
            guard let id = system.sourceID(named: name) else { throw SceneError("\(event.place).source", "unknown source \"\(name)\"") }
            try system.setSourceGain(id, Float(value), rampFrames: ramp.map { system.frames(forSeconds: $0) }, at: .frame(frame))
        case .source(let name, .setPan(let value, let ramp)):
            guard let id = system.sourceID(named: name) else { throw SceneError("\(event.place).source", "unknown source \"\(name)\"") }
            try system.setSourcePan(id, Float(value), rampFrames: ramp.map { system.frames(forSeconds: $0) }, at: .frame(frame))
        case .source(let name, .crossfade(let from, let duration)):
            guard let id = system.sourceID(named: name) else { throw SceneError("\(event.place).source", "unknown source \"\(name)\"") }
            guard let other = system.sourceID(named: from) else { throw SceneError("\(event.place).from", "unknown source \"\(from)\"") }
            guard system.policy.source(from)?.isPlaying == true else {
                throw SceneError(
                    "\(event.place).from",
                    "source \"\(from)\" is not playing at \(JSONWriter.number(Double(frame) / Double(scene.engine.sampleRate))) s; "
                        + "a crossfade fades out a playing source")
            }
            let frames = system.frames(forSeconds: duration)
            let outcome = try system.crossfade(id, from: other, durationFrames: frames, at: .frame(frame), stopAt: nil)
            log(outcome.journal, at: frame)
            if outcome.succeeded {
                // Stable: crossfades ending at the same frame stop in the order they began.
                let at = crossfadeStops.firstIndex { $0.frame > frame + frames } ?? crossfadeStops.count
                crossfadeStops.insert((frame + frames, from), at: at)
            }
        case .source(let name, .setRate(let value, let ramp)):
            guard let id = system.sourceID(named: name) else { throw SceneError("\(event.place).source", "unknown source \"\(name)\"") }
            do {
                try system.setSourceRate(id, value, rampFrames: ramp.map { system.frames(forSeconds: $0) }, at: .frame(frame))
            } catch { throw SceneError(event.place, error.message) }
        case .session(let name, .setGain(let value, let ramp)):
            guard let id = system.sessionID(named: name) else { throw SceneError("\(event.place).session", "unknown session \"\(name)\"") }
            try system.setSessionGain(id, Float(value), rampFrames: ramp.map { system.frames(forSeconds: $0) }, at: .frame(frame))
        case .session(let name, .setEffect(let index, let effect, let glide)):
            guard let id = system.sessionID(named: name) else { throw SceneError("\(event.place).session", "unknown session \"\(name)\"") }
            try system.setSessionEffect(
                id, index: index, to: effect, glideFrames: glide.map { system.frames(forSeconds: $0) }, at: .frame(frame))
        case .phoneCallBegin:
            log(try system.beginPhoneCall(audio: eventSource[index], at: .frame(frame)).journal, at: frame)
        case .systemSound(let audio, let duration):
            let name = OfflineRenderer.soundName(audio)
            guard let source = eventSource[index] else { return }
            let result = try system.playSystemSound(name: name, audio: source, at: .frame(frame))
            log(result.outcome.journal, at: frame)
            if result.plays, let duration {
                stopsAfter.append((frame + system.frames(forSeconds: duration), source))
                stopsAfter.sort { $0.frame < $1.frame }
            }
        default:
            log(try system.perform(policyAction(for: event.action), at: .frame(frame)).journal, at: frame)
        }
    }

    private func policyAction(for action: Scene.Action) -> PolicyAction {
        switch action {
        case .session(let s, .activate(let focus)): .activate(session: s, focus: focus)
        case .session(let s, .deactivate(let notify)): .deactivate(session: s, notifyOthers: notify)
        case .session(let s, .setCategory(let c, let mode, let options)):
            .setCategory(session: s, category: c, mode: mode, options: options ?? [])
        case .session(let s, .foreground): .foreground(session: s)
        case .session(let s, .background): .background(session: s)
        case .source(let s, .play): .play(source: s)
        case .source(let s, .pause): .pause(source: s)
        case .source(let s, .stop): .stop(source: s)
        case .device(.silentSwitch(let on)): .silentSwitch(on)
        case .device(.lock): .lock
        case .device(.unlock): .unlock
        case .device(.volume(let v)): .volume(v)
        case .device(.ringerVolume(let v)): .ringerVolume(v)
        case .device(.volumeUp): .volumeUp
        case .device(.volumeDown): .volumeDown
        case .device(.route(let r, let reason)): .route(r, reason: reason)
        case .device(.micMuted(let m)): .micMuted(m)
        case .device(.otherAudio(let o)): .otherAudio(o)
        case .phoneCallBegin: .phoneCallBegin
        case .phoneCallEnd: .phoneCallEnd
        case .systemSound(let audio, _): .systemSound(name: OfflineRenderer.soundName(audio))
        case .remote(let c): .remote(c)
        case .session(_, .setGain), .session(_, .setEffect), .source(_, .setGain), .source(_, .setPan),
            .source(_, .setRate), .source(_, .crossfade):
            fatalError("handled by the caller")
        }
    }

    static func soundName(_ audio: Scene.Audio) -> String {
        switch audio {
        case .file(let path): String(path.split(separator: "/").last ?? Substring(path))
        case .tone(let f, _): "tone \(JSONWriter.number(f)) Hz"
        case .silence: "silence"
        case .input: "input"
        }
    }
}

/// What a scene renderer's `AudioSystem` reports beyond its methods' results: the journal of
/// the render's reports (kept until the renderer logs it, in frame order), the commands sent
/// (while recording) and the view changes (to the timeline recorder, while one records).
/// Thread: the renderer's.
final class SceneObserver: OfflineDriverObserver {
    var recordsCommands = false
    private(set) var recordedCommands: [(frame: Int64, command: EngineCommand)] = []
    var recorder: TimelineRecorder?
    private var reports: [(frame: Int64, entries: [JournalEntry])] = []

    func commandSent(_ command: EngineCommand, at frame: Int64) {
        if recordsCommands { recordedCommands.append((frame, command)) }
    }

    func viewChanged(_ view: RenderView, at frame: Int64) { recorder?.capture(frame, view) }

    func renderReported(_ journal: [JournalEntry], at frame: Int64) { reports.append((frame, journal)) }

    /// The render reports' journal entries since the last call, with their frames, in frame order.
    func takeReports() -> [(frame: Int64, entries: [JournalEntry])] {
        defer { reports.removeAll() }
        return reports
    }
}

/// The old name of `OfflineRenderer` (it renders offline; "scene" said what, not how).
/// Thread: as `OfflineRenderer`.
@available(*, deprecated, renamed: "OfflineRenderer")
public typealias SceneRenderer = OfflineRenderer
