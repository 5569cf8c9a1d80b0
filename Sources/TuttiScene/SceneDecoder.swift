import Tutti
import TuttiDSP
import TuttiPolicy

extension Scene {
    /// Decode and validate a scene from JSON text. `baseDirectory` resolves relative file paths.
    /// Every problem is a `SceneError` naming its JSON path. Any thread (it touches no shared
    /// state; it reads the files the scene names).
    public static func decode(json text: String, baseDirectory: String) throws -> Scene {
        let root: JSONValue
        do { root = try JSONParser.parse(text) } catch let e as JSONSyntaxError {
            throw SceneError("scene", "malformed JSON at \(e)")
        }
        var decoder = SceneDecoder(baseDirectory: baseDirectory)
        return try decoder.decode(root)
    }
}

struct SceneDecoder {
    let baseDirectory: String

    /// A ducking rule as written: names not yet resolved against the sessions.
    struct RawRule {
        var by, duck: String
        var settings: DuckingSettings
        var trigger: DuckingTrigger = .activation
        var path: String
    }

    /// `engine.ducking.rules`, read with the engine, resolved once the sessions are known.
    private var pendingRules: [RawRule] = []

    /// An interaction row as written: names not yet resolved against the sessions.
    struct RawInteraction {
        var active, incoming: String
        var outcome: InteractionOutcome
        var path: String
    }

    /// `engine.policy.interactions`, read with the engine, resolved once the sessions are known.
    private var pendingInteractions: [RawInteraction] = []

    /// Deprecated keys read, one line each (`Scene.warnings`).
    private var warnings: [String] = []

    /// The JSON path of each source's output-bus key (`sources[i].outputBus`, or the
    /// deprecated `sources[i].route`), by source place: errors name the key as written.
    private var busKeyPlaces: [String: String] = [:]

    init(baseDirectory: String) { self.baseDirectory = baseDirectory }

    /// `newKey`, or its deprecated old name `oldKey` (read for one release, with a warning):
    /// the key present in `r`, nil if neither is. Both is an error naming the old one's path.
    mutating func renamedKey(_ r: inout FieldReader, _ newKey: String, old oldKey: String) throws -> String? {
        let hasNew = r.has(newKey)
        guard r.has(oldKey) else { return hasNew ? newKey : nil }
        if hasNew {
            throw SceneError(
                r.child(oldKey), "give \(newKey) or its deprecated old name \(oldKey), not both (\(oldKey) is read as \(newKey))")
        }
        warnings.append(
            "\(r.child(oldKey)) is deprecated, use \(newKey) (the same meaning: a named output mix; the old key is read until the next release)"
        )
        return oldKey
    }

    mutating func decode(_ root: JSONValue) throws -> Scene {
        var r = try FieldReader(root, path: "")
        var scene = Scene(duration: 0, baseDirectory: baseDirectory)
        if let e = r.value("engine") { scene.engine = try engine(e, path: "engine") }
        scene.duration = try r.number("duration", in: 0.001...86_400, unit: " s")
        if let d = r.value("device") { scene.device = try device(d, path: "device") }

        var sessionIDs: Set<String> = []
        var recordPlaces: [String: String] = [:]
        for (i, v) in try r.array("sessions").enumerated() {
            let (s, recordTo, effects) = try session(
                v, path: "sessions[\(i)]", engineDucking: scene.engine.ducking, sampleRate: scene.engine.sampleRate)
            if let effects, !effects.isEmpty { scene.sessionEffects[s.id] = effects }
            guard sessionIDs.insert(s.id).inserted else { throw SceneError("sessions[\(i)].id", "duplicate session id \"\(s.id)\"") }
            scene.sessions.append(s)
            if let recordTo {
                scene.recordTo[s.id] = recordTo
                recordPlaces[s.id] = "sessions[\(i)].recordTo"
            }
        }
        scene.engine.duckingRules = try resolve(pendingRules, sessions: sessionIDs)
        scene.engine.interactions = try resolve(pendingInteractions, sessions: sessionIDs)
        var sourceIDs: Set<String> = []
        for (i, v) in try r.array("sources").enumerated() {
            let s = try source(v, path: "sources[\(i)]", sessions: sessionIDs, sampleRate: scene.engine.sampleRate)
            guard sourceIDs.insert(s.id).inserted else { throw SceneError("sources[\(i)].id", "duplicate source id \"\(s.id)\"") }
            try checkOutputBus(of: s, path: busKeyPlaces[s.place] ?? "sources[\(i)].outputBus", scene: scene)
            if case .input = s.audio {
                let category = scene.sessions.first { $0.id == s.session }!.category
                guard category == .record || category == .playAndRecord else {
                    throw SceneError(
                        "\(s.place).input",
                        "an input needs a session of category record or playAndRecord; session \"\(s.session)\" is \(category.rawValue)")
                }
            }
            scene.sources.append(s)
        }
        // A recording takes its session's one input.
        for s in scene.sessions {
            guard let place = recordPlaces[s.id] else { continue }
            let inputs = scene.sources.filter { if case .input = $0.audio { $0.session == s.id } else { false } }
            guard inputs.count == 1 else {
                throw SceneError(
                    place,
                    inputs.isEmpty
                        ? "session \"\(s.id)\" has no input source to record"
                        : "session \"\(s.id)\" has \(inputs.count) input sources; recordTo records one")
            }
            if let clash = scene.recordTo.first(where: { $0.key != s.id && scene.resolve($0.value) == scene.resolve(scene.recordTo[s.id]!) }
            ) {
                throw SceneError(place, "session \"\(clash.key)\" records to the same file")
            }
        }
        var events: [Scene.Event] = []
        for (i, v) in try r.array("events").enumerated() {
            events.append(try event(v, path: "events[\(i)]", scene: scene, sessions: sessionIDs, sources: sourceIDs))
        }
        try r.finish()
        // Stable: events at the same time keep file order.
        scene.events = events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        scene.warnings = warnings
        return scene
    }

