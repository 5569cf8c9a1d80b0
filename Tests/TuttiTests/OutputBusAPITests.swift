import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// Output buses through the host API: `AudioEngineConfiguration.outputBuses`,
/// `SourceHandle.setOutputBus`, `AudioEngine.render(outputBuses:busCount:frameCount:)`, and
/// the policy's rule that only multiRoute sessions play anywhere but main. Measured. The old
/// names (`routes`, `setRoute(_:at:)`, `route`, `render(routes:…)`) still work, deprecated.
@Suite struct OutputBusAPITests {
    /// Pull `frames` frames of every output bus (mono) in blocks of 256.
    func renderBuses(_ engine: AudioEngine, frames: Int) -> [[Double]] {
        let count = engine.configuration.outputBuses.count
        #expect(engine.outputBusCount == count)
        let buffers = (0..<count).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
        defer { for b in buffers { b.deallocate() } }
        var done = 0
        while done < frames {
            let n = min(256, frames - done)
            let at = buffers.map { $0 + done }
            at.withUnsafeBufferPointer { #expect(engine.render(outputBuses: $0.baseAddress!, busCount: count, frameCount: n)) }
            done += n
        }
        return buffers.map { b in (0..<frames).map { Double(b[$0]) } }
    }

    func makeDJ() throws -> (AudioEngine, SessionHandle, SessionHandle) {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.outputBuses = ["main", "cue"]
        let engine = try AudioEngine(configuration: config)
        let dj = try engine.makeSession(SessionConfiguration(id: "dj", category: .multiRoute))
        let music = try engine.makeSession(SessionConfiguration(id: "music", category: .playback, options: [.mixWithOthers]))
        return (engine, dj, music)
    }

    @Test func multiRouteSourcesPlayOnTheirBus() throws {
        let (engine, dj, music) = try makeDJ()
        let deck = try dj.makeToneSource(frequency: 440, amplitude: 0.5)
        let preview = try dj.makeToneSource(frequency: 1_000, amplitude: 0.25)
        let song = try music.makeToneSource(frequency: 300, amplitude: 0.2)
        try preview.setOutputBus("cue")
        #expect(try preview.outputBus == "cue")
        #expect(try deck.outputBus == "main")
        try dj.setActive(true)
        try music.setActive(true)
        for s in [deck, preview, song] { try s.play() }
        let out = renderBuses(engine, frames: 24_000)
        #expect(abs(level(out[0], 4_800..<24_000, 440) - 0.5) < 0.01)
        #expect(abs(level(out[0], 4_800..<24_000, 300) - 0.2) < 0.01)
        #expect(level(out[0], 4_800..<24_000, 1_000) < 1e-4)
        #expect(abs(level(out[1], 4_800..<24_000, 1_000) - 0.25) < 0.01)
        #expect(level(out[1], 4_800..<24_000, 440) < 1e-4)
        #expect(level(out[1], 4_800..<24_000, 300) < 1e-4)
        // Pull of main alone: the same main.
        let mainOnly = render(engine, frames: 4_800)
        #expect(level(mainOnly, 0..<4_800, 1_000) < 1e-4)
        #expect(abs(level(mainOnly, 0..<4_800, 440) - 0.5) < 0.01)
    }

    @Test func onlyMultiRouteSessionsChooseABus() throws {
        let (_, dj, music) = try makeDJ()
        let song = try music.makeToneSource(frequency: 300, amplitude: 0.2)
        #expect {
            try song.setOutputBus("cue")
        } throws: { error in
            (error as? TuttiError)?.code == .state && "\(error)".contains("multiRoute")
        }
        try song.setOutputBus("main")
        let deck = try dj.makeToneSource(frequency: 440, amplitude: 0.5)
        #expect {
            try deck.setOutputBus("booth")
        } throws: { error in
            (error as? TuttiError)?.code == .invalidArgument && "\(error)".contains("booth")
        }
        #expect(try deck.outputBus == "main")
    }

    /// A session that leaves multiRoute plays to main; back to multiRoute, on its bus again.
    @Test func leavingMultiRouteMovesToMain() throws {
        let (engine, dj, _) = try makeDJ()
        let preview = try dj.makeToneSource(frequency: 1_000, amplitude: 0.25)
        try preview.setOutputBus("cue")
        try dj.setActive(true)
        try preview.play()
        var out = renderBuses(engine, frames: 9_600)
        #expect(level(out[1], 2_400..<9_600, 1_000) > 0.2)
        try dj.setCategory(.playback)
        out = renderBuses(engine, frames: 9_600)
        #expect(level(out[0], 2_400..<9_600, 1_000) > 0.2)
        #expect(level(out[1], 2_400..<9_600, 1_000) < 1e-4)
        try dj.setCategory(.multiRoute)
        out = renderBuses(engine, frames: 9_600)
        #expect(level(out[1], 2_400..<9_600, 1_000) > 0.2)
        #expect(level(out[0], 2_400..<9_600, 1_000) < 1e-4)
    }

    @Test func badBusListsAreRefused() throws {
        for buses in [["cue"], ["main", "cue", "cue"], []] {
            var config = AudioEngineConfiguration()
            config.outputBuses = buses
            #expect(throws: TuttiError.self) { try AudioEngine(configuration: config) }
        }
    }

    @Test func renderingBusesAllocatesNothing() throws {
        let (engine, dj, _) = try makeDJ()
        try dj.setActive(true)
        for k in 0..<8 {
            let s = try dj.makeToneSource(frequency: 200 + 50 * Double(k), amplitude: 0.05)
            try s.setOutputBus(k % 2 == 0 ? "main" : "cue")
            try s.play()
        }
        let buffers = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 256) }
        defer { for b in buffers { b.deallocate() } }
        buffers.withUnsafeBufferPointer { p in
            _ = engine.render(outputBuses: p.baseAddress!, busCount: 2, frameCount: 256)
            let mallocs = countMallocs {
                for _ in 0..<2_000 { _ = engine.render(outputBuses: p.baseAddress!, busCount: 2, frameCount: 256) }
            }
            #expect(mallocs == 0)
        }
    }

    /// The deprecated names forward to the new ones: the same configuration, the same bus,
    /// the same render.
    @available(*, deprecated, message: "exercises the deprecated names")
    @Test func oldRouteNamesStillWork() throws {
        var config = AudioEngineConfiguration()
        config.channelCount = 1
        config.routes = ["main", "cue"]
        #expect(config.outputBuses == ["main", "cue"])
        let engine = try AudioEngine(configuration: config)
        #expect(engine.routeCount == 2)
        let dj = try engine.makeSession(SessionConfiguration(id: "dj", category: .multiRoute))
        let preview = try dj.makeToneSource(frequency: 1_000, amplitude: 0.25)
        try preview.setRoute("cue")
        #expect(try preview.route == "cue")
        #expect(try preview.outputBus == "cue")
        try dj.setActive(true)
        try preview.play()
        let buffers = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 9_600) }
        defer { for b in buffers { b.deallocate() } }
        var done = 0
        while done < 9_600 {
            let n = min(256, 9_600 - done)
            let at = buffers.map { $0 + done }
            at.withUnsafeBufferPointer { #expect(engine.render(routes: $0.baseAddress!, routeCount: 2, frameCount: n)) }
            done += n
        }
        let out = buffers.map { b in (0..<9_600).map { Double(b[$0]) } }
        #expect(abs(level(out[1], 2_400..<9_600, 1_000) - 0.25) < 0.01)
        #expect(level(out[0], 2_400..<9_600, 1_000) < 1e-4)
    }
}
