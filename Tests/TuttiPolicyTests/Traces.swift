import PropertyBased
import Testing
import TuttiPolicy

// Random worlds and action sequences, built with PropertyBased generators and run
// from fixed seeds, so every CI run checks the same cases. (`propertyCheck` draws a
// fresh system seed each run, and its `.fixedSeed` trait is meant for reproducing a
// failure only: it runs one case and reports an issue even when it passes.)

struct SessionSpec: Sendable {
    var category: Category
    var options: Set<CategoryOption>
    var spoken: Bool
    var playbackControls: Bool
    var remoteCommands: Set<RemoteCommand>
    var foreground: Bool
    var autoResume: Bool
    var alternative: Category?
    var duckLevel: Int?
    var sourceCount: Int
}

/// An action as numbers, decoded against the world (so generators need not depend on each other).
struct ActionCode: Sendable {
    var kind: Int
    var a: Int
    var b: Int
}

enum ActionKind: CaseIterable {
    case activate, deactivate, setCategory, foreground, background, resume
    case play, pause, stop, sourceEnded
    case silentSwitch, lock, unlock, volume, ringerVolume, volumeUp, volumeDown, route, micMuted
    case callBegin, callEnd, systemSound, remote
    // Off unless a property asks for them (so the other properties keep their cases).
    case voiceStolen, voiceRefused, setDuckingRules

    /// Relative frequency in random sequences.
    var weight: Int {
        switch self {
        case .voiceStolen, .voiceRefused, .setDuckingRules: return 0
        case .play: return 8
        case .activate, .remote: return 4
        case .micMuted: return 5
        case .deactivate, .pause, .callBegin, .callEnd: return 3
        case .route: return 2
        default: return 1
        }
    }

    /// Kinds repeated by weight; `weights` overrides some (a property can focus its sequences).
    static func table(_ weights: [ActionKind: Int] = [:]) -> [ActionKind] {
        allCases.flatMap { Array(repeating: $0, count: weights[$0] ?? $0.weight) }
    }
}

struct Scenario: Sendable, CustomStringConvertible {
    var sessions: [SessionConfiguration]
    var sources: [SourceConfiguration]
    var device: DeviceState
    var codes: [ActionCode]
    var table: [ActionKind]

    init(specs: [SessionSpec], device: DeviceState, codes: [ActionCode], table: [ActionKind]) {
        var sessions: [SessionConfiguration] = []
        var sources: [SourceConfiguration] = []
        for (n, spec) in specs.enumerated() {
            let id = "s\(n)"
            let options = spec.options.filter { spec.category.allows($0) }
            let alternative = spec.alternative.flatMap { alt in options.allSatisfy { alt.allows($0) } ? alt : nil }
            sessions.append(
                SessionConfiguration(
                    id: id, category: spec.category, options: options, mode: spec.spoken ? .spokenAudio : .default,
                    playbackControls: spec.playbackControls, remoteCommands: spec.remoteCommands,
                    foreground: spec.foreground, autoResume: spec.autoResume,
                    categoryWhenOtherAudioPlaying: alternative,
                    ducking: spec.duckLevel.map { DuckingSettings(levelDB: Double($0), attackSeconds: 0.05, releaseSeconds: 0.2) }))
            for k in 0..<spec.sourceCount { sources.append(SourceConfiguration(id: "\(id).x\(k)", session: id)) }
        }
        self.sessions = sessions
        self.sources = sources
        self.device = device
        self.codes = codes
        self.table = table
    }

    func initialState() -> PolicyState {
        do {
            return try PolicyState(sessions: sessions, sources: sources, device: device)
        } catch {
            fatalError("generated world does not validate: \(error)")
        }
    }

    var actions: [PolicyAction] { codes.map(decode) }

    /// Lets go of everything: after it no interruption may be left open.
    var closing: [PolicyAction] {
        [.phoneCallEnd, .micMuted(false)] + sessions.map { .deactivate(session: $0.id, notifyOthers: true) }
    }

