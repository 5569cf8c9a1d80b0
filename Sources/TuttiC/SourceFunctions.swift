import CTuttiABI
import Tutti

// Sources: a `tutti_source` is a `SourceID`'s raw value; every call goes through a
// `SourceHandle` (or the session's handle to create one), which throws `notFound` for a
// stale or unknown id.

private func source(_ engine: AudioEngine, _ id: tutti_source) -> SourceHandle {
    SourceHandle(engine: engine, id: SourceID(rawValue: id))
}

private func session(_ engine: AudioEngine, _ id: tutti_session) -> SessionHandle {
    SessionHandle(engine: engine, id: SessionID(rawValue: id))
}

/// A file or buffer source's `flags`: the loop bit and the resampler quality (bits 8..15,
/// `TUTTI_QUALITY_*`; 0: nil, the engine's file quality). Unknown bits or quality: an error
/// naming `flags`.
private func sourceFlags(_ flags: UInt32) throws(TuttiError) -> (loop: Bool, quality: ResamplerQuality?) {
    let qualityBits: UInt32 = 0xFF << 8
    try checkBits(flags, allowed: TUTTI_SOURCE_LOOP | qualityBits, "flags", "TUTTI_SOURCE_LOOP and TUTTI_SOURCE_QUALITY")
    let qualities: [ResamplerQuality?] = [nil] + cQualities
    let index = Int((flags & qualityBits) >> 8)
    guard index < qualities.count else {
        throw TuttiError(
            .invalidArgument, "flags: TUTTI_SOURCE_QUALITY(\(index)) is no TUTTI_QUALITY_* (0..\(qualities.count - 1))")
    }
    return (flags & TUTTI_SOURCE_LOOP != 0, qualities[index])
}

/// C ABI `tutti_source_create_file`: decodes on the calling thread. Any thread.
@_cdecl("tutti_source_create_file")
public func tuttiSourceCreateFile(
    _ pointer: OpaquePointer?, _ sessionID: tutti_session, _ path: UnsafePointer<CChar>?, _ flags: UInt32,
    _ out: UnsafeMutablePointer<tutti_source>?
) -> tutti_result {
    call("tutti_source_create_file") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let path = try utf8(path, "path")
        let options = try sourceFlags(flags)
        let out = try nonNull(out, "out")
        out.pointee = try session(engine, sessionID).makeFileSource(path: path, loop: options.loop, quality: options.quality).id
            .rawValue
    }
}

/// C ABI `tutti_source_create_tone`. Any thread.
@_cdecl("tutti_source_create_tone")
public func tuttiSourceCreateTone(
    _ pointer: OpaquePointer?, _ sessionID: tutti_session, _ frequencyHz: Double, _ amplitude: Float,
    _ out: UnsafeMutablePointer<tutti_source>?
) -> tutti_result {
    call("tutti_source_create_tone") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        out.pointee = try session(engine, sessionID).makeToneSource(frequency: frequencyHz, amplitude: amplitude).id.rawValue
    }
}

/// C ABI `tutti_source_create_silence`. Any thread.
@_cdecl("tutti_source_create_silence")
public func tuttiSourceCreateSilence(
    _ pointer: OpaquePointer?, _ sessionID: tutti_session, _ out: UnsafeMutablePointer<tutti_source>?
) -> tutti_result {
    call("tutti_source_create_silence") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        out.pointee = try session(engine, sessionID).makeSilentSource().id.rawValue
    }
}

/// C ABI `tutti_source_create_buffer`: copies and converts on the calling thread. Any thread.
@_cdecl("tutti_source_create_buffer")
public func tuttiSourceCreateBuffer(
    _ pointer: OpaquePointer?, _ sessionID: tutti_session, _ interleaved: UnsafePointer<Float>?, _ frames: UInt32,
    _ sampleRate: UInt32, _ channels: UInt32, _ flags: UInt32, _ out: UnsafeMutablePointer<tutti_source>?
) -> tutti_result {
    call("tutti_source_create_buffer") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        let data = try nonNull(interleaved, "interleaved")
        guard (1...2).contains(channels) else { throw TuttiError(.invalidArgument, "channels must be 1 or 2, got \(channels)") }
        guard (8_000...384_000).contains(sampleRate) else {
            throw TuttiError(.invalidArgument, "sample_rate must be in 8000..384000, got \(sampleRate)")
        }
        guard frames > 0 else { throw TuttiError(.invalidArgument, "frames must be > 0") }
        let options = try sourceFlags(flags)
        let samples = Array(UnsafeBufferPointer(start: data, count: Int(frames) * Int(channels)))
        let buffer = AudioBuffer(interleaved: samples, channelCount: Int(channels), sampleRate: Double(sampleRate))
        out.pointee = try session(engine, sessionID).makeSource(buffer: buffer, loop: options.loop, quality: options.quality).id
            .rawValue
    }
}

