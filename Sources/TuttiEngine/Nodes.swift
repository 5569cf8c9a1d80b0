import TuttiDSP

/// What a source produces, render-side. Trivial value.
@usableFromInline enum SourceContent {
    /// Interleaved samples at the engine rate and channel count (owned by an `AudioBuffer`
    /// that the engine keeps alive while the source exists).
    case buffer(UnsafePointer<Float>, frameCount: Int)
    case tone(SineOscillator)
    case silence
    /// Pushed by the host at its own rate and channel count, converted while playing.
    case stream(StreamNode)
    /// A long file read from the ring its worker fills (engine rate and channel count).
    case file(FileStreamNode)
    /// Captured audio pushed by the host (engine rate, its own channel count), tapped for recording.
    case input(InputNode)
}

/// What a source does when its current fade-out reaches zero.
@usableFromInline enum PendingHalt {
    case none
    case pause
    case stop
    /// Stop, then play from the top (a play that arrived during a stop's fade-out).
    case restart
    /// Leave the graph (a remove that arrived while it played).
    case remove
}

/// Render-side state of one source: a trivial value in a preallocated slot, built on the
/// control side and installed by command. Thread: the render thread once installed.
@usableFromInline struct SourceNode {
    @usableFromInline let id: SourceID
    @usableFromInline let bus: BusID
    @usableFromInline var content: SourceContent
    /// A buffer source's samples and length, also outside `content`: the mix's fast path reads
    /// them without projecting the enum (nil / 0 for other content).
    @usableFromInline let bufferData: UnsafePointer<Float>?
    @usableFromInline let bufferFrames: Int
    /// The content is an input (checked per chunk without projecting the enum).
    @usableFromInline let isInput: Bool
    /// Stereo material (pan balances it) rather than mono material on every channel (pan
    /// places it with the constant-power law): see `PanLaw`.
    @usableFromInline let stereoContent: Bool
    @usableFromInline var loop: Bool
    /// The loop region, frames of the content: while `loop` is set and wraps remain, playback
    /// that reaches `loopEnd` from before it goes on at `loopStart` sample-exactly (no fade:
    /// the seam is the material's). Playback past `loopEnd` (a seek there) wraps at the
    /// content's end instead. The whole content by default (a buffer's or file's length).
    @usableFromInline var loopStart = 0
    @usableFromInline var loopEnd: Int
    /// Wraps allowed from the start (the region is heard `loopCount` + 1 times); -1: endless.
    @usableFromInline var loopCount = -1
    /// Wraps left until the next rewind (-1: endless); at 0 playback goes on to the end.
    @usableFromInline var loopsLeft = -1
    // Transport.
    @usableFromInline var running = false
    @usableFromInline var pending = PendingHalt.none
    /// A seek waiting for the fade-out to reach zero (-1: none).
    @usableFromInline var pendingSeek: Int64 = -1
    /// A buffer source's old position while a seek crossfades (-1: none): it plays on from
    /// there under `tailFade` (down to 0 over the de-click time) while the new position fades
    /// in, so the new material starts at the seek's frame. Set by `Renderer.seek`.
    @usableFromInline var tailPosition = -1
    /// The fade-out of the old position during a seek's crossfade: linear from the fade the
    /// source had to 0 while `fade` goes linearly from 0 to 1 (equal gain: the two sum to 1
    /// frame by frame when the source was at full level).
    @usableFromInline var tailFade = FadeRamp(value: 0)
    /// The old position's loop wraps left during a seek's crossfade (as `loopsLeft` was at the
    /// seek): it wraps through the region on its own count, whatever the new position does.
    @usableFromInline var tailLoopsLeft = -1
    /// Played past its end since the last play, seek or stop.
    @usableFromInline var ended = false
    /// Frames advanced since the last rewind (tones and silence too).
    @usableFromInline var position = 0
    /// The fraction of a frame past `position` a buffer source reads at (0 ≤ phase < 1; 0
    /// unless the rate is or was other than 1 since the last move). Source frames.
    @usableFromInline var phase: Double = 0
    /// The playback rate of a buffer source: source frames read per output frame (0.25…4,
    /// 1 by default), gliding linearly to a new rate over the ramp a rate change asks for.
    @usableFromInline var rate = LinearRamp(value: 1)
    /// `phase` of the old position during a seek's crossfade (with `tailPosition`).
    @usableFromInline var tailPhase: Double = 0
    @usableFromInline var gain: LinearRamp
    /// The transport fade: linear, or equal-power during a crossfade (`Renderer.crossfade`).
    @usableFromInline var fade = FadeRamp(value: 1)
    /// The frame it last started playing from not running (-1: never): a crossfade at that
    /// very frame fades it in from silence.
    @usableFromInline var playFrame: Int64 = -1
    /// Per-channel pan gains (stereo engines); both 1 until a pan is set (no pan stage).
    @usableFromInline var panLeft = LinearRamp(value: 1)
    @usableFromInline var panRight = LinearRamp(value: 1)
    /// Fade-in on play/resume in frames; negative: the default (none from the top, the
    /// transport de-click when resuming mid-way).
    @usableFromInline var fadeInFrames = -1
    /// Fade-out on pause/stop/seek/remove, frames.
    @usableFromInline var fadeOutFrames: Int
    /// Voice-stealing priority, 0…255: a play over a voice limit takes the voice of the
    /// lowest-priority voice, and is refused if that one has a higher priority than it.
    @usableFromInline var priority: UInt8 = 128
    /// The output route it mixes into (index into `EngineConfiguration.routes`; 0: main).
    @usableFromInline var route = 0
    /// Order in which it last became a voice (smaller: older; see `Renderer.isVoice`).
    @usableFromInline var voiceSerial: UInt64 = 0
    /// What its status-board slot holds (`Renderer.publish`): the state, the underrun frames
    /// and the position — less the engine frame it was published at while playing, so a
    /// source playing on frame for frame keeps the same value and is not published again.
    /// As the install publishes it: stopped at 0.
    @usableFromInline var publishedState: Int32 = 0
    @usableFromInline var publishedPosition: Int64 = 0
    @usableFromInline var publishedUnderruns = 0