    func decode(_ code: ActionCode) -> PolicyAction {
        let kind = table[code.kind % table.count]
        let ghost = code.b >= 97 // now and then an id nobody registered
        let session = ghost ? "ghost" : sessions[code.a % sessions.count].id
        let source = ghost || sources.isEmpty ? "ghost" : sources[code.a % sources.count].id
        switch kind {
        case .activate: return .activate(session: session)
        case .deactivate: return .deactivate(session: session, notifyOthers: code.b % 2 == 0)
        case .setCategory:
            let options = Set(
                CategoryOption.allCases.enumerated().filter { code.b & (1 << $0.offset) != 0 && $0.offset < 3 }
                    .map(\.element))
            return .setCategory(
                session: session, category: Category.allCases[code.b % Category.allCases.count],
                options: code.b % 3 == 0 ? options : [])
        case .foreground: return .foreground(session: session)
        case .background: return .background(session: session)
        case .resume: return .resume(session: session)
        case .play: return .play(source: source)
        case .pause: return .pause(source: source)
        case .stop: return .stop(source: source)
        case .sourceEnded: return .sourceEnded(source: source)
        case .silentSwitch: return .silentSwitch(code.b % 2 == 0)
        case .lock: return .lock
        case .unlock: return .unlock
        case .volume: return .volume(Double(code.b % 21) / 16 - 0.125)
        case .ringerVolume: return .ringerVolume(Double(code.b % 21) / 16 - 0.125)
        case .volumeUp: return .volumeUp
        case .volumeDown: return .volumeDown
        case .route:
            let reasons: [RouteChangeReason?] = [nil, nil, .newDeviceAvailable, .oldDeviceUnavailable, .override]
            return .route(Route.allCases[code.a % Route.allCases.count], reason: reasons[code.b % reasons.count])
        case .micMuted: return .micMuted(code.b % 2 == 0)
        case .callBegin: return .phoneCallBegin
        case .callEnd: return .phoneCallEnd
        case .systemSound: return .systemSound(name: "sound\(code.b % 3)")
        case .remote: return .remote(RemoteCommand.allCases[code.b % RemoteCommand.allCases.count])
        case .voiceStolen:
            let by = sources.isEmpty ? "ghost" : sources[code.b % sources.count].id
            return .voiceStolen(source: source, by: by)
        case .voiceRefused: return .voiceRefused(source: source)
        case .setDuckingRules: return .setDuckingRules(rules(code))
        }
    }

    /// Up to four rules drawn from the code: sessions and categories on either side (a clash
    /// or a ghost session makes the action a refused one, which is tested too).
    func rules(_ code: ActionCode) -> [DuckingRule] {
        (0..<(code.b % 5)).map { r in
            let x = code.a &* 31 &+ code.b &* 7 &+ r &* 13
            func target(_ v: Int) -> DuckingTarget {
                v % 3 == 0
                    ? .category(Category.allCases[(v / 3) % Category.allCases.count])
                    : .session(code.b >= 95 ? "ghost" : sessions[v % sessions.count].id)
            }
            let level = -Double((x % 40) + 1)
            return DuckingRule(
                by: target(x / 5), duck: target(x / 11 + r),
                settings: DuckingSettings(levelDB: level, attackSeconds: 0.05, releaseSeconds: 0.2))
        }
    }

    var description: String {
        sessions.map { s in
            "\(s.id): \(s.category.rawValue) \(s.options.map(\.rawValue).sorted()) mode \(s.mode.rawValue)"
                + " controls \(s.playbackControls) remote \(s.remoteCommands.map(\.rawValue).sorted())"
                + " fg \(s.foreground) autoResume \(s.autoResume) alt \(s.categoryWhenOtherAudioPlaying?.rawValue ?? "-")"
                + " sources \(sources.filter { $0.session == s.id }.map(\.id))"
        }.joined(separator: "\n") + "\ndevice \(device)"
    }
}

enum Worlds {
    /// Players and input sessions are where most rules bite: weight them up.
    static let categories: [Category] = [
        .soloAmbient, .ambient, .ambient, .playback, .playback, .playback, .record,
        .playAndRecord, .playAndRecord, .audioProcessing, .multiRoute,
    ]

    static func sessionSpec(duckerRate: Float) -> Generator<SessionSpec, AnySequence<Any>> {
        zip(
            zip(
                Gen.int(in: 0...(categories.count - 1)).map { categories[$0] },
                Gen<CategoryOption>.case.set(ofAtMost: 0...3),
                Gen.bool(0.3),
                Gen.bool(0.5),
                Gen<RemoteCommand>.case.set(ofAtMost: 0...6)
            ),
            zip(
                Gen.bool(0.85),
                Gen.bool(0.8),
                Gen<Category>.case.optional(valueRate: 0.25),
                Gen.int(in: -30 ... -3).optional(valueRate: 0.5),
                Gen.int(in: 0...3),
                Gen.bool(duckerRate) // several duckers at once is what makes ducking interesting
            )
        ).map { t in
            SessionSpec(
                category: t.0.0, options: t.1.5 ? t.0.1.union([.duckOthers]) : t.0.1, spoken: t.0.2,
                playbackControls: t.0.3, remoteCommands: t.0.4, foreground: t.1.0, autoResume: t.1.1,
                alternative: t.1.2, duckLevel: t.1.3, sourceCount: t.1.4)
        }.eraseToAny()
    }

