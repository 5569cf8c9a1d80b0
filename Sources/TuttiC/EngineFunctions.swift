import CTuttiABI
import Tutti

// Engine lifetime, pull rendering, the clock and the statistics. A `tutti_engine *` is an
// `AudioEngine` retained once (`Unmanaged`), released by `tutti_engine_destroy`.

/// The Swift API's defaults as a `tutti_engine_config` of this library's layout.
func defaultEngineConfig() -> tutti_engine_config {
    let d = AudioEngineConfiguration()
    return tutti_engine_config(
        struct_size: UInt32(MemoryLayout<tutti_engine_config>.stride), sample_rate: UInt32(d.sampleRate),
        channels: UInt32(d.channelCount), max_block_frames: UInt32(d.maxBlockFrames), max_sources: UInt32(d.maxSources),
        max_sessions: UInt32(d.maxSessions), command_queue_capacity: UInt32(d.commandQueueCapacity), route_count: 1,
        route_names: nil, limiter_enabled: 0, limiter_ceiling_db: Float(LimiterSettings().ceilingDB),
        limiter_release_seconds: Float(LimiterSettings().releaseSeconds),
        limiter_lookahead_seconds: Float(LimiterSettings().lookaheadSeconds), loss_fade_seconds: Float(d.lossFadeSeconds),
        flags: 0, ducking_level_db: Float(d.ducking.levelDB), ducking_attack_seconds: Float(d.ducking.attackSeconds),
        ducking_release_seconds: Float(d.ducking.releaseSeconds), master_effects_enabled: 0, master_effect_count: 0,
        master_effects: nil, file_quality: qualityValue(d.fileQuality), stream_quality: qualityValue(d.streamQuality))
}

/// `TUTTI_QUALITY_*` in value order from 1 (0, `TUTTI_QUALITY_DEFAULT`, is no quality of its
/// own): the one table the C values are read and written through.
let cQualities: [ResamplerQuality] = [.sincBest, .sincMedium, .sincFastest, .linear, .zeroOrderHold, .soxrHQ, .soxrVHQ]

/// The `TUTTI_QUALITY_*` value of `quality`.
func qualityValue(_ quality: ResamplerQuality) -> Int32 { Int32(cQualities.firstIndex(of: quality)! + 1) }

/// The engine's file and stream qualities a config asks for: the Swift defaults when its
/// struct_size ends before them or a field is `TUTTI_QUALITY_DEFAULT`. An unknown value, or a
/// libsoxr quality for streams, is an error naming the field.
func engineQualities(_ config: UnsafePointer<tutti_engine_config>) throws(TuttiError) -> (file: ResamplerQuality, stream: ResamplerQuality)
{
    let defaults = AudioEngineConfiguration()
    guard Int(config.pointee.struct_size) >= engineConfigMasterSize + 2 * MemoryLayout<Int32>.size else {
        return (defaults.fileQuality, defaults.streamQuality)
    }
    func quality(_ value: Int32, _ name: String, default fallback: ResamplerQuality) throws(TuttiError) -> ResamplerQuality {
        guard value != 0 else { return fallback }
        guard value > 0, Int(value) <= cQualities.count else {
            throw TuttiError(.invalidArgument, "config->\(name) \(value) is no TUTTI_QUALITY_* (0..\(cQualities.count))")
        }
        return cQualities[Int(value) - 1]
    }
    let file = try quality(config.pointee.file_quality, "file_quality", default: defaults.fileQuality)
    let stream = try quality(config.pointee.stream_quality, "stream_quality", default: defaults.streamQuality)
    guard stream.library == .libsamplerate else {
        throw TuttiError(
            .invalidArgument,
            "config->stream_quality \(config.pointee.stream_quality) is a libsoxr quality: streams convert on the render thread with libsamplerate's (TUTTI_QUALITY_SINC_BEST..TUTTI_QUALITY_ZERO_ORDER_HOLD)"
        )
    }
    return (file, stream)
}

/// C ABI `tutti_engine_config_init` (the exported symbol; tutti.h's macro of that name calls
/// `tutti_engine_config_init_size`): the defaults of the fifth layout, what binaries built
/// before the sized call pass (never a byte past its sizeof). Any thread.
@_cdecl("tutti_engine_config_init") public func tuttiEngineConfigInit(_ config: UnsafeMutablePointer<tutti_engine_config>?) {
    initialise(config, with: defaultEngineConfig(), size: paddedSize(engineConfigDuckingSize, of: tutti_engine_config.self))
}

