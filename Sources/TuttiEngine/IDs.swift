/// Identifies a source slot of the render graph and the generation of the source in it, so
/// an id of a removed source never reaches the source that reuses its slot.
/// Layout (also the C ABI's `tutti_source`): generation in the high 32 bits, slot + 1 in the
/// low 32 bits; 0 is never a valid id. Value type: any thread.
public struct SourceID: Hashable, Sendable, CustomStringConvertible {
    /// The packed id.
    public let rawValue: UInt64

    /// The id of `slot` (0-based) in its `generation` (≥ 1).
    @inlinable public init(slot: Int, generation: UInt32) {
        rawValue = UInt64(generation) << 32 | UInt64(UInt32(slot &+ 1))
    }

    /// An id from its packed form (e.g. from C); it may name nothing.
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The slot index, -1 for an invalid id.
    @inlinable public var slot: Int { @_noLocks get { Int(rawValue & 0xFFFF_FFFF) &- 1 } }
    /// The generation of the slot's occupant this id was issued for.
    @inlinable public var generation: UInt32 { @_noLocks get { UInt32(rawValue >> 32) } }

    /// "source#slot.generation".
    public var description: String { "source#\(slot).\(generation)" }
}

/// Identifies a bus slot (one per session, plus the engine's call and ringer buses) and its
/// generation; same layout as `SourceID`. Value type: any thread.
public struct BusID: Hashable, Sendable, CustomStringConvertible {
    /// The packed id.
    public let rawValue: UInt64

    /// The id of `slot` (0-based) in its `generation` (≥ 1).
    @inlinable public init(slot: Int, generation: UInt32) {
        rawValue = UInt64(generation) << 32 | UInt64(UInt32(slot &+ 1))
    }

    /// An id from its packed form; it may name nothing.
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The slot index, -1 for an invalid id.
    @inlinable public var slot: Int { @_noLocks get { Int(rawValue & 0xFFFF_FFFF) &- 1 } }
    /// The generation of the slot's occupant this id was issued for.
    @inlinable public var generation: UInt32 { @_noLocks get { UInt32(rawValue >> 32) } }

    /// "bus#slot.generation".
    public var description: String { "bus#\(slot).\(generation)" }
}

/// Which final gain stage a bus goes through. Value type: any thread.
public enum VolumeClass: UInt8, Sendable {
    /// Everything but system sounds: ends at the system volume.
    case system
    /// System sounds and ringtones: end at the ringer volume.
    case ringer
}
