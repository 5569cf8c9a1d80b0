/// The one error of Tutti's API, in Swift and (as `tutti_result` plus `tutti_last_error()`)
/// in C: a code that says what kind of failure it was and a message that names the argument,
/// the file or the object. A call that throws it changed nothing.
/// Value type: any thread.
public struct TuttiError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure. The raw values are the C ABI's `tutti_result` codes.
    public enum Code: Int32, Sendable, CaseIterable {
        /// A NULL pointer, NaN, infinity or an out-of-range value.
        case invalidArgument = -1
        /// An unknown or stale id: the object was removed, or never existed.
        case notFound = -2
        /// A file cannot be read (missing, unreadable, not a regular file).
        case io = -3
        /// A file's or a scene's content is bad.
        case format = -4
        /// A configured maximum is reached (sources, sessions, queued commands).
        case capacity = -5
        /// The policy refuses (activation during a phone call; a background session that
        /// would interrupt others).
        case denied = -6
        /// Not valid now (e.g. pull rendering while an output runs).
        case state = -7
        /// An output backend cannot be opened or failed.
        case device = -8
        /// A C struct with an unknown `struct_size`.
        case version = -9

        /// The C name of the code without its prefix, e.g. "INVALID_ARGUMENT".
        public var name: String {
            switch self {
            case .invalidArgument: "INVALID_ARGUMENT"
            case .notFound: "NOT_FOUND"
            case .io: "IO"
            case .format: "FORMAT"
            case .capacity: "CAPACITY"
            case .denied: "DENIED"
            case .state: "STATE"
            case .device: "DEVICE"
            case .version: "VERSION"
            }
        }
    }

    /// What kind of failure.
    public let code: Code
    /// What went wrong, naming the argument, file or object (e.g. "gain must be finite and in
    /// [0, 16], got nan").
    public let message: String

    /// An error of kind `code` described by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message (the code is for programs; people read the message).
    public var description: String { message }

    static func invalid(_ message: String) -> TuttiError { TuttiError(.invalidArgument, message) }
}