/// C ABI `tutti_source_create_stream`. Any thread.
@_cdecl("tutti_source_create_stream")
public func tuttiSourceCreateStream(
    _ pointer: OpaquePointer?, _ sessionID: tutti_session, _ sampleRate: UInt32, _ channels: UInt32, _ capacityFrames: UInt32,
    _ out: UnsafeMutablePointer<tutti_source>?
) -> tutti_result {
    call("tutti_source_create_stream") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        let handle = try session(engine, sessionID).makeStreamSource(
            sampleRate: Double(sampleRate), channelCount: Int(channels), capacityFrames: Int(capacityFrames))
        out.pointee = handle.id.rawValue
    }
}

/// C ABI `tutti_stream_write`: one producer thread per source at a time, any thread (real-time
/// safe when it succeeds: no lock, no allocation).
@_cdecl("tutti_stream_write")
public func tuttiStreamWrite(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ interleaved: UnsafePointer<Float>?, _ frames: UInt32,
    _ framesWritten: UnsafeMutablePointer<UInt32>?
) -> tutti_result {
    call("tutti_stream_write") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let interleaved = try nonNull(interleaved, "interleaved")
        let framesWritten = try nonNull(framesWritten, "frames_written")
        let taken = try source(engine, id).write(interleaved: interleaved, frameCount: Int(frames))
        framesWritten.pointee = UInt32(taken)
    }
}

/// C ABI `tutti_stream_end`. Any thread.
@_cdecl("tutti_stream_end")
public func tuttiStreamEnd(_ pointer: OpaquePointer?, _ id: tutti_source) -> tutti_result {
    call("tutti_stream_end") { () throws(TuttiError) in try source(try engine(pointer), id).endStream() }
}

/// C ABI `tutti_source_play`. Any thread.
@_cdecl("tutti_source_play")
public func tuttiSourcePlay(_ pointer: OpaquePointer?, _ id: tutti_source, _ at: tutti_frame) -> tutti_result {
    call("tutti_source_play") { () throws(TuttiError) in try source(try engine(pointer), id).play(at: try engineTime(at)) }
}

/// C ABI `tutti_source_pause`. Any thread.
@_cdecl("tutti_source_pause")
public func tuttiSourcePause(_ pointer: OpaquePointer?, _ id: tutti_source, _ at: tutti_frame) -> tutti_result {
    call("tutti_source_pause") { () throws(TuttiError) in try source(try engine(pointer), id).pause(at: try engineTime(at)) }
}

/// C ABI `tutti_source_stop`. Any thread.
@_cdecl("tutti_source_stop")
public func tuttiSourceStop(_ pointer: OpaquePointer?, _ id: tutti_source, _ at: tutti_frame) -> tutti_result {
    call("tutti_source_stop") { () throws(TuttiError) in try source(try engine(pointer), id).stop(at: try engineTime(at)) }
}

/// C ABI `tutti_source_seek`. Any thread.
@_cdecl("tutti_source_seek")
public func tuttiSourceSeek(_ pointer: OpaquePointer?, _ id: tutti_source, _ position: Int64, _ at: tutti_frame) -> tutti_result {
    call("tutti_source_seek") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try source(engine, id).seek(to: position, at: try engineTime(at))
    }
}