    mutating func engine(_ v: JSONValue, path: String) throws -> Scene.EngineSettings {
        var r = try FieldReader(v, path: path)
        var e = Scene.EngineSettings()
        e.sampleRate = try r.integer("sampleRate", default: 48_000, in: 8_000...384_000)
        e.channelCount = try r.integer("channels", default: 2, in: 1...2)
        e.blockFrames = try r.integer("blockFrames", default: 256, in: 16...4096)
        if r.has("resampler") { e.resampler = try r.name("resampler", as: ResamplerQuality.self, what: "resampler") }
        if let d = r.value("ducking") { (e.ducking, pendingRules) = try engineDucking(d, path: r.child("ducking")) }
        if r.has("output") { e.output = try r.name("output", as: SampleFormat.self, what: "output format") }
        if r.has("maxVoices") { e.maxVoices = try voiceLimit(&r) }
        if let key = try renamedKey(&r, "outputBuses", old: "routes") { e.outputBuses = try outputBuses(&r, key) }
        if let l = r.value("limiter") { e.limiter = try limiter(l, path: r.child("limiter")) }
        if let v = r.value("effects") { e.effects = try effects(v, path: r.child("effects"), sampleRate: e.sampleRate) }
        if let p = r.value("policy") {
            var pr = try FieldReader(p, path: r.child("policy"))
            e.lossFade = try pr.number("lossFade", default: 0, in: 0...10, unit: " s")
            for (i, item) in try pr.array("interactions").enumerated() {
                let place = "\(pr.child("interactions"))[\(i)]"
                var ir = try FieldReader(item, path: place)
                let active = try ir.string("active")
                let incoming = try ir.string("incoming")
                let outcome = try ir.name("outcome", as: InteractionOutcome.self, what: "outcome")
                try ir.finish()
                pendingInteractions.append(RawInteraction(active: active, incoming: incoming, outcome: outcome, path: place))
            }
            try pr.finish()
        }
        try r.finish()
        return e
    }

    /// `engine.limiter`: `ceiling` (dBFS, −60…0, default −1), `release` (0…10 s, default
    /// 0.1), `lookahead` (0…0.1 s, default 0).
    func limiter(_ v: JSONValue, path: String) throws -> LimiterSettings {
        var r = try FieldReader(v, path: path)
        let d = LimiterSettings()
        let settings = LimiterSettings(
            ceilingDB: try r.number("ceiling", default: d.ceilingDB, in: -60...0, unit: " dB"),
            releaseSeconds: try r.number("release", default: d.releaseSeconds, in: 0...10, unit: " s"),
            lookaheadSeconds: try r.number("lookahead", default: d.lookaheadSeconds, in: 0...0.1, unit: " s"))
        try r.finish()
        return settings
    }

    /// An effect chain (`engine.effects`, `sessions[].effects`): an array of objects, each with
    /// a `type` — a biquad (`lowpass`, `highpass`, `bandpass`, `notch`, `peaking`, `lowshelf`,
    /// `highshelf`: `frequency` Hz, `q` (default 0.7071), `gain` dB (peaking and shelves only,
    /// default 0)), `compressor` (`threshold` dB, `ratio`, `attack` s (default 0.01), `release`
    /// s (default 0.1), `makeup` dB (default 0)) or `delay` (`time` s, `feedback` (default 0),
    /// `mix` (default 0.5)). Errors name the JSON path of the bad field.
    func effects(_ v: JSONValue, path: String, sampleRate: Int) throws -> [EffectSettings] {
        guard case .array(let items) = v else { throw SceneError(path, "expected an array, found \(v.kindName)") }
        return try items.enumerated().map { (i, item) in try effect(item, path: "\(path)[\(i)]", sampleRate: sampleRate) }
    }

