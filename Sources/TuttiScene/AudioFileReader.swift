import CSndFile
import Foundation
import Tutti

/// Reading audio files with libsndfile. Control side only (allocates, does I/O).
public enum AudioFileReader {
    /// Decode a whole file (1 or 2 channels, any rate libsndfile reads) to interleaved float.
    /// Anything but a regular file (a FIFO, a folder, a device) is refused before it is read.
    /// Errors name the file.
    public static func read(path: String) throws -> AudioBuffer {
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
        guard frames <= 48_000 * 3600 else { throw SceneError(path, "is longer than an hour; stream it instead") }
        var samples = [Float](repeating: 0, count: frames * channels)
        let got = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        if got != frames {
            throw SceneError(
                path, "file is truncated or unreadable (read \(got) of \(frames) frames): \(String(cString: sf_strerror(file)))")
        }
        return AudioBuffer(interleaved: samples, channelCount: channels, sampleRate: Double(info.samplerate))
    }
}
