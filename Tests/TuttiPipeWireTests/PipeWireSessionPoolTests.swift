import Foundation
import Glibc
import Testing
import TuttiEngine
import TuttiOutput
import TuttiTestSupport

@testable import TuttiPipeWire

/// Session streams made and removed while playing, against a private daemon: their feeds are
/// reused and the pool grows past the spares built at open; a session stream's latency
/// includes its sink's part, as a bus stream's does.
@Suite(.serialized) struct PipeWireSessionPoolTests {
    /// A per-session PipeWire output of `engine` on `server` ("tutti-test", 2 048-frame
    /// quanta, the desktop not watched) with `sessions`' streams, playing main to the test sink
    /// (or where `busDestinations` says), and the collector of its log and events.
    static func perSessionOutput(
        _ server: PipeWireServer, _ engine: Engine, sessions: [SessionStream] = [], busDestinations: [String: [String]]? = nil
    ) throws -> (PipeWireOutput, Collector) {
        var settings = busDestinations == nil ? OutputSettings(device: PipeWireServer.sink) : OutputSettings()
        if let busDestinations { settings.busDestinations = busDestinations }
        settings.clientName = "tutti-test"
        settings.periodFrames = 2_048
        settings.watchDesktop = false
        settings.streams = .perSession
        settings.sessionStreams = sessions
        let collector = Collector()
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        return (output, collector)
    }

    /// `pw-dump`'s playback streams of client "tutti-test" (node.name → media.role).
    static func testStreams(_ server: PipeWireServer) -> [String: String] {
        let nodes = (try? PipeWireSessionStreamTests.streams(server)) ?? [:]
        return nodes.filter { $0.key.hasPrefix("tutti-test") }.mapValues { $0["media.role"] ?? "" }
    }

    /// Sessions made and removed while playing, twice as many as the spares built at open, two
    /// or three alive at a time: each live session has its stream with its role, each removed
    /// one's is gone, and no feed is built past the spares (the removed sessions' are reused).
    /// Then more sessions at once than there are spares: each gets a stream (feeds built while
    /// playing). A late session on a reused feed is heard at the sink at its level, next to a
    /// session of the start.
    @Test(
        .enabled(if: PipeWireServer.isAvailable && PipeWireSessionStreamTests.pwDump != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func removedSessionsFeedsAreReusedAndThePoolGrows() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try Engine()
        let firstBus = try engine.addBus()
        let first = try engine.addSource(.tone(frequency: 440, amplitude: 0.3), bus: firstBus, loop: true)
        try engine.send(.play(first))
        let (output, collector) = try Self.perSessionOutput(
            server, engine, sessions: [SessionStream(name: "first", bus: firstBus, mediaRole: "Music")])
        try output.start(frameLimit: nil)
        defer { output.stop() }
        let builtAtOpen = output.core.feedCount.load(ordering: .acquiring)
        #expect(builtAtOpen == 1 + PipeWireOutput.spareSessionStreams)

        // 2 × the spares, one at a time, each removed two sessions later.
        let rounds = 2 * PipeWireOutput.spareSessionStreams
        var alive: [(name: String, bus: BusID, role: String)] = []
        var removed: [String] = []
        for i in 0..<rounds {
            let bus = try engine.addBus()
            let source = try engine.addSource(.tone(frequency: 1_000 + 100 * Double(i), amplitude: 0.05), bus: bus, loop: true)
            try engine.send(.play(source))
            let role = i % 2 == 0 ? "Game" : "Notification"
            #expect(output.addSessionStream("s\(i)", bus: bus, role: role), "round \(i): \(collector.lines)")
            alive.append(("s\(i)", bus, role))
            if alive.count > 2 {
                let gone = alive.removeFirst()
                try engine.removeBus(gone.bus)
                removed.append(gone.name)
            }
            var streams: [String: String] = [:]
            let settled = eventually(10) {
                streams = Self.testStreams(server)
                return alive.allSatisfy { streams["tutti-test-\($0.name)"] == $0.role }
                    && removed.allSatisfy { streams["tutti-test-\($0)"] == nil }
            }
            #expect(settled, "round \(i): \(streams.sorted { $0.key < $1.key }) \(collector.lines)")
            #expect(streams["tutti-test-first"] == "Music")
        }
        let afterRounds = output.core.feedCount.load(ordering: .acquiring)
        print(
            "PipeWire session pool: \(rounds) sessions made and removed while playing; feeds built \(builtAtOpen) at open, \(afterRounds) after"
        )
        // At most 3 sessions of the rounds had streams at once (one being closed): the spares sufficed.
        #expect(afterRounds == builtAtOpen)

        // More at once than the spares: feeds are built for them.
        var many: [(name: String, bus: BusID)] = []
        for i in 0..<(PipeWireOutput.spareSessionStreams + 4) {
            let bus = try engine.addBus()
            #expect(output.addSessionStream("m\(i)", bus: bus, role: "Music"), "m\(i): \(collector.lines)")
            many.append(("m\(i)", bus))
        }
        var streams: [String: String] = [:]
        #expect(
            eventually(10) {
                streams = Self.testStreams(server)
                return many.allSatisfy { streams["tutti-test-\($0.name)"] == "Music" }
            }, "\(streams.sorted { $0.key < $1.key })")
        let grown = output.core.feedCount.load(ordering: .acquiring)
        print("PipeWire session pool: \(alive.count + many.count) late sessions at once; feeds built \(grown)")
        #expect(grown > builtAtOpen)
        #expect(!collector.lines.contains { $0.contains("plays in main's stream") }, "\(collector.lines)")
        for m in many { try engine.removeBus(m.bus) }
        for a in alive { try engine.removeBus(a.bus) }
        #expect(
            eventually(10) { Self.testStreams(server).keys.sorted() == ["tutti-test", "tutti-test-first"] },
            "\(Self.testStreams(server))")

