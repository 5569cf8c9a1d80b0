import CTuttiABI
import Tutti

// The device side of the policy: silent switch, lock, volumes, route, microphone, phone
// calls, remote commands — each one call on the `AudioEngine`.

/// C ABI `tutti_system_set_silent_switch`. Any thread.
@_cdecl("tutti_system_set_silent_switch")
public func tuttiSystemSetSilentSwitch(_ pointer: OpaquePointer?, _ on: Int32, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_set_silent_switch") { () throws(TuttiError) in try engine(pointer).setSilentSwitch(bool(on), at: try engineTime(at))
    }
}

/// C ABI `tutti_system_set_other_audio`: `client_count` UTF-8 names at `clients` (NULL when
/// the count is 0). Any thread.
@_cdecl("tutti_system_set_other_audio") public func tuttiSystemSetOtherAudio(
    _ pointer: OpaquePointer?, _ playing: Int32, _ silenceSecondary: Int32, _ clients: UnsafePointer<UnsafePointer<CChar>?>?,
    _ clientCount: Int, _ at: tutti_frame
) -> tutti_result {
    call("tutti_system_set_other_audio") { () throws(TuttiError) in
        let engine = try engine(pointer)
        var names: [String] = []
        if clientCount > 0 {
            let list = try nonNull(clients, "clients")
            for i in 0..<clientCount { names.append(try utf8(list[i], "clients[\(i)]")) }
        }
        try engine.setOtherAudio(
            playing: bool(playing), silenceSecondary: bool(silenceSecondary), clients: names, at: try engineTime(at))
    }
}

/// C ABI `tutti_system_set_locked`. Any thread.
@_cdecl("tutti_system_set_locked")
public func tuttiSystemSetLocked(_ pointer: OpaquePointer?, _ locked: Int32, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_set_locked") { () throws(TuttiError) in try engine(pointer).setLocked(bool(locked), at: try engineTime(at)) }
}

/// C ABI `tutti_system_set_volume`. Any thread.
@_cdecl("tutti_system_set_volume")
public func tuttiSystemSetVolume(_ pointer: OpaquePointer?, _ volume: Float, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_set_volume") { () throws(TuttiError) in try engine(pointer).setVolume(volume, at: try engineTime(at)) }
}

/// C ABI `tutti_system_set_ringer_volume`. Any thread.
@_cdecl("tutti_system_set_ringer_volume")
public func tuttiSystemSetRingerVolume(_ pointer: OpaquePointer?, _ volume: Float, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_set_ringer_volume") { () throws(TuttiError) in try engine(pointer).setRingerVolume(volume, at: try engineTime(at)) }
}

/// C ABI `tutti_system_set_route`. Any thread.
@_cdecl("tutti_system_set_route")
public func tuttiSystemSetRoute(_ pointer: OpaquePointer?, _ route: tutti_route, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_set_route") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try engine.setRoute(try toRoute(route), at: try engineTime(at))
    }
}

/// C ABI `tutti_system_set_mic_muted`. Any thread.
@_cdecl("tutti_system_set_mic_muted")
public func tuttiSystemSetMicMuted(_ pointer: OpaquePointer?, _ muted: Int32, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_set_mic_muted") { () throws(TuttiError) in
        try engine(pointer).setMicrophoneMuted(bool(muted), at: try engineTime(at))
    }
}

/// C ABI `tutti_system_begin_phone_call`. Any thread.
@_cdecl("tutti_system_begin_phone_call")
public func tuttiSystemBeginPhoneCall(_ pointer: OpaquePointer?, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_begin_phone_call") { () throws(TuttiError) in try engine(pointer).beginPhoneCall(at: try engineTime(at)) }
}

/// C ABI `tutti_system_end_phone_call`. Any thread.
@_cdecl("tutti_system_end_phone_call")
public func tuttiSystemEndPhoneCall(_ pointer: OpaquePointer?, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_end_phone_call") { () throws(TuttiError) in try engine(pointer).endPhoneCall(at: try engineTime(at)) }
}

/// C ABI `tutti_system_remote_command`. Any thread.
@_cdecl("tutti_system_remote_command")
public func tuttiSystemRemoteCommand(_ pointer: OpaquePointer?, _ command: tutti_remote_command, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_remote_command") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try engine.sendRemoteCommand(try toRemoteCommand(command), at: try engineTime(at))
    }
}

