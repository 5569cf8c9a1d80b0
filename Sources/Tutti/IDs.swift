import TuttiEngine

/// Identifies a session: its slot and generation (the C ABI's `tutti_session`; 0 is never
/// valid). A removed session's id never reaches a later session. Value type: any thread.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    /// The packed id (generation in the high 32 bits, slot + 1 in the low 32 bits).
    public let rawValue: UInt64

    /// An id from its packed form (e.g. from C); it may name nothing.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A session is its bus: the same slot and generation.
    init(bus: BusID) { rawValue = bus.rawValue }
    var bus: BusID { BusID(rawValue: rawValue) }

    /// "session#slot.generation".
    public var description: String { "session#\(BusID(rawValue: rawValue).slot).\(BusID(rawValue: rawValue).generation)" }
}