/// C ABI `tutti_source_crossfade`: an equal-power crossfade from `from` to `id` over
/// `duration_frames` (1…2147483647), `SourceHandle.crossfade(from:durationFrames:at:)`.
/// Any thread except the real-time one (the engine's lock).
@_cdecl("tutti_source_crossfade") public func tuttiSourceCrossfade(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ from: tutti_source, _ durationFrames: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_source_crossfade") { () throws(TuttiError) in
        let engine = try engine(pointer)
        guard durationFrames >= 1, durationFrames <= UInt32(Int32.max) else {
            throw TuttiError(.invalidArgument, "duration_frames must be in 1…\(Int32.max), got \(durationFrames)")
        }
        try source(engine, id).crossfade(from: source(engine, from), durationFrames: Int64(durationFrames), at: try engineTime(at))
    }
}

/// C ABI `tutti_source_set_gain`. Any thread.
@_cdecl("tutti_source_set_gain")
public func tuttiSourceSetGain(_ pointer: OpaquePointer?, _ id: tutti_source, _ gain: Float, _ rampFrames: UInt32, _ at: tutti_frame)
    -> tutti_result
{
    call("tutti_source_set_gain") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try source(engine, id).setGain(gain, rampFrames: Int64(rampFrames), at: try engineTime(at))
    }
}

/// C ABI `tutti_source_set_pan`. Any thread.
@_cdecl("tutti_source_set_pan")
public func tuttiSourceSetPan(_ pointer: OpaquePointer?, _ id: tutti_source, _ pan: Float, _ rampFrames: UInt32, _ at: tutti_frame)
    -> tutti_result
{
    call("tutti_source_set_pan") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try source(engine, id).setPan(pan, rampFrames: Int64(rampFrames), at: try engineTime(at))
    }
}

/// C ABI `tutti_source_set_rate`: `TUTTI_RAMP_DEFAULT` is the Swift API's nil ramp (the
/// source gain ramp time). Any thread except the real-time one (the engine's lock).
@_cdecl("tutti_source_set_rate") public func tuttiSourceSetRate(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ rate: Double, _ rampFrames: UInt32, _ at: tutti_frame
) -> tutti_result {
    call("tutti_source_set_rate") { () throws(TuttiError) in
        let engine = try engine(pointer)
        var ramp: Int64?
        if rampFrames != TUTTI_RAMP_DEFAULT {
            guard rampFrames <= UInt32(Int32.max) else {
                throw TuttiError(.invalidArgument, "ramp_frames must be in 0…\(Int32.max) or TUTTI_RAMP_DEFAULT, got \(rampFrames)")
            }
            ramp = Int64(rampFrames)
        }
        try source(engine, id).setRate(rate, rampFrames: ramp, at: try engineTime(at))
    }
}

/// C ABI `tutti_source_set_fades`: `TUTTI_FADE_DEFAULT` is the Swift API's nil (the default).
/// Any thread.
@_cdecl("tutti_source_set_fades")
public func tuttiSourceSetFades(_ pointer: OpaquePointer?, _ id: tutti_source, _ fadeInFrames: UInt32, _ fadeOutFrames: UInt32)
    -> tutti_result
{
    call("tutti_source_set_fades") { () throws(TuttiError) in
        let engine = try engine(pointer)
        func frames(_ value: UInt32, _ name: String) throws(TuttiError) -> Int64? {
            if value == TUTTI_FADE_DEFAULT { return nil }
            guard value <= UInt32(Int32.max) else {
                throw TuttiError(.invalidArgument, "\(name) must be in 0…\(Int32.max) or TUTTI_FADE_DEFAULT, got \(value)")
            }
            return Int64(value)
        }
        let fadeIn = try frames(fadeInFrames, "fade_in_frames")
        let fadeOut = try frames(fadeOutFrames, "fade_out_frames")
        try source(engine, id).setFades(inFrames: fadeIn, outFrames: fadeOut)
    }
}

