import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiEngine

/// Issue 24: every audio buffer of the render path starts on a 64-byte boundary
/// (`allocateAudio`), and aligning them changed no output sample.
@Suite struct AlignmentTests {
    /// Frames rendered per scene.
    static let frames = 24_000
    /// An engine with every kind of render buffer: two routes, `maxBlockFrames` 250 (its
    /// chunks are not a whole number of 64-byte lines, so carved parts need their stride
    /// rounded), a bus chain with a delay, a master chain, a limiter with lookahead, and a
    /// buffer, a tone, a host stream (44.1 kHz mono), a streaming file (44.1 kHz stereo) and an
    /// input with a tap, with ramps of source gain, bus gain, pan and master volume.
    func scene(folder: String) throws -> Engine {
        let path = folder + "/long.wav"
        writeWAV(path, musicLikeSamples(seconds: 1.5, rate: 44_100, channels: 2), rate: 44_100, channels: 2)
        var config = EngineConfiguration()
        config.outputBuses = ["main", "cue"]
        config.maxBlockFrames = 250
        config.streamingThresholdSeconds = 1
        config.limiter = LimiterSettings(ceilingDB: -3, releaseSeconds: 0.05, lookaheadSeconds: 0.002)
        config.effects = [.biquad(.lowpass, frequencyHz: 6_000, q: 0.7, gainDB: 0)]
        let engine = try Engine(configuration: config)
        let music = try engine.addBus()
        let voice = try engine.addBus()
        try engine.setBusEffects(music, [.delay(timeSeconds: 0.05, feedback: 0.4, mix: 0.3)])

        let buffer = try engine.addSource(.buffer(sineBuffer(330, seconds: 0.3)), bus: music, gain: 0.5, loop: true)
        let tone = try engine.addSource(.tone(frequency: 880, amplitude: 0.3), bus: voice, loop: true)
        try engine.send(.setOutputBus(tone, bus: 1))
        let stream = try engine.addSource(.stream(sampleRate: 44_100, channelCount: 1, capacityFrames: 32_768), bus: voice, gain: 0.4)
        let samples = musicLikeSamples(seconds: 0.5, rate: 44_100, channels: 1, seed: 3)
        let streamWriter = try #require(engine.stream(stream))
        #expect(samples.withUnsafeBufferPointer { streamWriter.write($0) } == samples.count)
        let kind = try AudioFile.sourceKind(path: path, configuration: engine.configuration, quality: .soxrHQ)
        guard case .file = kind else {
            Issue.record("a 1.5 s file should stream above a 1 s threshold")
            return engine
        }
        let file = try engine.addSource(kind, bus: music, gain: 0.3, loop: true)
        let input = try engine.addSource(
            .input(channelCount: 1, capacityFrames: 32_768, tapCapacityFrames: 32_768), bus: voice, gain: 0.2)
        let mic = (0..<Self.frames).map { Float(0.3 * sin(Double($0) * 0.05)) }
        let inputWriter = try #require(engine.input(input))
        #expect(mic.withUnsafeBufferPointer { inputWriter.write($0) } == mic.count)

        for id in [buffer, tone, stream, file, input] { try engine.send(.play(id)) }
        try engine.send(.setSourceGain(buffer, gain: 0.2, rampFrames: 9_000), at: .frame(7_000))
        try engine.send(.setSourcePan(stream, pan: -0.5, rampFrames: 2_000), at: .frame(3_000))
        try engine.send(.setBusGain(music, gain: 0.6, rampFrames: 3_000), at: .frame(5_000))
        try engine.send(.setMasterVolume(gain: 0.5, rampFrames: 4_800), at: .frame(10_000))
        return engine
    }

