import CALSA
import Glibc
import TuttiDSP
import TuttiEngine
import TuttiOutput

extension OutputSampleFormat {
    var alsa: snd_pcm_format_t {
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        case .s16: SND_PCM_FORMAT_S16_LE
        }
    }

    init?(alsa: snd_pcm_format_t) {
        switch alsa {
        case SND_PCM_FORMAT_FLOAT_LE: self = .float32
        case SND_PCM_FORMAT_S32_LE: self = .s32
        case SND_PCM_FORMAT_S16_LE: self = .s16
        default: return nil
        }
    }

    /// The quantizer format: s32 carries 24-bit dithered codes in the top bits (no float
    /// path has more than 24 bits of mantissa to give).
    var quantizerFormat: SampleFormat? {
        switch self {
        case .float32: nil
        case .s32: .s24
        case .s16: .s16
        }
    }
}

/// How to open and drive the device. Value type: any thread.
public struct ALSAOutputConfiguration: Sendable {
    /// PCM name (`default`, `pulse`, `hw:0`, a name from a configuration file…); plays the
    /// engine's first output bus (`main`).
    public var device = "default"
    /// PCM names for the engine's output buses past main, in `EngineConfiguration.outputBuses`
    /// order: `busDevices[0]` plays bus 1, `busDevices[1]` bus 2, … Empty (the default): only
    /// main plays, as with a one-bus engine. Buses past the last one named are mixed and
    /// dropped; naming more PCMs than the engine has buses past main is an
    /// `invalidConfiguration` error. Every PCM is opened with main's rate, format and period
    /// (`ALSAError.bus` names one that cannot agree), and all of them are written from the
    /// one render thread (docs/backends.md, "Output buses on ALSA").
    public var busDevices: [String] = []
    /// Clock correction of the output buses past main (`busDevices`): each bus's frames are
    /// resampled by a ratio within 1 ± 0.5 % that a control loop adjusts once per period to keep
    /// the frames waiting for its PCM steady, so a device on its own clock, slower or faster than
    /// main's, neither drops frames nor runs dry (docs/backends.md, "Output buses on ALSA"). A bus
    /// on main's clock is not resampled (its frames stay bit for bit). false: never resampled.
    public var busClockCorrection = true
    /// Deprecated old name of `busDevices` (an output bus, not the device route). Any thread.
    @available(*, deprecated, renamed: "busDevices")
    public var routeDevices: [String] {
        get { busDevices }
        set { busDevices = newValue }
    }
    /// Deprecated old name of `busClockCorrection`. Any thread.
    @available(*, deprecated, renamed: "busClockCorrection")
    public var routeClockCorrection: Bool {
        get { busClockCorrection }
        set { busClockCorrection = newValue }
    }
    /// Wanted period and number of periods in the buffer: asked with the `_near` calls; the
    /// values the device grants are the ones used (`ALSAOutput.negotiated`).
    public var periodFrames = 1024
    /// Wanted number of periods in the buffer (the buffer asked is `periodFrames × periodCount`).
    public var periodCount = 4
    /// Formats in order of preference.
    public var formats: [OutputSampleFormat] = [.float32, .s32, .s16]
    /// Extra ALSA configuration text used for this open only (`snd_pcm_open_lconf`), e.g.
    /// `pcm.out { type pulse server "unix:/run/pa.sock" }`. nil: the global configuration.
    public var alsaConfig: String?
    /// SCHED_FIFO priority for the render thread; nil: do not ask. A refusal is logged and
    /// the thread runs at normal priority.
    public var realtimePriority: Int32? = 50
    /// `mlockall` before starting (refusal logged, not fatal).
    public var lockMemory = false
    /// TPDF dither for integer formats; same default seed as the offline writer, so `play`
    /// and `render` quantize identically.
    public var dither = true
    /// First state of the dither's generator: the same seed gives the same dither sequence.
    public var ditherSeed: UInt32 = 0x7075_7474
    /// Watchdog: a write that has waited more than `watchdogPeriods` periods (and at least
    /// `watchdogMinimumSeconds`, so tiny periods do not flag scheduling jitter) reports `stalled`.
    public var watchdogPeriods = 2
    /// The watchdog's lower bound in seconds, whatever the period length.
    public var watchdogMinimumSeconds = 0.020
    /// A stall longer than this is treated as a lost device: close and reopen. nil: only report.
    public var stallRestartSeconds: Double? = 2.0
    /// After a lost device: reopen with backoff, give up after `reconnect.timeout` (the
    /// output reports `gaveUp` and says why in `ALSAOutput.failure`).
    public var reconnect = ReconnectPolicy()
    /// Called on the render thread right before and after each render + conversion (e.g.
    /// `__rtsan_realtime_enter` / `__rtsan_realtime_exit`). Must be real-time safe.
    public var realtimeScope: RealtimeScope?
    /// Full duplex: an input source (`Engine.input(id)`) the render thread feeds from a capture
    /// PCM, one captured frame per rendered frame, read right before each period is rendered
    /// (docs/backends.md, "ALSA capture"). nil: playback only.
    public var capture: InputSource?
    /// The capture PCM's name; nil: `device`. It is opened at the playback's rate, format and
    /// period, with the input's channel count (anything else fails naming it).
    public var captureDevice: String?

