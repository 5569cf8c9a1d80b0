import TuttiDSP

/// A change to the render graph that carries values only. Sent with `Engine.send(_:at:)`;
/// the render side applies it at its frame. Value type: any thread.
public enum EngineCommand: Sendable, Hashable {
    /// Start or resume (fading in from where it is; see `SourceNode`).
    case play(SourceID)
    /// Fade out, then hold the position.
    case pause(SourceID)
    /// Fade out, then rewind.
    case stop(SourceID)
    /// Move to `position` (frames at the engine rate). A playing source fades out, jumps and
    /// fades back in.
    case seek(SourceID, position: Int64)
    /// Ramp the source gain linearly from its current value over `rampFrames` (0: a step).
    case setSourceGain(SourceID, gain: Float, rampFrames: Int32)
    /// Move the source's pan position (−1 left … +1 right; finite) from where it is: each
    /// channel's gain (`PanLaw`: constant power for mono material, balance for stereo) ramps
    /// linearly over `rampFrames` (0: a step). A source never panned mixes as before (no pan
    /// stage at all); pan does nothing in a mono engine.
    case setSourcePan(SourceID, pan: Float, rampFrames: Int32)
    /// Move a buffer source's playback rate (source frames per output frame, finite in
    /// [0.25, 4]; 1: as recorded) from where it is, linearly over `rampFrames` (0: a step).
    /// Pitch follows the rate (no time-stretching); position and length stay in the source's
    /// own frames. At exactly 1 with no fraction of a frame pending, the source mixes exactly
    /// as it does without a rate; otherwise it reads at a fractional position through 4-point
    /// Hermite interpolation (`Hermite`). Other content ignores it (the control side refuses
    /// a rate other than 1 for it).
    case setSourceRate(SourceID, rate: Float, rampFrames: Int32)
    /// Fade lengths used on play/resume and on pause/stop/remove; a negative fade-in keeps
    /// the default (a de-click only when resuming mid-way).
    case setFades(SourceID, fadeInFrames: Int32, fadeOutFrames: Int32)
    /// Whether a file source starts again at its end instead of ending.
    case setLoop(SourceID, Bool)
    /// The loop region of a buffer source, frames of its content: while looping, playback
    /// that reaches `endFrame` goes on at `startFrame` sample-exactly (no fade at the seam),
    /// `count` times (-1: endless; then on to the end, where it ends); the count starts over
    /// now and at every rewind (stop, end). A streaming file takes only its whole length
    /// (0 ..< its frame count) with a count. 0 ≤ `startFrame` < `endFrame` ≤ the length.
    case setLoopRegion(SourceID, startFrame: Int64, endFrame: Int64, count: Int32)
    /// An equal-power crossfade from the second source to the first over `frames` frames
    /// (> 0), both of one session. The first, if it plays (a play at this same frame, sent
    /// before, starts it from silence), fades in along sin(πt/2) from its fade's value; the
    /// second, if it plays and is not already fading out for a pause, stop or removal, fades
    /// out along cos(πt/2) and stops at the end exactly as a stop does (rewound,
    /// `sourceHalted`); a `stop` of it meanwhile leaves the crossfade running.
    case crossfade(SourceID, from: SourceID, frames: Int32)
    /// Voice-stealing priority, 0…255 (default 128): see `setMaxVoices`.
    case setPriority(SourceID, UInt8)
    /// The output bus the source mixes into from this frame on (an index into
    /// `EngineConfiguration.outputBuses`; 0 is main, where every source starts). A step: send
    /// it before playing, or expect a jump between outputs.
    case setOutputBus(SourceID, bus: Int32)
    /// Gate: 1 open, 0 closed (silenced or interrupted session).
    case setBusGate(BusID, gain: Float, rampFrames: Int32)
    /// The session's own gain (linear), ramped linearly over `rampFrames` (0: a step).
    case setBusGain(BusID, gain: Float, rampFrames: Int32)
    /// Duck envelope: move to `targetDB` at `dBPerFrame`.
    case setBusDuck(BusID, targetDB: Float, dBPerFrame: Float)
    /// Signal-driven ducking: the bus's duck follows the level of `Sidechain.key` (the mean
    /// square of what that bus's sources mix, over windows of 10 ms of engine frames, aligned
    /// to the engine clock). At the end of a window whose mean square is above the threshold
    /// the duck moves to its target (`sidechainDuck` began, at that frame); once the key has
    /// been below for `holdFrames` (counted in whole windows) it moves back to 0 dB
    /// (`sidechainDuck` ended). Replaces the bus's sidechain, if any (a duck in force stays
    /// in force and moves to the new target).
    case setBusSidechain(BusID, Sidechain)
    /// Disarm the bus's sidechain: a duck in force moves back to 0 dB at `releaseDBPerFrame`
    /// and reports `sidechainDuck` ended at this frame.
    case clearBusSidechain(BusID)
    /// The last gain stage of everything but the ringer class (linear gain, after the volume
    /// curve), ramped over `rampFrames`.
    case setMasterVolume(gain: Float, rampFrames: Int32)
    /// The last gain stage of the ringer class (system sounds; linear), ramped over `rampFrames`.
    case setRingerVolume(gain: Float, rampFrames: Int32)
    /// Voices the bus's sources may have at once (0: no limit of its own). Applies to the
    /// plays that follow: a lower limit stops nothing that plays.
    case setBusMaxVoices(BusID, Int32)
    /// Voices the whole engine may have at once (0: no limit). A play that would exceed a
    /// limit — its bus's first, else the engine's — takes the voice of the lowest-priority
    /// voice in that scope (ties: the quietest current gain, then the oldest), which stops
    /// with a short fade (`voiceStolen`); if every voice there has a higher priority than the
    /// new one, the play is refused (`voiceRefused`). Decided at the play's frame.
    case setMaxVoices(Int32)
}

