import CSndFile
import Foundation
import Tutti
import TuttiDSP

/// Reading audio files with libsndfile. Control side only (allocates, does I/O).
public enum AudioFileReader {
    /// The most memory one file may take, decoded and again once converted to the engine's
    /// rate and channel count (frames × channels × 4 bytes): 2 GiB, about 93 minutes of
    /// 48 kHz stereo. Larger files are refused, before anything is allocated.
    public static let maximumLoadedBytes = 1 << 31

    /// Decode a whole file (1 or 2 channels, any rate libsndfile reads) to interleaved float.
    /// Anything but a regular file (a FIFO, a folder, a device) is refused before it is read.
    /// Errors name the file.
    public static func read(path: String) throws -> AudioBuffer {
        let d = try decode(path: path) { _ in }
        return AudioBuffer(interleaved: d.samples, channelCount: d.channelCount, sampleRate: Double(d.sampleRate))
    }

    /// Decode a whole file and convert it to `sampleRate` Hz and `channelCount` channels
    /// (libsamplerate at `quality`, then mono ↔ stereo mapping): what a file source plays.
    /// A file whose converted samples would take more than `maximumLoadedBytes` is refused
    /// from its header, before it is decoded. Errors name the file.
    public static func load(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality) throws -> AudioBuffer {
        var converted = false
        return try load(path: path, sampleRate: sampleRate, channelCount: channelCount, quality: quality, converted: &converted)
    }

    /// `load`, telling whether the file needed converting (another rate or channel count).
    static func load(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality, converted: inout Bool) throws
        -> AudioBuffer
    {
        let d = try decode(path: path) { header in
            let frames = convertedFrameCount(header.frameCount, from: header.sampleRate, to: sampleRate)
            let bytes = Double(frames) * Double(channelCount) * 4
            if bytes > Double(maximumLoadedBytes) {
                throw SceneError(
                    path,
                    "\(header.frameCount) frames at \(header.sampleRate) Hz take \(gibibytes(bytes)) once converted to \(sampleRate) Hz, "
                        + "\(channelCount) channel\(channelCount == 1 ? "" : "s") (\(frames) frames × \(channelCount) channel"
                        + "\(channelCount == 1 ? "" : "s") × 4 bytes); a file loaded whole may take at most \(gibibytes(Double(maximumLoadedBytes)))"
                )
            }
        }
        // Same steps (and so the same samples) as `AudioBuffer.converted`, without its copies.
        converted = d.sampleRate != sampleRate || d.channelCount != channelCount
        var samples = d.samples
        if d.sampleRate != sampleRate {
            do {
                samples = try resampleBuffer(
                    samples, channelCount: d.channelCount, fromRate: Double(d.sampleRate), toRate: Double(sampleRate), quality: quality)
            } catch {
                throw SceneError(path, "cannot convert from \(d.sampleRate) Hz to \(sampleRate) Hz: \(error)")
            }
        }
        samples = ChannelMap.map(samples, from: d.channelCount, to: channelCount)
        return AudioBuffer(interleaved: samples, channelCount: channelCount, sampleRate: Double(sampleRate))
    }

    /// What a file's header says, before anything is decoded.
    struct Header {
        var frameCount: Int
        var channelCount: Int
        var sampleRate: Int
    }

    /// The frame count `resampleBuffer` produces for `frameCount` frames.
    static func convertedFrameCount(_ frameCount: Int, from rate: Int, to target: Int) -> Int {
        rate == target ? frameCount : Int((Double(frameCount) * Double(target) / Double(rate)).rounded())
    }

    static func gibibytes(_ bytes: Double) -> String {
        let g = bytes / Double(1 << 30)
        return g == g.rounded() ? "\(Int(g)) GiB" : String(format: "%.2f GiB", g)
    }

    /// Opens `path`, lets `check` refuse it from its header, then decodes it. The samples
    /// grow with what is actually decoded, so a header that claims more frames than the
    /// file holds cannot make it allocate them.
    static func decode(path: String, check: (Header) throws -> Void) throws -> (samples: [Float], channelCount: Int, sampleRate: Int) {
        let fd = try RegularFile.open(path, missing: "cannot read audio file: no such file")
        defer { close(fd) }
        var info = SF_INFO()
        // SF_FALSE: the descriptor stays ours (closed above), whether the open succeeds or not.
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_FALSE)) else {
            let reason = String(cString: sf_strerror(nil))
            throw SceneError(path, "cannot read audio file: \(reason)")
        }
        defer { sf_close(file) }
        guard (1...2).contains(Int(info.channels)) else {
            throw SceneError(path, "has \(info.channels) channels; Tutti reads mono or stereo files")
        }
        guard info.samplerate >= 1000, info.samplerate <= 768_000 else {
            throw SceneError(path, "sample rate \(info.samplerate) Hz is not supported")
        }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        guard frames >= 0 else { throw SceneError(path, "cannot read audio file: invalid length") }
        let bytes = Double(frames) * Double(channels) * 4
        if bytes > Double(maximumLoadedBytes) {
            throw SceneError(
                path,
                "\(frames) frames × \(channels) channel\(channels == 1 ? "" : "s") take \(gibibytes(bytes)) decoded; "
                    + "a file loaded whole may take at most \(gibibytes(Double(maximumLoadedBytes)))")
        }
        try check(Header(frameCount: frames, channelCount: channels, sampleRate: Int(info.samplerate)))

        let chunkFrames = 1 << 16
        var chunk = [Float](repeating: 0, count: chunkFrames * channels)
        var samples: [Float] = []
        samples.reserveCapacity(min(frames, 1 << 20) * channels)
        var got = 0
        while got < frames {
            let n = chunk.withUnsafeMutableBufferPointer {
                Int(sf_readf_float(file, $0.baseAddress, sf_count_t(min(chunkFrames, frames - got))))
            }
            if n <= 0 { break }
            let needed = (got + n) * channels
            if samples.capacity < needed { samples.reserveCapacity(min(frames * channels, max(needed, 2 * samples.capacity))) }
            samples.append(contentsOf: chunk[0..<n * channels])
            got += n
        }
        if got != frames {
            throw SceneError(
                path, "file is truncated or unreadable (read \(got) of \(frames) frames): \(String(cString: sf_strerror(file)))")
        }
        return (samples, channels, Int(info.samplerate))
    }
}
