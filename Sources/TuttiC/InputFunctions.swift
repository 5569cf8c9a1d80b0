import CTuttiABI
import Tutti

// Inputs (capture): created through the session's handle, fed with `tutti_stream_write`,
// their recording read here.

/// C ABI `tutti_source_create_input`. Any thread.
@_cdecl("tutti_source_create_input")
public func tuttiSourceCreateInput(
    _ pointer: OpaquePointer?, _ sessionID: tutti_session, _ channels: UInt32, _ capacityFrames: UInt32,
    _ recordCapacityFrames: UInt32, _ out: UnsafeMutablePointer<tutti_source>?
) -> tutti_result {
    call("tutti_source_create_input") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let out = try nonNull(out, "out")
        let handle = try SessionHandle(engine: engine, id: SessionID(rawValue: sessionID)).makeInputSource(
            channelCount: Int(channels), capacityFrames: Int(capacityFrames), recordCapacityFrames: Int(recordCapacityFrames))
        out.pointee = handle.id.rawValue
    }
}

/// C ABI `tutti_input_read_recorded`: one reader thread at a time, not the real-time one.
@_cdecl("tutti_input_read_recorded")
public func tuttiInputReadRecorded(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ interleaved: UnsafeMutablePointer<Float>?, _ maxFrames: UInt32,
    _ framesRead: UnsafeMutablePointer<UInt32>?
) -> tutti_result {
    call("tutti_input_read_recorded") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let interleaved = try nonNull(interleaved, "interleaved")
        let framesRead = try nonNull(framesRead, "frames_read")
        let handle = SourceHandle(engine: engine, id: SourceID(rawValue: id))
        let channels = try handle.inputChannelCount
        framesRead.pointee = UInt32(
            try handle.readRecorded(into: UnsafeMutableBufferPointer(start: interleaved, count: Int(maxFrames) * channels)))
    }
}

/// C ABI `tutti_input_get_recording`. Any thread.
@_cdecl("tutti_input_get_recording")
public func tuttiInputGetRecording(
    _ pointer: OpaquePointer?, _ id: tutti_source, _ startFrame: UnsafeMutablePointer<tutti_frame>?,
    _ droppedFrames: UnsafeMutablePointer<UInt64>?
) -> tutti_result {
    call("tutti_input_get_recording") { () throws(TuttiError) in
        let engine = try engine(pointer)
        let startFrame = try nonNull(startFrame, "start_frame")
        let droppedFrames = try nonNull(droppedFrames, "dropped_frames")
        let handle = SourceHandle(engine: engine, id: SourceID(rawValue: id))
        let start = try handle.recordingStartFrame
        let dropped = try handle.droppedRecordedFrames
        startFrame.pointee = start ?? -1
        droppedFrames.pointee = UInt64(dropped)
    }
}