/// The settings of a signal-driven duck (`EngineCommand.setBusSidechain`). Value type: any thread.
public struct Sidechain: Sendable, Hashable {
    /// The bus whose level drives the duck.
    public var key: BusID
    /// The threshold as a linear mean square (full-scale sine: 0.5; −40 dBFS: 1e-4), finite, ≥ 0.
    public var thresholdMeanSquare: Float
    /// Frames the key must stay at or below the threshold before the duck releases (≥ 0).
    public var holdFrames: Int32
    /// The duck's level, dB (finite, ≤ 0).
    public var targetDB: Float
    /// Envelope rates down and back up, dB per frame (finite, ≥ 0; `DuckEnvelope.rate`).
    public var attackDBPerFrame: Float
    /// See `attackDBPerFrame`.
    public var releaseDBPerFrame: Float

    /// A sidechain keyed on `key` with these settings (checked when sent).
    public init(
        key: BusID, thresholdMeanSquare: Float, holdFrames: Int32, targetDB: Float, attackDBPerFrame: Float, releaseDBPerFrame: Float
    ) {
        self.key = key
        self.thresholdMeanSquare = thresholdMeanSquare
        self.holdFrames = holdFrames
        self.targetDB = targetDB
        self.attackDBPerFrame = attackDBPerFrame
        self.releaseDBPerFrame = releaseDBPerFrame
    }
}

/// A command on its way to the render thread: a value command or a resource handover, the
/// frame it is due at (-1: now) and its sequence number (commands for the same frame apply in
/// sequence order). Trivial value: it travels through a `CommandRing` and waits in
/// `PendingCommands` without reference counting.
@usableFromInline struct RenderCommand {
    @usableFromInline var frame: Int64
    @usableFromInline var sequence: UInt64
    @usableFromInline var action: Action

    @inlinable @_noLocks init(frame: Int64, sequence: UInt64, action: Action) {
        self.frame = frame
        self.sequence = sequence
        self.action = action
    }

    @usableFromInline enum Action {
        case command(EngineCommand)
        /// Put a node built on the control side into its slot; the render side copies it and
        /// hands the pointer back (`RenderEvent.Kind.retiredSourceNode`) to be freed there.
        case installSource(UnsafeMutablePointer<SourceNode>)
        case installBus(UnsafeMutablePointer<BusNode>)
        /// Fade out (the source's fade-out length), then empty the slot and report
        /// `sourceRemoved` so its owned data can be released on the control side.
        case removeSource(SourceID)
        /// Empty a bus slot at once (its sources are removed first) and report `busRemoved`.
        case removeBus(BusID)
        /// Start filling a probe (offline inspection: per-bus gains and output peaks).
        case attachProbe(ProbeStorage)
        /// Replace a bus's effect chain (nil: none) built on the control side; the one it
        /// replaces (or this one, when the bus is gone) comes back as `retiredEffects`.
        case setBusEffects(BusID, UnsafeMutablePointer<EffectChain>?)
        /// Glide the biquad at `index` of a bus's chain to the coefficients (computed on the
        /// control side) over `frames` frames (`EffectUnit.glide`); the pointer comes back as
        /// `retiredCoefficients`.
        case glideBusBiquad(BusID, index: Int32, frames: Int32, UnsafeMutablePointer<BiquadCoefficients>)
        /// Replace a bus's host effect (nil: none), run after its chain; the one it replaces
        /// (or this one, when the bus is gone) comes back as `retiredHostEffect`.
        case setBusHostEffect(BusID, UnsafeMutablePointer<HostEffectSlot>?)
        /// Replace the master's host effect (nil: none), run after the master chain; the one
        /// it replaces comes back as `retiredHostEffect`. Only sent to an engine with a master
        /// stage.
        case setMasterHostEffect(UnsafeMutablePointer<HostEffectSlot>?)
    }
}

