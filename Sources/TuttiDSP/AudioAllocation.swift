/// Byte alignment of every audio buffer the engine and its backends own (sources' samples,
/// rings, bus and route buffers, effect lines, scratch blocks, device buffers): one cache line,
/// and the width of an AVX-512 vector, so a kernel's 64-byte loads and stores never straddle
/// two lines from the start of a buffer (issue 24). Any thread.
package let audioBufferAlignment = 64

/// Floats in one `audioBufferAlignment` span (16): per-channel or per-route strides carved out
/// of one allocation are rounded up to a multiple of this, so each part starts aligned too.
package let audioBufferAlignmentFloats = audioBufferAlignment / MemoryLayout<Float>.stride

/// `count` rounded up to a whole number of `audioBufferAlignment` spans of `T` (a stride, in
/// elements, that keeps every part of a carved allocation aligned). Any thread.
package func alignedAudioStride<T>(_ count: Int, of type: T.Type) -> Int {
    let per = max(audioBufferAlignment / MemoryLayout<T>.stride, 1)
    return (count + per - 1) / per * per
}

/// Uninitialized memory for `capacity` (at least 1) elements of a trivial type (`Float`,
/// `Int16`, `Int32`, plain structs: nothing to deinitialize; checked), starting on an
/// `audioBufferAlignment` boundary and bound to `T`. Free it with `deallocateAudio(_:)`, or
/// with the pointer's own `deallocate()`: the standard library's typed and raw `deallocate()`
/// both call the runtime's free with "alignment unknown", which takes the aligned path, so
/// either is valid for memory allocated with any alignment. Allocates: control side, never on
/// the render path.
package func allocateAudio<T>(_ type: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
    precondition(_isPOD(T.self), "audio buffers hold trivial elements only")
    let count = max(capacity, 1)
    let raw = UnsafeMutableRawPointer.allocate(
        byteCount: count * MemoryLayout<T>.stride, alignment: max(audioBufferAlignment, MemoryLayout<T>.alignment))
    return raw.bindMemory(to: type, capacity: count)
}

/// Raw bytes for interleaved device samples (`byteCount`, at least 1), starting on an
/// `audioBufferAlignment` boundary. Free with `deallocate()`. Control side.
package func allocateAudioBytes(_ byteCount: Int) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: audioBufferAlignment)
}

/// Frees memory from `allocateAudio(_:capacity:)` (its elements are trivial: nothing to
/// deinitialize). Control side.
package func deallocateAudio<T>(_ pointer: UnsafeMutablePointer<T>) {
    UnsafeMutableRawPointer(pointer).deallocate()
}
