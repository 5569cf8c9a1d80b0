import CTuttiABI
import Tutti

// Sessions: a `tutti_session` is a `SessionID`'s raw value; every call goes through a
// `SessionHandle`, which throws `notFound` for a stale or unknown id.

private func session(_ engine: AudioEngine, _ id: tutti_session) -> SessionHandle {
    SessionHandle(engine: engine, id: SessionID(rawValue: id))
}

/// C ABI `tutti_session_create`. Any thread.
@_cdecl("tutti_session_create")
public func tuttiSessionCreate(_ pointer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<tutti_session>?)
    -> tutti_result
{
    call("tutti_session_create") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let name = try utf8(name, "name")
        let out = try nonNull(out, "out")
        out.pointee = try engine.makeSession(named: name).id.rawValue
    }
}

/// C ABI `tutti_session_set_category`. Any thread.
@_cdecl("tutti_session_set_category")
public func tuttiSessionSetCategory(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ category: tutti_category, _ mode: tutti_mode, _ options: UInt32
) -> tutti_result {
    call("tutti_session_set_category") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let (c, m, o) = (try toCategory(category), try toMode(mode), try toOptions(options))
        try session(engine, id).setCategory(c, mode: m, options: o)
    }
}

/// C ABI `tutti_session_set_active`. Any thread.
@_cdecl("tutti_session_set_active")
public func tuttiSessionSetActive(_ pointer: OpaquePointer?, _ id: tutti_session, _ active: Int32, _ flags: UInt32, _ at: tutti_frame)
    -> tutti_result
{
    call("tutti_session_set_active") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try checkBits(
            flags, allowed: TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION | TUTTI_FOCUS_MASK, "flags",
            "TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION and TUTTI_FOCUS_*")
        let focus: FocusRequest
        switch flags & TUTTI_FOCUS_MASK {
        case TUTTI_FOCUS_TRANSIENT: focus = .transient
        case TUTTI_FOCUS_TRANSIENT_MAY_DUCK: focus = .transientMayDuck
        case TUTTI_FOCUS_TRANSIENT_EXCLUSIVE: focus = .transientExclusive
        default: focus = .gain
        }
        if !bool(active), focus != .gain {
            throw TuttiError(.invalidArgument, "flags: a TUTTI_FOCUS_* request is for an activation, not a deactivation")
        }
        let time = try engineTime(at)
        try session(engine, id).setActive(
            bool(active), options: SessionHandle.SetActiveOptions(rawValue: flags & TUTTI_NOTIFY_OTHERS_ON_DEACTIVATION), focus: focus,
            at: time)
    }
}

/// C ABI `tutti_session_set_foreground`. Any thread.
@_cdecl("tutti_session_set_foreground")
public func tuttiSessionSetForeground(_ pointer: OpaquePointer?, _ id: tutti_session, _ foreground: Int32, _ at: tutti_frame)
    -> tutti_result
{
    call("tutti_session_set_foreground") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try session(engine, id).setForeground(bool(foreground), at: try engineTime(at))
    }
}

/// C ABI `tutti_session_destroy`. Any thread.
@_cdecl("tutti_session_destroy")
public func tuttiSessionDestroy(_ pointer: OpaquePointer?, _ id: tutti_session, _ at: tutti_frame) -> tutti_result {
    call("tutti_session_destroy") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try session(engine, id).remove(at: try engineTime(at))
    }
}

/// C ABI `tutti_session_set_remote_commands`: bit `1 << c` for each `tutti_remote_command` c.
/// Any thread.
@_cdecl("tutti_session_set_remote_commands")
public func tuttiSessionSetRemoteCommands(_ pointer: OpaquePointer?, _ id: tutti_session, _ commands: UInt32) -> tutti_result {
    call("tutti_session_set_remote_commands") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try session(engine, id).setRemoteCommands(try toRemoteCommands(commands))
    }
}

/// C ABI `tutti_session_set_max_voices`: 0 is no limit of its own. Any thread.
@_cdecl("tutti_session_set_max_voices")
public func tuttiSessionSetMaxVoices(_ pointer: OpaquePointer?, _ id: tutti_session, _ maxVoices: UInt32, _ at: tutti_frame)
    -> tutti_result
{
    call("tutti_session_set_max_voices") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try session(engine, id).setMaxVoices(maxVoices == 0 ? nil : Int(maxVoices), at: try engineTime(at))
    }
}