        // A late session now plays on a reused feed: heard at its level, as the first session.
        let lateBus = try engine.addBus()
        let late = try engine.addSource(.tone(frequency: 3_300, amplitude: 0.15), bus: lateBus, loop: true)
        try engine.send(.play(late))
        #expect(output.addSessionStream("late", bus: lateBus, role: "Game"))
        #expect(eventually(10) { Self.testStreams(server)["tutti-test-late"] == "Game" })
        #expect(output.core.feedCount.load(ordering: .acquiring) == grown)
        let recording = try PipeWireServer.Recording(server, name: "late")
        let start = output.framesRendered
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < start + 3 * 48_000, Date() < deadline { usleep(10_000) }
        let heard = try recording.finish()
        let clock = try #require(output.busClocks.first { $0.name == "late" })
        #expect(clock.framesDropped == 0 && clock.underruns == 0, "\(clock)")
        let span = try #require(Measure.played(heard), "the sink is silent")
        for (frequency, amplitude) in [(440.0, 0.3), (3_300, 0.15)] {
            let tone = Measure.medianTone(heard, in: span, low: frequency - 40, high: frequency + 40)
            print("PipeWire session pool, at the sink: \(frequency) Hz amplitude \(tone.amplitude) (rendered \(amplitude))")
            #expect(abs(tone.frequency - frequency) < 1, "\(frequency): \(tone.frequency)")
            #expect(abs(tone.amplitude - amplitude) < 0.01, "\(frequency): amplitude \(tone.amplitude)")
        }
        #expect(!collector.events.contains { if case .deviceLost = $0 { true } else { false } }, "\(collector.lines)")
    }

    /// Main and a session stream play to "testsink", output bus "cue" to "cuesink": a bus or
    /// session stream's reported latency is its sink's part (`PipeWireOutput.sinkLatency`: what
    /// `pw_stream_get_time_n` reads for it, plus the buffer it handed the graph last cycle)
    /// plus its ring's fill, computed alike for both: the session stream's is above its ring
    /// fill by its sink's part (at least a quantum: the private daemon's null sinks report no
    /// delay), its sink's part is the bus stream's, and the two latencies are comparable.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aSessionStreamsLatencyIncludesItsSink() throws {
        let server = try PipeWireServer(extraSinks: ["cuesink"])
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let sessionBus = try engine.addBus()
        let tone = try engine.addSource(.tone(frequency: 660, amplitude: 0.2), bus: sessionBus, loop: true)
        try engine.send(.play(tone))
        let (output, collector) = try Self.perSessionOutput(
            server, engine, sessions: [SessionStream(name: "song", bus: sessionBus, mediaRole: "Music")],
            busDestinations: ["main": [PipeWireServer.sink], "cue": ["cuesink"]])
        try output.start(frameLimit: nil)
        defer { output.stop() }
        // Ten samples over a second and a half of playing (the supervisor reads PipeWire's
        // figures every 0.1 s).
        var samples: [(cue: Int, song: Int, songRing: Int, cueSink: Int, songSink: Int)] = []
        let deadline = Date().addingTimeInterval(30)
        while samples.count < 10, Date() < deadline {
            usleep(150_000)
            let clocks = output.busClocks
            let status = output.status
            guard status.buses.map(\.name) == ["main", "cue", "song"], clocks.map(\.name) == ["cue", "song"],
                let cueSink = output.busSinkLatency(of: "cue"), let songSink = output.busSinkLatency(of: "song")
            else { continue }
            samples.append((status.buses[1].latencyFrames, status.buses[2].latencyFrames, clocks[1].ringFrames, cueSink, songSink))
        }
        print("PipeWire latency frames (cue, song, song's ring, cue's sink part, song's sink part):", samples)
        try #require(samples.count == 10, "\(collector.lines)")
        func median(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }
        let song = median(samples.map(\.song))
        let cue = median(samples.map(\.cue))
        let songRing = median(samples.map(\.songRing))
        #expect(samples.allSatisfy { $0.songSink >= 1_024 && $0.songSink == $0.cueSink }, "\(samples)")
        #expect(song >= songRing + 1_024, "song \(song), its ring \(songRing)")
        // Both: a ring a few quanta deep plus the sink's part.
        #expect(abs(song - cue) <= 3_072, "song \(song), cue \(cue)")
    }

    /// The daemon restarted while a session of the start and a late one play and a removed
    /// one's feed is free: `deviceRestored` once every stream runs again, the two live
    /// sessions' streams are back with their roles, the removed one's is not; a session made
    /// after the reconnect takes the free feed (its stream made in that empty slot of the new
    /// connection) and is heard at its level.
    @Test(
        .enabled(if: PipeWireServer.isAvailable && PipeWireSessionStreamTests.pwDump != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func aRestartedDaemonReopensTheLiveSessionStreams() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try Engine()
        let firstBus = try engine.addBus()
        try engine.send(.play(try engine.addSource(.tone(frequency: 440, amplitude: 0.3), bus: firstBus, loop: true)))
        let (output, collector) = try Self.perSessionOutput(
            server, engine, sessions: [SessionStream(name: "first", bus: firstBus, mediaRole: "Music")])
        try output.start(frameLimit: nil)
        defer { output.stop() }
        let goneBus = try engine.addBus()
        #expect(output.addSessionStream("gone", bus: goneBus, role: "Game"))
        let lateBus = try engine.addBus()
        #expect(output.addSessionStream("late", bus: lateBus, role: "Notification"))
        #expect(eventually(10) { Self.testStreams(server)["tutti-test-gone"] == "Game" })
        try engine.removeBus(goneBus)
        #expect(eventually(10) { Self.testStreams(server)["tutti-test-gone"] == nil && Self.testStreams(server)["tutti-test-late"] != nil })

        server.stopDaemon()
        #expect(collector.waitFor(30) { $0.contains { $0.isDeviceLost } }, "\(collector.lines)")
        try server.startDaemon()
        #expect(collector.waitFor(30) { $0.contains { $0.isDeviceRestored } }, "\(collector.lines)")
        var streams: [String: String] = [:]
        #expect(
            eventually(10) {
                streams = Self.testStreams(server)
                return streams == ["tutti-test": "Music", "tutti-test-first": "Music", "tutti-test-late": "Notification"]
            }, "\(streams) \(collector.lines)")

        let built = output.core.feedCount.load(ordering: .acquiring)
        let againBus = try engine.addBus()
        try engine.send(.play(try engine.addSource(.tone(frequency: 3_300, amplitude: 0.15), bus: againBus, loop: true)))
        #expect(output.addSessionStream("again", bus: againBus, role: "Game"), "\(collector.lines)")
        #expect(eventually(10) { Self.testStreams(server)["tutti-test-again"] == "Game" }, "\(Self.testStreams(server))")
        #expect(output.core.feedCount.load(ordering: .acquiring) == built)
        let recording = try PipeWireServer.Recording(server, name: "again")
        let start = output.framesRendered
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < start + 2 * 48_000, Date() < deadline { usleep(10_000) }
        let heard = try recording.finish()
        let span = try #require(Measure.played(heard), "the sink is silent after the reconnect")
        for (frequency, amplitude) in [(440.0, 0.3), (3_300, 0.15)] {
            let tone = Measure.medianTone(heard, in: span, low: frequency - 40, high: frequency + 40)
            print("PipeWire session pool after a restart, at the sink: \(frequency) Hz amplitude \(tone.amplitude) (rendered \(amplitude))")
            #expect(abs(tone.amplitude - amplitude) < 0.01, "\(frequency): amplitude \(tone.amplitude)")
        }
        #expect(output.failure == nil)
    }

    /// A session removed while playing fades out in its own stream: its stream closes only once
    /// its ring has played out, so the bus's gate fade (10 ms) reaches the sink and the tone
    /// ends in a fade, not cut at full level with the frames still in the ring.
    @Test(
        .enabled(if: PipeWireServer.isAvailable && PipeWireSessionStreamTests.pwDump != nil, Comment(rawValue: PipeWireServer.skipReason)))
    func aRemovedSessionFadesOutInItsStream() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let engine = try Engine()
        let bus = try engine.addBus()
        try engine.send(.play(try engine.addSource(.tone(frequency: 3_300, amplitude: 0.15), bus: bus, loop: true)))
        let (output, collector) = try Self.perSessionOutput(
            server, engine, sessions: [SessionStream(name: "song", bus: bus, mediaRole: "Music")])
        let recording = try PipeWireServer.Recording(server, name: "fade")
        try output.start(frameLimit: nil)
        defer { output.stop() }
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 48_000, Date() < deadline { usleep(10_000) }
        try engine.removeBus(bus)
        #expect(eventually(10) { Self.testStreams(server)["tutti-test-song"] == nil }, "\(collector.lines)")
        usleep(300_000)
        let heard = try recording.finish()
        let end = try #require(heard.lastIndex { abs($0) > 1e-4 }, "the sink is silent")
        try #require(end > 4_800)
        let last = heard[(end - 47)...end].map { abs($0) }.max() ?? 0
        let before = heard[(end - 2_400)..<(end - 960)].map { abs($0) }.max() ?? 0
        print("PipeWire session removed: the tone's level 20–50 ms before its end \(before), in its last 1 ms \(last)")
        #expect(abs(before - 0.15) < 0.01, "the tone before its fade: \(before)")
        #expect(last < 0.05, "the tone's last 1 ms: \(last) (cut, not faded)")
    }

    /// A session whose bus slot is past the table of session feeds (an engine of 300 buses; the
    /// table holds one per slot below 256) can get no stream: `addSessionStream` is false, one
    /// log line says it plays in main's stream, `status.buses` lists no stream for it, and its
    /// tone is heard at its level at the sink through main's stream.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aSessionWithoutAFeedPlaysInMainsStream() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        var configuration = EngineConfiguration()
        configuration.maxBuses = 300
        let engine = try Engine(configuration: configuration)
        var buses: [BusID] = []
        for _ in 0...StreamCore.maxSessionSlots { buses.append(try engine.addBus()) }
        let far = try #require(buses.last)
        #expect(far.slot == StreamCore.maxSessionSlots)
        try engine.send(.play(try engine.addSource(.tone(frequency: 3_300, amplitude: 0.15), bus: far, loop: true)))
        let (output, collector) = try Self.perSessionOutput(server, engine)
        let recording = try PipeWireServer.Recording(server, name: "far")
        try output.start(frameLimit: nil)
        defer { output.stop() }
        #expect(!output.addSessionStream("far", bus: far, role: "Game"))
        #expect(collector.lines.contains { $0.contains("session far: no session stream left") && $0.contains("plays in main's stream") })
        #expect(output.status.buses.map(\.name) == ["main"])
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 2 * 48_000, Date() < deadline { usleep(10_000) }
        let heard = try recording.finish()
        let span = try #require(Measure.played(heard), "the sink is silent")
        let tone = Measure.medianTone(heard, in: span, low: 3_260, high: 3_340)
        print("PipeWire session without a feed, in main's stream at the sink: amplitude \(tone.amplitude) (rendered 0.15)")
        #expect(abs(tone.amplitude - 0.15) < 0.01, "amplitude \(tone.amplitude)")
    }
}
