import Foundation
import TuttiALSA
import TuttiEngine
import TuttiJACK

/// `tutti bench loopback`: plays clicks and captures through an input source with a
/// recording tap, finds each click in the capture and reports the round trip. JACK: a client
/// whose `out_1` is connected to its own `in_1`. ALSA: full duplex, the capture PCM hearing
/// the playback PCM (PulseAudio: the null sink's monitor). Both backends feed the input one
/// captured frame per rendered frame, so the delay between a click's engine frame and the
/// frame it comes back at is the round trip. Control thread.
enum LoopbackBench {
    struct Result {
        var backend = "jack"
        /// The JACK server, or the ALSA playback → capture PCMs.
        var serverName: String
        var sampleRate: Int
        var bufferFrames: Int
        /// Round trip of each click found, frames.
        var roundTrips: [Int]

        var report: String {
            guard let first = roundTrips.first else { return "loopback: no click came back" }
            let ms = Double(first) * 1000 / Double(sampleRate)
            let same = roundTrips.allSatisfy { $0 == first }
            let place =
                backend == "jack"
                ? "JACK server \"\(serverName)\" (\(sampleRate) Hz, \(bufferFrames) frames per cycle)"
                : "ALSA \(serverName) (\(sampleRate) Hz, \(bufferFrames) frames per period)"
            return String(
                format: "loopback on %@: round trip %d frames = %.3f ms%@ (%d clicks)",
                place, first, ms, same ? "" : " (varies: \(roundTrips))", roundTrips.count)
        }

        var json: String {
            let ms = roundTrips.map { String(format: "%.3f", Double($0) * 1000 / Double(sampleRate)) }
            return
                "{\"backend\":\"\(backend)\",\"sampleRate\":\(sampleRate),\"bufferFrames\":\(bufferFrames),\"roundTripFrames\":[\(roundTrips.map(String.init).joined(separator: ","))],\"roundTripMs\":[\(ms.joined(separator: ","))]}"
        }
    }

    /// An engine at `rate` with `channels` output channels playing a click of 0.5 on every
    /// channel every `spacing` frames (the first at `spacing`), and a mono input with a tap.
    static func clickEngine(rate: Int, channels: Int, clicks: Int) throws -> (Engine, InputSource, spacing: Int, total: Int) {
        var engineConfiguration = EngineConfiguration(sampleRate: rate, channelCount: channels)
        engineConfiguration.transportFadeSeconds = 0
        let engine = try Engine(configuration: engineConfiguration)
        let spacing = rate / 4
        let total = spacing * (clicks + 1)
        let bus = try engine.addBus()
        let input = try engine.addSource(.input(channelCount: 1, capacityFrames: 1 << 16, tapCapacityFrames: total * 2), bus: bus, gain: 0)
        try engine.send(.play(input))
        let capture = try engine.input(input).unwrap()
        var samples = [Float](repeating: 0, count: total * channels)
        for k in 1...clicks { for c in 0..<channels { samples[k * spacing * channels + c] = 0.5 } }
        let click = try engine.addSource(
            .buffer(AudioBuffer(interleaved: samples, channelCount: channels, sampleRate: Double(rate))), bus: bus)
        try engine.send(.play(click))
        return (engine, capture, spacing, total)
    }

    /// What `capture` recorded while an output played: drained until `finished(timeout)` says
    /// the output is done (at most `seconds` + 10 s), then once more after `stop()`.
    static func record(
        _ capture: InputSource, engine: Engine, seconds: Double, finished: (Double?) -> Bool, stop: () -> Void
    ) -> [Float] {
        var recorded: [Float] = []
        var drain = [Float](repeating: 0, count: 8_192)
        func take() {
            while case let n = drain.withUnsafeMutableBufferPointer({ capture.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        }
        let deadline = Date().addingTimeInterval(seconds + 10)
        while !finished(0.01), Date() < deadline {
            engine.pollEvents()
            take()
        }
        stop()
        take()
        return recorded
    }

    /// The round trip of each click in `recorded` (which starts at engine frame `start`).
    static func roundTrips(_ recorded: [Float], start: Int, spacing: Int, clicks: Int) -> [Int] {
        var trips: [Int] = []
        for k in 1...clicks {
            let sent = k * spacing
            let from = max(0, sent - start)
            let to = min(recorded.count, sent + spacing - start)
            guard from < to, let i = recorded[from..<to].firstIndex(where: { abs($0) > 0.25 }) else { continue }
            trips.append(start + i - sent)
        }
        return trips
    }

    /// ALSA full duplex: play `clicks` clicks 0.25 s apart on `device` (stereo, 48 kHz,
    /// `periodFrames` per period) and find them in the capture of `captureDevice` (default: `device`).
    static func runALSA(device: String, captureDevice: String?, periodFrames: Int, clicks: Int = 4) throws -> Result {
        let rate = 48_000
        let (engine, capture, spacing, total) = try clickEngine(rate: rate, channels: 2, clicks: clicks)
        var configuration = ALSAOutputConfiguration(device: device)
        configuration.periodFrames = periodFrames
        configuration.capture = capture
        configuration.captureDevice = captureDevice
        let output = try ALSAOutput(engine: engine, configuration: configuration)
        try output.start(frameLimit: Int64(total))
        let recorded = record(
            capture, engine: engine, seconds: Double(total) / Double(rate), finished: { output.waitUntilFinished(timeoutSeconds: $0) },
            stop: { output.stop() })
        let trips = roundTrips(recorded, start: Int(capture.recordingStartFrame ?? 0), spacing: spacing, clicks: clicks)
        let n = output.negotiated
        return Result(
            backend: "alsa", serverName: "\"\(device)\" → \"\(output.captureDevice ?? device)\"", sampleRate: rate,
            bufferFrames: n.periodFrames, roundTrips: trips)
    }

    /// Play `clicks` clicks 0.25 s apart and measure each one's return.
    static func run(serverName: String?, clientName: String, clicks: Int = 4) throws -> Result {
        var configuration = JACKOutputConfiguration(clientName: clientName, serverName: serverName, connection: .none)
        let client = try JACKClient(configuration: configuration)
        let rate = client.sampleRate
        let (engine, capture, spacing, total) = try clickEngine(rate: rate, channels: 1, clicks: clicks)
        client.close()
        configuration.capture = capture
        configuration.loopback = true
        let output = try JACKOutput(engine: engine, configuration: configuration)
        try output.start(frameLimit: Int64(total))
        let buffer = output.negotiated.bufferFrames
        let recorded = record(
            capture, engine: engine, seconds: Double(total) / Double(rate), finished: { output.waitUntilFinished(timeoutSeconds: $0) },
            stop: { output.stop() })
        let trips = roundTrips(recorded, start: Int(capture.recordingStartFrame ?? 0), spacing: spacing, clicks: clicks)
        return Result(
            serverName: output.negotiated.serverName, sampleRate: rate, bufferFrames: buffer, roundTrips: trips)
    }
}

extension Optional {
    fileprivate func unwrap() throws -> Wrapped {
        guard let self else { throw TuttiError(.state, "the input source went away") }
        return self
    }
}
