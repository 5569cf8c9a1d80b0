/// Identifies a source slot in the graph. Value type: any thread.
public struct SourceID: Hashable, Sendable, CustomStringConvertible {
    public let index: Int32
    @inlinable public init(_ index: Int32) { self.index = index }
    public var description: String { "source#\(index)" }
}

/// Identifies a bus (one per session, plus the engine's own ringer and call buses).
public struct BusID: Hashable, Sendable, CustomStringConvertible {
    public let index: Int32
    @inlinable public init(_ index: Int32) { self.index = index }
    public var description: String { "bus#\(index)" }
}

/// Which final gain stage a bus goes through.
public enum VolumeClass: UInt8, Sendable {
    /// Everything but system sounds: ends at the system volume.
    case system
    /// System sounds and ringtones: end at the ringer volume.
    case ringer
}

/// A change to the graph, applied by the render thread at `frame` (absolute output
/// frame; anything at or before the current frame applies at once). Trivial value:
/// it travels through an `SPSCRing` without reference counting.
public struct RenderCommand: Sendable {
    public var frame: Int64
    public var action: Action

    @inlinable public init(at frame: Int64 = 0, _ action: Action) {
        self.frame = frame
        self.action = action
    }

    public enum Action: @unchecked Sendable {
        /// Put a node built on the control side into its slot; the render side copies it and
        /// hands the pointer back (`RenderEvent.retired`) to be freed on the control side.
        case installSource(UnsafeMutablePointer<SourceNode>)
        case installBus(UnsafeMutablePointer<BusNode>)
        /// Empty a slot; the render side reports `.sourceRemoved` so owned data can be released.
        case removeSource(SourceID)
        case play(SourceID)
        case pause(SourceID)
        /// Fade out, then rewind.
        case stop(SourceID)
        case setSourceGain(SourceID, gain: Float, rampFrames: Int32)
        case setLoop(SourceID, Bool)
        /// Gate: 1 open, 0 closed (silenced or interrupted session).
        case setBusGate(BusID, gain: Float, rampFrames: Int32)
        case setBusGain(BusID, gain: Float, rampFrames: Int32)
        /// Duck envelope: move to `targetDB` at `dBPerFrame`.
        case setBusDuck(BusID, targetDB: Float, dBPerFrame: Float)
        case setMasterVolume(gain: Float, rampFrames: Int32)
        case setRingerVolume(gain: Float, rampFrames: Int32)
    }
}

/// Something the render thread reports back. Trivial value.
public struct RenderEvent: Sendable, Equatable {
    public var frame: Int64
    public var kind: Kind

    @inlinable @_noLocks public init(frame: Int64, kind: Kind) {
        self.frame = frame
        self.kind = kind
    }

    public enum Kind: @unchecked Sendable, Equatable {
        /// A non-looping source played to its end (it is now stopped and rewound).
        case sourceEnded(SourceID)
        /// A fade-out for pause/stop finished: the source no longer advances.
        case sourceHalted(SourceID)
        case sourceRemoved(SourceID)
        /// A node pointer handed back for freeing on the control side.
        case retiredSourceNode(UnsafeMutablePointer<SourceNode>)
        case retiredBusNode(UnsafeMutablePointer<BusNode>)
        /// A command named a slot that is empty or out of range (host misuse).
        case rejectedCommand
    }
}
