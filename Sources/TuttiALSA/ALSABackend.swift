import TuttiEngine
import TuttiOutput

// `ALSAOutput` as an `OutputBackend`: `OutputSettings` in ALSA's terms.

extension ALSAOutput {
    /// ALSA plays at the engine's rate (the device is asked for it), so nil; throws
    /// `TuttiError` (`invalidArgument`) for settings ALSA cannot use (nothing is opened).
    /// Control thread.
    public static func probe(_ settings: OutputSettings, channelCount: Int, busNames: [String]) throws(TuttiError) -> Int? {
        _ = try configuration(settings, busNames: busNames)
        return nil
    }

    /// One PCM: the whole text (ALSA names may hold commas, `hw:0,0`). Any thread.
    public static func destinations(parsing text: String) -> [String] { [text] }

    /// Opens the PCMs `settings` name for `renderer` (see `OutputBackend`). A PCM that cannot
    /// be opened or cannot agree is a `.device` error naming it. Control thread.
    public convenience init(
        renderer: Renderer, settings: OutputSettings, log: (@Sendable (String) -> Void)?,
        onEvent: (@Sendable (OutputEvent) -> Void)?
    ) throws(TuttiError) {
        let configuration = try Self.configuration(settings, busNames: renderer.configuration.outputBuses)
        do {
            try self.init(renderer: renderer, configuration: configuration, log: log, onEvent: onEvent)
        } catch let error as TuttiError {
            throw error
        } catch let error as ALSAError {
            switch error {
            // These name their own PCM.
            case .capture, .bus: throw TuttiError(.device, "\(error)")
            case .invalidConfiguration: throw TuttiError(.invalidArgument, "\(error)")
            default: throw TuttiError(.device, "ALSA device \"\(configuration.device)\": \(error)")
            }
        } catch {
            throw TuttiError(.device, "ALSA device \"\(configuration.device)\": \(error)")
        }
    }

    /// `settings` as an `ALSAOutputConfiguration`: main's PCM is `busDestinations[main]` or
    /// `device` ("default"); every bus past main needs one PCM, or none does.
    static func configuration(_ settings: OutputSettings, busNames: [String]) throws(TuttiError) -> ALSAOutputConfiguration {
        try settings.validate(busNames: busNames)
        if settings.leaveUnconnected {
            throw TuttiError(.invalidArgument, "leaveUnconnected: an ALSA PCM is always connected")
        }
        if settings.streams != .single {
            throw TuttiError(.invalidArgument, "streams per-session: PipeWire only (an ALSA PCM plays one mix)")
        }
        for (name, pcms) in settings.busDestinations.sorted(by: { $0.key < $1.key }) where pcms.count != 1 {
            throw TuttiError(.invalidArgument, "busDestinations[\"\(name)\"]: ALSA takes one PCM per output bus, got \(pcms.count)")
        }
        if settings.captureSources.count > 1 {
            throw TuttiError(.invalidArgument, "captureSources: ALSA captures from one PCM, got \(settings.captureSources.count)")
        }
        let main = busNames.first ?? "main"
        var c = ALSAOutputConfiguration(device: settings.busDestinations[main]?.first ?? settings.device ?? "default")
        let others = busNames.dropFirst()
        if others.contains(where: { settings.busDestinations[$0] != nil }) {
            for name in others {
                guard let pcm = settings.busDestinations[name]?.first else {
                    throw TuttiError(
                        .invalidArgument,
                        "busDestinations: output bus \"\(name)\" has no ALSA PCM (name every bus past main, or none)")
                }
                c.busDevices.append(pcm)
            }
        }
        if let p = settings.periodFrames { c.periodFrames = p }
        if let n = settings.periodCount { c.periodCount = n }
        if let formats = settings.sampleFormats { c.formats = formats }
        c.capture = settings.capture
        c.captureDevice = settings.captureSources.first
        c.realtimePriority = settings.realtimePriority
        c.lockMemory = settings.lockMemory
        c.reconnect = settings.reconnect
        c.realtimeScope = settings.realtimeScope
        return c
    }
}
