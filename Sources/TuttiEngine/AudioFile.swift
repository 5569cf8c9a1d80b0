import CSndFile
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// Decoding audio files with libsndfile, for sources. Errors are `TuttiError`s naming the
/// file: `io` when it cannot be read (missing, unreadable, not a regular file), `format` when
/// its content is not audio Tutti plays (or too big to hold in memory).
///
/// Thread: any thread but the render thread (it allocates and does I/O).
public enum AudioFile {
    /// The most memory a decoded, converted file may take (bytes of float samples at the
    /// engine's rate and channel count): 2 GiB.
    public static let maximumDecodedBytes = 2 << 30

    /// Decode a whole file (1 or 2 channels, any rate libsndfile reads) to interleaved float,
    /// at its own rate. `engineSampleRate` / `engineChannelCount`, when given, are the format
    /// it will be converted to: the memory guard counts the frames after that conversion.
    public static func decode(path: String, engineSampleRate: Int? = nil, engineChannelCount: Int? = nil) throws(TuttiError) -> AudioBuffer
    {
        try checkRegularFile(path)
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = String(cString: sf_strerror(nil))
            throw TuttiError(.format, "\(path): cannot read audio file: \(reason)")
        }
        defer { sf_close(file) }
        guard (1...2).contains(Int(info.channels)) else {
            throw TuttiError(.format, "\(path): has \(info.channels) channels; Tutti reads mono or stereo files")
        }
        guard info.samplerate >= 1000, info.samplerate <= 768_000 else {
            throw TuttiError(.format, "\(path): sample rate \(info.samplerate) Hz is not supported")
        }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        let outRate = Double(engineSampleRate ?? Int(info.samplerate))
        let outChannels = max(channels, engineChannelCount ?? channels)
        let decodedBytes = Double(frames) * Double(channels) * 4
        let convertedBytes = Double(frames) * outRate / Double(info.samplerate) * Double(outChannels) * 4
        guard max(decodedBytes, convertedBytes) <= Double(maximumDecodedBytes) else {
            throw TuttiError(
                .format,
                "\(path): \(frames) frames at \(info.samplerate) Hz would take \(Int(max(decodedBytes, convertedBytes)) >> 20) MiB in memory (limit \(maximumDecodedBytes >> 20) MiB)"
            )
        }
        var samples = [Float](repeating: 0, count: frames * channels)
        let got = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        if got != frames {
            throw TuttiError(
                .format, "\(path): file is truncated or unreadable (read \(got) of \(frames) frames): \(String(cString: sf_strerror(file)))"
            )
        }
        return AudioBuffer(interleaved: samples, channelCount: channels, sampleRate: Double(info.samplerate))
    }

    /// Throws `io` unless `path` names a regular file we may read: a FIFO would block the
    /// open forever, and a directory or device is not audio.
    public static func checkRegularFile(_ path: String) throws(TuttiError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw TuttiError(.io, "\(path): \(String(cString: strerror(errno)))")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            guard access(path, R_OK) == 0 else { throw TuttiError(.io, "\(path): \(String(cString: strerror(errno)))") }
        case S_IFDIR: throw TuttiError(.io, "\(path): is a directory, not an audio file")
        case S_IFIFO: throw TuttiError(.io, "\(path): is a FIFO, not an audio file (reading it could block forever)")
        default: throw TuttiError(.io, "\(path): is not a regular file")
        }
    }
}
