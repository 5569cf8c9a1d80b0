import CTuttiABI
import Tutti
import TuttiOutput

// Device output: `tutti_output_config` → `OutputConfiguration`, then the Swift API.

/// C ABI `tutti_output_config_init` (the exported symbol; tutti.h's macro calls
/// `tutti_output_config_init_size`): ALSA, the default device, backend
/// periods. Any thread.
@_cdecl("tutti_output_config_init")
public func tuttiOutputConfigInit(_ config: UnsafeMutablePointer<tutti_output_config>?) {
    // The layout it wrote before `mpris` came (through `routes`): a caller of the unsized
    // symbol was built against that header.
    let routesEnd = MemoryLayout<tutti_output_config>.offset(of: \tutti_output_config.routes)! + MemoryLayout<UnsafeRawPointer>.size
    tuttiOutputConfigInitSize(config, UInt32(paddedSize(routesEnd, of: tutti_output_config.self)))
}

/// C ABI `tutti_output_config_init_size`: the defaults in a struct of `size` bytes. Any thread.
@_cdecl("tutti_output_config_init_size") public func tuttiOutputConfigInitSize(
    _ config: UnsafeMutablePointer<tutti_output_config>?, _ size: UInt32
) {
    var value = tutti_output_config()
    value.struct_size = UInt32(MemoryLayout<tutti_output_config>.stride)
    value.backend = OutputConfiguration().backend.rawValue
    value.watch_desktop = OutputConfiguration().watchDesktop ? 1 : 0
    initialise(config, with: value, size: Int(size))
}

/// C ABI `tutti_output_start`. Any thread.
@_cdecl("tutti_output_start")
public func tuttiOutputStart(_ pointer: OpaquePointer?, _ config: UnsafePointer<tutti_output_config>?) -> tutti_result {
    call("tutti_output_start") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let config = try nonNull(config, "config")
        // The first released layout ends at `periods`; the capture fields came later.
        let size = Int(config.pointee.struct_size)
        let firstLayout = MemoryLayout<tutti_output_config>.offset(of: \tutti_output_config.capture)!
        guard size >= firstLayout, size <= Int(TUTTI_MAX_STRUCT_SIZE) else {
            throw TuttiError(
                .version,
                "config->struct_size is \(size): this library knows \(MemoryLayout<tutti_output_config>.stride) bytes (set it with tutti_output_config_init; at least \(firstLayout), at most \(TUTTI_MAX_STRUCT_SIZE))"
            )
        }
        // Copy only the fields the caller's layout has; the rest keep their defaults.
        var c = tutti_output_config()
        withUnsafeMutableBytes(of: &c) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(config), count: min(size, dst.count)))
        }
        var output = OutputConfiguration()
        guard let requested = OutputConfiguration.Backend(rawValue: c.backend) else {
            throw TuttiError(.invalidArgument, "config->backend \(c.backend) is not a TUTTI_BACKEND_* value")
        }
        if c.device != nil { output.device = try utf8(c.device, "config->device") }
        // TUTTI_BACKEND_AUTO is decided now: capture_from and routes are read as its backend reads them.
        let backend = requested.resolved(jackServer: output.device)
        output.backend = backend
        if c.period_frames != 0 { output.periodFrames = Int(c.period_frames) }
        if c.periods != 0 { output.periodCount = Int(c.periods) }
        if c.capture != 0 { output.capture = SourceHandle(engine: engine, id: SourceID(rawValue: c.capture)) }
        if c.capture_from != nil {
            let from = try utf8(c.capture_from, "config->capture_from")
            // JACK: ports, comma-separated. ALSA: the capture PCM's name.
            output.captureSources = backend.implementation.destinations(parsing: from)
        }
        if size >= MemoryLayout<tutti_output_config>.offset(of: \tutti_output_config.routes)! + MemoryLayout<UnsafeRawPointer>.size,
            c.routes != nil
        {
            output.busDestinations = try busDestinations(utf8(c.routes, "config->routes"), backend: backend)
        }
        if size >= MemoryLayout<tutti_output_config>.offset(of: \tutti_output_config.mpris)! + MemoryLayout<UInt32>.size {
            guard c.mpris <= 1 else { throw TuttiError(.invalidArgument, "config->mpris must be 0 or 1, got \(c.mpris)") }
            output.mpris = c.mpris == 1
        }
        // Past the mpris layout's padded sizeof (`reserved0` is that padding): a caller built
        // against the mpris header never covers it, whatever its padding bytes hold.
        // watch_desktop (watch_other_audio: the same field, in an anonymous union) follows reserved0.
        if size >= MemoryLayout<tutti_output_config>.offset(of: \tutti_output_config.reserved0)! + 2 * MemoryLayout<UInt32>.size {
            guard c.watch_desktop <= 1 else {
                throw TuttiError(.invalidArgument, "config->watch_desktop must be 0 or 1, got \(c.watch_desktop)")
            }
            output.watchDesktop = c.watch_desktop == 1
        }
        // Past the watch_desktop layout's padded sizeof (`reserved1` is that padding).
        if size >= MemoryLayout<tutti_output_config>.offset(of: \tutti_output_config.streams)! + MemoryLayout<UInt32>.size {
            switch c.streams {
            case UInt32(TUTTI_STREAMS_SINGLE): output.streams = .single
            case UInt32(TUTTI_STREAMS_PER_SESSION): output.streams = .perSession
            default:
                throw TuttiError(
                    .invalidArgument, "config->streams must be TUTTI_STREAMS_SINGLE or TUTTI_STREAMS_PER_SESSION, got \(c.streams)")
            }
        }
        try engine.startOutput(output)
    }
}

