import TuttiEngine
import TuttiPolicy

/// Something an output reports to the control side, the same for every backend. Value type:
/// made on the output's supervisor thread, delivered in order on its event-delivery thread
/// (`onEvent`) and queued for `OutputBackend.pollEvents()` (control thread).
public enum OutputEvent: Sendable, Equatable, CustomStringConvertible {
    /// An xrun was recovered (the device ran dry, or the server reported one); `total` since start.
    case xrun(total: Int)
    /// The device was suspended (ALSA: ESTRPIPE, a system suspend); the render thread waits
    /// while it is resumed.
    case suspended
    /// The suspended device was resumed and takes frames again.
    case resumed
    /// The device or server is gone. `reason` in words; `code` the system's error code when it
    /// has one (ALSA: negative errno from alsa-lib; ETIMEDOUT for a stall), else 0.
    case deviceLost(reason: String, code: Int32)
    /// Reopened (reconnected) after a loss: what it granted this time.
    case deviceRestored(OutputStatus)
    /// The watchdog: the device has taken no frame for `seconds`.
    case stalled(seconds: Double)
    /// The device takes frames again after a stall of `seconds`.
    case stallEnded(seconds: Double)
    /// The server changed its period (JACK's buffer size), in frames.
    case periodChanged(frames: Int)
    /// The control thread had not queued the commands for the frames due: `frames` frames of
    /// silence were played instead of rendering early (a server's callback cannot wait). The
    /// output is delayed, never changed.
    case commandsLate(frames: Int64)
    /// The capture found less than a period ready (its server delivered late) and grew its
    /// slack by a period instead of losing data: the input got a period of silence and runs
    /// that much later from now on. `slackFrames`: the slack now; `addedLatencyFrames`: the
    /// latency added since the capture started (frames at the engine rate). ALSA capture.
    case captureSlackGrown(slackFrames: Int, addedLatencyFrames: Int)
    /// Captured data was really lost or late (the slack at its maximum and still short): the
    /// input got silence for those frames; `total` frames since start. ALSA capture.
    case captureFramesMissing(total: Int64)
    /// The frame limit given to `start` has been played (`frames` written).
    case finished(frames: Int64)
    /// The device did not come back within the reconnect timeout: the output stopped for
    /// good (`OutputBackend.failure` is the same error, code `device`).
    case gaveUp(TuttiError)
    /// An event of the device of an output bus past main, named by its bus: `xrun`,
    /// `deviceLost`, `deviceRestored`, `stalled`, `stallEnded`. Such a device is reopened
    /// without stopping main; playback never ends for it.
    indirect case bus(String, OutputEvent)
    /// Other applications' audio changed, as the sound server shows it (PipeWire: the running
    /// playback streams of other processes; `OutputSettings.watchDesktop`): whether one
    /// plays, whether one is not mixable (its `media.role` is Music, Movie, Communication or
    /// none), and which applications (sorted, each once). Made on the server's watcher thread,
    /// never the render thread; the host layer hands it to the policy
    /// (`AudioEngine.setOtherAudio`).
    case otherAudioChanged(playing: Bool, silenceSecondary: Bool, clients: [String])
    /// The device the output plays to changed under it, as the sound server shows it
    /// (PipeWire: the sink the stream is linked to; `OutputSettings.watchDesktop`): the
    /// policy's route change (rule 7). `route` is where it plays now (PipeWire: `headphones`
    /// for a sink whose `device.form-factor` says headphones or headset, else `speaker`);
    /// `reason` is `oldDeviceUnavailable` when the device it played to went away (media
    /// sessions pause; `device` is then the server's fallback, the default sink, when known),
    /// `newDeviceAvailable` when it now plays to a device that came while playing (or to its
    /// first device, or the one after a loss, when that changes the route), `override` when it
    /// was moved to a device that was already there (the user picked another default sink). `device`
    /// and `previousDevice` are the devices' names (PipeWire: `node.name`; nil: none known).
    /// Made on the server's watcher thread, never the render thread; the host layer hands it
    /// to the policy (`AudioEngine.setRoute`).
    case routeChanged(route: Route, reason: RouteChangeReason, device: String?, previousDevice: String?)

    /// One line for logs and `tutti play`'s stderr.
    public var description: String {
        switch self {
        case .xrun(let n): "xrun (\(n) so far)"
        case .suspended: "device suspended"
        case .resumed: "device resumed"
        case .deviceLost(let reason, let code): "device lost: \(reason)\(code == 0 ? "" : " (\(code))")"
        case .deviceRestored(let status): "device restored: \(status)"
        case .stalled(let s): "device stalled: no frame taken for \(Int((s * 1000).rounded())) ms"
        case .stallEnded(let s): "device consuming again after \(Int((s * 1000).rounded())) ms"
        case .periodChanged(let n): "period changed to \(n) frames"
        case .commandsLate(let n): "the control thread was late: \(n) frames of silence played (the output is delayed, not changed)"
        case .captureSlackGrown(let slack, let added):
            "capture slack grown to \(slack) frames (a short read): the capture is \(added) frames later than at its start"
        case .captureFramesMissing(let n): "capture: \(n) frames missing so far (data late with the slack at its maximum)"
        case .finished(let n): "finished (\(n) frames)"
        case .gaveUp(let e): "gave up: \(e)"
        case .bus(let name, let event): "output bus \(name): \(event)"
        case .otherAudioChanged(let playing, let silence, let clients):
            playing
                ? "other apps' audio: playing (\(clients.joined(separator: ", ")))\(silence ? ", not mixable" : ", mixable")"
                : "other apps' audio: silent"
        case .routeChanged(let route, let reason, let device, let previous):
            "route: \(route.rawValue) (\(reason.rawValue)): \(previous ?? "none") → \(device ?? "none")"
        }
    }
}