    /// One effect object of a chain (see `effects`), at `path`.
    func effect(_ item: JSONValue, path: String, sampleRate: Int) throws -> EffectSettings {
        var r = try FieldReader(item, path: path)
        let type = try r.string("type")
        let e: EffectSettings
        if let kind = EffectSettings.BiquadKind(rawValue: type) {
            let shaped = kind == .peaking || kind == .lowshelf || kind == .highshelf
            e = .biquad(
                kind, frequencyHz: try r.number("frequency"), q: try r.number("q", default: 1 / 2.squareRoot()),
                gainDB: shaped ? try r.number("gain", default: 0) : 0)
        } else if type == "compressor" {
            e = .compressor(
                thresholdDB: try r.number("threshold"), ratio: try r.number("ratio"), attackSeconds: try r.number("attack", default: 0.01),
                releaseSeconds: try r.number("release", default: 0.1), makeupDB: try r.number("makeup", default: 0))
        } else if type == "delay" {
            e = .delay(
                timeSeconds: try r.number("time"), feedback: try r.number("feedback", default: 0), mix: try r.number("mix", default: 0.5))
        } else {
            let known = EffectSettings.BiquadKind.allCases.map(\.rawValue) + ["compressor", "delay"]
            throw SceneError(r.child("type"), "unknown effect type \"\(type)\" (one of \(known.joined(separator: ", ")))")
        }
        try r.finish()
        if let (field, problem) = e.check(sampleRate: sampleRate) { throw SceneError(r.child(field), problem) }
        return e
    }

    /// A session's `setEffect` event: `index` names a biquad of the session's `effects`,
    /// `effect` is another biquad, `glide` seconds (0…60, optional).
    func setEffect(_ r: inout FieldReader, session: String, scene: Scene) throws -> Scene.SessionAction {
        let chain = scene.sessionEffects[session] ?? []
        guard !chain.isEmpty else { throw SceneError(r.child("action"), "session \"\(session)\" has no effects to change") }
        let index = try r.integer("index", default: 0, in: 0...(chain.count - 1))
        guard case .biquad = chain[index] else {
            throw SceneError(r.child("index"), "effect \(index) of session \"\(session)\" is not a biquad: only a biquad changes in place")
        }
        guard let v = r.value("effect") else { throw SceneError(r.child("effect"), "required effect object is missing") }
        let e = try effect(v, path: r.child("effect"), sampleRate: scene.engine.sampleRate)
        guard case .biquad = e else { throw SceneError(r.child("effect") + ".type", "must be a biquad (a filter changes into a filter)") }
        return .setEffect(index: index, e, glide: try r.optionalNumber("glide", in: 0...60, unit: " s"))
    }

    /// `engine.outputBuses` (`key`; or the deprecated `engine.routes`): distinct non-empty
    /// names without "=" (the CLI's `NAME=FILE`), at most
    /// 8 with "main", which is added first when missing and moved first when listed later.
    func outputBuses(_ r: inout FieldReader, _ key: String) throws -> [String] {
        var names: [String] = []
        for (i, v) in try r.array(key).enumerated() {
            let place = "\(r.child(key))[\(i)]"
            guard case .string(let name) = v else { throw SceneError(place, "expected an output bus name, found \(v.kindName)") }
            guard !name.isEmpty, !name.contains("=") else { throw SceneError(place, "an output bus name must be non-empty, without \"=\"") }
            guard !names.contains(name) else { throw SceneError(place, "output bus \"\(name)\" is listed twice") }
            names.append(name)
        }
        names.removeAll { $0 == "main" }
        names.insert("main", at: 0)
        guard names.count <= 8 else { throw SceneError(r.child(key), "at most 8 output buses (with main), got \(names.count)") }
        return names
    }