/// C ABI `tutti_session_create_with`: a session with a category and the policy attributes
/// (`TUTTI_SESSION_*`). Any thread.
@_cdecl("tutti_session_create_with")
public func tuttiSessionCreateWith(
    _ pointer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ category: tutti_category, _ attributes: UInt32,
    _ out: UnsafeMutablePointer<tutti_session>?
) -> tutti_result {
    call("tutti_session_create_with") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let name = try utf8(name, "name")
        let out = try nonNull(out, "out")
        let category = try toCategory(category)
        try checkBits(
            attributes,
            allowed: TUTTI_SESSION_PAUSES_WHEN_DUCKED | TUTTI_SESSION_SPEECH | TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION
                | TUTTI_SESSION_ACCESSIBILITY | TUTTI_SESSION_MANUAL_RESUME, "attributes", "TUTTI_SESSION_*")
        var configuration = SessionConfiguration(
            id: name, category: category, pausesWhenDucked: attributes & TUTTI_SESSION_PAUSES_WHEN_DUCKED != 0,
            content: attributes & TUTTI_SESSION_SPEECH != 0 ? .speech : nil,
            acceptsDelayedActivation: attributes & TUTTI_SESSION_ACCEPTS_DELAYED_ACTIVATION != 0,
            accessibility: attributes & TUTTI_SESSION_ACCESSIBILITY != 0)
        configuration.autoResume = attributes & TUTTI_SESSION_MANUAL_RESUME == 0
        out.pointee = try engine.makeSession(configuration).id.rawValue
    }
}

/// One side of an interaction row or a ducking rule: the session `id`, or when it is 0 every
/// session of `category`. Errors name `\(field)_session` or `\(field)_category`.
private func side(_ engine: AudioEngine, _ id: tutti_session, _ category: tutti_category, _ field: String) throws(TuttiError)
    -> DuckingTarget
{
    if id == 0 {
        do { return .category(try toCategory(category)) } catch {
            throw TuttiError(.invalidArgument, "\(field)_category: \(error.message)")
        }
    }
    do { return .session(try session(engine, id).name) } catch {
        throw TuttiError(.invalidArgument, "\(field)_session: \(error.message)")
    }
}

/// The header's `tutti_outcome` order.
private let outcomes: [InteractionOutcome] = [.mix, .duck, .interrupt, .reject, .silence]

/// C ABI `tutti_engine_set_interactions`: the rows, each side a session (by id) or a
/// category, as `AudioEngine.setInteractions` takes them. Any thread.
@_cdecl("tutti_engine_set_interactions")
public func tuttiEngineSetInteractions(
    _ pointer: OpaquePointer?, _ rows: UnsafePointer<tutti_interaction>?, _ count: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_engine_set_interactions") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        let rows = count == 0 ? nil : try nonNull(rows, "rows")
        var rules: [InteractionRule] = []
        for i in 0..<Int(count) {
            let row = rows![i]
            let active = try side(engine, row.active_session, row.active_category, "rows[\(i)].active")
            let incoming = try side(engine, row.incoming_session, row.incoming_category, "rows[\(i)].incoming")
            guard row.outcome >= 0, Int(row.outcome) < outcomes.count else {
                throw TuttiError(.invalidArgument, "rows[\(i)].outcome \(row.outcome) is not a tutti_outcome (0…\(outcomes.count - 1))")
            }
            rules.append(InteractionRule(active: active, incoming: incoming, outcome: outcomes[Int(row.outcome)]))
        }
        do throws(TuttiError) {
            try engine.setInteractions(rules, at: time)
        } catch {
            // The host API names rows `interactions[i]`; here they are `rows[i]`.
            throw TuttiError(error.code, error.message.replacing("interactions[", with: "rows["))
        }
    }
}

/// C ABI `tutti_session_set_gain`. Any thread.
@_cdecl("tutti_session_set_gain")
public func tuttiSessionSetGain(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ gain: Float, _ rampFrames: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_session_set_gain") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try session(engine, id).setGain(gain, rampFrames: Int64(rampFrames), at: try engineTime(at))
    }
}

/// C ABI `tutti_session_resume`. Any thread.
@_cdecl("tutti_session_resume")
public func tuttiSessionResume(_ pointer: OpaquePointer?, _ id: tutti_session, _ at: tutti_frame) -> tutti_result {
    call("tutti_session_resume") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try session(engine, id).resume(at: try engineTime(at))
    }
}

