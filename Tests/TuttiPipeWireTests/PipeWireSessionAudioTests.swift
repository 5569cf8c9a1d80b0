import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiOutput
import TuttiPipeWire
import TuttiTestSupport

/// Per-session streams carry each session's share, and the sink hears their sum: what a single
/// stream would play, not twice it.
@Suite(.serialized) struct PipeWireSessionAudioTests {
    /// Three buses with a tone each (440 Hz at 0.3, 1 000 Hz at 0.2, 2 200 Hz at 0.1); the
    /// first two play through streams of their own, the third in main's. The null sink's
    /// monitor hears each tone once, at its level (the streams add up to the single mix), and
    /// each session stream took every frame with no ring fault.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func theSinkHearsTheSumOfTheSessionStreams() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try Engine()
        let tones: [(Double, Float)] = [(440, 0.3), (1_000, 0.2), (2_200, 0.1)]
        var buses: [BusID] = []
        for (frequency, amplitude) in tones {
            let bus = try engine.addBus()
            let tone = try engine.addSource(.tone(frequency: frequency, amplitude: amplitude), bus: bus, loop: true)
            try engine.send(.play(tone))
            buses.append(bus)
        }
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.clientName = "tutti-test"
        settings.periodFrames = 2_048
        settings.watchDesktop = false
        settings.streams = .perSession
        settings.sessionStreams = [
            SessionStream(name: "low", bus: buses[0], mediaRole: "Music"),
            SessionStream(name: "high", bus: buses[1], mediaRole: "Game"),
        ]
        let collector = Collector()
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let recording = try PipeWireServer.Recording(server, name: "sum")
        let frames = 4 * 48_000
        try output.start(frameLimit: Int64(frames))
        // A session made while playing: a stream of its own from the spares.
        let lateBus = try engine.addBus()
        let late = try engine.addSource(.tone(frequency: 3_300, amplitude: 0.15), bus: lateBus, loop: true)
        try engine.send(.play(late))
        #expect(output.addSessionStream("late", bus: lateBus, role: "Notification"))
        let finished = output.waitUntilFinished(timeoutSeconds: 60)
        let status = output.status
        output.stop(drain: true)
        let clocks = output.busClocks
        usleep(500_000)
        let sum = try recording.finish()

        #expect(finished)
        #expect(status.buses.map(\.name) == ["main", "low", "high", "late"])
        #expect(clocks.map(\.name) == ["low", "high", "late"])
        for clock in clocks.prefix(2) {
            #expect(clock.framesDropped == 0 && clock.framesInserted == 0 && clock.underruns == 0, "\(clock)")
            #expect(clock.framesPlayed >= Int64(frames), "\(clock)")
        }
        let span = try #require(Measure.played(sum), "the sink is silent")
        let lateClock = try #require(clocks.last)
        #expect(lateClock.framesDropped == 0 && lateClock.underruns == 0, "\(lateClock)")
        for (frequency, amplitude) in tones + [(3_300, 0.15)] {
            let tone = Measure.medianTone(sum, in: span, low: frequency - 40, high: frequency + 40)
            print("per-session streams at the sink: \(frequency) Hz amplitude \(tone.amplitude) (rendered \(amplitude))")
            #expect(abs(tone.frequency - frequency) < 1, "\(frequency): \(tone.frequency)")
            #expect(abs(tone.amplitude - Double(amplitude)) < 0.01, "\(frequency): amplitude \(tone.amplitude)")
        }
    }
}
