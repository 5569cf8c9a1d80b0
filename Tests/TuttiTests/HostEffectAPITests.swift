import Testing
import Tutti
import TuttiTestSupport

/// Multiplies every sample by `factor` and counts the frames it saw. Its state is touched only
/// by the render thread (here: the test's own thread, pulling).
final class ScaleEffect: HostEffect, @unchecked Sendable {
    let factor: Float
    @exclusivity(unchecked) var framesProcessed = 0

    init(_ factor: Float) { self.factor = factor }

    @_noLocks func process(_ buffer: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        for i in 0..<(frameCount &* channelCount) { buffer[i] *= factor }
        framesProcessed &+= frameCount
    }
}

/// Copies what it is given (its input) into a buffer allocated up front, and silences one
/// channel when asked (to show the layout).
final class RecordingEffect: HostEffect, @unchecked Sendable {
    let capacity: Int
    let recorded: UnsafeMutablePointer<Float>
    let silencedChannel: Int
    @exclusivity(unchecked) var count = 0

    init(capacity: Int, silencing channel: Int = -1) {
        self.capacity = capacity
        recorded = .allocate(capacity: capacity)
        recorded.initialize(repeating: 0, count: capacity)
        silencedChannel = channel
    }

    deinit { recorded.deallocate() }

    @_noLocks func process(_ buffer: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        for i in 0..<(frameCount &* channelCount) where count < capacity {
            recorded[count] = buffer[i]
            count &+= 1
        }
        if silencedChannel >= 0, silencedChannel < channelCount {
            for f in 0..<frameCount { buffer[f &* channelCount &+ silencedChannel] = 0 }
        }
    }

    var samples: [Double] { (0..<count).map { Double(recorded[$0]) } }
}

/// `SessionHandle.setHostEffect`: the host's own DSP on a session's bus, measured against
/// the same render without it.
@Suite struct HostEffectAPITests {
    /// The `music` session of `makeEngine` alone playing its 440 Hz tone (amplitude 0.5).
    func musicOnly(channels: Int = 1) throws -> (AudioEngine, SessionHandle) {
        let (engine, music, _, song, _) = try makeEngine(channels: channels)
        try music.setActive(true)
        try song.play()
        return (engine, music)
    }

    @Test func aHalvingEffectNullsAgainstAGainOfOneHalf() throws {
        let (withEffect, music) = try musicOnly()
        let effect = ScaleEffect(0.5)
        try music.setHostEffect(effect)
        let (withGain, reference) = try musicOnly()
        try reference.setGain(0.5, rampFrames: 0)
        let a = render(withEffect, frames: 9_600)
        let b = render(withGain, frames: 9_600)
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 1
        #expect(worst == 0, "largest difference \(worst)")
        #expect(abs(level(a, 4_800..<9_600, 440) - 0.25) < 1e-4)
        #expect(effect.framesProcessed == 9_600)
    }

    @Test func itStartsAtTheAskedFrameExactly() throws {
        let (engine, music) = try musicOnly()
        let (dryEngine, _) = try musicOnly()
        let effect = ScaleEffect(0.5)
        try music.setHostEffect(effect, at: .frame(1_000))
        let out = render(engine, frames: 4_800)
        let dry = render(dryEngine, frames: 4_800)
        #expect(out[..<1_000] == dry[..<1_000])
        #expect(out[1_000...] == dry[1_000...].map { $0 * 0.5 }[...])
        #expect(effect.framesProcessed == 3_800)
    }

    @Test func removingItRestoresTheOutputBitForBitAndReleasesIt() throws {
        let (engine, music) = try musicOnly()
        let (dryEngine, _) = try musicOnly()
        weak var released: ScaleEffect?
        do {
            let effect = ScaleEffect(0.25)
            released = effect
            try music.setHostEffect(effect)
        }
        let first = render(engine, frames: 4_800)
        try music.setHostEffect(nil)
        let second = render(engine, frames: 4_800)
        let dry = render(dryEngine, frames: 9_600)
        #expect(abs(level(first, 2_400..<4_800, 440) - 0.125) < 1e-4)
        #expect(second == Array(dry[4_800...]))
        // Handed back by the render side, released by the next call on the engine.
        #expect(released != nil)
        try music.setGain(1)
        #expect(released == nil)
    }

    @Test func itRunsAfterTheBuiltInChainAndBeforeTheSessionGain() throws {
        let chain: [EffectSettings] = [.biquad(.highpass, frequencyHz: 2_000, q: 0.7, gainDB: 0)]
        let (engine, music) = try musicOnly()
        try music.setEffects(chain)
        try music.setGain(0.5, rampFrames: 0)
        let recorder = RecordingEffect(capacity: 4_800)
        try music.setHostEffect(recorder)
        let (chainOnly, reference) = try musicOnly()
        try reference.setEffects(chain)
        let out = render(engine, frames: 4_800)
        let expected = render(chainOnly, frames: 4_800)
        // Its input is the chain's output at the session's full gain; the gain comes after.
        #expect(recorder.samples == expected)
        #expect(out == expected.map { $0 * 0.5 })
    }