/// C ABI `tutti_session_get_state`: the session's `state`, `isOtherAudioPlaying` and
/// `secondaryAudioShouldBeSilencedHint`, read under the engine's lock once. Any thread but
/// the real-time one.
@_cdecl("tutti_session_get_state")
public func tuttiSessionGetState(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ state: UnsafeMutablePointer<tutti_session_state>?,
    _ silenceReason: UnsafeMutablePointer<tutti_silence_reason>?, _ otherAudioPlaying: UnsafeMutablePointer<Int32>?,
    _ silenceSecondaryHint: UnsafeMutablePointer<Int32>?
) -> tutti_result {
    call("tutti_session_get_state") { () throws(TuttiError) in
        let handle = session(try engine(pointer), id)
        let (value, reason) = fromSessionState(try handle.state)
        let other = try handle.isOtherAudioPlaying
        let hint = try handle.secondaryAudioShouldBeSilencedHint
        state?.pointee = value
        silenceReason?.pointee = reason
        otherAudioPlaying?.pointee = other ? 1 : 0
        silenceSecondaryHint?.pointee = hint ? 1 : 0
    }
}

/// C ABI `tutti_session_set_media_role`: `SessionHandle.setMediaRole` with the role's PipeWire
/// name (NULL: back to the category's role). Any thread.
@_cdecl("tutti_session_set_media_role")
public func tuttiSessionSetMediaRole(_ pointer: OpaquePointer?, _ id: tutti_session, _ role: UnsafePointer<CChar>?) -> tutti_result {
    call("tutti_session_set_media_role") { () throws(TuttiError) in
        let engine = try engine(pointer)
        var value: MediaRole?
        if role != nil {
            let name = try utf8(role, "role")
            guard let known = MediaRole(rawValue: name) else {
                let names = MediaRole.allCases.map(\.rawValue).joined(separator: ", ")
                throw TuttiError(.invalidArgument, "role: unknown media role \"\(name)\" (the names: \(names); NULL: the category's role)")
            }
            value = known
        }
        try session(engine, id).setMediaRole(value)
    }
}

/// C ABI `tutti_session_get_media_role`: `SessionHandle.mediaRole`'s PipeWire name ("" for a
/// session without output) into the caller's buffer, NUL-terminated; nothing written when it
/// does not fit. Any thread but the real-time one.
@_cdecl("tutti_session_get_media_role")
public func tuttiSessionGetMediaRole(
    _ pointer: OpaquePointer?, _ id: tutti_session, _ name: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ length: UnsafeMutablePointer<Int>?
) -> tutti_result {
    call("tutti_session_get_media_role") { () throws(TuttiError) in
        let role = Array((try session(try engine(pointer), id).mediaRole?.rawValue ?? "").utf8)
        length?.pointee = role.count
        guard name != nil || capacity != 0 else { return }
        let buffer = try nonNull(name, "name")
        guard role.count < capacity else {
            throw TuttiError(
                .invalidArgument, "capacity \(capacity) is too small for the media role name (\(role.count + 1) bytes with its NUL)")
        }
        for (i, byte) in role.enumerated() { buffer[i] = CChar(bitPattern: byte) }
        buffer[role.count] = 0
    }
}

/// C ABI `tutti_engine_set_ducking_rules`: the rules, each side a session (by id) or a
/// category, as `AudioEngine.setDuckingRules` takes them. Any thread.
@_cdecl("tutti_engine_set_ducking_rules")
public func tuttiEngineSetDuckingRules(
    _ pointer: OpaquePointer?, _ rows: UnsafePointer<tutti_ducking_rule>?, _ count: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_engine_set_ducking_rules") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        let rows = count == 0 ? nil : try nonNull(rows, "rules")
        var rules: [DuckingRule] = []
        for i in 0..<Int(count) {
            let row = rows![i]
            let by = try side(engine, row.by_session, row.by_category, "rules[\(i)].by")
            let duck = try side(engine, row.duck_session, row.duck_category, "rules[\(i)].duck")
            for (field, value) in [
                ("level_db", row.level_db), ("attack_seconds", row.attack_seconds), ("release_seconds", row.release_seconds),
            ]
            where !value.isFinite {
                throw TuttiError(.invalidArgument, "rules[\(i)].\(field) must be finite, got \(value)")
            }
            rules.append(
                DuckingRule(
                    by: by, duck: duck,
                    settings: DuckingSettings(
                        levelDB: Double(row.level_db), attackSeconds: Double(row.attack_seconds),
                        releaseSeconds: Double(row.release_seconds))))
        }
        do throws(TuttiError) {
            try engine.setDuckingRules(rules, at: time)
        } catch {
            // The host API names them `ducking rules[i].field`; here they are `rules[i].field`.
            throw TuttiError(error.code, error.message.replacing("ducking rules[", with: "rules["))
        }
    }
}