    static let device = zip(
        Gen.bool(0.2), Gen.bool(0.2), Gen.int(in: 0...16), Gen.int(in: 0...16), Gen<Route>.case, Gen.bool(0.1)
    ).map { t in
        DeviceState(
            silentSwitch: t.0, locked: t.1, volume: Double(t.2) / 16, ringerVolume: Double(t.3) / 16,
            route: t.4, micMuted: t.5)
    }.eraseToAny()

    static let actionCode = zip(Gen.int(in: 0...9999), Gen.int(in: 0...99), Gen.int(in: 0...99))
        .map { t in ActionCode(kind: t.0, a: t.1, b: t.2) }.eraseToAny()

    static func scenario(duckerRate: Float = 0.3, weights: [ActionKind: Int] = [:]) -> Generator<Scenario, AnySequence<Any>> {
        let table = ActionKind.table(weights)
        return zip(sessionSpec(duckerRate: duckerRate).array(of: 2...6), device, actionCode.array(of: 1...40))
            .map { t in Scenario(specs: t.0, device: t.1, codes: t.2, table: table) }.eraseToAny()
    }
}

/// One applied action with everything around it.
struct Step {
    var before: PolicyState
    var action: PolicyAction
    var outcome: PolicyOutcome
    var after: PolicyState
    var beforeView: RenderView
    var afterView: RenderView
}

struct Trace {
    var initial: PolicyState
    var steps: [Step]

    init(_ scenario: Scenario, _ actions: [PolicyAction]) {
        self.init(scenario.initialState(), actions)
    }

    init(_ initial: PolicyState, _ actions: [PolicyAction]) {
        var state = initial
        self.initial = state
        steps = []
        steps.reserveCapacity(actions.count)
        var view = state.renderView
        for action in actions {
            let before = state
            let outcome = state.apply(action)
            let afterView = state.renderView
            steps.append(
                Step(
                    before: before, action: action, outcome: outcome, after: state,
                    beforeView: view, afterView: afterView))
            view = afterView
        }
    }
}

/// Runs `property` on `count` generated scenarios from a fixed seed. On failure, shrinks the
/// action list (dropping actions while it still fails) and records one issue with the case.
func checkTraces(
    _ name: String, seed: UInt64, count: Int, closing: Bool = false, duckerRate: Float = 0.3,
    weights: [ActionKind: Int] = [:],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ property: (Trace) -> [String]
) {
    func violations(_ scenario: Scenario, _ actions: [PolicyAction]) -> [String] {
        property(Trace(scenario, closing ? actions + scenario.closing : actions))
    }
    let worlds = Worlds.scenario(duckerRate: duckerRate, weights: weights)
    for n in 0..<count {
        var rng = seededRNG(seed, n)
        let scenario = worlds.run(using: &rng)
        var actions = scenario.actions
        var found = violations(scenario, actions)
        guard !found.isEmpty else { continue }
        let original = actions.count
        var shrunk = true
        while shrunk {
            shrunk = false
            for i in actions.indices.reversed() {
                var fewer = actions
                fewer.remove(at: i)
                let v = violations(scenario, fewer)
                if !v.isEmpty {
                    actions = fewer
                    found = v
                    shrunk = true
                }
            }
        }
        let list = actions.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
        let shown: String = found.prefix(5).joined(separator: "\n  ")
        let message =
            "\(name): case \(n) of seed \(seed) fails (\(actions.count) of \(original) actions)\n"
            + "\(scenario)\nactions:\n\(list)\nviolations:\n  \(shown)"
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return
    }
}

/// A generator state for case `n` of `seed`. The words go through splitmix64: xoshiro's first
/// outputs depend on one word only, so raw counters would give every case the same start.
func seededRNG(_ seed: UInt64, _ n: Int) -> Xoshiro {
    var x = seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
    func next() -> UInt64 {
        x &+= 0x9E37_79B9_7F4A_7C15
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    return Xoshiro(seed: (next(), next(), next(), next()))
}