    init(
        id: SourceID, bus: BusID, content: SourceContent, gain: Float, loop: Bool, fadeOutFrames: Int, priority: UInt8 = 128,
        stereoContent: Bool = false
    ) {
        self.id = id
        self.stereoContent = stereoContent
        self.bus = bus
        self.content = content
        if case .buffer(let data, let count) = content {
            bufferData = data
            bufferFrames = count
        } else {
            bufferData = nil
            bufferFrames = 0
        }
        if case .input = content { isInput = true } else { isInput = false }
        self.loop = loop
        switch content {
        case .buffer(_, let count): loopEnd = count
        case .file(let f): loopEnd = f.frameCount
        case .tone, .silence, .stream, .input: loopEnd = 0
        }
        self.gain = LinearRamp(value: gain)
        self.fadeOutFrames = fadeOutFrames
        self.priority = priority
    }

    /// Where playback from `position` wraps or ends in content of `count` frames: `loopEnd`
    /// while the loop is on, wraps remain and the position is before it; else `count`.
    @inlinable @inline(__always) @_noLocks
    func wrapFrame(count: Int) -> Int {
        guard loop, loopsLeft != 0, position < loopEnd else { return count }
        return loopEnd
    }

    /// Playback reached `wrapFrame(count:)`: true (and at `loopStart`, one wrap fewer left)
    /// when it loops, false when the content ends here.
    @inlinable @inline(__always) @_noLocks
    mutating func wrap(count: Int) -> Bool {
        guard loop, loopsLeft != 0, count > 0 else { return false }
        position = loopStart
        if loopsLeft > 0 { loopsLeft &-= 1 }
        return true
    }

    /// Reads at a fractional position (`renderVarispeed`): the rate is not 1 or glides, or a
    /// fraction of a frame is pending. False: the plain path, exactly as without a rate.
    @inlinable var isVarispeed: Bool {
        @_noLocks get {
            if rate.isRamping { return true }
            if rate.value != 1 { return true }
            return phase != 0
        }
    }

    /// Varispeed playback got to or past `wrapFrame(count:)`: wraps to `loopStart` plus the
    /// frames it went past (modulo the region: a fast rate over a region of a few frames) and
    /// returns true, or returns false when the content ends there (position left past it).
    /// Playback before the wrap frame: true, nothing changes.
    @inlinable @inline(__always) @_noLocks
    mutating func wrapFractional(count: Int) -> Bool {
        let end = wrapFrame(count: count)
        guard position >= end else { return true }
        let over = position &- end
        guard wrap(count: count) else { return false }
        position &+= over % (loopEnd &- loopStart)
        return true
    }

    /// A pan stage applies: a pan gain is not 1 or ramps.
    @inlinable var isPanned: Bool {
        @_noLocks get {
            if panLeft.isRamping { return true }
            if panRight.isRamping { return true }
            if panLeft.value != 1 { return true }
            return panRight.value != 1
        }
    }

    /// The state the status board shows.
    @inlinable var state: PlaybackState {
        @_noLocks get {
            if running { return .playing }
            if ended { return .ended }
            return position > 0 ? .paused : .stopped
        }
    }

    /// `state`'s raw value (`PlaybackState`), without the enum.
    @inlinable var stateCode: Int32 {
        @_noLocks get {
            if running { return 1 }
            if ended { return 3 }
            return position > 0 ? 2 : 0
        }
    }

    /// A voice (for voice limits): running and not on its way out. A source fading out for a
    /// pause, stop, removal or steal is no longer a voice — it is gone within its fade and a
    /// play in the meantime must not steal a voice for it; one fading out for a seek (it comes
    /// back) or restarting after a stop's fade is.
    @inlinable var isVoice: Bool {
        @_noLocks get {
            guard running else { return false }
            switch pending {
            case .none, .restart: return true
            case .pause, .stop, .remove: return false
            }
        }
    }

