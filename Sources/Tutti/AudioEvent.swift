import TuttiEngine
import TuttiPolicy

/// Something a host hears about: a policy decision, a source that ended, a device event.
/// Delivered once rendering has passed its frame, in frame order, never dropped (by polling,
/// `AudioEngine.pollEvents()`, or `AudioEngine.events()`). Value type: any thread.
public struct AudioEvent: Hashable, Sendable {
    /// The frame it happened at, on the engine clock. For a change made `.now`, the frame the
    /// engine had rendered when the call was made (it applies at the next block).
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
        /// The session was interrupted (its playing sources paused); `by` is the interrupting
        /// session, nil for a phone call or the microphone.
        case interruptionBegan(session: SessionID, reason: InterruptionReason, by: SessionID?)
        /// The interruption ended; `shouldResume` says whether it may resume (rule 2.4).
        case interruptionEnded(session: SessionID, shouldResume: Bool)
        /// The session is ducked by `by` (rule 3).
        case duckingBegan(session: SessionID, by: SessionID)
        /// The session is no longer ducked.
        case duckingEnded(session: SessionID)
        /// The output route changed (rule 7).
        case routeChanged(reason: RouteChangeReason, previous: Route, current: Route)
        /// A source that does not loop (or whose loop count ran out) played past its last frame; `frame` is the frame after its
        /// last sample. Not sent on stop or remove.
        case sourceEnded(source: SourceID, session: SessionID)
        /// A voice limit took `source`'s voice for `by` (of `session`): it fades out, stops and
        /// rewinds. `frame` is the frame of the play that took it.
        case voiceStolen(source: SourceID, by: SourceID, session: SessionID)
        /// A play of `source` (of `session`) was refused by a voice limit: every voice in its
        /// scope has a higher priority. It did not start.
        case voiceRefused(source: SourceID, session: SessionID)
        /// `secondaryAudioShouldBeSilencedHint` changed for the session (rule 10).
        case silenceSecondaryAudioHint(session: SessionID, begin: Bool)
        /// The output device missed a deadline; `count` is the total so far.
        case xrun(count: Int)
        /// The output device was lost; the backend is reconnecting.
        case deviceLost(device: String, reason: String)
        /// The output device is back.
        case deviceRestored(device: String)
        /// A streaming file source cannot read its file further (it shrank, vanished, or its
        /// tail is unreadable): it plays silence from there, counted in `underrunFrames`.
        /// `session` is nil for the engine's own sources; `reason` names the file.
        case sourceFailed(source: SourceID, session: SessionID?, reason: String)
        /// A stream, input or streaming file source ran out of data while playing: from the
        /// event's frame it plays silence (counted in `underrunFrames`) until data returns.
        /// `frames`: those missed in the render call where the run began. One event per run;
        /// while one waits to be taken, later runs of the same source are not reported.
        /// `session` is nil for the engine's own sources.
        case sourceUnderrun(source: SourceID, session: SessionID?, frames: Int64)
        /// The session (with `acceptsDelayedActivation`) asked to activate during a phone call:
        /// it waits for the call's end instead of being denied.
        case activationDelayed(session: SessionID)
        /// The call ended: the delayed activation is granted (the session activates and the
        /// sources asked for meanwhile play from this frame).
        case activationGranted(session: SessionID)
        /// The session was deactivated (or removed) while its activation was delayed.
        case activationCancelled(session: SessionID)
        /// Other apps' audio changed (`AudioEngine.setOtherAudio`, or `tutti play`'s PipeWire
        /// watcher): whether any plays, whether one is not mixable, and which apps.
        case otherAudioChanged(playing: Bool, silenceSecondary: Bool, clients: [String])
    }
}
