import Foundation
import Testing
import TuttiDSP
import TuttiEngine
import TuttiTestSupport

/// `setBusSidechain`: a bus ducked by another bus's level over 10 ms windows, measured; the
/// output does not depend on the host's block size; bad settings name the argument.
@Suite struct SidechainTests {
    /// Music (440 Hz) on one bus, a key tone (1 kHz) on another from frame 4 800 to 14 400,
    /// the music's bus keyed on it (−40 dBFS, hold 2 400 frames, −12 dB, 480-frame ramps).
    static func run(block: Int) throws -> (out: [Float], events: [EngineEvent]) {
        let engine = try Engine()
        let music = try engine.addBus()
        let nav = try engine.addBus()
        let song = try engine.addSource(.tone(frequency: 440, amplitude: 0.5), bus: music)
        let voice = try engine.addSource(.tone(frequency: 1_000, amplitude: 0.5), bus: nav)
        try engine.send(.play(song))
        let sidechain = Sidechain(
            key: nav, thresholdMeanSquare: 1e-4, holdFrames: 2_400, targetDB: -12, attackDBPerFrame: 12 / 480,
            releaseDBPerFrame: 12 / 480)
        try engine.send(.setBusSidechain(music, sidechain))
        try engine.send(.play(voice), at: .frame(4_800))
        try engine.send(.pause(voice), at: .frame(14_400))
        var events: [EngineEvent] = []
        let out = renderAll(engine, frameCount: 28_800, block: block, events: &events)
        return (out, events.filter { if case .sidechainDuck = $0.kind { true } else { false } })
    }

    static func musicDB(_ out: [Float], _ frames: Range<Int>) -> Double {
        let left = stride(from: frames.lowerBound * 2, to: frames.upperBound * 2, by: 2).map { Double(out[$0]) }
        return Analysis.dB(Analysis.toneAmplitude(left[...], frequency: 440, sampleRate: 48_000) / 0.5)
    }

    @Test func theKeyDucksTheBusWhileItSoundsAndTheHoldReleasesIt() throws {
        let (out, events) = try Self.run(block: 256)
        #expect(abs(Self.musicDB(out, 0..<4_800)) <= 0.01)
        #expect(abs(Self.musicDB(out, 6_000..<14_400) - -12) <= 0.1, "\(Self.musicDB(out, 6_000..<14_400))")
        // Pause fade (10 ms), then the hold (2 400 frames), then the release (480 frames).
        #expect(abs(Self.musicDB(out, 18_240..<28_800)) <= 0.01, "\(Self.musicDB(out, 18_240..<28_800))")
        let frames = events.map(\.frame)
        let began = events.map { if case .sidechainDuck(_, let b) = $0.kind { b } else { false } }
        #expect(began == [true, false])
        // The first window with the key in it ends at 5 280; the key is silent from 14 880 on
        // (after its 10 ms fade): five silent windows spend the hold at 17 280.
        #expect(frames == [5_280, 17_280], "\(frames)")
    }

    @Test func theHostBlockSizeDoesNotChangeTheOutput() throws {
        let a = try Self.run(block: 64)
        let b = try Self.run(block: 1_000)
        #expect(a.out.map(\.bitPattern) == b.out.map(\.bitPattern))
        #expect(a.events == b.events)
    }

    @Test func badSettingsNameTheArgument() throws {
        let engine = try Engine()
        let bus = try engine.addBus()
        let key = try engine.addBus()
        func sidechain(_ change: (inout Sidechain) -> Void) -> Sidechain {
            var s = Sidechain(
                key: key, thresholdMeanSquare: 1e-4, holdFrames: 0, targetDB: -12, attackDBPerFrame: 0.1, releaseDBPerFrame: 0.1)
            change(&s)
            return s
        }
        let cases: [(Sidechain, String)] = [
            (sidechain { $0.thresholdMeanSquare = .nan }, "thresholdMeanSquare"),
            (sidechain { $0.thresholdMeanSquare = -1 }, "thresholdMeanSquare"),
            (sidechain { $0.holdFrames = -1 }, "holdFrames"),
            (sidechain { $0.targetDB = 3 }, "targetDB"),
            (sidechain { $0.attackDBPerFrame = .infinity }, "attackDBPerFrame"),
            (sidechain { $0.releaseDBPerFrame = -1 }, "releaseDBPerFrame"),
            (sidechain { $0.key = bus }, "own sidechain"),
        ]
        for (bad, name) in cases {
            do {
                try engine.send(.setBusSidechain(bus, bad))
                Issue.record("accepted a bad sidechain (\(name))")
            } catch {
                #expect("\(error)".contains(name), "\(error)")
            }
        }
    }
}