/// C ABI `tutti_engine_config_init_size`: the defaults in a struct of `size` bytes. Any thread.
@_cdecl("tutti_engine_config_init_size") public func tuttiEngineConfigInitSize(
    _ config: UnsafeMutablePointer<tutti_engine_config>?, _ size: UInt32
) {
    initialise(config, with: defaultEngineConfig(), size: Int(size))
}

/// `tutti_engine_config` as first released: the fields up to `command_queue_capacity`.
let engineConfigFirstSize = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.route_count)!
/// The second layout (routes): the fields up to `route_names`.
let engineConfigRoutesSize = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.limiter_enabled)!
/// The third layout (limiter): the fields up to `limiter_lookahead_seconds`.
let engineConfigLimiterSize = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.loss_fade_seconds)!
/// The fourth layout (focus): the fields up to `loss_fade_seconds`.
let engineConfigFocusSize = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.flags)!
/// The fifth layout (offline flag, ducking envelope): the fields up to
/// `ducking_release_seconds`, padded (its sizeof as released).
let engineConfigDuckingSize = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.master_effects_enabled)!
/// The sixth layout (master stage): the fields up to `master_effects` (its sizeof as
/// released: a pointer ends it, no tail padding).
let engineConfigMasterSize = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.file_quality)!

/// The master effect chain a config asks for: nil (no master stage) when its struct_size ends
/// before the master fields or `master_effects_enabled` is 0. Errors name
/// `config->master_effects[i]` and its field.
func masterEffects(_ config: UnsafePointer<tutti_engine_config>) throws(TuttiError) -> [EffectSettings]? {
    let c = config.pointee
    guard Int(c.struct_size) >= engineConfigMasterSize, c.master_effects_enabled != 0 else { return nil }
    guard c.master_effect_count > 0 else { return [] }
    let effects = try nonNull(c.master_effects, "config->master_effects")
    var chain: [EffectSettings] = []
    for i in 0..<Int(c.master_effect_count) {
        chain.append(try effectSettings(effects[i], place: "config->master_effects[\(i)].", sampleRate: Int(c.sample_rate)))
    }
    return chain
}

/// The limiter a config asks for: none when its struct_size ends before the limiter fields
/// or `limiter_enabled` is 0.
func limiterSettings(_ config: UnsafePointer<tutti_engine_config>) -> LimiterSettings? {
    guard Int(config.pointee.struct_size) >= engineConfigLimiterSize, config.pointee.limiter_enabled != 0 else {
        return nil
    }
    return LimiterSettings(
        ceilingDB: Double(config.pointee.limiter_ceiling_db), releaseSeconds: Double(config.pointee.limiter_release_seconds),
        lookaheadSeconds: Double(config.pointee.limiter_lookahead_seconds))
}

/// The route names a config asks for: main alone when its struct_size ends before the route
/// fields or `route_count` is 1 with no names.
func routeNames(_ config: UnsafePointer<tutti_engine_config>) throws(TuttiError) -> [String] {
    let end = MemoryLayout<tutti_engine_config>.offset(of: \tutti_engine_config.route_names)! + MemoryLayout<UnsafeRawPointer>.size
    guard Int(config.pointee.struct_size) >= end else { return ["main"] }
    let count = Int(config.pointee.route_count)
    guard (1...Int(TUTTI_MAX_ROUTES)).contains(count) else {
        throw TuttiError(.invalidArgument, "config->route_count must be in 1..\(TUTTI_MAX_ROUTES), got \(count)")
    }
    guard let names = config.pointee.route_names else {
        guard count == 1 else { throw TuttiError(.invalidArgument, "config->route_names must not be NULL when route_count is \(count)") }
        return ["main"]
    }
    var result: [String] = []
    for i in 0..<count { result.append(try utf8(names[i], "config->route_names[\(i)]")) }
    return result
}

