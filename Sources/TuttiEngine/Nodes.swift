import TuttiDSP

/// What a source produces.
public enum SourceContent: @unchecked Sendable {
    /// Interleaved samples at the engine rate and channel count (owned by an `AudioBuffer`
    /// that the engine keeps alive while the source exists).
    case buffer(UnsafePointer<Float>, frameCount: Int)
    case tone(SineOscillator)
    case silence
    /// Pushed by the host at its own rate, converted while playing.
    case stream(StreamNode)
}

/// Render-side state of one source. Trivial value living in a preallocated slot;
/// built on the control side and installed by command. Render thread owns it once installed.
public struct SourceNode: Sendable {
    public var id: SourceID
    public var bus: BusID
    public var content: SourceContent
    public var loop: Bool
    // Transport
    @usableFromInline var running = false
    /// What happens when the current fade-out reaches zero.
    @usableFromInline var pending: UInt8 = Pending.none
    /// Frames advanced since the last rewind (tones and silence too).
    @usableFromInline var position = 0
    @usableFromInline var gain: LinearRamp
    @usableFromInline var fade = LinearRamp(value: 1)

    /// Values of `pending` (plain integers: enum comparisons go through generic `==`).
    @usableFromInline enum Pending {
        @usableFromInline static var none: UInt8 { @_noLocks get { 0 } }
        @usableFromInline static var pause: UInt8 { @_noLocks get { 1 } }
        @usableFromInline static var stop: UInt8 { @_noLocks get { 2 } }
        /// Stop, then play from the top (a play that arrived during a stop's fade-out).
        @usableFromInline static var restart: UInt8 { @_noLocks get { 3 } }
    }

    public init(id: SourceID, bus: BusID, content: SourceContent, gain: Float = 1, loop: Bool = false) {
        self.id = id
        self.bus = bus
        self.content = content
        self.loop = loop
        self.gain = LinearRamp(value: gain)
    }
}

/// Render-side state of a bus: gate × duck × bus gain, applied to each of its sources on
/// their way to the master (with the volume of its class).
public struct BusNode: Sendable {
    public var id: BusID
    public var volumeClass: VolumeClass
    @usableFromInline var gate: LinearRamp
    @usableFromInline var duck = DuckEnvelope()
    @usableFromInline var gain: LinearRamp
    /// `volumeClass == .ringer`, stored so the render loop needs no enum comparison.
    @usableFromInline let isRinger: Bool

    public init(id: BusID, volumeClass: VolumeClass = .system, gateOpen: Bool = true, gain: Float = 1) {
        self.id = id
        self.volumeClass = volumeClass
        self.isRinger = volumeClass == .ringer
        self.gate = LinearRamp(value: gateOpen ? 1 : 0)
        self.gain = LinearRamp(value: gain)
    }
}
