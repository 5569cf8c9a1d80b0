import Foundation
import Glibc
import Testing
import Tutti
import TuttiEngine
import TuttiOutput
import TuttiPipeWire
import TuttiTestSupport

/// The measurements every PipeWire test makes on a recording of the sink's monitor.
enum Measure {
    /// The span from the first to the last sample above -80 dB (where the tone played).
    static func played(_ x: [Float]) -> Range<Int>? {
        guard let first = x.firstIndex(where: { abs($0) > 1e-4 }), let last = x.lastIndex(where: { abs($0) > 1e-4 }) else {
            return nil
        }
        return first..<last + 1
    }

    /// The longest run of exact zeros inside `span` (a cycle the sink got no data for).
    static func longestZeroRun(_ x: [Float], in span: Range<Int>) -> Int {
        var run = 0
        var longest = 0
        for v in x[span] {
            run = v == 0 ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    /// The tone's amplitude (Goertzel, Hann) and frequency (strongest in `low…high`) over
    /// 0.1 s from the middle of `span`.
    static func tone(_ x: [Float], in span: Range<Int>, low: Double, high: Double) -> (amplitude: Double, frequency: Double) {
        let mid = span.lowerBound + span.count / 2
        let window = x[mid - 2_400..<mid + 2_400].map(Double.init)[...]
        let f = Analysis.dominantFrequency(window, sampleRate: 48_000, low: low, high: high)
        return (Analysis.toneAmplitude(window, frequency: f, sampleRate: 48_000), f)
    }

    /// Frames in runs of 4 or more exact zeros inside `span` (cycles the sink got no data
    /// for: the graph ran late on a loaded machine).
    static func zeroRunFrames(_ x: [Float], in span: Range<Int>) -> Int {
        var run = 0
        var total = 0
        for v in x[span] {
            if v == 0 {
                run += 1
            } else {
                if run >= 4 { total += run }
                run = 0
            }
        }
        return total
    }

    /// `tone` over five 0.1 s windows spread over `span`, the median of each figure: one window
    /// that holds a gap (an xrun of a loaded machine) does not move it.
    static func medianTone(_ x: [Float], in span: Range<Int>, low: Double, high: Double) -> (amplitude: Double, frequency: Double) {
        let windows = (1...5).map { k -> (amplitude: Double, frequency: Double) in
            let mid = span.lowerBound + span.count * k / 6
            return tone(x, in: mid - 2_400..<mid + 2_400, low: low, high: high)
        }
        return (windows.map(\.amplitude).sorted()[2], windows.map(\.frequency).sorted()[2])
    }

    /// RMS × √2 over `span`: a sine's amplitude, lowered by any gap.
    static func level(_ x: [Float], in span: Range<Int>) -> Double { Analysis.rms(x[span]) * 2.0.squareRoot() }
}

/// `PipeWireOutput` in process: settings it cannot honour, a daemon that does not answer, and
/// against a private daemon (`PipeWireServer`) a tone played into the null sink and measured
/// in a recording of its monitor.
@Suite(.serialized) struct PipeWireOutputTests {
    /// The header check: the PipeWire declarations CPipeWire repeats (it builds without
    /// PipeWire's headers) match the installed headers (`_Static_assert`s compiled with them).
    @Test(.enabled(if: PipeWireOutputTests.canCheckHeaders, "cc, pkg-config or libpipewire-0.3-dev missing"))
    func declarationsMatchTheInstalledHeaders() throws {
        let flags = try Tool.run(["/usr/bin/pkg-config", "--cflags", "libpipewire-0.3"])
        #expect(flags.status == 0, "\(flags.stderr)")
        let source = Tool.repositoryRoot + "/Sources/CPipeWire"
        let cc = try Tool.run(
            ["/usr/bin/cc", "-fsyntax-only", "-Werror", "-DTPW_CHECK_HEADERS", "-I\(source)/include"]
                + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init) + ["\(source)/pipewire.c"])
        #expect(cc.status == 0, "\(cc.stderr)")
    }

    static var canCheckHeaders: Bool {
        access("/usr/bin/cc", X_OK) == 0 && access("/usr/bin/pkg-config", X_OK) == 0
            && access("/usr/include/pipewire-0.3/pipewire/stream.h", R_OK) == 0
    }

    static var libraryLoads: Bool { dlopen("libpipewire-0.3.so.0", RTLD_NOW) != nil }

    /// The host API's backend: raw value 2 (the C ABI's TUTTI_BACKEND_PIPEWIRE), its name
    /// both ways, this implementation.
    @Test func theHostAPIPicksThisBackendByValueAndName() {
        #expect(OutputConfiguration.Backend.pipewire.rawValue == 2)
        #expect(OutputConfiguration.Backend(rawValue: 2) == .pipewire)
        #expect(OutputConfiguration.Backend(name: "pipewire") == .pipewire)
        #expect(OutputConfiguration.Backend.pipewire.name == "pipewire")
        #expect(OutputConfiguration.Backend.pipewire.implementation is PipeWireOutput.Type)
    }

    /// `.auto`: raw value 3 (TUTTI_BACKEND_AUTO), named "auto" both ways; resolving it gives a
    /// backend that plays (never `.auto`), `.alsa` when PipeWire is skipped and no JACK server
    /// has the name asked for; the others resolve to themselves.
    @Test func autoIsAValueOfItsOwnAndResolvesToAPlayingBackend() {
        #expect(OutputConfiguration.Backend.auto.rawValue == 3)
        #expect(OutputConfiguration.Backend(rawValue: 3) == .auto)
        #expect(OutputConfiguration.Backend(name: "auto") == .auto)
        #expect(OutputConfiguration.Backend.auto.name == "auto")
        #expect(OutputConfiguration.Backend.allCases.map(\.name) == ["alsa", "jack", "pipewire", "auto"])
        #expect(OutputConfiguration.Backend.auto.resolved() != .auto)
        let none = "tutti-no-server-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(OutputConfiguration.Backend.detected(jackServer: none, pipeWire: false) == .alsa)
        for backend in [OutputConfiguration.Backend.alsa, .jack, .pipewire] { #expect(backend.resolved() == backend) }
        #expect(OutputConfiguration().backend == .alsa, "the library's default stays ALSA")
    }

    @Test func settingsPipeWireCannotHonourAreRejectedNamingThem() throws {
        let buses = ["main", "cue"]
        func rejected(_ change: (inout OutputSettings) -> Void) -> String? {
            var s = OutputSettings()
            change(&s)
            do {
                _ = try PipeWireOutput.probe(s, channelCount: 2, busNames: buses, remote: "/nonexistent/pipewire-0")
                return nil
            } catch {
                return error.code == .invalidArgument ? error.message : "\(error.code): \(error.message)"
            }
        }
        // A period count is taken (rendering ahead: the checks pass, so the missing daemon is
        // what fails), but not with streams fed in the graph's cycle.
        #expect(rejected { $0.periodCount = 4 }?.hasPrefix("device") == true)
        #expect(
            rejected {
                $0.periodCount = 4
                $0.busDestinations = ["cue": ["other"]]
            }?.hasPrefix("periodCount: rendering ahead plays main alone; with buses that play") == true)
        #expect(
            rejected {
                $0.periodCount = 4
                $0.streams = .perSession
            }?.hasPrefix("periodCount: rendering ahead plays main alone; with per-session streams") == true)
        #expect(rejected { $0.periodCount = 1 }?.hasPrefix("periodCount must be in 2…64") == true)
        #expect(rejected { $0.sampleFormats = [.s16] }?.hasPrefix("sampleFormats") == true)
        // A priority (or none) is taken: it is the data thread's when PipeWire left it at normal
        // scheduling. The checks pass, so the missing daemon is what fails.
        #expect(rejected { $0.realtimePriority = nil }?.hasPrefix("device") == true)
        #expect(rejected { $0.busDestinations = ["cue": ["a", "b"]] }?.contains("busDestinations[\"cue\"]: one PipeWire node") == true)
        // A bus past main with one node is taken (its own stream): the missing daemon fails.
        #expect(rejected { $0.busDestinations = ["cue": ["other"]] }?.hasPrefix("device") == true)
        #expect(
            rejected {
                $0.busDestinations = ["main": ["a"]]
                $0.device = "b"
            }?.contains("both name main's target") == true)
        #expect(rejected { $0.periodFrames = 0 }?.hasPrefix("periodFrames") == true)
    }

    @Test(.enabled(if: PipeWireOutputTests.libraryLoads, "libpipewire-0.3.so.0 is not installed"))
    func aDaemonThatDoesNotAnswerIsAClearDeviceError() throws {
        let folder = makeTemporaryFolder("tutti-no-pipewire")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let engine = try Engine(configuration: EngineConfiguration())
        do {
            _ = try PipeWireOutput(
                renderer: engine.renderer, settings: OutputSettings(), remote: folder + "/pipewire-0", log: nil, onEvent: nil)
            Issue.record("opened a stream without a daemon")
        } catch {
            #expect(error.code == .device)
            #expect(error.message.hasPrefix("no PipeWire daemon answers at \(folder)/pipewire-0 ("), "\(error.message)")
            // The library's message has no CLI wording.
            #expect(!error.message.contains("--backend"))
        }
        // The probe says the same before anything is rendered.
        #expect(throws: TuttiError.self) {
            _ = try PipeWireOutput.probe(OutputSettings(), channelCount: 2, busNames: ["main"], remote: folder + "/pipewire-0")
        }
    }

    /// A two-route engine (440 Hz 0.5 on main, 1 kHz 0.25 on cue) plays 2 s through one stream
    /// to the null sink: the recording holds main's tone at its level and frequency without a
    /// gap, cue's tone is not in it, and the output reports `finished` after exactly the frame
    /// limit.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func playsTheMainBusIntoTheTargetSink() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.clientName = "tutti-test"
        // node.latency 2048/48000: 43 ms cycles, so a loaded machine does not make the private
        // daemon (no real-time priority) run a cycle late and leave a gap.
        settings.periodFrames = 2_048
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        // The node is there with the properties asked for (before it plays).
        let recording = try PipeWireServer.Recording(server)
        let frames = 2 * 48_000
        try output.start(frameLimit: Int64(frames))
        let nodes = try server.cli(["ls", "Node"]).stdout
        #expect(nodes.contains("node.name = \"tutti-test\""), "\(nodes)")
        #expect(nodes.contains("media.role = \"Music\""))
        // The render callback runs on a real-time data thread where this process may have one
        // (client-rt.conf's module-rt), as pw-play's does.
        var limit = rlimit()
        if geteuid() == 0 || (getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0 && limit.rlim_cur > 0) {
            #expect(output.schedulingNote.hasPrefix("PipeWire's data thread, SCHED_FIFO priority"), "\(output.schedulingNote)")
        }
        let finished = output.waitUntilFinished(timeoutSeconds: 30)
        let status = output.status
        output.stop(drain: true)
        let left = try recording.finish()

        #expect(finished)
        #expect(output.framesRendered == Int64(frames))
        #expect(collector.events.contains(.finished(frames: Int64(frames))))
        #expect(status.backend == "pipewire" && status.sampleRate == 48_000 && status.channelCount == 2)
        #expect(status.periodFrames == 2_048) // node.latency 2048/48000 granted
        let span = try #require(Measure.played(left), "the recording is silent")
        // 2 s played (± one quantum of the sink at either end).
        #expect(abs(span.count - frames) <= 2_048, "played \(span.count) frames")
        let tone = Measure.tone(left, in: span, low: 400, high: 480)
        #expect(abs(tone.frequency - 440) < 1, "frequency \(tone.frequency)")
        #expect(abs(tone.amplitude - 0.5) < 0.01, "amplitude \(tone.amplitude)")
        #expect(abs(Measure.level(left, in: span) - 0.5) < 0.01)
        let mid = span.lowerBound + span.count / 2
        let cue = Analysis.toneAmplitude(left[mid - 2_400..<mid + 2_400].map(Double.init)[...], frequency: 1_000, sampleRate: 48_000)
        #expect(cue < 0.001, "cue's tone is in main: \(cue)")
        let gap = Measure.longestZeroRun(left, in: span)
        #expect(gap < 4, "a run of \(gap) zero samples inside the played span (xruns counted: \(status.xrunCount))")
    }

    /// Rendering ahead (`periodCount` 3 of 512 frames): a thread of Tutti's own keeps 1 536
    /// frames rendered ahead of the graph and main's callback copies its cycle out of them. The
    /// recording holds main's tone at its level and frequency for the whole frame limit — the
    /// drained stop plays out what the ring held — with no gap the output did not report, the
    /// reported latency includes the ring, and the note says how the thread is scheduled.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func rendersAheadOfTheGraphOnAThreadOfItsOwn() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.periodFrames = 512
        settings.periodCount = 3
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        let recording = try PipeWireServer.Recording(server)
        let frames = 2 * 48_000
        try output.start(frameLimit: Int64(frames))
        #expect(output.schedulingNote.contains("; rendering 1536 frames ahead on tutti-pw-ahead, "), "\(output.schedulingNote)")
        if geteuid() == 0 { #expect(output.schedulingNote.hasSuffix("tutti-pw-ahead, SCHED_FIFO priority 50"), "\(output.schedulingNote)") }
        usleep(500_000)
        let ahead = output.renderAheadFrames
        let status = output.status
        let finished = output.waitUntilFinished(timeoutSeconds: 30)
        output.stop(drain: true)
        let left = try recording.finish()

        #expect(finished)
        #expect(output.framesRendered == Int64(frames))
        #expect(collector.events.contains(.finished(frames: Int64(frames))))
        // The thread tops the ring up to 3 periods within a quarter period of a cycle taking one.
        #expect((512...1_536).contains(ahead), "ring \(ahead) frames")
        #expect(status.latencyFrames >= 512, "latency \(status.latencyFrames) frames does not count the ring")
        let span = try #require(Measure.played(left), "the recording is silent")
        let gaps = Measure.zeroRunFrames(left, in: span)
        #expect(gaps == 0 || output.xrunCount > 0, "\(gaps) frames in gaps with no xrun reported")
        // All 2 s played, the ring's last frames too (± one quantum at either end).
        #expect(abs(span.count - gaps - frames) <= 1_024, "played \(span.count - gaps) frames")
        let tone = Measure.medianTone(left, in: span, low: 400, high: 480)
        #expect(abs(tone.frequency - 440) < 1, "frequency \(tone.frequency)")
        #expect(abs(tone.amplitude - 0.5) < 0.01, "amplitude \(tone.amplitude)")
    }

    /// The daemon killed while playing and not back within `reconnect.timeout` (1 s):
    /// `deviceLost`, then `gaveUp` with a `device` failure, and `waitUntilFinished` returns.
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aDaemonThatStaysAwayEndsTheOutputWithAFailure() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        var settings = OutputSettings(device: PipeWireServer.sink)
        settings.reconnect = ReconnectPolicy(timeout: .seconds(1))
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: settings, remote: server.socket, log: collector.log, onEvent: collector.onEvent)
        try output.start(frameLimit: nil)
        let deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 4_800, Date() < deadline { usleep(10_000) }
        #expect(output.framesRendered >= 4_800, "nothing rendered")
        server.stop()
        #expect(output.waitUntilFinished(timeoutSeconds: 30))
        output.stop(drain: false)
        let failure = try #require(output.failure)
        #expect(failure.code == .device)
        #expect(failure.message.hasPrefix("the PipeWire stream did not come back within 1.0 s"), "\(failure.message)")
        #expect(collector.events.contains { if case .deviceLost = $0 { true } else { false } })
        #expect(collector.events.last == .gaveUp(failure))
        #expect(output.status.buses[0].isLost)
    }

    /// The daemon restarted while playing: `deviceLost`, then `deviceRestored` once a new
    /// stream runs, and the engine carries on from where it was (the tone is in a recording of
    /// the new daemon's sink at its level; the engine clock never jumps: no frame rendered
    /// while lost).
    @Test(.enabled(if: PipeWireServer.isAvailable, Comment(rawValue: PipeWireServer.skipReason)))
    func aRestartedDaemonIsReconnected() throws {
        let server = try PipeWireServer()
        defer { server.stop() }
        let (engine, _, _) = try twoRouteToneEngine()
        let collector = Collector()
        let output = try PipeWireOutput(
            renderer: engine.renderer, settings: OutputSettings(device: PipeWireServer.sink), remote: server.socket,
            log: collector.log, onEvent: collector.onEvent)
        try output.start(frameLimit: nil)
        var deadline = Date().addingTimeInterval(30)
        while output.framesRendered < 4_800, Date() < deadline { usleep(10_000) }
        server.stopDaemon()
        deadline = Date().addingTimeInterval(30)
        while !collector.events.contains(where: { if case .deviceLost = $0 { true } else { false } }), Date() < deadline {
            usleep(10_000)
        }
        let whileLost = output.framesRendered
        usleep(300_000)
        #expect(output.framesRendered == whileLost, "rendered while no stream ran")
        try server.startDaemon()
        deadline = Date().addingTimeInterval(30)
        while !collector.events.contains(where: { if case .deviceRestored = $0 { true } else { false } }), Date() < deadline {
            usleep(10_000)
        }
        #expect(collector.events.contains { if case .deviceRestored = $0 { true } else { false } }, "\(collector.lines)")
        let recording = try PipeWireServer.Recording(server)
        let resumed = output.framesRendered
        deadline = Date().addingTimeInterval(30)
        while output.framesRendered < resumed + 48_000, Date() < deadline { usleep(10_000) }
        let left = try recording.finish()
        output.stop(drain: false)
        #expect(output.failure == nil)
        #expect(!output.status.buses[0].isLost)
        let span = try #require(Measure.played(left), "the recording after the reconnect is silent")
        let tone = Measure.tone(left, in: span, low: 400, high: 480)
        #expect(abs(tone.frequency - 440) < 1, "frequency \(tone.frequency)")
        #expect(abs(tone.amplitude - 0.5) < 0.01, "amplitude \(tone.amplitude)")
    }
}