/// C ABI `tutti_engine_create`. Any thread.
@_cdecl("tutti_engine_create")
public func tuttiEngineCreate(_ config: UnsafePointer<tutti_engine_config>?, _ out: UnsafeMutablePointer<OpaquePointer?>?)
    -> tutti_result
{
    call("tutti_engine_create") { () throws(TuttiError) in
        let config = try nonNull(config, "config")
        let out = try nonNull(out, "out")
        try checkStructSize(
            config.pointee.struct_size, of: tutti_engine_config.self, "config", firstReleasedSize: engineConfigFirstSize,
            earlierSizes: [
                engineConfigRoutesSize, engineConfigLimiterSize, engineConfigFocusSize, engineConfigDuckingSize, engineConfigMasterSize,
            ])
        let c = config.pointee
        var settings = AudioEngineConfiguration()
        settings.sampleRate = Int(c.sample_rate)
        settings.channelCount = Int(c.channels)
        settings.maxBlockFrames = Int(c.max_block_frames)
        settings.maxSources = Int(c.max_sources)
        settings.maxSessions = Int(c.max_sessions)
        settings.commandQueueCapacity = Int(c.command_queue_capacity)
        settings.outputBuses = try routeNames(config)
        settings.limiter = limiterSettings(config)
        if Int(c.struct_size) >= engineConfigDuckingSize {
            guard c.flags & ~TUTTI_ENGINE_OFFLINE == 0 else {
                throw TuttiError(.invalidArgument, "config->flags has unknown bits 0x\(String(c.flags & ~TUTTI_ENGINE_OFFLINE, radix: 16))")
            }
            settings.pullRenderWaitsForFiles = c.flags & TUTTI_ENGINE_OFFLINE != 0
            let ducking = [
                ("config->ducking_level_db", c.ducking_level_db), ("config->ducking_attack_seconds", c.ducking_attack_seconds),
                ("config->ducking_release_seconds", c.ducking_release_seconds),
            ]
            for (name, value) in ducking where !value.isFinite {
                throw TuttiError(.invalidArgument, "\(name) must be finite, got \(value)")
            }
            guard (-96...0).contains(c.ducking_level_db) else {
                throw TuttiError(.invalidArgument, "config->ducking_level_db must be in -96..0, got \(c.ducking_level_db)")
            }
            for (name, value) in ducking.dropFirst() where !(0...3600).contains(value) {
                throw TuttiError(.invalidArgument, "\(name) must be in 0..3600, got \(value)")
            }
            settings.ducking = DuckingSettings(
                levelDB: Double(c.ducking_level_db), attackSeconds: Double(c.ducking_attack_seconds),
                releaseSeconds: Double(c.ducking_release_seconds))
        }
        if Int(c.struct_size) >= engineConfigFocusSize {
            guard c.loss_fade_seconds.isFinite, (0...10).contains(c.loss_fade_seconds) else {
                throw TuttiError(.invalidArgument, "config->loss_fade_seconds must be in 0..10, got \(c.loss_fade_seconds)")
            }
            settings.lossFadeSeconds = Double(c.loss_fade_seconds)
        }
        if let problem = settings.limiter?.problem(
            names: ("config->limiter_ceiling_db", "config->limiter_release_seconds", "config->limiter_lookahead_seconds"))
        {
            throw TuttiError(.invalidArgument, problem)
        }
        settings.effects = try masterEffects(config)
        (settings.fileQuality, settings.streamQuality) = try engineQualities(config)
        let engine = try AudioEngine(configuration: settings)
        out.pointee = OpaquePointer(Unmanaged.passRetained(engine).toOpaque())
    }
}

/// C ABI `tutti_engine_destroy`: stops the output, then lets the engine go. NULL is a no-op.
/// Any thread, with no other call on the engine in progress.
@_cdecl("tutti_engine_destroy")
public func tuttiEngineDestroy(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    let engine = Unmanaged<AudioEngine>.fromOpaque(UnsafeRawPointer(pointer)).takeRetainedValue()
    engine.stopOutput()
}

/// C ABI `tutti_engine_render`: the host's real-time thread. No allocation, lock or system
/// call on any path: failures record a static message.
@_cdecl("tutti_engine_render")
public func tuttiEngineRender(_ pointer: OpaquePointer?, _ interleaved: UnsafeMutablePointer<Float>?, _ frames: UInt32)
    -> tutti_result
{
    guard let pointer else { return tuttic_fail_render(Int32(TUTTIC_RENDER_NULL_ENGINE)) }
    guard frames > 0 else { return TuttiResult.ok }
    guard let interleaved else { return tuttic_fail_render(Int32(TUTTIC_RENDER_NULL_BUFFER)) }
    let rendered = Unmanaged<AudioEngine>.fromOpaque(UnsafeRawPointer(pointer))._withUnsafeGuaranteedRef {
        $0.render(into: interleaved, frameCount: Int(frames))
    }
    return rendered ? TuttiResult.ok : tuttic_fail_render(Int32(TUTTIC_RENDER_BUSY))
}

