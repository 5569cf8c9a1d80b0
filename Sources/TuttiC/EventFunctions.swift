import CTuttiABI
import Tutti

// Events: `AudioEvent`s as `tutti_event`s (type, reason per type, flags, frame, ids).

/// C ABI `tutti_engine_poll_event`: 1 with `*out` filled, 0 when none waits, a negative
/// `tutti_result` for a NULL argument. Any thread.
@_cdecl("tutti_engine_poll_event")
public func tuttiEnginePollEvent(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<tutti_event>?) -> Int32 {
    var event: AudioEvent?
    let result = call("tutti_engine_poll_event") { () throws(TuttiError) in
        let engine = try engine(pointer)
        _ = try nonNull(out, "out")
        event = engine.pollEvent()
    }
    guard result == TuttiResult.ok else { return result }
    guard let event, let out else { return 0 }
    out.pointee = cEvent(event)
    return 1
}

/// The `tutti_event` of an `AudioEvent`.
func cEvent(_ event: AudioEvent) -> tutti_event {
    var e = tutti_event()
    e.frame = event.frame
    switch event.kind {
    case .interruptionBegan(let session, let reason, _):
        e.type = Int32(TUTTI_EVENT_INTERRUPTION_BEGAN)
        e.reason = interruptionReason(reason)
        e.session = session.rawValue
    case .interruptionEnded(let session, let shouldResume):
        e.type = Int32(TUTTI_EVENT_INTERRUPTION_ENDED)
        e.flags = shouldResume ? TUTTI_EVENT_SHOULD_RESUME : 0
        e.session = session.rawValue
    case .duckingBegan(let session, _):
        e.type = Int32(TUTTI_EVENT_DUCKING_BEGAN)
        e.session = session.rawValue
    case .duckingEnded(let session):
        e.type = Int32(TUTTI_EVENT_DUCKING_ENDED)
        e.session = session.rawValue
    case .routeChanged(let reason, _, _):
        e.type = Int32(TUTTI_EVENT_ROUTE_CHANGED)
        e.reason = routeChangeReason(reason)
    case .sourceEnded(let source, let session):
        e.type = Int32(TUTTI_EVENT_SOURCE_ENDED)
        e.source = source.rawValue
        e.session = session.rawValue
    case .silenceSecondaryAudioHint(let session, let begin):
        e.type = Int32(TUTTI_EVENT_SILENCE_SECONDARY_AUDIO_HINT)
        e.reason = Int32(begin ? TUTTI_SILENCE_HINT_BEGAN : TUTTI_SILENCE_HINT_ENDED)
        e.session = session.rawValue
    case .xrun:
        e.type = Int32(TUTTI_EVENT_XRUN)
    case .deviceLost:
        e.type = Int32(TUTTI_EVENT_DEVICE_LOST)
    case .deviceRestored:
        e.type = Int32(TUTTI_EVENT_DEVICE_RESTORED)
    case .voiceStolen(let source, _, let session):
        e.type = Int32(TUTTI_EVENT_VOICE_STOLEN)
        e.source = source.rawValue
        e.session = session.rawValue
    case .voiceRefused(let source, let session):
        e.type = Int32(TUTTI_EVENT_VOICE_REFUSED)
        e.source = source.rawValue
        e.session = session.rawValue
    case .sourceFailed(let source, let session, _):
        e.type = Int32(TUTTI_EVENT_SOURCE_FAILED)
        e.source = source.rawValue
        e.session = session?.rawValue ?? 0
    case .sourceUnderrun(let source, let session, let frames):
        e.type = Int32(TUTTI_EVENT_SOURCE_UNDERRUN)
        e.reason = Int32(clamping: frames)
        e.source = source.rawValue
        e.session = session?.rawValue ?? 0
    case .activationDelayed(let session):
        e.type = Int32(TUTTI_EVENT_ACTIVATION_DELAYED)
        e.session = session.rawValue
    case .activationGranted(let session):
        e.type = Int32(TUTTI_EVENT_ACTIVATION_GRANTED)
        e.session = session.rawValue
    case .activationCancelled(let session):
        e.type = Int32(TUTTI_EVENT_ACTIVATION_CANCELLED)
        e.session = session.rawValue
    case .otherAudioChanged(let playing, let silenceSecondary, _):
        e.type = Int32(TUTTI_EVENT_OTHER_AUDIO_CHANGED)
        e.flags = (playing ? TUTTI_OTHER_AUDIO_PLAYING : 0) | (silenceSecondary ? TUTTI_OTHER_AUDIO_SILENCE_SECONDARY : 0)
    }
    return e
}

/// C ABI `tutti_engine_event_fd`: the engine's pollable descriptor, or a negative
/// `tutti_result`. Any thread.
@_cdecl("tutti_engine_event_fd")
public func tuttiEngineEventFD(_ pointer: OpaquePointer?) -> Int32 {
    var fd: Int32 = -1
    let result = call("tutti_engine_event_fd") { () throws(TuttiError) in fd = try engine(pointer).eventFileDescriptor() }
    return result == TuttiResult.ok ? fd : result
}