/// C ABI `tutti_ducking_rule2_init` (the exported symbol; tutti.h's macro calls
/// `tutti_ducking_rule2_init_size`): the engine's default envelope, an activation trigger, a
/// signal threshold of −40 dBFS and no hold. Any thread.
@_cdecl("tutti_ducking_rule2_init") public func tuttiDuckingRule2Init(_ rule: UnsafeMutablePointer<tutti_ducking_rule2>?) {
    tuttiDuckingRule2InitSize(rule, UInt32(MemoryLayout<tutti_ducking_rule2>.stride))
}

/// C ABI `tutti_ducking_rule2_init_size`: the defaults in a struct of `size` bytes. Any thread.
@_cdecl("tutti_ducking_rule2_init_size") public func tuttiDuckingRule2InitSize(
    _ rule: UnsafeMutablePointer<tutti_ducking_rule2>?, _ size: UInt32
) {
    let d = DuckingSettings.default
    var value = tutti_ducking_rule2()
    value.struct_size = UInt32(MemoryLayout<tutti_ducking_rule2>.stride)
    value.level_db = Float(d.levelDB)
    value.attack_seconds = Float(d.attackSeconds)
    value.release_seconds = Float(d.releaseSeconds)
    value.trigger = tutti_ducking_trigger(TUTTI_DUCKING_TRIGGER_ACTIVATION)
    value.threshold_db = -40
    value.hold_seconds = 0
    initialise(rule, with: value, size: Int(size))
}

/// C ABI `tutti_engine_set_ducking_rules2`: `tutti_engine_set_ducking_rules` with triggers;
/// the array's stride is `rules[0].struct_size` (a newer caller's larger struct). Any thread.
@_cdecl("tutti_engine_set_ducking_rules2") public func tuttiEngineSetDuckingRules2(
    _ pointer: OpaquePointer?, _ rows: UnsafePointer<tutti_ducking_rule2>?, _ count: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_engine_set_ducking_rules2") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let time = try engineTime(at)
        let rows = count == 0 ? nil : UnsafeRawPointer(try nonNull(rows, "rules"))
        var rules: [DuckingRule] = []
        let stride = count == 0 ? 0 : Int(rows!.loadUnaligned(as: UInt32.self))
        if count > 0 { try checkStructSize(UInt32(stride), of: tutti_ducking_rule2.self, "rules") }
        for i in 0..<Int(count) {
            let row = rows!.loadUnaligned(fromByteOffset: i * stride, as: tutti_ducking_rule2.self)
            guard Int(row.struct_size) == stride else {
                throw TuttiError(.invalidArgument, "rules[\(i)].struct_size is \(row.struct_size), not rules[0]'s \(stride)")
            }
            let by = try side(engine, row.by_session, row.by_category, "rules[\(i)].by")
            let duck = try side(engine, row.duck_session, row.duck_category, "rules[\(i)].duck")
            for (field, value) in [
                ("level_db", row.level_db), ("attack_seconds", row.attack_seconds), ("release_seconds", row.release_seconds),
                ("threshold_db", row.threshold_db), ("hold_seconds", row.hold_seconds),
            ]
            where !value.isFinite {
                throw TuttiError(.invalidArgument, "rules[\(i)].\(field) must be finite, got \(value)")
            }
            let trigger: DuckingTrigger
            switch row.trigger {
            case tutti_ducking_trigger(TUTTI_DUCKING_TRIGGER_ACTIVATION): trigger = .activation
            case tutti_ducking_trigger(TUTTI_DUCKING_TRIGGER_SIGNAL):
                trigger = .signal(thresholdDB: Double(row.threshold_db), holdSeconds: Double(row.hold_seconds))
            default:
                let values = "(0…\(TUTTI_DUCKING_TRIGGER_SIGNAL))"
                throw TuttiError(.invalidArgument, "rules[\(i)].trigger \(row.trigger) is not a tutti_ducking_trigger \(values)")
            }
            rules.append(
                DuckingRule(
                    by: by, duck: duck,
                    settings: DuckingSettings(
                        levelDB: Double(row.level_db), attackSeconds: Double(row.attack_seconds),
                        releaseSeconds: Double(row.release_seconds)),
                    trigger: trigger))
        }
        do throws(TuttiError) {
            try engine.setDuckingRules(rules, at: time)
        } catch {
            // The host API names them `ducking rules[i].field`; here they are `rules[i].c_field`.
            var message = error.message.replacing("ducking rules[", with: "rules[")
            for (swift, c) in [
                ("level", "level_db"), ("attack", "attack_seconds"), ("release", "release_seconds"), ("threshold", "threshold_db"),
                ("hold", "hold_seconds"),
            ] {
                message = message.replacing("].\(swift):", with: "].\(c):")
            }
            throw TuttiError(error.code, message)
        }
    }
}