/// C ABI `tutti_engine_render_output_buses`: the host's real-time thread, like
/// `tutti_engine_render` (static failure messages only).
@_cdecl("tutti_engine_render_output_buses")
public func tuttiEngineRenderOutputBuses(
    _ pointer: OpaquePointer?, _ outputs: UnsafePointer<UnsafeMutablePointer<Float>?>?, _ busCount: UInt32, _ frames: UInt32
) -> tutti_result {
    guard let pointer else { return tuttic_fail_render(Int32(TUTTIC_RENDER_NULL_ENGINE)) }
    let engine = Unmanaged<AudioEngine>.fromOpaque(UnsafeRawPointer(pointer))
    let known = engine._withUnsafeGuaranteedRef { $0.outputBusCount }
    guard let outputs, busCount >= 1, Int(busCount) <= known else { return tuttic_fail_render(Int32(TUTTIC_RENDER_BAD_ROUTE_COUNT)) }
    for b in 0..<Int(busCount) where outputs[b] == nil { return tuttic_fail_render(Int32(TUTTIC_RENDER_BAD_ROUTE_COUNT)) }
    guard frames > 0 else { return TuttiResult.ok }
    // Same layout: an optional pointer is a pointer, nil is NULL (checked above).
    let rendered = outputs.withMemoryRebound(to: UnsafeMutablePointer<Float>.self, capacity: Int(busCount)) { buffers in
        engine._withUnsafeGuaranteedRef { $0.render(outputBuses: buffers, busCount: Int(busCount), frameCount: Int(frames)) }
    }
    return rendered ? TuttiResult.ok : tuttic_fail_render(Int32(TUTTIC_RENDER_BUSY))
}

/// Deprecated C ABI `tutti_engine_render_routes`: `tutti_engine_render_output_buses`, the
/// same call (kept exported for hosts built against the old name). The host's real-time thread.
@_cdecl("tutti_engine_render_routes")
public func tuttiEngineRenderRoutes(
    _ pointer: OpaquePointer?, _ outputs: UnsafePointer<UnsafeMutablePointer<Float>?>?, _ routeCount: UInt32, _ frames: UInt32
) -> tutti_result {
    tuttiEngineRenderOutputBuses(pointer, outputs, routeCount, frames)
}

/// C ABI `tutti_engine_get_frame`: frames rendered so far, or `TUTTI_ERROR_INVALID_ARGUMENT`
/// for NULL. Any thread.
@_cdecl("tutti_engine_get_frame")
public func tuttiEngineGetFrame(_ pointer: OpaquePointer?) -> tutti_frame {
    do {
        return try engine(pointer).framesRendered
    } catch {
        return tutti_frame(fail("tutti_engine_get_frame", error))
    }
}

/// C ABI `tutti_stats_init` (the exported symbol; tutti.h's macro calls
/// `tutti_stats_init_size`). Any thread.
@_cdecl("tutti_stats_init")
public func tuttiStatsInit(_ stats: UnsafeMutablePointer<tutti_stats>?) {
    tuttiStatsInitSize(stats, UInt32(MemoryLayout<tutti_stats>.stride))
}

/// C ABI `tutti_stats_init_size`: a zeroed struct of `size` bytes. Any thread.
@_cdecl("tutti_stats_init_size") public func tuttiStatsInitSize(_ stats: UnsafeMutablePointer<tutti_stats>?, _ size: UInt32) {
    var value = tutti_stats()
    value.struct_size = UInt32(MemoryLayout<tutti_stats>.stride)
    initialise(stats, with: value, size: Int(size))
}

/// C ABI `tutti_engine_get_stats`: writes the fields of the first layout, never past them.
/// Any thread.
@_cdecl("tutti_engine_get_stats")
public func tuttiEngineGetStats(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<tutti_stats>?) -> tutti_result {
    call("tutti_engine_get_stats") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        try checkStructSize(out.pointee.struct_size, of: tutti_stats.self, "out")
        let s = engine.statistics
        out.pointee.frames_rendered = s.framesRendered
        out.pointee.sources = UInt32(clamping: s.sourceCount)
        out.pointee.sessions = UInt32(clamping: s.sessionCount)
        out.pointee.xruns = UInt64(clamping: s.xrunCount)
        out.pointee.underrun_frames = UInt64(clamping: s.underrunFrames)
        out.pointee.events_dropped = UInt64(clamping: s.eventsDropped)
        out.pointee.latency_frames = UInt32(clamping: s.latencyFrames)
    }
}
