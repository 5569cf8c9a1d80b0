import TuttiEngine

/// One output backend: plays a `Renderer` on a device from a real-time thread of its own (or
/// of the sound server's), reports what the device granted, its faults and its end the same
/// way whatever the device. ALSA (`ALSAOutput`) and JACK (`JACKOutput`) implement it; the
/// session layer (`AudioEngine.startOutput`) and `tutti play` drive any of them through it.
///
/// Threads: the control thread (the one that made it) starts, stops and polls it; every
/// member below may also be read from any thread unless it says otherwise. Inside, each
/// backend has its render thread (never locks, allocates or logs), a supervisor (normal
/// priority: faults, reconnects, events) and, when an `onEvent` callback was given, an
/// event-delivery thread that calls it (`OutputEventDelivery`).
public protocol OutputBackend: AnyObject, Sendable {
    /// The backend's name as the CLI, the C ABI and the docs spell it: "alsa", "jack".
    static var name: String { get }

    /// Checks what can be checked before the engine exists and says at which rate the engine
    /// must run: nil when the backend plays at the engine's rate (ALSA asks the device for it),
    /// else the device's own rate (JACK: the server's). Throws `TuttiError` for bad settings,
    /// a device that is not there or a destination it does not have. Control thread.
    static func probe(_ settings: OutputSettings, channelCount: Int, busNames: [String]) throws(TuttiError) -> Int?

    /// The destinations one written destination names (`OutputSettings.addBusDestination`):
    /// ALSA one PCM (its name may hold commas, as in `hw:0,0`), JACK a comma-separated list
    /// of ports. Any thread.
    static func destinations(parsing text: String) -> [String]

    /// Opens and negotiates at once (so configuration and device errors surface here) for
    /// `renderer`'s rate and channels; nothing plays before `start`. `log` gets human-readable
    /// lines from the supervisor (default: stderr); `onEvent` gets every event, in order, on
    /// the output's event-delivery thread (it may call `stop()`); the same events also queue
    /// for `pollEvents()`. Throws `TuttiError`. Control thread.
    init(
        renderer: Renderer, settings: OutputSettings, log: (@Sendable (String) -> Void)?,
        onEvent: (@Sendable (OutputEvent) -> Void)?) throws(TuttiError)

    /// The render side it drives (one output per renderer at a time).
    var renderer: Renderer { get }
    /// What the device granted and how it plays now: rate, period, latency, xruns, frames and
    /// each output bus. Any thread.
    var status: OutputStatus { get }
    /// How the render thread is scheduled once started (for reports), e.g. "SCHED_FIFO
    /// priority 50"; "not started" before `start`.
    var schedulingNote: String { get }
    /// Frames before this one may be rendered (default: no limit). A control thread that
    /// queues commands ahead sets it to the frame of the first command it has not queued yet,
    /// so a late control thread delays the output, never changes it. Any thread.
    var renderHorizon: Int64 { get set }
    /// The engine clock: frames rendered so far. Any thread.
    var framesRendered: Int64 { get }
    /// True once the frame limit given to `start` has been played, or the output gave up
    /// (`failure`). Any thread.
    var isFinished: Bool { get }
    /// Why the output stopped for good (the device did not come back within
    /// `ReconnectPolicy.timeout`); nil while it plays or after a normal finish. Any thread.
    var failure: TuttiError? { get }

    /// Starts playing from engine frame 0. With `frameLimit`, the output stops after that many
    /// frames and reports `finished`. Throws `TuttiError`. Control thread.
    func start(frameLimit: Int64?) throws(TuttiError)
    /// Stops the output's threads (joined) and closes the device. `drain`: first stop
    /// rendering and let the device play out what it holds (only when it is healthy; blocks
    /// for about the output's latency). Idempotent.
    /// Control thread, or the event-delivery thread (from `onEvent`).
    func stop(drain: Bool)
    /// Blocks until the frame limit has been played or the output gave up; false when
    /// `timeoutSeconds` passed first (nil: no limit). Control thread.
    func waitUntilFinished(timeoutSeconds: Double?) -> Bool
    /// The events since the last call, in order. Control thread.
    func pollEvents() -> [OutputEvent]
}

