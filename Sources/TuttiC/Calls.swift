import CTuttiABI
import Tutti

// How every C function of the ABI runs: argument checks that only C needs (NULL pointers,
// enum values, struct sizes, UTF-8), then one call into the Swift API, whose `TuttiError`
// becomes the `tutti_result` and the thread's `tutti_last_error()` message.
//
// Thread: any (the Swift API serialises calls on one engine).

/// Runs the body of the C function `function`: `TUTTI_OK`, or the error's code with its
/// message (prefixed with the function's name) recorded for `tutti_last_error()`.
@inline(__always)
func call(_ function: StaticString, _ body: () throws(TuttiError) -> Void) -> tutti_result {
    do {
        try body()
        return TuttiResult.ok
    } catch {
        return fail(function, error)
    }
}

/// Records `error` for `tutti_last_error()` and returns its code. Allocates: not on the
/// render path.
func fail(_ function: StaticString, _ error: TuttiError) -> tutti_result {
    "\(function): \(error.message)".withCString { tuttic_fail(error.code.rawValue, $0) }
}

/// The C values of `tutti_result` that are not errors.
enum TuttiResult {
    static let ok = tutti_result(TUTTI_OK)
}

/// The engine behind a `tutti_engine *` (the pointer is an unmanaged, retained `AudioEngine`).
func engine(_ pointer: OpaquePointer?) throws(TuttiError) -> AudioEngine {
    guard let pointer else { throw TuttiError(.invalidArgument, "engine must not be NULL") }
    return Unmanaged<AudioEngine>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

/// Fails with `invalidArgument` naming `name` when `pointer` is NULL.
func nonNull<T>(_ pointer: T?, _ name: String) throws(TuttiError) -> T {
    guard let pointer else { throw TuttiError(.invalidArgument, "\(name) must not be NULL") }
    return pointer
}

/// `at`: `TUTTI_NOW` (-1) or a frame ≥ 0.
func engineTime(_ at: tutti_frame) throws(TuttiError) -> EngineTime {
    if at == -1 { return .now }
    guard at >= 0 else { throw TuttiError(.invalidArgument, "at must be TUTTI_NOW (-1) or a frame >= 0, got \(at)") }
    return .frame(at)
}

/// A NUL-terminated UTF-8 argument as a String (invalid UTF-8 is refused, not repaired: a
/// repaired path or name would be another one).
func utf8(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(TuttiError) -> String {
    let pointer = try nonNull(pointer, name)
    guard let string = String(validatingCString: pointer) else {
        throw TuttiError(.invalidArgument, "\(name) is not valid UTF-8")
    }
    return string
}

/// A struct's `struct_size` must be at least its first released layout (`firstReleasedSize`
/// for structs that grew since, else `T`'s C size) and at most `TUTTI_MAX_STRUCT_SIZE`; larger sizes come from callers
/// built against a newer header, whose extra fields are ignored.
func checkStructSize<T>(
    _ size: UInt32, of type: T.Type, _ name: String, firstReleasedSize: Int? = nil, earlierSizes: [Int] = []
) throws(TuttiError) {
    let known = firstReleasedSize ?? MemoryLayout<T>.stride
    // A size between two layouts is none of them (`earlierSizes`: the layouts released between
    // the first and the current one, each given by where its last field ends; a caller passes
    // its sizeof, that end rounded up to the struct's alignment, and both are that layout).
    let alignment = MemoryLayout<T>.alignment
    let earlierSizes = earlierSizes.flatMap { [$0, ($0 + alignment - 1) / alignment * alignment] }
    let between =
        firstReleasedSize != nil && Int(size) > known && Int(size) < MemoryLayout<T>.stride && !earlierSizes.contains(Int(size))
    guard size >= known, size <= TUTTI_MAX_STRUCT_SIZE, !between else {
        // Every layout this library reads, oldest first (the last one is the header's).
        let layouts = ([known] + earlierSizes + [MemoryLayout<T>.stride]).reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        let sizes =
            layouts.count == 1
            ? "\(known) bytes"
            : "the layouts of " + layouts.dropLast().map(String.init).joined(separator: ", ") + " and \(layouts.last!) bytes"
        throw TuttiError(
            .version,
            "\(name)->struct_size is \(size): this library knows \(sizes) (set it with the struct's _init function; at most \(TUTTI_MAX_STRUCT_SIZE))"
        )
    }
}

/// A C boolean.
@inline(__always) func bool(_ value: Int32) -> Bool { value != 0 }

/// What every `..._init` function does: writes `value` (the library's layout of `T`, with its
/// defaults) into the caller's struct of `size` bytes — the first min(`size`, the library's
/// size) bytes, never past them — and sets `struct_size` (its first field) to that many.
/// NULL, or a size too small for `struct_size`, is ignored. Any thread.
func initialise<T>(_ pointer: UnsafeMutableRawPointer?, with value: T, size: Int) {
    guard let pointer, size >= MemoryLayout<UInt32>.size else { return }
    let count = min(size, MemoryLayout<T>.stride)
    withUnsafeBytes(of: value) { pointer.copyMemory(from: $0.baseAddress!, byteCount: count) }
    pointer.storeBytes(of: UInt32(count), as: UInt32.self)
}

/// A layout's size as a caller's `sizeof` has it: where its last field ends, rounded up to
/// the struct's alignment.
func paddedSize<T>(_ end: Int, of type: T.Type) -> Int {
    (end + MemoryLayout<T>.alignment - 1) / MemoryLayout<T>.alignment * MemoryLayout<T>.alignment
}