/// C ABI `tutti_engine_set_max_voices`: 0 is no limit. Any thread.
@_cdecl("tutti_engine_set_max_voices")
public func tuttiEngineSetMaxVoices(_ pointer: OpaquePointer?, _ maxVoices: UInt32, _ at: tutti_frame) -> tutti_result {
    call("tutti_engine_set_max_voices") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try engine.setMaxVoices(maxVoices == 0 ? nil : Int(maxVoices), at: try engineTime(at))
    }
}

/// C ABI `tutti_system_press_volume_button`. Any thread.
@_cdecl("tutti_system_press_volume_button")
public func tuttiSystemPressVolumeButton(_ pointer: OpaquePointer?, _ up: Int32, _ at: tutti_frame) -> tutti_result {
    call("tutti_system_press_volume_button") { () throws(TuttiError) in
        try engine(pointer).pressVolumeButton(up: bool(up), at: try engineTime(at))
    }
}

/// C ABI `tutti_system_get_state`: `deviceState` and `isPhoneCallActive`. Any thread but the
/// real-time one.
@_cdecl("tutti_system_get_state")
public func tuttiSystemGetState(
    _ pointer: OpaquePointer?, _ volume: UnsafeMutablePointer<Float>?, _ ringerVolume: UnsafeMutablePointer<Float>?,
    _ route: UnsafeMutablePointer<tutti_route>?, _ silentSwitch: UnsafeMutablePointer<Int32>?, _ locked: UnsafeMutablePointer<Int32>?,
    _ micMuted: UnsafeMutablePointer<Int32>?, _ callActive: UnsafeMutablePointer<Int32>?
) -> tutti_result {
    call("tutti_system_get_state") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let device = engine.deviceState
        let call = engine.isPhoneCallActive
        volume?.pointee = Float(device.volume)
        ringerVolume?.pointee = Float(device.ringerVolume)
        route?.pointee = fromRoute(device.route)
        silentSwitch?.pointee = device.silentSwitch ? 1 : 0
        locked?.pointee = device.locked ? 1 : 0
        micMuted?.pointee = device.micMuted ? 1 : 0
        callActive?.pointee = call ? 1 : 0
    }
}

/// C ABI `tutti_system_get_other_audio`: `deviceState.otherAudio`'s `playing` and
/// `silenceSecondary`. Any thread but the real-time one.
@_cdecl("tutti_system_get_other_audio") public func tuttiSystemGetOtherAudio(
    _ pointer: OpaquePointer?, _ playing: UnsafeMutablePointer<Int32>?, _ silenceSecondary: UnsafeMutablePointer<Int32>?
) -> tutti_result {
    call("tutti_system_get_other_audio") { () throws(TuttiError) in
        let other = try engine(pointer).deviceState.otherAudio
        playing?.pointee = other.playing ? 1 : 0
        silenceSecondary?.pointee = other.silenceSecondary ? 1 : 0
    }
}

/// C ABI `tutti_system_get_other_audio_clients`: `deviceState.otherAudio.clients` into the
/// caller's buffer, each name NUL-terminated, one after another; nothing written when they do
/// not fit. Any thread but the real-time one.
@_cdecl("tutti_system_get_other_audio_clients") public func tuttiSystemGetOtherAudioClients(
    _ pointer: OpaquePointer?, _ names: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ count: UnsafeMutablePointer<Int>?,
    _ length: UnsafeMutablePointer<Int>?
) -> tutti_result {
    call("tutti_system_get_other_audio_clients") { () throws(TuttiError) in
        let clients = try engine(pointer).deviceState.otherAudio.clients
        // One snapshot: the sizes and the bytes come from the same list.
        let bytes: [UInt8] = clients.flatMap { Array($0.utf8) + [UInt8(0)] }
        count?.pointee = clients.count
        length?.pointee = bytes.count
        guard names != nil || capacity != 0 else { return }
        let buffer = try nonNull(names, "names")
        guard bytes.count <= capacity else {
            throw TuttiError(
                .invalidArgument,
                "capacity \(capacity) is too small for the \(clients.count) names (\(bytes.count) bytes with their NULs)")
        }
        for (i, byte) in bytes.enumerated() { buffer[i] = CChar(bitPattern: byte) }
    }
}