    /// The defaults above for the PCM `device`. Value type: any thread.
    public init(device: String = "default") { self.device = device }
}

/// What the device granted. Value type: any thread.
public struct ALSANegotiated: Sendable, Equatable, CustomStringConvertible {
    /// Frames per second (Hz); always the engine's rate (a different one is refused).
    public var sampleRate: Int
    /// Channels per frame; always the engine's.
    public var channelCount: Int
    /// The sample format written.
    public var format: OutputSampleFormat
    /// Frames per period (one write, one render block).
    public var periodFrames: Int
    /// Frames the device buffer holds.
    public var bufferFrames: Int

    /// Output latency the buffer adds when full.
    public var latencySeconds: Double { Double(bufferFrames) / Double(sampleRate) }
    /// Length of one period in seconds.
    public var periodSeconds: Double { Double(periodFrames) / Double(sampleRate) }
    /// Bytes of one interleaved frame.
    public var frameBytes: Int { channelCount * format.bytesPerSample }

    /// One line for logs, e.g. "48000 Hz, 2 ch, float32, period 1024 frames (21.3 ms), buffer …".
    public var description: String {
        "\(sampleRate) Hz, \(channelCount) ch, \(format.rawValue), period \(periodFrames) frames (\(milliseconds(periodSeconds)) ms), "
            + "buffer \(bufferFrames) frames (\(milliseconds(latencySeconds)) ms)"
    }
}

extension ALSANegotiated {
    /// As the output layer's status, for the PCM `device` (counters as given).
    func status(device: String, xrunCount: Int = 0, framesRendered: Int64 = 0, framesWritten: Int64 = 0, buses: [OutputBusStatus] = [])
        -> OutputStatus
    {
        OutputStatus(
            backend: ALSAOutput.name, device: device, sampleRate: sampleRate, channelCount: channelCount, sampleFormat: format,
            periodFrames: periodFrames, latencyFrames: bufferFrames, xrunCount: xrunCount, framesRendered: framesRendered,
            framesWritten: framesWritten, buses: buses)
    }
}

