import TuttiPolicy

/// One line of the events log: a policy or render event at an exact output frame.
/// Value type: any thread.
public struct LogEntry: Sendable, Equatable {
    /// The output frame at which the decision takes effect.
    public var frame: Int64
    /// The same moment in seconds (`frame / sampleRate`).
    public var time: Double
    /// The event's name (`duckingBegan`, `sourceEnded`, …).
    public var type: String
    /// The event's own fields, in the order they are written.
    public var fields: [(key: String, value: JSONValue)]

    /// Same frame, type and fields (`time` follows from the frame).
    public static func == (a: LogEntry, b: LogEntry) -> Bool {
        a.frame == b.frame && a.type == b.type && JSONValue.object(a.fields) == JSONValue.object(b.fields)
    }

    /// An entry from its parts.
    public init(frame: Int64, time: Double, type: String, fields: [(key: String, value: JSONValue)]) {
        self.frame = frame
        self.time = time
        self.type = type
        self.fields = fields
    }

    /// A policy journal entry at `frame` of an output at `sampleRate`.
    public init(_ entry: JournalEntry, frame: Int64, sampleRate: Int) {
        self.init(
            frame: frame, time: Double(frame) / Double(sampleRate), type: entry.type,
            fields: entry.fields.map { ($0.key, JSONValue($0.value)) })
    }

    /// `{"frame":…,"time":…,"type":…, fields…}`
    public var jsonLine: String {
        JSONWriter.string(.object([("frame", .number(Double(frame))), ("time", .number(time)), ("type", .string(type))] + fields))
    }
}

extension JSONValue {
    /// A journal value as JSON.
    init(_ v: JournalValue) {
        switch v {
        case .string(let s): self = .string(s)
        case .number(let d): self = .number(d)
        case .bool(let b): self = .bool(b)
        case .null: self = .null
        case .strings(let a): self = .array(a.map(JSONValue.string))
        }
    }
}