    /// A play would make it a voice: it is not running, or it is fading out for a pause or
    /// stop (the play cancels that). A play during a removal's fade does nothing.
    @inlinable var becomesVoiceOnPlay: Bool {
        @_noLocks get {
            guard running else { return true }
            switch pending {
            case .pause, .stop: return true
            case .none, .restart, .remove: return false
            }
        }
    }

    /// A fade-out is in progress that something waits for (a pause, stop, seek or remove).
    @inlinable var isHalting: Bool {
        @_noLocks get {
            if pendingSeek >= 0 { return true }
            if case .none = pending { return false }
            return true
        }
    }

}

/// How a settled buffer source mixes, worked out once (`Renderer.renderChunk`): a source
/// that took `renderSource`'s fast path (a buffer at a settled gain, pan and rate, nothing
/// waiting for a fade, no seek tail, no bus ramping) mixes the same way every chunk until
/// something changes, and every change comes from a command, a ramp or the source's own
/// slow path (a wrap, the content's end), which invalidate it. Valid while `epoch` equals
/// `Renderer.planEpoch`. Trivial value; render thread.
@usableFromInline struct SettledPlan {
    /// `Renderer.planEpoch` when made (0: never valid).
    @usableFromInline var epoch: Int
    @usableFromInline var data: UnsafePointer<Float>?
    /// Where playback wraps or ends (`SourceNode.wrapFrame(count:)`): a chunk that would reach
    /// it takes the slow path.
    @usableFromInline var end: Int
    /// The engine frame it was made at: a render call that started after it can skip the
    /// source's status (it plays on frame for frame with the clock).
    @usableFromInline var since: Int64
    /// gain · fade · bus factor (times the pan gain of each channel when `kind` is 3),
    /// computed as the fast path computes it: the same samples.
    @usableFromInline var gainLeft: Float
    @usableFromInline var gainRight: Float
    /// 0: silent (gain 0), 1: plain add (gain 1), 2: one gain, 3: a gain per channel (panned).
    @usableFromInline var kind: UInt8
    /// An endless loop that wraps at `end` (its `loopEnd`) back to `loopStart`: a chunk that
    /// reaches `end` wraps in the plan too, as the slow path would (two segments, same gains).
    @usableFromInline var wraps: Bool
    @usableFromInline var loopStart: Int
    @usableFromInline var route: Int

    /// Never valid (epoch 0).
    @inlinable init() {
        epoch = 0
        data = nil
        end = 0
        since = 0
        gainLeft = 0
        gainRight = 0
        kind = 0
        wraps = false
        loopStart = 0
        route = 0
    }
}

/// One source of the renderer's dense settled list (`Renderer.settledList`): its slot, its
/// settled plan's mix, its position kept here and written to its node as it moves (through
/// `node_position`, so the node always holds it), in the C layout the batch kernel reads
/// (`Kernels.mixSettled`). The list holds every occupied slot, in slot order (the mix adds
/// sources in the same order either way: the same samples), and is walked instead of the
/// slots while every occupied source is settled and no plan was invalidated since it was
/// made (`Renderer.settledEpoch`). Trivial value; render thread.
@usableFromInline typealias SettledEntry = Kernels.SettledEntry

/// Render-side state of a bus: gate × duck × bus gain, applied to each of its sources on
/// their way to the master (with the volume of its class). Thread: the render thread once
/// installed.
@usableFromInline struct BusNode {
    @usableFromInline let id: BusID
    @usableFromInline var gate: LinearRamp
    @usableFromInline var duck = DuckEnvelope()
    @usableFromInline var gain: LinearRamp
    /// The ringer volume applies instead of the system volume.
    @usableFromInline let isRinger: Bool
    /// Being removed: the gate ramps to zero, then the bus and its sources leave the graph.
    @usableFromInline var closing = false
    /// Its sources count as voices and are subject to voice limits (false for the engine's
    /// own buses: call audio and system sounds).
    @usableFromInline let limitsVoices: Bool
    /// Voices its sources may have at once; 0: no limit of its own.
    @usableFromInline var maxVoices = 0
    /// Sidechains keyed on this bus: while > 0 its sources' mix is measured.
    @usableFromInline var keyUsers = 0
    /// Sum of squares of its sources' samples in the current 10 ms window (key buses).
    @usableFromInline var keyEnergy: Float = 0
    /// Mean square of the last whole window (key buses).
    @usableFromInline var keyMeanSquare: Float = 0
    /// The sidechain that ducks this bus (nil: none).
    @usableFromInline var sidechain: Sidechain?
    /// The sidechain's duck is in force.
    @usableFromInline var sidechainDucking = false
    /// Frames the key has been at or below the threshold while ducking.
    @usableFromInline var sidechainBelowFrames = 0

    init(id: BusID, volumeClass: VolumeClass, gateOpen: Bool, gain: Float, limitsVoices: Bool = true, maxVoices: Int = 0) {
        self.id = id
        self.limitsVoices = limitsVoices
        self.maxVoices = maxVoices
        isRinger = volumeClass == .ringer
        gate = LinearRamp(value: gateOpen ? 1 : 0)
        self.gain = LinearRamp(value: gain)
    }
}
