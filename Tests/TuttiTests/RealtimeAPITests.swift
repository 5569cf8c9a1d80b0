import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// The host's pull render through the public API allocates nothing either.
@Suite struct RealtimeAPITests {
    @Test func pullRenderingMakesNoMallocs() throws {
        let (engine, music, nav, song, prompt) = try makeEngine(channels: 2)
        try music.setActive(true)
        try song.play()
        let stream = try music.makeStreamSource(sampleRate: 44_100, channelCount: 1)
        try stream.play()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { out.deallocate() }
        for _ in 0..<4 { engine.render(into: out, frameCount: 256) }
        // Policy changes scheduled into the counted stretch: ducking, a prompt, volume.
        try nav.setActive(true, at: .frame(engine.framesRendered + 10_000))
        try prompt.play(at: .frame(engine.framesRendered + 10_000))
        try engine.setVolume(0.5, at: .frame(engine.framesRendered + 20_000))
        let mallocs = countMallocs {
            for _ in 0..<2_000 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
        #expect(try stream.underrunFrames > 0)
    }
}