/// C ABI `tutti_source_set_loop`: `TUTTI_LOOP_TO_END` / `TUTTI_LOOP_FOREVER` are the Swift
/// API's nil end and count. Any thread except the real-time one (the engine's lock).
@_cdecl("tutti_source_set_loop") public func tuttiSourceSetLoop(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ loop: Int32, _ startFrame: Int64, _ endFrame: Int64, _ count: Int32,
    _ at: tutti_frame
) -> tutti_result {
    call("tutti_source_set_loop") { () throws(TuttiError) in
        let engine = try engine(pointer)
        guard endFrame >= 0 || endFrame == Int64(TUTTI_LOOP_TO_END) else {
            throw TuttiError(.invalidArgument, "end_frame must be ≥ 0 or TUTTI_LOOP_TO_END (-1), got \(endFrame)")
        }
        guard count >= 1 || count == Int32(TUTTI_LOOP_FOREVER) else {
            throw TuttiError(.invalidArgument, "count must be ≥ 1 or TUTTI_LOOP_FOREVER (-1), got \(count)")
        }
        guard startFrame >= 0 else { throw TuttiError(.invalidArgument, "start_frame must be ≥ 0, got \(startFrame)") }
        do throws(TuttiError) {
            try source(engine, id).setLoop(
                loop != 0, startFrame: startFrame, endFrame: endFrame < 0 ? nil : endFrame, count: count < 0 ? nil : Int(count),
                at: try engineTime(at))
        } catch {
            // The Swift API's argument names, as the C ABI spells them.
            throw TuttiError(
                error.code,
                error.message.replacing("startFrame", with: "start_frame").replacing("endFrame", with: "end_frame"))
        }
    }
}

/// C ABI `tutti_source_destroy`. Any thread.
@_cdecl("tutti_source_destroy")
public func tuttiSourceDestroy(_ pointer: OpaquePointer?, _ id: tutti_source, _ at: tutti_frame) -> tutti_result {
    call("tutti_source_destroy") { () throws(TuttiError) in try source(try engine(pointer), id).remove(at: try engineTime(at)) }
}

/// C ABI `tutti_source_info_init` (the exported symbol; tutti.h's macro of that name calls
/// `tutti_source_info_init_size`): the first layout, what binaries built before the sized
/// call pass (never a byte past its sizeof). Any thread.
@_cdecl("tutti_source_info_init")
public func tuttiSourceInfoInit(_ info: UnsafeMutablePointer<tutti_source_info>?) {
    tuttiSourceInfoInitSize(info, UInt32(paddedSize(sourceInfoFirstSize, of: tutti_source_info.self)))
}

/// C ABI `tutti_source_info_init_size`: a zeroed struct of `size` bytes. Any thread.
@_cdecl("tutti_source_info_init_size") public func tuttiSourceInfoInitSize(_ info: UnsafeMutablePointer<tutti_source_info>?, _ size: UInt32)
{
    var value = tutti_source_info()
    value.struct_size = UInt32(MemoryLayout<tutti_source_info>.stride)
    initialise(info, with: value, size: Int(size))
}

/// `tutti_source_info` as first released: the fields up to `gain`, padded (its sizeof then).
let sourceInfoFirstSize = MemoryLayout<tutti_source_info>.offset(of: \tutti_source_info.rate)!

/// `tutti_source_info`'s second layout: the fields up to `rate` (`panned` and `pan` came after).
let sourceInfoSecondSize = MemoryLayout<tutti_source_info>.offset(of: \tutti_source_info.panned)!

/// C ABI `tutti_source_get_info`: writes the fields its struct_size covers (the first layout
/// ends at `gain`, the second at `rate`), never past them. Any thread except the real-time one.
@_cdecl("tutti_source_get_info")
public func tuttiSourceGetInfo(_ pointer: OpaquePointer?, _ id: tutti_source, _ out: UnsafeMutablePointer<tutti_source_info>?)
    -> tutti_result
{
    call("tutti_source_get_info") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        try checkStructSize(
            out.pointee.struct_size, of: tutti_source_info.self, "out", firstReleasedSize: sourceInfoFirstSize,
            earlierSizes: [sourceInfoSecondSize])
        let info = try source(engine, id).info
        out.pointee.state = info.state.rawValue
        out.pointee.position = info.position
        out.pointee.length = info.frameCount ?? -1
        out.pointee.underrun_frames = UInt64(clamping: info.underrunFrames)
        out.pointee.gain = info.gain
        let size = Int(out.pointee.struct_size)
        if size >= sourceInfoSecondSize { out.pointee.rate = info.rate }
        if size >= MemoryLayout<tutti_source_info>.stride {
            out.pointee.panned = info.pan == nil ? 0 : 1
            out.pointee.pan = info.pan ?? 0
        }
    }
}