/// C ABI `tutti_output_stop`. Any thread.
@_cdecl("tutti_output_stop")
public func tuttiOutputStop(_ pointer: OpaquePointer?) -> tutti_result {
    call("tutti_output_stop") { () throws(TuttiError) in try engine(pointer).stopOutput() }
}

/// C ABI `tutti_output_stop_with`: `TUTTI_OUTPUT_STOP_DRAIN` drains the device first. Any
/// thread but the output's own.
@_cdecl("tutti_output_stop_with") public func tuttiOutputStopWith(_ pointer: OpaquePointer?, _ flags: UInt32) -> tutti_result {
    call("tutti_output_stop_with") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let known = UInt32(TUTTI_OUTPUT_STOP_DRAIN)
        guard flags & ~known == 0 else {
            throw TuttiError(
                .invalidArgument, "flags has unknown bits 0x\(String(flags & ~known, radix: 16)) (known: TUTTI_OUTPUT_STOP_DRAIN)")
        }
        engine.stopOutput(drain: flags & known != 0)
    }
}

/// C ABI `tutti_output_is_running`. Any thread.
@_cdecl("tutti_output_is_running")
public func tuttiOutputIsRunning(_ pointer: OpaquePointer?, _ running: UnsafeMutablePointer<Int32>?) -> tutti_result {
    call("tutti_output_is_running") { () throws(TuttiError) in
        let engine = try engine(pointer)
        try nonNull(running, "running").pointee = engine.isOutputRunning ? 1 : 0
    }
}

/// C ABI `tutti_output_backend`: the TUTTI_BACKEND_* the running output plays through (what
/// TUTTI_BACKEND_AUTO resolved to); `state` error when none runs. Any thread.
@_cdecl("tutti_output_backend")
public func tuttiOutputBackend(_ pointer: OpaquePointer?, _ backend: UnsafeMutablePointer<Int32>?) -> tutti_result {
    call("tutti_output_backend") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(backend, "backend")
        guard let running = engine.outputBackend else { throw TuttiError(.state, "no output is running (tutti_output_start)") }
        out.pointee = running.rawValue
    }
}

/// `"NAME=DEST;NAME=DEST"` (DEST as the backend reads it: an ALSA PCM, or JACK ports
/// separated by commas) → `busDestinations`, parsed by the output layer.
private func busDestinations(_ text: String, backend: OutputConfiguration.Backend) throws(TuttiError) -> [String: [String]] {
    var settings = OutputSettings()
    for entry in text.split(separator: ";", omittingEmptySubsequences: true) {
        do {
            try settings.addBusDestination(String(entry), backend: backend.implementation)
        } catch {
            throw TuttiError(.invalidArgument, "config->routes: \(error.message)")
        }
    }
    return settings.busDestinations
}
