/// A problem with a scene or its files, naming where: a JSON path (`events[3].action`)
/// or a file. Value type: any thread.
public struct SceneError: Error, CustomStringConvertible, Equatable, Sendable {
    /// JSON path or file path the message is about.
    public let place: String
    public let message: String

    public init(_ place: String, _ message: String) {
        self.place = place
        self.message = message
    }

    public var description: String { place.isEmpty ? message : "\(place): \(message)" }
}
