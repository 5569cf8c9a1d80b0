/// A problem with a scene or its files, naming where: a JSON path (`events[3].action`)
/// or a file. Value type: any thread.
public struct SceneError: Error, CustomStringConvertible, Equatable, Sendable {
    /// JSON path or file path the message is about.
    public let place: String
    /// What is wrong.
    public let message: String

    /// An error at `place` (a JSON path or a file; empty: none) saying `message`.
    public init(_ place: String, _ message: String) {
        self.place = place
        self.message = message
    }

    /// `place: message`, as the CLI prints it.
    public var description: String { place.isEmpty ? message : "\(place): \(message)" }
}