/// C ABI `tutti_source_get_status`: the published state, position and underruns, without the
/// engine's lock. Any thread, the real-time one included (nothing allocated unless it fails).
@_cdecl("tutti_source_get_status")
public func tuttiSourceGetStatus(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ state: UnsafeMutablePointer<Int32>?, _ position: UnsafeMutablePointer<Int64>?,
    _ underrunFrames: UnsafeMutablePointer<UInt64>?
) -> tutti_result {
    call("tutti_source_get_status") { () throws(TuttiError) in
        let status = try source(try engine(pointer), id).status
        state?.pointee = status.state.rawValue
        position?.pointee = status.position
        underrunFrames?.pointee = UInt64(clamping: status.underrunFrames)
    }
}

/// C ABI `tutti_source_set_priority`. Any thread.
@_cdecl("tutti_source_set_priority")
public func tuttiSourceSetPriority(_ pointer: OpaquePointer?, _ id: tutti_source, _ priority: UInt32, _ at: tutti_frame) -> tutti_result {
    call("tutti_source_set_priority") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try source(engine, id).setPriority(Int(priority), at: try engineTime(at))
    }
}

/// C ABI `tutti_source_set_output_bus`. Any thread.
@_cdecl("tutti_source_set_output_bus")
public func tuttiSourceSetOutputBus(_ pointer: OpaquePointer?, _ id: tutti_source, _ bus: UnsafePointer<CChar>?, _ at: tutti_frame)
    -> tutti_result
{
    setOutputBus("tutti_source_set_output_bus", pointer, id, bus, at, argument: "bus")
}

/// Deprecated C ABI `tutti_source_set_route`: `tutti_source_set_output_bus` (errors name the
/// old function). Any thread.
@_cdecl("tutti_source_set_route")
public func tuttiSourceSetRoute(_ pointer: OpaquePointer?, _ id: tutti_source, _ route: UnsafePointer<CChar>?, _ at: tutti_frame)
    -> tutti_result
{
    setOutputBus("tutti_source_set_route", pointer, id, route, at, argument: "route")
}

/// Both names of the call: `function` names it in errors, `argument` the name argument.
private func setOutputBus(
    _ function: StaticString, _ pointer: OpaquePointer?, _ id: tutti_source, _ bus: UnsafePointer<CChar>?, _ at: tutti_frame,
    argument: String
) -> tutti_result {
    call(function) { () throws(TuttiError) in
        let engine = try engine(pointer)
        let name = try utf8(bus, argument)
        try source(engine, id).setOutputBus(name, at: try engineTime(at))
    }
}

/// C ABI `tutti_source_get_output_bus`: the output bus's name into the caller's buffer,
/// NUL-terminated; nothing written when it does not fit. Any thread but the real-time one.
@_cdecl("tutti_source_get_output_bus")
public func tuttiSourceGetOutputBus(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ name: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ length: UnsafeMutablePointer<Int>?
) -> tutti_result {
    outputBus("tutti_source_get_output_bus", pointer, id, name, capacity, length)
}

/// Deprecated C ABI `tutti_source_get_route`: `tutti_source_get_output_bus` (errors name the
/// old function). Any thread but the real-time one.
@_cdecl("tutti_source_get_route")
public func tuttiSourceGetRoute(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ name: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ length: UnsafeMutablePointer<Int>?
) -> tutti_result {
    outputBus("tutti_source_get_route", pointer, id, name, capacity, length)
}

/// Both names of the getter: `function` names it in errors.
private func outputBus(
    _ function: StaticString, _ pointer: OpaquePointer?, _ id: tutti_source, _ name: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ length: UnsafeMutablePointer<Int>?
) -> tutti_result {
    call(function) { () throws(TuttiError) in
        let bus = Array(try source(try engine(pointer), id).outputBus.utf8)
        length?.pointee = bus.count
        guard name != nil || capacity != 0 else { return }
        let buffer = try nonNull(name, "name")
        guard bus.count < capacity else {
            throw TuttiError(
                .invalidArgument, "capacity \(capacity) is too small for the output bus name (\(bus.count + 1) bytes with its NUL)")
        }
        for (i, byte) in bus.enumerated() { buffer[i] = CChar(bitPattern: byte) }
        buffer[bus.count] = 0
    }
}