    /// Both routes of `engine` for `frames` frames, in blocks of 256, written `offset` floats
    /// past a 64-byte boundary of the caller's buffers (waits for the streaming file).
    func render(_ engine: Engine, offset: Int) -> (main: [Float], cue: [Float]) {
        let ch = engine.channelCount
        let count = Self.frames * ch
        let bytes = (count + offset) * MemoryLayout<Float>.stride
        let main = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64).bindMemory(to: Float.self, capacity: count + offset)
        let cue = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64).bindMemory(to: Float.self, capacity: count + offset)
        defer {
            main.deallocate()
            cue.deallocate()
        }
        var done = 0
        while done < Self.frames {
            let n = min(256, Self.frames - done)
            let at = [main + offset + done * ch, cue + offset + done * ch]
            at.withUnsafeBufferPointer { engine.renderWaitingForFiles(outputBuses: $0.baseAddress!, busCount: 2, frameCount: n) }
            done += n
        }
        return (
            Array(UnsafeBufferPointer(start: main + offset, count: count)), Array(UnsafeBufferPointer(start: cue + offset, count: count))
        )
    }

    /// The output, bit for bit, does not depend on the caller's buffers' alignment (aligned or
    /// one float past). (When the buffers were aligned it was also checked against a hash of
    /// the render from before; docs/performance.md, "Aligned buffers".)
    @Test func outputIsUnchangedBitForBit() throws {
        let folder = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let aligned = render(try scene(folder: folder), offset: 0)
        let shifted = render(try scene(folder: folder), offset: 1)
        #expect(aligned.main == shifted.main)
        #expect(aligned.cue == shifted.cue)
        // Not silence: every route carries signal.
        #expect(aligned.main.map(abs).max()! > 0.05)
        #expect(aligned.cue.map(abs).max()! > 0.05)
    }

    /// Every buffer the render path touches starts on a 64-byte boundary: the route and
    /// master-stage chunks and the bus gain rows one by one (carved out of one allocation),
    /// the gain and scratch blocks, effect buffers and delay lines, the limiters' lines, the
    /// rings, and each source's samples (enumerated after a render).
    @Test func everyRenderBufferIs64ByteAligned() throws {
        #expect(audioBufferAlignment == 64)
        let folder = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let engine = try scene(folder: folder)
        _ = render(engine, offset: 0)
        let buffers = engine.renderer.audioBufferAddresses()
        let names = Set(buffers.map(\.name))
        for expected in [
            "routeScratch[0]", "masterBuffers[0]", "masterBuffers[1]", "busGains[0]", "busGains[1]", "frameGains", "sampleGains", "scratch",
            "systemVolumeGains", "ringerVolumeGains", "masterEffects.buffer", "limiters[0].delay", "limiters[1].delay", "commands",
            "events",
        ] {
            #expect(names.contains(expected), "\(expected) is not enumerated")
        }
        for suffix in [".buffer", ".stream.ring", ".file.ring", ".input.ring", ".input.tap", ".unit[0].line"] {
            #expect(names.contains { $0.hasSuffix(suffix) }, "no buffer named *\(suffix)")
        }
        for b in buffers {
            #expect(UInt(bitPattern: b.address) % 64 == 0, "\(b.name) at \(b.address) is not 64-byte aligned")
        }
        // Parts carved out of one allocation: 250 frames × 2 channels is not a whole number of
        // lines, so the strides were rounded up.
        #expect(engine.renderer.routeStride == 512 && engine.renderer.busGainStride == 256)
    }

    /// `allocateAudio` for element types of several sizes and capacities (0 included), and
    /// `alignedAudioStride`: whole 64-byte spans.
    @Test func allocateAudioAligns() {
        for capacity in [0, 1, 3, 17, 250, 4_097] {
            let f = allocateAudio(Float.self, capacity: capacity)
            let s = allocateAudio(Int16.self, capacity: capacity)
            let i = allocateAudio(Int32.self, capacity: capacity)
            #expect(UInt(bitPattern: f) % 64 == 0 && UInt(bitPattern: s) % 64 == 0 && UInt(bitPattern: i) % 64 == 0)
            deallocateAudio(f)
            deallocateAudio(s)
            deallocateAudio(i)
            let bytes = allocateAudioBytes(capacity * 3)
            #expect(UInt(bitPattern: bytes) % 64 == 0)
            bytes.deallocate()
        }
        #expect(alignedAudioStride(500, of: Float.self) == 512)
        #expect(alignedAudioStride(512, of: Float.self) == 512)
        #expect(alignedAudioStride(1, of: Float.self) == 16)
        #expect(alignedAudioStride(33, of: Int16.self) == 64)
    }
}
