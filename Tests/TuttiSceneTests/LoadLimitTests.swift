import CSndFile
import Foundation
import Testing
import TuttiScene
import TuttiTestSupport

/// Issue 12: the loader's memory guard counted input frames, so a small low-rate file (a
/// FLAC of hours of silence at 1 kHz) was upsampled to 48 kHz in memory and died under a
/// memory limit; and a conversion error did not name its file. (Since issue 10 such a file
/// streams as a source; the guard still holds for whole loads.)
@Suite struct LoadLimitTests {
    /// `frames` of 16-bit silence at 1 kHz, mono, as FLAC (a few hundred bytes per minute).
    func writeSilentFLAC(_ path: String, frames: Int) {
        var info = SF_INFO()
        info.samplerate = 1_000
        info.channels = 1
        info.format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        let f = sf_open(path, Int32(SFM_WRITE), &info)!
        let chunk = [Int16](repeating: 0, count: 1 << 16)
        var left = frames
        while left > 0 {
            let n = min(left, chunk.count)
            _ = chunk.withUnsafeBufferPointer { sf_writef_short(f, $0.baseAddress, sf_count_t(n)) }
            left -= n
        }
        sf_close(f)
    }

    /// 200 minutes at 1 kHz is 23 MB of float samples, but 4.29 GiB once converted to
    /// 48 kHz stereo. Loaded whole it is refused from its header, before anything is
    /// converted, naming the file and the size; as a scene source (above the streaming
    /// threshold) it streams, and a `tutti render` limited to 3 GB of address space (which
    /// it used to die in) renders it.
    @Test func lowRateFileTooLargeOnceConvertedIsRefusedBeforeAllocating() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeSilentFLAC(dir + "/long.flac", frames: 12_000_000)
        #expect {
            try AudioFileReader.load(path: dir + "/long.flac", sampleRate: 48_000, channelCount: 2, quality: .linear)
        } throws: {
            "\($0)".hasSuffix(
                #"long.flac: 12000000 frames at 1000 Hz take 4.29 GiB once converted to 48000 Hz, 2 channels (576000000 frames × 2 channels × 4 bytes); a file loaded whole may take at most 2 GiB"#
            )
        }
        let scene = """
            {"duration": 1, "engine": {"resampler": "linear"}, "sessions": [{"id": "m", "category": "playback"}],
             "sources": [{"id": "a", "session": "m", "file": "long.flac"}],
             "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"}]}
            """
        try scene.write(toFile: dir + "/scene.json", atomically: true, encoding: .utf8)
        let child = try Child(
            "/bin/sh",
            [
                "-c", "ulimit -v 3000000 && exec \"$0\" render \"$1\" -o \"$2\" --quiet", Tool.tuttiPath, dir + "/scene.json",
                dir + "/out.wav",
            ])
        let status = child.wait(seconds: 120)
        #expect(status == 0, "\(child.output)")
        #expect(FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }

    /// libsamplerate refuses ratios above 256 (1 kHz → 384 kHz): the error names the file.
    /// (libsoxr, the default, converts it; the scene asks for a libsamplerate quality.)
    @Test func conversionErrorNamesTheFile() throws {
        let dir = makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeWAV(dir + "/low.wav", [Float](repeating: 0.1, count: 1_000), rate: 1_000, channels: 1)
        let scene = """
            {"duration": 1, "engine": {"sampleRate": 384000, "resampler": "sincBest"}, "sessions": [{"id": "m", "category": "playback"}],
             "sources": [{"id": "a", "session": "m", "file": "low.wav"}],
             "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "a", "action": "play"}]}
            """
        #expect {
            try renderScene(scene, in: dir)
        } throws: {
            "\($0)".hasPrefix(#"sources[0].file: "low.wav": cannot convert from 1000 Hz to 384000 Hz: "#)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.wav"))
    }
}