/// Value type: thrown on the control thread (open, start), logged by the supervisor (reopen).
public enum ALSAError: Error, Equatable, CustomStringConvertible, Sendable {
    /// An alsa-lib call failed: which call, the code, alsa-lib's message.
    case call(String, code: Int32, message: String)
    /// The device accepts none of these formats.
    case noUsableFormat([OutputSampleFormat])
    /// The device runs at `granted` Hz, the engine at `wanted` (no resampling on this path).
    case rateMismatch(wanted: Int, granted: Int)
    /// The device has `granted` channels, the engine `wanted`.
    case channelMismatch(wanted: Int, granted: Int)
    /// The device granted a buffer of a single period: no room to write while it plays.
    case periodEqualsBuffer(frames: Int)
    /// A configuration value that cannot work (the text names it).
    case invalidConfiguration(String)
    /// An output bus's PCM granted something else than main's PCM (the text says what, naming
    /// both).
    case busMismatch(String)
    /// The PCM of an output bus past main (`busDevices`) failed to open or negotiate, or granted
    /// another format or period than main's PCM: the bus's name, its PCM, the reason.
    indirect case bus(String, device: String, ALSAError)
    /// The capture PCM (named) cannot be opened or cannot match the playback PCM: why.
    case capture(device: String, reason: String)

    /// A sentence for the user: what failed and the device's or the system's reason.
    public var description: String {
        switch self {
        case .call(let what, let code, let message): "\(what) failed: \(message) (\(code))"
        case .noUsableFormat(let f): "the device takes none of the formats \(f.map(\.rawValue).joined(separator: ", "))"
        case .rateMismatch(let w, let g): "the device runs at \(g) Hz, the engine at \(w) Hz"
        case .channelMismatch(let w, let g): "the device has \(g) channels, the engine \(w)"
        case .periodEqualsBuffer(let n): "the device granted a buffer of one period (\(n) frames); ask for more periods"
        case .invalidConfiguration(let s): "invalid ALSA configuration: \(s)"
        case .busMismatch(let s): s
        case .bus(let name, let device, let error): "output bus \(name) (PCM \"\(device)\"): \(error)"
        case .capture(let device, let reason): "capture PCM \"\(device)\": \(reason)"
        }
    }

    /// Deprecated old name of `bus(_:device:_:)`, for making the error (a `case .route` pattern
    /// is `case .bus` now: an enum case has no deprecated alias). Any thread.
    @available(*, deprecated, renamed: "bus(_:device:_:)")
    public static func route(_ name: String, device: String, _ error: ALSAError) -> ALSAError {
        .bus(name, device: device, error)
    }
    /// Deprecated old name of `busMismatch(_:)`, for making the error. Any thread.
    @available(*, deprecated, renamed: "busMismatch(_:)")
    public static func routeMismatch(_ text: String) -> ALSAError { .busMismatch(text) }
}

/// How the PCM of one output bus plays (`ALSAOutput.buses`). Value type: any thread.
public struct ALSABusStatus: Sendable, Equatable {
    /// The output bus's name (`EngineConfiguration.outputBuses`).
    public var bus: String
    /// Its PCM name.
    public var device: String
    /// What the PCM granted (at the last open); the same rate, format and period as main's.
    public var negotiated: ALSANegotiated
    /// Underruns recovered on this PCM so far.
    public var xrunCount: Int
    /// Frames this PCM has accepted so far.
    public var framesWritten: Int64
    /// Frames rendered for this bus that its PCM never got: it was full for longer than the
    /// bus's slack (two periods), or lost. Always 0 for main (main paces the render thread).
    public var framesDropped: Int64
    /// The PCM is lost and being reopened (its bus renders and is dropped meanwhile).
    public var isLost: Bool
    /// The clock correction's resampling ratio now: frames sent to this PCM per frame rendered
    /// (above 1: its device runs faster than main's). Exactly 1 while no correction is needed,
    /// and always for main (`ALSAOutputConfiguration.busClockCorrection`).
    public var clockRatio = 1.0
    /// Frames the clock correction added (negative: removed) so far:
    /// `framesWritten + framesDropped` = frames rendered for the bus + `framesCorrected`.
    public var framesCorrected: Int64 = 0
    /// Deprecated old name of `bus` (an output bus, not the device route). Any thread.
    @available(*, deprecated, renamed: "bus")
    public var route: String {
        get { bus }
        set { bus = newValue }
    }
}

/// Deprecated old name of `ALSABusStatus` (an output bus, not the device route). Any thread.
@available(*, deprecated, renamed: "ALSABusStatus")
public typealias ALSARouteStatus = ALSABusStatus
