import Synchronization
import TuttiALSA
import TuttiEngine

/// Where an `AudioEngine` plays when it drives a device itself. Value type: any thread.
public struct OutputConfiguration: Sendable, Equatable {
    /// The kind of device. The raw values are the C ABI's `TUTTI_BACKEND_*`.
    public enum Backend: Int32, Sendable, CaseIterable {
        /// An ALSA PCM (a sound card, or a sound server through its ALSA plugin).
        case alsa = 0
        /// A JACK server (not built into this version: `startOutput` throws `device`).
        case jack = 1
    }

    /// The kind of device.
    public var backend = Backend.alsa
    /// ALSA PCM name or JACK server name; nil: the backend's default.
    public var device: String?
    /// Period size to ask for, frames; nil: the backend's default.
    public var periodFrames: Int?
    /// Periods in the device buffer to ask for; nil: the backend's default.
    public var periodCount: Int?

    /// The default device of the default backend (ALSA "default").
    public init() {}
}

/// The running output of an engine. Thread: behind `AudioEngine.output`'s lock.
struct RunningOutput: @unchecked Sendable {
    let alsa: ALSAOutput
}

extension AudioEngine {
    /// Play on a device from a dedicated real-time thread (the backend's), instead of pull
    /// mode: while it runs, `render(into:frameCount:)` returns false. Device loss, xruns and
    /// the device's return come as events. Throws `invalidArgument` for a bad setting,
    /// `state` if an output already runs or a pull render is in progress, `device` when the
    /// device cannot be opened (the message says why). Any thread.
    public func startOutput(_ configuration: OutputConfiguration = OutputConfiguration()) throws(TuttiError) {
        if let p = configuration.periodFrames, !(16...65_536).contains(p) {
            throw TuttiError(.invalidArgument, "periodFrames must be in 16…65536, got \(p)")
        }
        if let n = configuration.periodCount, !(2...64).contains(n) {
            throw TuttiError(.invalidArgument, "periodCount must be in 2…64, got \(n)")
        }
        guard configuration.backend == .alsa else {
            throw TuttiError(.device, "the JACK backend is not built into this version of Tutti (use ALSA)")
        }
        try output.withLock { (running: inout RunningOutput?) throws(TuttiError) in
            guard running == nil else { throw TuttiError(.state, "an output is already running") }
            guard renderOwner.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged else {
                throw TuttiError(.state, "a pull render is in progress on another thread")
            }
            var alsaConfiguration = ALSAOutputConfiguration(device: configuration.device ?? "default")
            if let p = configuration.periodFrames { alsaConfiguration.periodFrames = p }
            if let n = configuration.periodCount { alsaConfiguration.periodCount = n }
            do {
                let alsa = try ALSAOutput(
                    renderer: renderer, configuration: alsaConfiguration, log: { _ in },
                    onEvent: { [weak self] e in self?.deviceEvent(e) })
                try alsa.start()
                running = RunningOutput(alsa: alsa)
            } catch {
                renderOwner.store(0, ordering: .releasing)
                throw TuttiError(.device, "ALSA device \"\(alsaConfiguration.device)\": \(error)")
            }
        }
    }

    /// Stop the output (if one runs): its thread ends and the device closes; pull rendering
    /// works again. Never called from the output's own threads. Any thread.
    public func stopOutput() {
        let stopped = output.withLock { (running: inout RunningOutput?) -> RunningOutput? in
            defer { running = nil }
            return running
        }
        guard let stopped else { return }
        stopped.alsa.stop()
        renderOwner.store(0, ordering: .releasing)
    }

    /// Whether an output runs.
    public var isOutputRunning: Bool { output.withLock { $0 != nil } }

    /// What a running output reports: xruns and latency (frames of the device buffer).
    var outputStatus: (xruns: Int, latencyFrames: Int) {
        output.withLock { running in
            guard let alsa = running?.alsa else { return (0, 0) }
            return (alsa.xrunCount, alsa.negotiated.bufferFrames)
        }
    }

    /// A backend's event, on its supervisor thread: queued for the host.
    private func deviceEvent(_ event: ALSAEvent) {
        switch event {
        case .xrun(let total): reportDeviceEvent(.xrun(count: total))
        case .deviceLost(_, let message): reportDeviceEvent(.deviceLost(device: "alsa", reason: message))
        case .deviceRestored: reportDeviceEvent(.deviceRestored(device: "alsa"))
        default: break
        }
    }
}
