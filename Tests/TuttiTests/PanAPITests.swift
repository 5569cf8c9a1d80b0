import Foundation
import Testing
import Tutti
import TuttiTestSupport

/// `SourceHandle.setPan` at a frame, measured in the output; bad values throw naming `pan`
/// and change nothing.
@Suite struct PanAPITests {
    @Test func setPanAppliesAtItsFrame() throws {
        let (engine, music, _, song, _) = try makeEngine(channels: 2)
        try music.setActive(true)
        try song.play()
        #expect(try song.info.pan == nil)
        try song.setPan(1, rampFrames: 0, at: .frame(4_800))
        try song.setPan(-0.5, rampFrames: 480, at: .frame(9_600))
        #expect(try song.info.pan == -0.5)
        let out = render(engine, frames: 19_200)
        let left = Analysis.channel(out.map(Float.init), 0, of: 2)
        let right = Analysis.channel(out.map(Float.init), 1, of: 2)
        // Unpanned before 4 800: both channels alike; hard right from 4 800 to 9 600.
        #expect(left[0..<4_800] == right[0..<4_800])
        #expect(left[4_799] != 0)
        #expect(left[4_800..<9_600].allSatisfy { $0 == 0 })
        let unity = Analysis.rms(right[2_400..<4_800])
        #expect(abs(Analysis.dB(Analysis.rms(right[5_000..<9_600]) / unity)) < 0.05)
        // At −0.5 after the ramp: the constant-power law, sin((1 ∓ p)·π/4).
        let l = Analysis.dB(Analysis.rms(left[12_000..<19_200]) / unity)
        let r = Analysis.dB(Analysis.rms(right[12_000..<19_200]) / unity)
        #expect(abs(l - Analysis.dB(sin(1.5 * .pi / 4))) < 0.05, "left \(l) dB")
        #expect(abs(r - Analysis.dB(sin(0.5 * .pi / 4))) < 0.05, "right \(r) dB")
    }

    @Test(arguments: [Float.nan, .infinity, 2, -1.01])
    func badPanThrowsNamingItAndChangesNothing(pan: Float) throws {
        let (engine, music, _, song, _) = try makeEngine(channels: 2)
        try music.setActive(true)
        try song.play()
        #expect {
            try song.setPan(pan)
        } throws: { error in
            let e = error as? TuttiError
            return e?.code == .invalidArgument && e?.message.contains("pan") == true
        }
        #expect(try song.info.pan == nil)
        let out = render(engine, frames: 4_800)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
        #expect(left == right)
    }

    @Test func aRemovedSourceIsNotFound() throws {
        let (_, _, _, song, _) = try makeEngine(channels: 2)
        try song.remove()
        #expect(throws: TuttiError.self) { try song.setPan(0) }
        #expect {
            try song.setPan(0)
        } throws: { ($0 as? TuttiError)?.code == .notFound }
    }
}