/// What every backend is asked, in one vocabulary (a backend that cannot honour a setting
/// that is not at its default throws `TuttiError` (`invalidArgument`) naming it). Value
/// type: any thread.
public struct OutputSettings: Sendable {
    /// ALSA: the PCM of the main output bus (nil: "default"). JACK: the server's name (nil:
    /// `JACK_DEFAULT_SERVER`, else "default").
    public var device: String?
    /// The client name a sound server shows (JACK; JACK appends a suffix when it is taken).
    public var clientName = "tutti"
    /// Where each output bus plays, by bus name (the engine's `routes`; the first is main).
    /// ALSA: one PCM per bus (main defaults to `device`; name every bus past main, or none:
    /// then only main plays). JACK: one port per channel for the bus's port group (main
    /// defaults to the physical playback ports; a bus past main not named stays
    /// unconnected).
    public var busDestinations: [String: [String]] = [:]
    /// Leave main's ports unconnected (JACK; a patchbay connects them).
    public var leaveUnconnected = false
    /// Period (one render block and one device write) to ask for, frames; nil: the backend's
    /// default (ALSA 1024). A server that sets it itself (JACK) takes only nil.
    public var periodFrames: Int?
    /// Periods of buffering (2…64); nil: the backend's default. ALSA: the periods in the
    /// device buffer (default 4). PipeWire: rendered ahead of the graph on a thread of Tutti's
    /// own, in periods of `periodFrames` (default 1024), for main's stream alone (nil: render
    /// in the graph's cycle). JACK takes only nil.
    public var periodCount: Int?
    /// Sample formats in order of preference; nil: the backend's (ALSA: float32, s32, s16;
    /// JACK: float32 only).
    public var sampleFormats: [OutputSampleFormat]?
    /// An input source fed from the device's capture, one captured frame per rendered frame,
    /// on the render thread; nil: playback only.
    public var capture: InputSource?
    /// ALSA: the capture PCM (one name; default: the main PCM). JACK: the ports connected to
    /// the input ports `in_1 …` in order (default: none).
    public var captureSources: [String] = []
    /// SCHED_FIFO priority for a render thread the backend starts itself (ALSA; default 50);
    /// nil: normal scheduling. PipeWire: given to the stream's data thread when PipeWire's
    /// module-rt has not made it real-time (nil: left as PipeWire made it). A server's own
    /// thread (JACK) is scheduled by the server: only the default is accepted.
    public var realtimePriority: Int32? = 50
    /// `mlockall` before starting (ALSA; a refusal is logged, not fatal).
    public var lockMemory = false
    /// What to do when the device is lost.
    public var reconnect = ReconnectPolicy()
    /// Watch the desktop while playing: other applications' audio, reported as
    /// `OutputEvent.otherAudioChanged`, and the sink the output plays to, reported as
    /// `OutputEvent.routeChanged` (it went away, the output was moved to another, its sound
    /// card's active port switched): PipeWire only (the running playback streams of other
    /// processes, the sinks and their devices, from a watcher thread of its own; see
    /// docs/backends.md); ALSA and JACK see no other applications and ignore it. Default true.
    public var watchDesktop = true
    /// The former name of `watchDesktop` (it drives the route following too): reads and
    /// writes it. Deprecated: kept for one release. Any thread (a value).
    @available(*, deprecated, renamed: "watchDesktop")
    public var watchOtherAudio: Bool {
        get { watchDesktop }
        set { watchDesktop = newValue }
    }
    /// The `media.role` of main's stream (PipeWire; ALSA and JACK ignore it). Default "Music";
    /// `AudioEngine.startOutput` sets it from the engine's sessions (`MediaRole.forMix(of:)`).
    public var mediaRole = "Music"
    /// One stream for the whole mix (`.single`, the default) or one per session
    /// (`.perSession`: PipeWire only, for the sessions in `sessionStreams`; ALSA and JACK
    /// refuse it). See docs/backends.md, "Streams per session".
    public var streams: StreamLayout = .single
    /// With `streams` `.perSession`: the sessions that get a stream of their own, each the
    /// engine bus it mixes on, its name and its `media.role`. `AudioEngine.startOutput` and
    /// `tutti play` set it from the sessions that exist when the output opens (PipeWire adds
    /// later ones with `PipeWireOutput.addSessionStream`).
    public var sessionStreams: [SessionStream] = []
    /// Called on the render thread right before and after each cycle's render (e.g. the
    /// RealtimeSanitizer's hooks); nil: nothing.
    public var realtimeScope: RealtimeScope?

