import Foundation
import TuttiEngine
import TuttiJACK

/// `tutti bench --loopback`: plays clicks through a JACK client whose `out_1` is connected to
/// its own `in_1`, captures through an input source with a recording tap, finds each click in
/// the capture and reports the round trip. Engine frames are the server's frames (JACK
/// renders them one for one), so the delay between a click's engine frame and the frame it
/// comes back at is the round trip. Control thread.
enum LoopbackBench {
    struct Result {
        var serverName: String
        var sampleRate: Int
        var bufferFrames: Int
        /// Round trip of each click found, frames.
        var roundTrips: [Int]

        var report: String {
            guard let first = roundTrips.first else { return "loopback: no click came back" }
            let ms = Double(first) * 1000 / Double(sampleRate)
            let same = roundTrips.allSatisfy { $0 == first }
            return String(
                format: "loopback on JACK server \"%@\" (%d Hz, %d frames per cycle): round trip %d frames = %.3f ms%@ (%d clicks)",
                serverName, sampleRate, bufferFrames, first, ms, same ? "" : " (varies: \(roundTrips))", roundTrips.count)
        }

        var json: String {
            let ms = roundTrips.map { String(format: "%.3f", Double($0) * 1000 / Double(sampleRate)) }
            return
                "{\"backend\":\"jack\",\"sampleRate\":\(sampleRate),\"bufferFrames\":\(bufferFrames),\"roundTripFrames\":[\(roundTrips.map(String.init).joined(separator: ","))],\"roundTripMs\":[\(ms.joined(separator: ","))]}"
        }
    }

    /// Play `clicks` clicks 0.25 s apart and measure each one's return.
    static func run(serverName: String?, clientName: String, clicks: Int = 4) throws -> Result {
        var configuration = JACKOutputConfiguration(clientName: clientName, serverName: serverName, connection: .none)
        let client = try JACKClient(configuration: configuration)
        let rate = client.sampleRate
        var engineConfiguration = EngineConfiguration(sampleRate: rate, channelCount: 1)
        engineConfiguration.transportFadeSeconds = 0
        let engine = try Engine(configuration: engineConfiguration)
        let spacing = rate / 4
        let total = spacing * (clicks + 1)
        let bus = try engine.addBus()
        let input = try engine.addSource(.input(channelCount: 1, capacityFrames: 1 << 16, tapCapacityFrames: total * 2), bus: bus, gain: 0)
        try engine.send(.play(input))
        let capture = try engine.input(input).unwrap()
        // One sample of 0.5 every `spacing` frames, the first at `spacing`.
        var samples = [Float](repeating: 0, count: total)
        for k in 1...clicks { samples[k * spacing] = 0.5 }
        let click = try engine.addSource(.buffer(AudioBuffer(interleaved: samples, channelCount: 1, sampleRate: Double(rate))), bus: bus)
        try engine.send(.play(click))
        client.close()
        configuration.capture = capture
        configuration.loopback = true
        let output = try JACKOutput(engine: engine, configuration: configuration)
        try output.start(frameLimit: Int64(total))
        let buffer = output.negotiated.bufferFrames
        var recorded: [Float] = []
        var drain = [Float](repeating: 0, count: 8_192)
        let deadline = Date().addingTimeInterval(Double(total) / Double(rate) + 10)
        while !output.waitUntilFinished(timeout: 0.01), Date() < deadline {
            engine.pollEvents()
            while case let n = drain.withUnsafeMutableBufferPointer({ capture.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        }
        output.stop()
        while case let n = drain.withUnsafeMutableBufferPointer({ capture.readRecorded(into: $0) }), n > 0 { recorded += drain[0..<n] }
        let start = Int(capture.recordingStartFrame ?? 0)
        var trips: [Int] = []
        for k in 1...clicks {
            let sent = k * spacing
            let from = max(0, sent - start)
            let to = min(recorded.count, sent + spacing - start)
            guard from < to, let i = recorded[from..<to].firstIndex(where: { abs($0) > 0.25 }) else { continue }
            trips.append(start + i - sent)
        }
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
