import CTuttiABI
import Tutti

// Effects on session buses: a `tutti_effect` becomes an `EffectSettings`; errors name the C
// fields (`effects[i].frequency_hz`).

/// The C name of each field `EffectSettings.check` names.
private let cFieldNames = [
    "frequency": "frequency_hz", "q": "q", "gain": "gain_db", "threshold": "threshold_db", "ratio": "ratio",
    "attack": "attack_seconds", "release": "release_seconds", "makeup": "makeup_db", "time": "time_seconds",
    "feedback": "feedback", "mix": "mix",
]

/// The biquad forms in `TUTTI_EFFECT_*` order (0…6).
private let biquadKinds: [EffectSettings.BiquadKind] = [.lowpass, .highpass, .bandpass, .notch, .peaking, .lowshelf, .highshelf]

/// `effect` as settings, checked at `sampleRate`; errors name `place` + the C field.
func effectSettings(_ effect: tutti_effect, place: String, sampleRate: Int) throws(TuttiError) -> EffectSettings {
    let e: EffectSettings
    switch Int(effect.type) {
    case 0..<biquadKinds.count:
        e = .biquad(biquadKinds[Int(effect.type)], frequencyHz: effect.frequency_hz, q: effect.q, gainDB: effect.gain_db)
    case Int(TUTTI_EFFECT_COMPRESSOR):
        e = .compressor(
            thresholdDB: effect.threshold_db, ratio: effect.ratio, attackSeconds: effect.attack_seconds,
            releaseSeconds: effect.release_seconds, makeupDB: effect.makeup_db)
    case Int(TUTTI_EFFECT_DELAY):
        e = .delay(timeSeconds: effect.time_seconds, feedback: effect.feedback, mix: effect.mix)
    default:
        throw TuttiError(.invalidArgument, "\(place)type \(effect.type) is not a tutti_effect_type (0…\(TUTTI_EFFECT_DELAY))")
    }
    if let (field, problem) = e.check(sampleRate: sampleRate) {
        throw TuttiError(.invalidArgument, "\(place)\(cFieldNames[field] ?? field) \(problem)")
    }
    return e
}

/// C ABI `tutti_session_set_effects`. Any thread.
@_cdecl("tutti_session_set_effects")
public func tuttiSessionSetEffects(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ effects: UnsafePointer<tutti_effect>?, _ count: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_session_set_effects") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        let effects = count == 0 ? nil : try nonNull(effects, "effects")
        var chain: [EffectSettings] = []
        for i in 0..<Int(count) { chain.append(try effectSettings(effects![i], place: "effects[\(i)].", sampleRate: engine.sampleRate)) }
        try SessionHandle(engine: engine, id: SessionID(rawValue: id)).setEffects(chain, at: time)
    }
}

/// C ABI `tutti_session_set_effect`: a negative `glide_frames` is the default glide. Any thread.
@_cdecl("tutti_session_set_effect")
public func tuttiSessionSetEffect(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ index: UInt32, _ effect: UnsafePointer<tutti_effect>?, _ glideFrames: Int64,
    _ at: tutti_frame
) -> tutti_result {
    call("tutti_session_set_effect") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        let effect = try nonNull(effect, "effect")
        guard (0..<Int32(biquadKinds.count)).contains(effect.pointee.type) else {
            throw TuttiError(
                .invalidArgument,
                "effect->type \(effect.pointee.type) is not a biquad (TUTTI_EFFECT_LOWPASS…TUTTI_EFFECT_HIGHSHELF): only a biquad changes in place"
            )
        }
        let e = try effectSettings(effect.pointee, place: "effect->", sampleRate: engine.sampleRate)
        try SessionHandle(engine: engine, id: SessionID(rawValue: id)).setEffect(
            at: Int(index), to: e, glideFrames: glideFrames < 0 ? nil : glideFrames, at: time)
    }
}

/// C ABI `tutti_bus_set_effect`: a host's callback on a session's bus (NULL: remove), its
/// `release` called once on a control thread when the render side no longer calls it. Any
/// thread but the render thread.
@_cdecl("tutti_bus_set_effect") public func tuttiBusSetEffect(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ callback: tutti_effect_callback?, _ release: tutti_effect_release?,
    _ user: UnsafeMutableRawPointer?, _ at: tutti_frame
) -> tutti_result {
    call("tutti_bus_set_effect") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        try SessionHandle(engine: engine, id: SessionID(rawValue: id)).setHostEffect(
            callback: callback, user: user, release: release, at: time)
    }
}

/// C ABI `tutti_master_set_effect`: a host's callback on the master (NULL: remove), its
/// `release` called once on a control thread when the render side no longer calls it;
/// `TUTTI_ERROR_STATE` without a master stage. Any thread but the render thread.
@_cdecl("tutti_master_set_effect") public func tuttiMasterSetEffect(
    _ pointer: OpaquePointer?, _ callback: tutti_effect_callback?, _ release: tutti_effect_release?, _ user: UnsafeMutableRawPointer?,
    _ at: tutti_frame
) -> tutti_result {
    call("tutti_master_set_effect") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        try engine.setMasterHostEffect(callback: callback, user: user, release: release, at: time)
    }
}