    @Test func itKeepsItsPlaceWhenTheChainIsReplaced() throws {
        let (engine, music) = try musicOnly()
        let (dryEngine, _) = try musicOnly()
        let effect = ScaleEffect(0.5)
        try music.setEffects([.biquad(.lowpass, frequencyHz: 1_000, q: 0.7, gainDB: 0)])
        try music.setHostEffect(effect)
        _ = render(engine, frames: 2_400)
        _ = render(dryEngine, frames: 2_400)
        try music.setEffects([])
        let out = render(engine, frames: 2_400)
        let dry = render(dryEngine, frames: 2_400)
        #expect(out == dry.map { $0 * 0.5 })
        #expect(effect.framesProcessed == 4_800)
    }

    @Test func itGetsTheBusInterleaved() throws {
        let (engine, music) = try musicOnly(channels: 2)
        try music.setHostEffect(RecordingEffect(capacity: 0, silencing: 1))
        let out = render(engine, frames: 4_800)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
        #expect(right.allSatisfy { $0 == 0 })
        #expect(abs(level(left, 2_400..<4_800, 440) - 0.5) < 1e-3)
    }

    @Test func aSwiftHostEffectAddsNoMallocsToTheRender() throws {
        let (engine, music) = try musicOnly(channels: 2)
        let effect = ScaleEffect(0.5)
        try music.setHostEffect(effect)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { out.deallocate() }
        for _ in 0..<4 { engine.render(into: out, frameCount: 256) }
        // Replaced mid-stretch by another one at a frame: the old one retires, the new one runs.
        let second = ScaleEffect(0.25)
        try music.setHostEffect(second, at: .frame(engine.framesRendered + 10_000))
        let mallocs = countMallocs {
            for _ in 0..<400 { engine.render(into: out, frameCount: 256) }
        }
        #expect(mallocs == 0)
        #expect(effect.framesProcessed == 4 * 256 + 10_000)
        #expect(second.framesProcessed == 400 * 256 - 10_000)
    }

    /// `musicOnly` on an engine with a master stage of `effects`.
    func musicOnMaster(_ effects: [EffectSettings]) throws -> (AudioEngine, SessionHandle) {
        let (engine, music, _, song, _) = try makeEngine { $0.effects = effects }
        try music.setActive(true)
        try song.play()
        return (engine, music)
    }

    @Test func aMasterHostEffectNullsAgainstHalfTheSessionGain() throws {
        let (engine, _) = try musicOnMaster([])
        let effect = ScaleEffect(0.5)
        try engine.setMasterHostEffect(effect)
        let (reference, music) = try musicOnMaster([])
        try music.setGain(0.5, rampFrames: 0)
        let a = render(engine, frames: 4_800)
        let b = render(reference, frames: 4_800)
        #expect(a == b)
        #expect(abs(level(a, 2_400..<4_800, 440) - 0.25) < 1e-3)
        #expect(effect.framesProcessed == 4_800)
        try engine.setMasterHostEffect(nil)
        #expect(render(engine, frames: 2_400) == render(reference, frames: 2_400).map { $0 * 2 })
        #expect(effect.framesProcessed == 4_800)
    }

    @Test func aMasterHostEffectHearsTheMasterChainBeforeTheVolume() throws {
        let chain: [EffectSettings] = [.biquad(.highpass, frequencyHz: 2_000, q: 0.7, gainDB: 0)]
        let (engine, _) = try musicOnMaster(chain)
        let recorder = RecordingEffect(capacity: 4_800)
        try engine.setMasterHostEffect(recorder)
        try engine.setVolume(0.25)
        let (reference, _) = try musicOnMaster(chain)
        try reference.setVolume(1)
        let out = render(engine, frames: 4_800)
        let expected = render(reference, frames: 4_800)
        #expect(recorder.samples == expected)
        let heard = level(out, 2_400..<4_800, 440)
        let before = level(expected, 2_400..<4_800, 440)
        #expect(heard < before * 0.9, "the volume comes after the host effect: \(heard) vs \(before)")
    }

    @Test func aMasterHostEffectNeedsAMasterStage() throws {
        let (engine, _) = try musicOnly()
        weak var released: ScaleEffect?
        do {
            let effect = ScaleEffect(0.5)
            released = effect
            #expect {
                try engine.setMasterHostEffect(effect)
            } throws: { error in
                let e = error as? TuttiError
                return e?.code == .state && e?.message.contains("master stage") == true
            }
        }
        #expect(released == nil)
    }

    @Test func badInputIsRefusedByNameChangingNothing() throws {
        let (engine, music) = try musicOnly()
        let (dryEngine, _) = try musicOnly()
        weak var released: ScaleEffect?
        do {
            let effect = ScaleEffect(0.5)
            released = effect
            #expect {
                try music.setHostEffect(effect, at: .frame(-1))
            } throws: { error in
                let e = error as? TuttiError
                return e?.code == .invalidArgument && e?.message.hasPrefix("time must be") == true
            }
        }
        #expect(released == nil)
        #expect(render(engine, frames: 2_400) == render(dryEngine, frames: 2_400))
        try music.remove()
        #expect {
            try music.setHostEffect(ScaleEffect(0.5))
        } throws: { error in
            let e = error as? TuttiError
            return e?.code == .notFound && e?.message.hasPrefix("no session") == true
        }
    }
}
