import CSndFile
import Foundation
import Testing
import TuttiDSP
import TuttiTestSupport

@testable import TuttiScene

/// Issue 12: an output over 4 GiB exited 0 with wrapped RIFF sizes (a corrupt file). Renders
/// whose size is known to exceed what a WAV can hold are written as RF64; smaller ones stay
/// plain WAV, byte for byte as before. The real > 4 GiB render is `scripts/check-rf64.sh`.
@Suite struct RF64Tests {
    static let gibi: Int64 = 1 << 30

    @Test func containerIsChosenFromTheProjectedSize() {
        // 48 kHz stereo float32: 384 000 bytes per second.
        #expect(WAVContainer.required(frameCount: 48_000 * 600, channelCount: 2, format: .float32) == .wav)
        #expect(WAVContainer.required(frameCount: 48_000 * 11_000, channelCount: 2, format: .float32) == .wav) // 3.93 GiB
        #expect(WAVContainer.required(frameCount: 48_000 * 11_200, channelCount: 2, format: .float32) == .rf64) // 4.01 GiB
        #expect(WAVContainer.required(frameCount: 48_000 * 86_400, channelCount: 2, format: .float32) == .rf64) // the longest scene
        // The boundary: data plus header room must fit the 32-bit RIFF size.
        let limit = Int64(WAVContainer.wavDataLimitBytes)
        #expect(limit < 4 * Self.gibi && limit > 4 * Self.gibi - 65_536)
        #expect(WAVContainer.required(frameCount: limit / 8, channelCount: 2, format: .float32) == .wav)
        #expect(WAVContainer.required(frameCount: limit / 8 + 1, channelCount: 2, format: .float32) == .rf64)
        // The same length in s16 mono is a quarter of the bytes.
        #expect(WAVContainer.required(frameCount: 4 * (limit / 8 + 1), channelCount: 1, format: .s16) == .rf64)
        #expect(WAVContainer.required(frameCount: 4 * (limit / 8), channelCount: 1, format: .s16) == .wav)
        // s24 is packed, 3 bytes per sample.
        #expect(WAVContainer.required(frameCount: limit / 6 + 1, channelCount: 2, format: .s24) == .rf64)
    }

    func writeTone(_ path: String, container: WAVContainer?, format: SampleFormat) throws -> [Float] {
        let tone = sine(1000, rate: 48_000, seconds: 0.5, amplitude: 0.5, channels: 2)
        let w = try AtomicWAVWriter(
            path: path, sampleRate: 48_000, channelCount: 2, format: format, frameCount: Int64(tone.count / 2), container: container)
        #expect(w.container == container ?? .wav)
        try tone.withUnsafeBufferPointer { try w.write($0) }
        try w.commit()
        return tone
    }

    @Test(arguments: [SampleFormat.float32, .s16, .s24])
    func forcedRF64IsReadBackByLibsndfileAndSox(format: SampleFormat) throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = try writeTone(dir + "/rf64.wav", container: .rf64, format: format)
        let bytes = FileManager.default.contents(atPath: dir + "/rf64.wav")!
        #expect(String(decoding: bytes.prefix(4), as: UTF8.self) == "RF64")
        // libsndfile (the reader Tutti's own file sources use).
        let back = try AudioFileReader.read(path: dir + "/rf64.wav")
        #expect(back.channelCount == 2 && back.sampleRate == 48_000 && back.frameCount == tone.count / 2)
        let tolerance: Float = format == .float32 ? 0 : (format == .s16 ? 2.0 / 32_768 : 2.0 / 8_388_608)
        #expect(zip(back.samples, tone).allSatisfy { abs($0 - $1) <= tolerance })
        // sox.
        let info = try runTool("/usr/bin/soxi", [dir + "/rf64.wav"])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("Duration       : 00:00:00.50 = 24000 samples"), "\(info.output)")
        let encoding = format == .float32 ? "Sample Encoding: 32-bit Floating Point PCM" : "Precision      : \(format.bitsPerSample)-bit"
        #expect(info.output.contains(encoding), "\(info.output)")
        let stat = try runTool("/usr/bin/sox", [dir + "/rf64.wav", "-n", "stat"])
        #expect(stat.status == 0, "\(stat.output)")
        #expect(stat.output.contains("Samples read:             48000"), "\(stat.output)")
        let rms = stat.output.split(separator: "\n").first { $0.hasPrefix("RMS     amplitude:") }.flatMap {
            Double($0.split(separator: " ").last!)
        }
        #expect(rms.map { abs($0 - 0.5 / 2.squareRoot()) < 0.001 } == true, "\(stat.output)")
    }

    @Test func rf64IsDeterministicAndSmallOutputsStayPlainWAV() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try writeTone(dir + "/a.wav", container: .rf64, format: .s16)
        _ = try writeTone(dir + "/b.wav", container: .rf64, format: .s16)
        #expect(FileManager.default.contents(atPath: dir + "/a.wav") == FileManager.default.contents(atPath: dir + "/b.wav"))
        // Chosen from the length (0.5 s): plain WAV, and the same bytes as a writer told nothing.
        _ = try writeTone(dir + "/c.wav", container: nil, format: .s16)
        let c = FileManager.default.contents(atPath: dir + "/c.wav")!
        #expect(String(decoding: c.prefix(4), as: UTF8.self) == "RIFF")
        let plain = try AtomicWAVWriter(path: dir + "/d.wav", sampleRate: 48_000, channelCount: 2, format: .s16)
        let tone = sine(1000, rate: 48_000, seconds: 0.5, amplitude: 0.5, channels: 2)
        try tone.withUnsafeBufferPointer { try plain.write($0) }
        try plain.commit()
        #expect(FileManager.default.contents(atPath: dir + "/d.wav") == c)
    }

    /// A plain-WAV writer that is given more than a WAV holds fails instead of wrapping its
    /// sizes (the limit is lowered here so the test writes kilobytes, not 4 GiB).
    @Test func plainWAVWriterRefusesToPassTheLimit() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try AtomicWAVWriter(path: dir + "/out.wav", sampleRate: 48_000, channelCount: 2, format: .float32)
        w.wavDataLimitBytes = 8_000
        let block = [Float](repeating: 0.25, count: 2 * 600)
        try block.withUnsafeBufferPointer { try w.write($0) } // 4 800 bytes
        #expect {
            try block.withUnsafeBufferPointer { try w.write($0) }
        } throws: {
            "\($0)".contains("out.wav: the output would pass the 4 GiB a WAV file can hold")
        }
        w.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}

func runTool(_ tool: String, _ args: [String]) throws -> (status: Int32, output: String) {
    let child = try Child(tool, args)
    let status = child.wait(seconds: 60)
    return (status, child.output)
}