    /// The defaults above: the backend's default device, main bus only.
    public init(device: String? = nil) { self.device = device }
}

/// How an output lays the mix out in streams a sound server shows. Value type: any thread.
public enum StreamLayout: String, Sendable, CaseIterable {
    /// One stream (per output bus) carries everything.
    case single
    /// Each session plays through a stream of its own (PipeWire), named after it, with its
    /// `media.role`; main's stream keeps what belongs to no session.
    case perSession = "per-session"
}

/// A session that plays through a stream of its own (`OutputSettings.sessionStreams`). Value
/// type: any thread.
public struct SessionStream: Sendable, Equatable {
    /// The session's name (its scene id): the stream's `media.name`, and `node.name`
    /// "CLIENT-NAME".
    public var name: String
    /// The engine bus the session mixes on. Once that bus has left the engine (the session was
    /// removed) the stream is closed.
    public var bus: BusID
    /// The stream's `media.role` (e.g. "Music", "Game", "Communication", "Notification").
    public var mediaRole: String

    /// The slot of `bus`.
    public var busSlot: Int { bus.slot }

    /// A session stream of these values.
    public init(name: String, bus: BusID, mediaRole: String) {
        self.name = name
        self.bus = bus
        self.mediaRole = mediaRole
    }
}

/// Sample formats a device can be written in (the engine's byte order, little endian). Value
/// type: any thread.
public enum OutputSampleFormat: String, Sendable, CaseIterable {
    /// 32-bit float, 32-bit integer (24-bit dithered codes in the top bits), 16-bit integer.
    case float32, s32, s16

    /// Bytes of one sample (one channel of one frame).
    public var bytesPerSample: Int { self == .s16 ? 2 : 4 }
}

/// How an output plays: what the device granted and what happened since start. Value type:
/// any thread.
public struct OutputStatus: Sendable, Equatable, CustomStringConvertible {
    /// The backend (`OutputBackend.name`).
    public var backend: String
    /// The device as the backend names it: the ALSA PCM, or the JACK server and client.
    public var device: String
    /// Frames per second, the engine's rate.
    public var sampleRate: Int
    /// Channels per frame, the engine's.
    public var channelCount: Int
    /// The sample format the device is written in.
    public var sampleFormat: OutputSampleFormat
    /// Frames per period (one device write, or one server cycle).
    public var periodFrames: Int
    /// Output latency in frames: ALSA the device buffer, JACK the ports' playback latency.
    public var latencyFrames: Int
    /// Xruns recovered since start.
    public var xrunCount: Int
    /// Frames rendered since start (the engine clock).
    public var framesRendered: Int64
    /// Frames the device accepted since start.
    public var framesWritten: Int64
    /// Each output bus that plays, main first.
    public var buses: [OutputBusStatus]
    /// The device's own frame clock at the cycle that played engine frame 0 (JACK's frame
    /// time), to line the output up with other clients' recordings; nil before that, or when
    /// the device has no such clock (ALSA).
    public var startDeviceFrame: Int64?

    /// A status of these values.
    public init(
        backend: String, device: String, sampleRate: Int, channelCount: Int, sampleFormat: OutputSampleFormat, periodFrames: Int,
        latencyFrames: Int, xrunCount: Int, framesRendered: Int64, framesWritten: Int64, buses: [OutputBusStatus],
        startDeviceFrame: Int64? = nil
    ) {
        self.backend = backend
        self.device = device
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleFormat = sampleFormat
        self.periodFrames = periodFrames
        self.latencyFrames = latencyFrames
        self.xrunCount = xrunCount
        self.framesRendered = framesRendered
        self.framesWritten = framesWritten
        self.buses = buses
        self.startDeviceFrame = startDeviceFrame
    }