/// Something the render thread reports back, at the frame it happened. Trivial value.
@usableFromInline struct RenderEvent {
    @usableFromInline var frame: Int64
    @usableFromInline var kind: Kind

    @inlinable @_noLocks init(frame: Int64, kind: Kind) {
        self.frame = frame
        self.kind = kind
    }

    @usableFromInline enum Kind {
        /// A source not looping (or out of loop wraps) played past its last frame (now stopped and rewound);
        /// `frame` is the frame after its last sample.
        case sourceEnded(SourceID)
        /// A fade-out for pause or stop (or a steal) finished: the source no longer advances.
        case sourceHalted(SourceID)
        /// A play over a voice limit took the first source's voice for the second (`by`);
        /// the first fades out, stops and rewinds.
        case voiceStolen(SourceID, by: SourceID)
        /// A play over a voice limit was refused: every voice in its scope has a higher priority.
        case voiceRefused(SourceID)
        /// A stream, input or streaming file source ran out of data (a run of underruns
        /// began; `frames` missed in that render call). At most one awaits the control side
        /// per source.
        case sourceUnderrun(SourceID, frames: Int64)
        /// The slot is empty; what the source owned may be released.
        case sourceRemoved(SourceID)
        case busRemoved(BusID)
        /// A sidechain's duck on the bus began (true) or ended (false).
        case sidechainDuck(BusID, began: Bool)
        /// A node pointer handed back for freeing on the control side.
        case retiredSourceNode(UnsafeMutablePointer<SourceNode>)
        case retiredBusNode(UnsafeMutablePointer<BusNode>)
        /// An effect chain replaced, or left by a removed bus, to be freed on the control side.
        case retiredEffects(UnsafeMutablePointer<EffectChain>)
        /// Coefficients a glide command carried, to be freed on the control side.
        case retiredCoefficients(UnsafeMutablePointer<BiquadCoefficients>)
        /// A host effect replaced, or left by a removed bus: the render side no longer calls
        /// it; released and freed on the control side.
        case retiredHostEffect(UnsafeMutablePointer<HostEffectSlot>)
    }
}

/// What the render side reported, as the control side hands it on. Value type: any thread.
public struct EngineEvent: Hashable, Sendable {
    /// The frame it happened at (engine clock).
    public var frame: Int64
    /// What happened.
    public var kind: Kind

    /// An event of `kind` at `frame`.
    public init(frame: Int64, kind: Kind) {
        self.frame = frame
        self.kind = kind
    }

    /// What happened.
    public enum Kind: Hashable, Sendable {
        /// A source not looping (or out of loop wraps) played past its last frame; it is stopped and rewound.
        /// `frame` is the frame after its last sample.
        case sourceEnded(SourceID)
        /// A pause or stop (or steal) fade-out finished.
        case sourceHalted(SourceID)
        /// A play over a voice limit took the first source's voice for `by`; it fades out over
        /// the steal fade, then stops and rewinds. `frame` is the play's frame.
        case voiceStolen(SourceID, by: SourceID)
        /// A play over a voice limit was refused (every voice in its scope has a higher
        /// priority); the source did not start. `frame` is the play's frame.
        case voiceRefused(SourceID)
        /// The source is gone; its id is stale from now on.
        case sourceRemoved(SourceID)
        /// The bus is gone.
        case busRemoved(BusID)
        /// The bus's sidechain (`EngineCommand.setBusSidechain`) ducked it (`began`: its key
        /// went above the threshold at the end of the 10 ms window ending at `frame`) or let
        /// it go (`!began`: the key stayed below for the hold time, or the sidechain was cleared
        /// while ducking).
        case sidechainDuck(BusID, began: Bool)
        /// A streaming file source could not read its file further (it shrank, vanished, or
        /// its tail is unreadable): it plays silence from there, counted as underruns.
        /// `reason` names the file.
        case sourceFailed(SourceID, reason: String)
        /// A stream, input or streaming file source ran out of data while playing: a run of
        /// underruns (silence, counted in `underrunFrames`) began at `frame`; `frames` were
        /// missed in the render call where it began. One report per run; while a report waits
        /// to be polled, further runs of the same source are not reported (the count goes on).
        case sourceUnderrun(SourceID, frames: Int64)
    }
}

extension EngineCommand {
    /// `setOutputBus(_:bus:)` under its old name (a named output mix was called a route).
    /// Value: any thread.
    @available(*, deprecated, renamed: "setOutputBus(_:bus:)")
    public static func setRoute(_ id: SourceID, route: Int32) -> EngineCommand { .setOutputBus(id, bus: route) }
}
