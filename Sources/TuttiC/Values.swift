import CTuttiABI
import Tutti

// The C ABI's enum values and bits ↔ the Swift API's types. Values are positions in the
// header's lists (from 0); an unknown value or bit is `invalidArgument` naming the argument.

/// The header's `tutti_category` order.
private let categories: [Category] = [.soloAmbient, .ambient, .playback, .record, .playAndRecord, .audioProcessing, .multiRoute]
/// The header's `tutti_mode` order.
private let modes: [Mode] = [.default, .spokenAudio, .voiceChat, .videoChat, .gameChat, .measurement, .moviePlayback, .voicePrompt]
/// The header's `tutti_route` order.
private let routes: [Route] = [.speaker, .headphones, .bluetooth, .external]
/// The header's `tutti_remote_command` order.
private let remoteCommands: [RemoteCommand] = [.play, .pause, .togglePlayPause, .nextTrack, .previousTrack, .stop]
/// `TUTTI_OPTION_*` bits.
private let optionBits: [(UInt32, CategoryOption)] = [
    (TUTTI_OPTION_MIX_WITH_OTHERS, .mixWithOthers), (TUTTI_OPTION_DUCK_OTHERS, .duckOthers),
    (TUTTI_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX, .interruptSpokenAudioAndMixWithOthers),
    (TUTTI_OPTION_ALLOW_BLUETOOTH, .allowBluetooth), (TUTTI_OPTION_DEFAULT_TO_SPEAKER, .defaultToSpeaker),
]

private func element<T>(_ list: [T], _ value: Int32, _ name: String, _ type: String) throws(TuttiError) -> T {
    guard value >= 0, Int(value) < list.count else {
        throw TuttiError(.invalidArgument, "\(name) \(value) is not a \(type) (0…\(list.count - 1))")
    }
    return list[Int(value)]
}

func toCategory(_ value: tutti_category) throws(TuttiError) -> Category {
    try element(categories, value, "category", "tutti_category")
}

func toMode(_ value: tutti_mode) throws(TuttiError) -> Mode { try element(modes, value, "mode", "tutti_mode") }

func toRoute(_ value: tutti_route) throws(TuttiError) -> Route { try element(routes, value, "route", "tutti_route") }

/// `route` as its `tutti_route` value.
func fromRoute(_ route: Route) -> tutti_route { tutti_route(routes.firstIndex(of: route) ?? 0) }

private let silenceReasons: [SilenceReason] = [.silentSwitch, .locked, .background, .recording, .transientExclusive, .interaction]

/// A session state as `tutti_session_state` and `tutti_silence_reason` (-1 unless silenced).
func fromSessionState(_ state: SessionRenderState) -> (tutti_session_state, tutti_silence_reason) {
    switch state {
    case .inactive: (tutti_session_state(TUTTI_SESSION_STATE_INACTIVE), -1)
    case .audible: (tutti_session_state(TUTTI_SESSION_STATE_AUDIBLE), -1)
    case .silenced(let reason):
        (tutti_session_state(TUTTI_SESSION_STATE_SILENCED), tutti_silence_reason(silenceReasons.firstIndex(of: reason) ?? -1))
    case .interrupted: (tutti_session_state(TUTTI_SESSION_STATE_INTERRUPTED), -1)
    }
}

func toRemoteCommand(_ value: tutti_remote_command) throws(TuttiError) -> RemoteCommand {
    try element(remoteCommands, value, "command", "tutti_remote_command")
}

func toOptions(_ bits: UInt32) throws(TuttiError) -> Set<CategoryOption> {
    try checkBits(bits, allowed: optionBits.reduce(0) { $0 | $1.0 }, "options", "TUTTI_OPTION_*")
    return Set(optionBits.filter { bits & $0.0 != 0 }.map(\.1))
}

/// A mask of `1 << tutti_remote_command` bits.
func toRemoteCommands(_ bits: UInt32) throws(TuttiError) -> Set<RemoteCommand> {
    try checkBits(bits, allowed: (1 << UInt32(remoteCommands.count)) - 1, "commands", "TUTTI_REMOTE_COMMAND_BIT(TUTTI_REMOTE_*)")
    return Set(remoteCommands.indices.filter { bits & (1 << UInt32($0)) != 0 }.map { remoteCommands[$0] })
}

/// Fails unless `bits` has only bits of `allowed`.
func checkBits(_ bits: UInt32, allowed: UInt32, _ name: String, _ family: String) throws(TuttiError) {
    let unknown = bits & ~allowed
    guard unknown == 0 else {
        throw TuttiError(.invalidArgument, "\(name) has unknown bits 0x\(String(unknown, radix: 16)) (only \(family) are defined)")
    }
}

/// `tutti_interruption_reason` of a Swift reason.
func interruptionReason(_ reason: InterruptionReason) -> Int32 {
    switch reason {
    case .otherSession: Int32(TUTTI_INTERRUPTION_REASON_OTHER_SESSION)
    case .phoneCall: Int32(TUTTI_INTERRUPTION_REASON_PHONE_CALL)
    case .spokenAudio: Int32(TUTTI_INTERRUPTION_REASON_SPOKEN_AUDIO)
    case .builtInMicMuted: Int32(TUTTI_INTERRUPTION_REASON_BUILT_IN_MIC_MUTED)
    case .ducked: Int32(TUTTI_INTERRUPTION_REASON_DUCKED)
    }
}

/// `tutti_route_change_reason` of a Swift reason.
func routeChangeReason(_ reason: RouteChangeReason) -> Int32 {
    switch reason {
    case .newDeviceAvailable: Int32(TUTTI_ROUTE_CHANGE_REASON_NEW_DEVICE_AVAILABLE)
    case .oldDeviceUnavailable: Int32(TUTTI_ROUTE_CHANGE_REASON_OLD_DEVICE_UNAVAILABLE)
    case .override: Int32(TUTTI_ROUTE_CHANGE_REASON_OVERRIDE)
    }
}