    /// `latencyFrames` in seconds.
    public var latencySeconds: Double { Double(latencyFrames) / Double(max(sampleRate, 1)) }

    /// One line: device, rate, channels, format, period, latency.
    public var description: String {
        "\(backend) \"\(device)\": \(sampleRate) Hz, \(channelCount) ch, \(sampleFormat.rawValue), period \(periodFrames) frames, "
            + "latency \(latencyFrames) frames (\(milliseconds(latencySeconds)) ms)"
    }
}

/// How one output bus (a named output mix: the engine's `routes`) plays. Value type: any thread.
public struct OutputBusStatus: Sendable, Equatable {
    /// The bus's name (the first is main).
    public var name: String
    /// Where it plays: the ALSA PCM, or the JACK ports it is connected to (comma-separated;
    /// empty when unconnected).
    public var destination: String
    /// Xruns on this bus's device since start (JACK counts per client: the same for every bus).
    public var xrunCount: Int
    /// Its output latency in frames.
    public var latencyFrames: Int
    /// Frames rendered for this bus that its device never got (0 for main, which paces the
    /// render thread).
    public var framesDropped: Int64
    /// Its device is lost and being reopened.
    public var isLost: Bool
    /// It is a session's own stream (`OutputSettings.streams` `.perSession`, PipeWire; `name`
    /// is the session's), not one of the engine's output buses.
    public var isSessionStream: Bool

    /// A bus status of these values.
    public init(
        name: String, destination: String, xrunCount: Int, latencyFrames: Int, framesDropped: Int64, isLost: Bool,
        isSessionStream: Bool = false
    ) {
        self.name = name
        self.destination = destination
        self.xrunCount = xrunCount
        self.latencyFrames = latencyFrames
        self.framesDropped = framesDropped
        self.isLost = isLost
        self.isSessionStream = isSessionStream
    }
}

/// Seconds as milliseconds with one decimal, e.g. "5.3" (no Foundation in the C library).
package func milliseconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10_000).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

extension OutputSettings {
    /// Adds one output bus's destination written `NAME=DEST` (as `tutti play --bus-output` /
    /// `--route` and the C ABI's `routes` take it), DEST read by `backend`
    /// (`OutputBackend.destinations(parsing:)`). Throws `invalidConfiguration` for a text that
    /// is not NAME=DEST or a bus given twice; nothing is changed then. Any thread.
    public mutating func addBusDestination(_ text: String, backend: any OutputBackend.Type) throws(TuttiError) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex, text.index(after: eq) != text.endIndex else {
            throw TuttiError(.invalidArgument, "\"\(text)\" is not NAME=DEST")
        }
        let name = String(text[..<eq])
        guard busDestinations[name] == nil else {
            throw TuttiError(.invalidArgument, "output bus \"\(name)\" is given twice")
        }
        busDestinations[name] = backend.destinations(parsing: String(text[text.index(after: eq)...]))
    }

    /// The checks every backend makes: ranges, bus names (`busNames`: the engine's output
    /// buses, main first), capture sources without a capture. Throws `invalidConfiguration`
    /// naming the setting. Control thread.
    package func validate(busNames: [String]) throws(TuttiError) {
        if let p = periodFrames, !(1...65_536).contains(p) {
            throw TuttiError(.invalidArgument, "periodFrames must be in 1…65536, got \(p)")
        }
        if let n = periodCount, !(2...64).contains(n) {
            throw TuttiError(.invalidArgument, "periodCount must be in 2…64, got \(n)")
        }
        if sampleFormats?.isEmpty == true { throw TuttiError(.invalidArgument, "sampleFormats is empty") }
        for name in busDestinations.keys.sorted() where !busNames.contains(name) {
            throw TuttiError(
                .invalidArgument,
                "busDestinations: no output bus \"\(name)\" (the engine's buses: \(busNames.joined(separator: ", ")))")
        }
        if capture == nil, !captureSources.isEmpty {
            throw TuttiError(.invalidArgument, "captureSources without capture: give the input source to capture into")
        }
        try reconnect.validate()
    }
}
