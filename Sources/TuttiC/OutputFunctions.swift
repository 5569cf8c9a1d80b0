import CTuttiABI
import Tutti

// Device output: `tutti_output_config` → `OutputConfiguration`, then the Swift API.

/// C ABI `tutti_output_config_init`: ALSA, the default device, backend periods. Any thread.
@_cdecl("tutti_output_config_init")
public func tuttiOutputConfigInit(_ config: UnsafeMutablePointer<tutti_output_config>?) {
    guard let config else { return }
    config.pointee = tutti_output_config()
    config.pointee.struct_size = UInt32(MemoryLayout<tutti_output_config>.stride)
    config.pointee.backend = OutputConfiguration().backend.rawValue
}

/// C ABI `tutti_output_start`. Any thread.
@_cdecl("tutti_output_start")
public func tuttiOutputStart(_ pointer: OpaquePointer?, _ config: UnsafePointer<tutti_output_config>?) -> tutti_result {
    call("tutti_output_start") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let config = try nonNull(config, "config")
        try checkStructSize(config.pointee.struct_size, of: tutti_output_config.self, "config")
        let c = config.pointee
        var output = OutputConfiguration()
        guard let backend = OutputConfiguration.Backend(rawValue: c.backend) else {
            throw TuttiError(.invalidArgument, "config->backend \(c.backend) is not a TUTTI_BACKEND_* value")
        }
        output.backend = backend
        if c.device != nil { output.device = try utf8(c.device, "config->device") }
        if c.period_frames != 0 { output.periodFrames = Int(c.period_frames) }
        if c.periods != 0 { output.periodCount = Int(c.periods) }
        try engine.startOutput(output)
    }
}

/// C ABI `tutti_output_stop`. Any thread.
@_cdecl("tutti_output_stop")
public func tuttiOutputStop(_ pointer: OpaquePointer?) -> tutti_result {
    call("tutti_output_stop") { () throws(TuttiError) in try engine(pointer).stopOutput() }
}