    /// A source's `outputBus`: a bus of `engine.outputBuses`, other than main only in a
    /// session whose category is multiRoute. `path` is the key as written.
    func checkOutputBus(of source: Scene.Source, path: String, scene: Scene) throws {
        guard source.outputBus != "main" else { return }
        guard scene.engine.outputBuses.contains(source.outputBus) else {
            throw SceneError(
                path,
                "unknown output bus \"\(source.outputBus)\" (engine.outputBuses: \(scene.engine.outputBuses.map { "\"\($0)\"" }.joined(separator: ", ")))"
            )
        }
        let category = scene.sessions.first { $0.id == source.session }?.category
        guard category == .multiRoute else {
            throw SceneError(
                path,
                "session \"\(source.session)\" has category \(category.map { $0.rawValue } ?? "?"); only sources of multiRoute sessions "
                    + "play to an output bus other than main")
        }
    }

    /// `maxVoices`: a whole number, 1…65536.
    func voiceLimit(_ r: inout FieldReader) throws -> Int {
        let d = try r.number("maxVoices")
        guard d == d.rounded(), d >= 1, d <= 65_536 else {
            throw SceneError(r.child("maxVoices"), "must be a whole number of voices in 1…65536, got \(JSONWriter.number(d))")
        }
        return Int(d)
    }

    /// A session's `ducking` object.
    func ducking(_ v: JSONValue, path: String, defaults: DuckingSettings) throws -> DuckingSettings {
        var r = try FieldReader(v, path: path)
        let settings = try duckingSettings(&r, defaults: defaults, levelRange: -120...0)
        try r.finish()
        return settings
    }

    /// The engine's `ducking` object: its settings and its `rules` (names not resolved yet;
    /// fields a rule leaves out take the engine's values).
    func engineDucking(_ v: JSONValue, path: String) throws -> (DuckingSettings, [RawRule]) {
        var r = try FieldReader(v, path: path)
        let settings = try duckingSettings(&r, defaults: .default, levelRange: -120...0)
        var rules: [RawRule] = []
        for (i, item) in try r.array("rules").enumerated() {
            let place = "\(r.child("rules"))[\(i)]"
            var rr = try FieldReader(item, path: place)
            let by = try rr.string("by")
            let duck = try rr.string("duck")
            // Rule levels stay within −96 dB, as the host API's do.
            let s = try duckingSettings(&rr, defaults: settings, levelRange: -96...0)
            let trigger = try duckingTrigger(&rr)
            try rr.finish()
            rules.append(RawRule(by: by, duck: duck, settings: s, trigger: trigger, path: place))
        }
        try r.finish()
        return (settings, rules)
    }

    /// A rule's `trigger` ("activation", the default, or "signal" with `threshold` in dBFS,
    /// −120…0, required, and `hold` in seconds, 0…3600, default 0).
    func duckingTrigger(_ r: inout FieldReader) throws -> DuckingTrigger {
        let name = r.has("trigger") ? try r.string("trigger") : "activation"
        switch name {
        case "activation":
            for key in ["threshold", "hold"] where r.has(key) {
                throw SceneError(r.child(key), "only a rule with \"trigger\": \"signal\" has a \(key)")
            }
            return .activation
        case "signal":
            let threshold = try r.number("threshold", in: -120...0, unit: " dBFS")
            let hold = try r.number("hold", default: 0, in: 0...3600, unit: " s")
            return .signal(thresholdDB: threshold, holdSeconds: hold)
        default:
            var message = "unknown trigger \"\(name)\"; triggers: activation, signal"
            if let guess = FieldReader.closest(name, in: ["activation", "signal"]) { message += " (did you mean \"\(guess)\"?)" }
            throw SceneError(r.child("trigger"), message)
        }
    }

    func duckingSettings(_ r: inout FieldReader, defaults: DuckingSettings, levelRange: ClosedRange<Double>) throws -> DuckingSettings {
        let level = try r.number("level", default: defaults.levelDB, in: levelRange, unit: " dB")
        let attack = try r.number("attack", default: defaults.attackSeconds, in: 0...10, unit: " s")
        let release = try r.number("release", default: defaults.releaseSeconds, in: 0...10, unit: " s")
        return DuckingSettings(levelDB: level, attackSeconds: attack, releaseSeconds: release)
    }

    /// A session id if a session has it, else a category name; otherwise an error at
    /// `place` listing both.
    func target(_ name: String, place: String, sessions: Set<String>) throws -> DuckingTarget {
        if sessions.contains(name) { return .session(name) }
        if let c = Category(rawValue: name) { return .category(c) }
        var message = "unknown session or category \"\(name)\""
        let names = sessions.sorted() + Category.allCases.map(\.rawValue)
        if let guess = FieldReader.closest(name, in: names) { message += " (did you mean \"\(guess)\"?)" }
        message += "; sessions: " + (sessions.isEmpty ? "none" : sessions.sorted().joined(separator: ", "))
        message += "; categories: " + Category.allCases.map(\.rawValue).joined(separator: ", ")
        throw SceneError(place, message)
    }

    /// An interaction row's `active` / `incoming`, resolved like a ducking rule's sides; one
    /// row per pair, not the same session on both sides.
    func resolve(_ rows: [RawInteraction], sessions: Set<String>) throws -> [InteractionRule] {
        var seen: [String: Int] = [:]
        var out: [InteractionRule] = []
        for (i, raw) in rows.enumerated() {
            let active = try target(raw.active, place: "\(raw.path).active", sessions: sessions)
            let incoming = try target(raw.incoming, place: "\(raw.path).incoming", sessions: sessions)
            if active == incoming, case .session(let id) = active {
                throw SceneError("\(raw.path).incoming", "a session does not meet itself (\"\(id)\" on both sides)")
            }
            let key = "\(active)\u{0}\(incoming)"
            if let earlier = seen[key] {
                throw SceneError(raw.path, "interactions[\(earlier)] already covers active \"\(active)\", incoming \"\(incoming)\"")
            }
            seen[key] = i
            out.append(InteractionRule(active: active, incoming: incoming, outcome: raw.outcome))
        }
        return out
    }

    /// A rule's `by` / `duck`: a session id if a session has it, else a category name.
    func resolve(_ rules: [RawRule], sessions: Set<String>) throws -> [DuckingRule] {
        var seen: [String: Int] = [:]
        var out: [DuckingRule] = []
        for (i, raw) in rules.enumerated() {
            let by = try target(raw.by, place: "\(raw.path).by", sessions: sessions)
            let duck = try target(raw.duck, place: "\(raw.path).duck", sessions: sessions)
            if by == duck, case .session(let id) = by {
                throw SceneError("\(raw.path).duck", "a session cannot duck itself (\"\(id)\" on both sides)")
            }
            let key = "\(by)\u{0}\(duck)"
            if let earlier = seen[key] {
                throw SceneError(raw.path, "rules[\(earlier)] already covers by \"\(by)\", duck \"\(duck)\"")
            }
            seen[key] = i
            out.append(DuckingRule(by: by, duck: duck, settings: raw.settings, trigger: raw.trigger))
        }
        return out
    }

    func device(_ v: JSONValue, path: String) throws -> Scene.Device {
        var r = try FieldReader(v, path: path)
        var d = Scene.Device()
        d.silentSwitch = try r.bool("silentSwitch", default: false)
        d.locked = try r.bool("locked", default: false)
        d.volume = try r.number("volume", default: 1, in: 0...1)
        d.ringerVolume = try r.number("ringerVolume", default: 1, in: 0...1)
        if r.has("route") { d.route = try r.name("route", as: Route.self, what: "route") }
        d.micMuted = try r.bool("micMuted", default: false)
        try r.finish()
        return d
    }

    func identifier(_ r: inout FieldReader, _ key: String) throws -> String {
        let id = try r.string(key)
        guard !id.isEmpty else { throw SceneError(r.child(key), "must not be empty") }
        return id
    }

    func options(_ values: [JSONValue], path: String) throws -> [CategoryOption] {
        var out: [CategoryOption] = []
        for (i, v) in values.enumerated() {
            guard case .string(let s) = v else { throw SceneError("\(path)[\(i)]", "expected a string, found \(v.kindName)") }
            let o = try FieldReader.parseName(s, as: CategoryOption.self, what: "option", place: "\(path)[\(i)]")
            if !out.contains(o) { out.append(o) }
        }
        return out
    }

    /// Options that need a category that can mix/duck (policy rule 1).
    func checkOptions(_ options: [CategoryOption], category: Category, path: String, session: String) throws {
        for (i, o) in options.enumerated() where !category.allows(o) {
            throw SceneError("\(path)[\(i)]", PolicyError.optionNotAllowed(session: session, category: category, option: o).description)
        }
    }

    func session(_ v: JSONValue, path: String, engineDucking: DuckingSettings, sampleRate: Int) throws -> (
        SessionConfiguration, recordTo: String?, effects: [EffectSettings]?
    ) {
        var r = try FieldReader(v, path: path)
        let id = try identifier(&r, "id")
        let category = try r.optionalName("category", as: Category.self, what: "category") ?? .soloAmbient
        let opts = try options(try r.array("options"), path: r.child("options"))
        try checkOptions(opts, category: category, path: r.child("options"), session: id)
        let mode = try r.optionalName("mode", as: Mode.self, what: "mode") ?? .default
        let playbackControls = try r.bool("playbackControls", default: false)
        var commands: [RemoteCommand] = []
        for (i, c) in try r.array("remoteCommands").enumerated() {
            guard case .string(let s) = c else {
                throw SceneError("\(r.child("remoteCommands"))[\(i)]", "expected a string, found \(c.kindName)")
            }
            commands.append(
                try FieldReader.parseName(s, as: RemoteCommand.self, what: "remote command", place: "\(r.child("remoteCommands"))[\(i)]"))
        }
        let foreground = try r.bool("foreground", default: true)
        let autoResume = try r.bool("autoResume", default: true)
        let other = try r.optionalName("categoryWhenOtherAudioPlaying", as: Category.self, what: "category")
        if let other { try checkOptions(opts, category: other, path: r.child("options"), session: id) }
        var duck: DuckingSettings?
        // Fields left out take the engine's values.
        if let d = r.value("ducking") { duck = try ducking(d, path: r.child("ducking"), defaults: engineDucking) }
        let maxVoices = r.has("maxVoices") ? try voiceLimit(&r) : nil
        let pausesWhenDucked = try r.bool("pausesWhenDucked", default: false)
        let content = try r.optionalName("content", as: ContentType.self, what: "content type")
        let acceptsDelayedActivation = try r.bool("acceptsDelayedActivation", default: false)
        let accessibility = try r.bool("accessibility", default: false)
        let mediaRole = try r.optionalName("mediaRole", as: MediaRole.self, what: "media role")
        if acceptsDelayedActivation, category == .ambient {
            throw SceneError(
                r.child("acceptsDelayedActivation"),
                "session \"\(id)\" is ambient: it mixes with everything and never needs a delayed activation")
        }
        var recordTo: String?
        if r.has("recordTo") {
            let f = try r.string("recordTo")
            guard !f.isEmpty else { throw SceneError(r.child("recordTo"), "must not be empty") }
            recordTo = f
        }
        let effects = try r.value("effects").map { try self.effects($0, path: r.child("effects"), sampleRate: sampleRate) }
        try r.finish()
        let configuration = SessionConfiguration(
            id: id, category: category, options: Set(opts), mode: mode,
            playbackControls: playbackControls, remoteCommands: Set(commands),
            foreground: foreground, autoResume: autoResume,
            categoryWhenOtherAudioPlaying: other, ducking: duck, maxVoices: maxVoices,
            pausesWhenDucked: pausesWhenDucked, content: content, acceptsDelayedActivation: acceptsDelayedActivation,
            accessibility: accessibility, mediaRole: mediaRole)
        return (configuration, recordTo, effects)
    }

    /// `file`, `tone` or `silence`: exactly one (or none when `optional`).
    func audio(_ r: inout FieldReader, sampleRate: Int, optional: Bool) throws -> Scene.Audio? {
        let present = ["file", "tone", "silence"].filter { r.has($0) }
        if present.count > 1 {
            throw SceneError(r.child(present[1]), "give only one of file, tone, silence (found \(present.joined(separator: " and ")))")
        }
        guard let kind = present.first else {
            if optional { return nil }
            throw SceneError(r.path, "needs one of file, tone or silence")
        }
        switch kind {
        case "file":
            let f = try r.string("file")
            guard !f.isEmpty else { throw SceneError(r.child("file"), "must not be empty") }
            return .file(f)
        case "tone":
            var t = try FieldReader(r.value("tone")!, path: r.child("tone"))
            let nyquist = Double(sampleRate) / 2
            let f = try t.number("frequency", in: 0.001...nyquist, unit: " Hz")
            let a = try t.number("amplitude", default: 0.5, in: 0...1)
            try t.finish()
            return .tone(frequency: f, amplitude: a)
        default:
            guard case .bool(true)? = r.value("silence") else { throw SceneError(r.child("silence"), "expected true") }
            return .silence
        }
    }

    mutating func source(_ v: JSONValue, path: String, sessions: Set<String>, sampleRate: Int) throws -> Scene.Source {
        var r = try FieldReader(v, path: path)
        let id = try identifier(&r, "id")
        let session = try r.string("session")
        guard sessions.contains(session) else { throw SceneError(r.child("session"), "unknown session \"\(session)\"") }
        let audio: Scene.Audio
        if r.has("input") {
            if let other = ["file", "tone", "silence"].first(where: { r.has($0) }) {
                throw SceneError(r.child(other), "give only one of file, tone, silence, input (found \(other) and input)")
            }
            var t = try FieldReader(r.value("input")!, path: r.child("input"))
            audio = .input(channelCount: try t.integer("channels", default: 1, in: 1...2))
            try t.finish()
        } else {
            audio = try self.audio(&r, sampleRate: sampleRate, optional: false)!
        }
        // An input is heard only when its gain is set (monitoring is opt-in: no feedback).
        let defaultGain: Double = if case .input = audio { 0 } else { 1 }
        let gain = try r.number("gain", default: defaultGain, in: 0...1)
        let pan = try r.optionalNumber("pan", in: -1...1, unit: "")
        let rate = try r.optionalNumber("rate", in: 0.25...4, unit: "")
        if rate != nil, !SceneDecoder.playsAtARate(audio) {
            throw SceneError(r.child("rate"), "only a file source has a playback rate (a tone, silence or input has no recorded content)")
        }
        let loop = try r.bool("loop", default: false)
        let loopStart = try loopSeconds(&r, "loopStart", loop: loop, audio: audio)
        let loopEnd = try loopSeconds(&r, "loopEnd", loop: loop, audio: audio)
        if let loopStart, let loopEnd, loopEnd <= loopStart {
            throw SceneError(
                r.child("loopEnd"),
                "\(JSONWriter.number(loopEnd)) s must be after loopStart (\(JSONWriter.number(loopStart)) s): the region is empty or reversed"
            )
        }
        var loopCount: Int?
        if r.has("loopCount") {
            try loopKeyAllowed(&r, "loopCount", loop: loop, audio: audio)
            loopCount = try r.integer("loopCount", default: 1, in: 1...Int(Int32.max))
        }
        let priority = try r.integer("priority", default: 128, in: 0...255)
        let fades = try self.fades(&r)
        var outputBus = "main"
        if let key = try renamedKey(&r, "outputBus", old: "route") {
            outputBus = try identifier(&r, key)
            busKeyPlaces[path] = r.child(key)
        }
        try r.finish()
        var source = Scene.Source(
            id: id, session: session, audio: audio, gain: gain, loop: loop, priority: priority, place: path, fades: fades)
        source.outputBus = outputBus
        source.pan = pan
        source.rate = rate
        source.loopStart = loopStart
        source.loopEnd = loopEnd
        source.loopCount = loopCount
        return source
    }

    /// File sources play at a rate; tones, silence and inputs do not.
    static func playsAtARate(_ audio: Scene.Audio) -> Bool {
        if case .file = audio { return true }
        return false
    }

    /// `loopStart` / `loopEnd`: seconds, finite and ≥ 0 (nil when absent).
    func loopSeconds(_ r: inout FieldReader, _ key: String, loop: Bool, audio: Scene.Audio) throws -> Double? {
        guard r.has(key) else { return nil }
        try loopKeyAllowed(&r, key, loop: loop, audio: audio)
        let seconds = try r.number(key)
        guard seconds.isFinite, seconds >= 0 else {
            throw SceneError(r.child(key), "expected a finite number of seconds ≥ 0, found \(JSONWriter.number(seconds))")
        }
        return seconds
    }

    /// A loop key needs `"loop": true` and a file source.
    func loopKeyAllowed(_ r: inout FieldReader, _ key: String, loop: Bool, audio: Scene.Audio) throws {
        guard case .file = audio else { throw SceneError(r.child(key), "only a file source has a loop region") }
        guard loop else { throw SceneError(r.child(key), "needs \"loop\": true") }
    }

    func event(_ v: JSONValue, path: String, scene: Scene, sessions: Set<String>, sources: Set<String>) throws -> Scene.Event {
        var r = try FieldReader(v, path: path)
        let at = try r.number("at", in: 0...scene.duration, unit: " s")
        let targets = ["session", "source", "device", "system", "remote"].filter { r.has($0) }
        guard let target = targets.first else {
            throw SceneError(path, "an event needs one of session, source, device, system or remote")
        }
        if targets.count > 1 {
            throw SceneError(r.child(targets[1]), "an event has one target; found \(targets.joined(separator: " and "))")
        }
        let action: Scene.Action
        switch target {
        case "session":
            let id = try r.string("session")
            guard sessions.contains(id) else { throw SceneError(r.child("session"), "unknown session \"\(id)\"") }
            action = .session(id, try sessionAction(&r, session: id, scene: scene))
        case "source":
            let id = try r.string("source")
            guard sources.contains(id) else { throw SceneError(r.child("source"), "unknown source \"\(id)\"") }
            let sourceAction = try sourceAction(&r, source: id, scene: scene)
            if case .setRate = sourceAction, let audio = scene.sources.first(where: { $0.id == id })?.audio,
                !SceneDecoder.playsAtARate(audio)
            {
                throw SceneError(
                    r.child("source"), "source \"\(id)\" is not a file source: only a file source has a playback rate (setRate)")
            }
            action = .source(id, sourceAction)
        case "device":
            action = .device(try deviceAction(&r))
        case "system":
            action = try systemAction(&r, sampleRate: scene.engine.sampleRate)
        default:
            action = .remote(try r.name("remote", as: RemoteCommand.self, what: "remote command"))
        }
        var fades = Scene.Fades()
        switch action {
        case .phoneCallBegin(audio: .some), .systemSound: fades = try self.fades(&r)
        default: break
        }
        try r.finish()
        return Scene.Event(at: at, action: action, place: path, fades: fades)
    }

    /// `fadeIn` and `fadeOut` (seconds, finite, 0…60), each optional.
    func fades(_ r: inout FieldReader) throws -> Scene.Fades {
        func seconds(_ key: String) throws -> Double? {
            guard let v = r.value(key) else { return nil }
            guard case .number(let d) = v else { throw SceneError(r.child(key), "expected a number of seconds, found \(v.kindName)") }
            guard d.isFinite else { throw SceneError(r.child(key), "must be a finite number of seconds") }
            guard d >= 0 else { throw SceneError(r.child(key), "\(JSONWriter.number(d)) s is negative; a fade lasts 0…60 s") }
            guard d <= 60 else { throw SceneError(r.child(key), "\(JSONWriter.number(d)) s is out of range 0…60 s") }
            return d
        }
        return Scene.Fades(fadeIn: try seconds("fadeIn"), fadeOut: try seconds("fadeOut"))
    }

    enum SessionVerb: String, CaseIterable { case activate, deactivate, setCategory, foreground, background, setGain, setEffect }
    enum SourceVerb: String, CaseIterable { case play, pause, stop, setGain, setPan, setRate, crossfade }
    enum DeviceVerb: String, CaseIterable {
        case silentSwitch, lock, unlock, volume, ringerVolume, volumeUp, volumeDown, route, micMuted, otherAudio
    }
    enum SystemVerb: String, CaseIterable { case phoneCall, systemSound }
    enum CallVerb: String, CaseIterable { case begin, end }

    func ramp(_ r: inout FieldReader) throws -> Double? { try r.optionalNumber("ramp", in: 0...60, unit: " s") }

    func sessionAction(_ r: inout FieldReader, session: String, scene: Scene) throws -> Scene.SessionAction {
        switch try r.name("action", as: SessionVerb.self, what: "session action") {
        case .activate: return .activate(focus: try r.optionalName("focus", as: FocusRequest.self, what: "focus") ?? .gain)
        case .deactivate: return .deactivate(notifyOthers: try r.bool("notifyOthers", default: false))
        case .setCategory:
            let c = try r.name("value", as: Category.self, what: "category")
            var opts: [CategoryOption]?
            if r.has("options") {
                opts = try options(try r.array("options"), path: r.child("options"))
                try checkOptions(opts!, category: c, path: r.child("options"), session: session)
            }
            let mode = try r.optionalName("mode", as: Mode.self, what: "mode")
            return .setCategory(c, mode: mode, options: opts.map { Set($0) })
        case .foreground: return .foreground
        case .background: return .background
        case .setGain: return .setGain(try r.number("value", in: 0...1), ramp: try ramp(&r))
        case .setEffect: return try setEffect(&r, session: session, scene: scene)
        }
    }

    func sourceAction(_ r: inout FieldReader, source: String, scene: Scene) throws -> Scene.SourceAction {
        switch try r.name("action", as: SourceVerb.self, what: "source action") {
        case .play: return .play
        case .pause: return .pause
        case .stop: return .stop
        case .setGain: return .setGain(try r.number("value", in: 0...1), ramp: try ramp(&r))
        case .setPan: return .setPan(try r.number("value", in: -1...1), ramp: try ramp(&r))
        case .setRate: return .setRate(try r.number("value", in: 0.25...4), ramp: try ramp(&r))
        case .crossfade: return try crossfade(&r, source: source, scene: scene)
        }
    }

    /// `"action": "crossfade"`: `from` (another source of the same session) and `duration`
    /// (seconds, finite, at least one frame, at most 2³¹ − 1 frames).
    func crossfade(_ r: inout FieldReader, source: String, scene: Scene) throws -> Scene.SourceAction {
        let from = try r.string("from")
        guard let other = scene.sources.first(where: { $0.id == from }) else {
            throw SceneError(r.child("from"), "unknown source \"\(from)\"")
        }
        guard from != source else { throw SceneError(r.child("from"), "source \"\(from)\" cannot crossfade from itself") }
        let session = scene.sources.first { $0.id == source }?.session ?? ""
        guard other.session == session else {
            throw SceneError(
                r.child("from"),
                "source \"\(from)\" belongs to session \"\(other.session)\", not \"\(session)\"; "
                    + "a crossfade is between two sources of one session")
        }
        let duration = try r.number("duration")
        guard duration.isFinite, duration > 0 else {
            throw SceneError(r.child("duration"), "expected a finite number of seconds > 0, found \(JSONWriter.number(duration))")
        }
        let frames = (duration * Double(scene.engine.sampleRate)).rounded()
        guard frames >= 1, frames <= Double(Int32.max) else {
            throw SceneError(
                r.child("duration"),
                "\(JSONWriter.number(duration)) s is \(JSONWriter.number(frames)) frames at \(scene.engine.sampleRate) Hz; "
                    + "a crossfade lasts 1…\(Int32.max) frames")
        }
        return .crossfade(from: from, duration: duration)
    }

    func deviceAction(_ r: inout FieldReader) throws -> Scene.DeviceAction {
        switch try r.name("device", as: DeviceVerb.self, what: "device action") {
        case .silentSwitch: return .silentSwitch(try r.bool("value"))
        case .lock: return .lock
        case .unlock: return .unlock
        case .volume: return .volume(try r.number("value", in: 0...1))
        case .ringerVolume: return .ringerVolume(try r.number("value", in: 0...1))
        case .volumeUp: return .volumeUp
        case .volumeDown: return .volumeDown
        case .route:
            let route = try r.name("value", as: Route.self, what: "route")
            let reason = try r.optionalName("reason", as: RouteChangeReason.self, what: "route change reason")
            return .route(route, reason: reason)
        case .micMuted: return .micMuted(try r.bool("value"))
        case .otherAudio:
            let playing = try r.bool("playing")
            let silence = try r.bool("silenceSecondary", default: false)
            var clients: [String] = []
            for (i, v) in try r.array("clients").enumerated() {
                guard case .string(let name) = v else {
                    throw SceneError("\(r.child("clients"))[\(i)]", "expected a client name (a string), found \(v.kindName)")
                }
                clients.append(name)
            }
            return .otherAudio(OtherAudio(playing: playing, silenceSecondary: silence, clients: clients))
        }
    }

    func systemAction(_ r: inout FieldReader, sampleRate: Int) throws -> Scene.Action {
        switch try r.name("system", as: SystemVerb.self, what: "system audio") {
        case .phoneCall:
            switch try r.name("action", as: CallVerb.self, what: "phone call action") {
            case .begin: return .phoneCallBegin(audio: try audio(&r, sampleRate: sampleRate, optional: true))
            case .end: return .phoneCallEnd
            }
        case .systemSound:
            let a = try audio(&r, sampleRate: sampleRate, optional: false)!
            let duration = try r.optionalNumber("duration", in: 0.001...60, unit: " s")
            if case .tone = a, duration == nil { throw SceneError(r.child("duration"), "a tone system sound needs a duration") }
            return .systemSound(audio: a, duration: duration)
        }
    }
}
