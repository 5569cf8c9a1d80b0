import Testing
import TuttiPolicy

// Shared fixtures: a small "phone" of typical sessions.

let allRemote: Set<RemoteCommand> = Set(RemoteCommand.allCases)

/// The test sessions, each with its sources.
let fixtureSessions: [String: (SessionConfiguration, [String])] = [
    "music": (
        SessionConfiguration(id: "music", category: .playback, playbackControls: true, remoteCommands: allRemote),
        ["song", "song2"]
    ),
    "podcast": (
        SessionConfiguration(
            id: "podcast", category: .playback, mode: .spokenAudio, playbackControls: true,
            remoteCommands: [.play, .pause, .togglePlayPause]), ["episode"]
    ),
    "nav": (SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers]), ["prompt"]),
    "navSpoken": (
        SessionConfiguration(
            id: "navSpoken", category: .playback,
            options: [.duckOthers, .interruptSpokenAudioAndMixWithOthers],
            ducking: DuckingSettings(levelDB: -20, attackSeconds: 0.05, releaseSeconds: 0.3)),
        ["turn"]
    ),
    "game": (SessionConfiguration(id: "game", categoryWhenOtherAudioPlaying: .ambient), ["fx"]),
    "amb": (SessionConfiguration(id: "amb", category: .ambient), ["rain"]),
    "alarm": (
        SessionConfiguration(id: "alarm", category: .playback, options: [.mixWithOthers], remoteCommands: [.pause]),
        ["beep"]
    ),
    "voip": (SessionConfiguration(id: "voip", category: .playAndRecord, mode: .voiceChat), ["voice"]),
    "voipDuck": (SessionConfiguration(id: "voipDuck", category: .playAndRecord, options: [.duckOthers]), ["chat"]),
    "rec": (SessionConfiguration(id: "rec", category: .record), ["monitor"]),
    "quietPlayer": (
        SessionConfiguration(
            id: "quietPlayer", category: .playback, playbackControls: true,
            remoteCommands: [.play, .pause], autoResume: false), ["track"]
    ),
]

/// A state with the named fixture sessions, registered in the given order.
func makeState(_ ids: [String], device: DeviceState = DeviceState()) -> PolicyState {
    var sessions: [SessionConfiguration] = []
    var sources: [SourceConfiguration] = []
    for id in ids {
        guard let (config, sourceIds) = fixtureSessions[id] else { fatalError("no fixture session \(id)") }
        sessions.append(config)
        sources += sourceIds.map { SourceConfiguration(id: $0, session: id) }
    }
    do {
        return try PolicyState(sessions: sessions, sources: sources, device: device)
    } catch {
        fatalError("fixture does not validate: \(error)")
    }
}

/// One row of a rule table: a world, actions that set it up, one action under test, what must follow.
struct RuleCase: Sendable, CustomTestStringConvertible {
    var name: String
    var sessions: [String]
    var device = DeviceState()
    var given: [PolicyAction] = []
    var when: PolicyAction
    /// Exact journal of `when`; nil: not checked.
    var journal: [JournalEntry]?
    var error: PolicyError?
    /// Render states after `when`.
    var states: [String: SessionRenderState] = [:]
    /// `isRunning` of sources after `when`.
    var running: [String: Bool] = [:]

    var testDescription: String { name }
}

/// Applies a case's setup actions to `state`; a failing one is an issue naming the case.
func applyGiven(_ actions: [PolicyAction], to state: inout PolicyState, caseName: String, sourceLocation: SourceLocation) {
    for action in actions {
        let outcome = state.apply(action)
        #expect(
            outcome.error == nil, "setup action \(action) of '\(caseName)' failed: \(String(describing: outcome.error))",
            sourceLocation: sourceLocation)
    }
}

/// Runs a rule case; every failure names the case.
func check(_ c: RuleCase, sourceLocation: SourceLocation = #_sourceLocation) -> (before: PolicyState, after: PolicyState) {
    var state = makeState(c.sessions, device: c.device)
    applyGiven(c.given, to: &state, caseName: c.name, sourceLocation: sourceLocation)
    let before = state
    let outcome = state.apply(c.when)
    if let journal = c.journal {
        #expect(outcome.journal == journal, "journal of '\(c.name)'", sourceLocation: sourceLocation)
    }
    #expect(outcome.error == c.error, "error of '\(c.name)'", sourceLocation: sourceLocation)
    if c.error != nil {
        #expect(
            state == before, "a refused action must leave the state unchanged ('\(c.name)')",
            sourceLocation: sourceLocation)
    }
    let view = state.renderView
    for (id, expected) in c.states.sorted(by: { $0.key < $1.key }) {
        #expect(view.session(id)?.state == expected, "state of \(id) in '\(c.name)'", sourceLocation: sourceLocation)
    }
    for (id, expected) in c.running.sorted(by: { $0.key < $1.key }) {
        #expect(
            view.source(id)?.isRunning == expected, "isRunning of \(id) in '\(c.name)'",
            sourceLocation: sourceLocation)
    }
    return (before, state)
}

/// Applies actions that must all succeed; returns the journal of the last one.
@discardableResult
func run(_ state: inout PolicyState, _ actions: [PolicyAction], sourceLocation: SourceLocation = #_sourceLocation)
    -> [JournalEntry]
{
    var last: [JournalEntry] = []
    for action in actions {
        let outcome = state.apply(action)
        #expect(
            outcome.error == nil, "\(action) failed: \(String(describing: outcome.error))",
            sourceLocation: sourceLocation)
        last = outcome.journal
    }
    return last
}
