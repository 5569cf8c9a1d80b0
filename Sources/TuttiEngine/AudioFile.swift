import CSndFile
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// Decoding audio files with libsndfile for file sources: the one reader of the project (the
/// host API, the scene loader and the streaming worker use it). Anything but a regular file is
/// refused before it is read; a file whose samples would not fit the memory guard is refused
/// from its header, before anything is allocated.
///
/// Thread: any thread but the render thread (it allocates and does I/O).
public enum AudioFile {
    /// The most memory one file may take, decoded and again once converted to the engine's
    /// rate and channel count (frames × channels × 4 bytes): 2 GiB, about 93 minutes of
    /// 48 kHz stereo. Larger files are refused, before anything is allocated.
    public static let maximumLoadedBytes = 1 << 31

    /// Why a file was refused, without its path (the caller names it its own way).
    package struct Failure: Error, Sendable {
        /// `io`: it cannot be opened or read; `format`: it is not audio Tutti plays, or too big.
        package let code: TuttiError.Code
        package let reason: String
    }

    /// What a file's header says, before anything is decoded.
    package struct Header: Sendable {
        package var frameCount: Int
        package var channelCount: Int
        package var sampleRate: Int
    }

    /// Decode a whole file (1 or 2 channels, any rate libsndfile reads) to interleaved float at
    /// its own rate. Throws `io` or `format` naming the file.
    public static func read(path: String) throws(TuttiError) -> AudioBuffer {
        do {
            let d = try decode(path: path) { _ throws(Failure) in }
            return AudioBuffer(interleaved: d.samples, channelCount: d.channelCount, sampleRate: Double(d.sampleRate))
        } catch {
            throw TuttiError(error.code, "\(path): \(error.reason)")
        }
    }

    /// Decode a whole file and convert it to `sampleRate` Hz and `channelCount` channels
    /// (`quality`, then mono ↔ stereo mapping): what a file source plays. Throws `io` or
    /// `format` naming the file.
    public static func load(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality) throws(TuttiError) -> AudioBuffer {
        var converted = false
        do {
            return try load(path: path, sampleRate: sampleRate, channelCount: channelCount, quality: quality, converted: &converted)
        } catch {
            throw TuttiError(error.code, "\(path): \(error.reason)")
        }
    }

    /// `load`, telling whether the file needed converting, with the reason unprefixed.
    package static func load(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality, converted: inout Bool)
        throws(Failure) -> AudioBuffer
    {
        let d = try decode(path: path) { header throws(Failure) in
            let frames = convertedFrameCount(header.frameCount, from: header.sampleRate, to: sampleRate)
            let bytes = Double(frames) * Double(channelCount) * 4
            if bytes > Double(maximumLoadedBytes) {
                let s = channelCount == 1 ? "" : "s"
                throw Failure(
                    code: .format,
                    reason:
                        "\(header.frameCount) frames at \(header.sampleRate) Hz take \(gibibytes(bytes)) once converted to \(sampleRate) Hz, "
                        + "\(channelCount) channel\(s) (\(frames) frames × \(channelCount) channel\(s) × 4 bytes); "
                        + "a file loaded whole may take at most \(gibibytes(Double(maximumLoadedBytes)))")
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
                throw Failure(code: .format, reason: "cannot convert from \(d.sampleRate) Hz to \(sampleRate) Hz: \(error)")
            }
        }
        samples = ChannelMap.map(samples, from: d.channelCount, to: channelCount)
        return AudioBuffer(
            interleaved: samples, channelCount: channelCount, sampleRate: Double(sampleRate),
            contentChannelCount: min(d.channelCount, channelCount))
    }

    /// What a file source of `path` plays in an engine of `configuration`: a `FileStream`
    /// (`.file`) when the file is longer than `streamingThresholdSeconds` at the engine rate,
    /// otherwise the whole file loaded and converted now (`.buffer`). Throws `io` or `format`
    /// naming the file. Control side (does I/O; a load allocates the whole file).
    public static func sourceKind(path: String, configuration: EngineConfiguration, quality: ResamplerQuality) throws(TuttiError)
        -> SourceKind
    {
        var streamed = false
        var converted = false
        do {
            return try sourceKind(
                path: path, configuration: configuration, quality: quality, streamed: &streamed, converted: &converted)
        } catch {
            throw TuttiError(error.code, "\(path): \(error.reason)")
        }
    }

    /// `sourceKind`, telling whether the file streams and whether it needed converting, with
    /// the reason unprefixed.
    package static func sourceKind(
        path: String, configuration: EngineConfiguration, quality: ResamplerQuality, streamed: inout Bool, converted: inout Bool
    ) throws(Failure) -> SourceKind {
        let rate = configuration.sampleRate
        let channels = configuration.channelCount
        let header = try readHeader(path: path)
        converted = header.sampleRate != rate || header.channelCount != channels
        let frames = convertedFrameCount(header.frameCount, from: header.sampleRate, to: rate)
        if Double(frames) > configuration.streamingThresholdSeconds * Double(rate) {
            streamed = true
            return .file(
                try FileStream(
                    path: path, sampleRate: rate, channelCount: channels, quality: quality,
                    ringFrames: configuration.frames(forSeconds: configuration.streamingRingSeconds)))
        }
        return .buffer(try load(path: path, sampleRate: rate, channelCount: channels, quality: quality, converted: &converted))
    }

    /// The first forward loop of the file's sampler data (a WAV `smpl` chunk, as libsndfile's
    /// `SFC_GET_INSTRUMENT` reads it: start inclusive, end exclusive), in frames at
    /// `sampleRate` (each end rounded to the nearest frame of the converted file); nil when
    /// the file has none, it is not forward, it is empty or outside the file, or the file
    /// cannot be read (loading it says why). Its play count is not used. Control side (I/O).
    public static func sampleLoop(path: String, sampleRate: Int) -> Range<Int>? {
        guard let fd = try? RegularFile.open(path) else { return nil }
        defer { close(fd) }
        var info = SF_INFO()
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_FALSE)) else { return nil }
        defer { sf_close(file) }
        var instrument = SF_INSTRUMENT()
        let size = Int32(MemoryLayout<SF_INSTRUMENT>.size)
        guard sf_command(file, Int32(SFC_GET_INSTRUMENT), &instrument, size) == Int32(SF_TRUE) else { return nil }
        var mode: Int32 = 0
        var loopStart: UInt32 = 0
        var loopEnd: UInt32 = 0
        guard tutti_sf_first_loop(&instrument, &mode, &loopStart, &loopEnd) == 1 else { return nil }
        let fileFrames = Int(max(info.frames, 0))
        guard mode == Int32(SF_LOOP_FORWARD), loopStart < loopEnd, Int(loopEnd) <= fileFrames, info.samplerate > 0 else {
            return nil
        }
        let start = convertedFrameCount(Int(loopStart), from: Int(info.samplerate), to: sampleRate)
        let end = convertedFrameCount(Int(loopEnd), from: Int(info.samplerate), to: sampleRate)
        return start < end ? start..<end : nil
    }

    /// What the header of the regular file at `path` says (nothing decoded).
    package static func readHeader(path: String) throws(Failure) -> Header {
        let fd = try RegularFile.open(path, missing: "cannot read audio file: no such file")
        defer { close(fd) }
        var info = SF_INFO()
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_FALSE)) else {
            throw Failure(code: .format, reason: "cannot read audio file: \(String(cString: sf_strerror(nil)))")
        }
        sf_close(file)
        return Header(frameCount: Int(max(info.frames, 0)), channelCount: Int(info.channels), sampleRate: Int(info.samplerate))
    }

    /// The frame count `resampleBuffer` produces for `frameCount` frames.
    package static func convertedFrameCount(_ frameCount: Int, from rate: Int, to target: Int) -> Int {
        rate == target ? frameCount : Int((Double(frameCount) * Double(target) / Double(rate)).rounded())
    }

    static func gibibytes(_ bytes: Double) -> String {
        let g = bytes / Double(1 << 30)
        if g == g.rounded() { return "\(Int(g)) GiB" }
        let hundredths = Int((g * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) GiB"
    }

    /// Opens `path`, lets `check` refuse it from its header, then decodes it. The samples
    /// grow with what is actually decoded, so a header that claims more frames than the
    /// file holds cannot make it allocate them.
    package static func decode(path: String, check: (Header) throws(Failure) -> Void) throws(Failure) -> (
        samples: [Float], channelCount: Int, sampleRate: Int
    ) {
        let fd = try RegularFile.open(path, missing: "cannot read audio file: no such file")
        defer { close(fd) }
        var info = SF_INFO()
        // SF_FALSE: the descriptor stays ours (closed above), whether the open succeeds or not.
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_FALSE)) else {
            throw Failure(code: .format, reason: "cannot read audio file: \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        guard (1...2).contains(Int(info.channels)) else {
            throw Failure(code: .format, reason: "has \(info.channels) channels; Tutti reads mono or stereo files")
        }
        guard info.samplerate >= 1000, info.samplerate <= 768_000 else {
            throw Failure(code: .format, reason: "sample rate \(info.samplerate) Hz is not supported")
        }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        guard frames >= 0 else { throw Failure(code: .format, reason: "cannot read audio file: invalid length") }
        let bytes = Double(frames) * Double(channels) * 4
        if bytes > Double(maximumLoadedBytes) {
            throw Failure(
                code: .format,
                reason: "\(frames) frames × \(channels) channel\(channels == 1 ? "" : "s") take \(gibibytes(bytes)) decoded; "
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
            throw Failure(
                code: .format,
                reason: "file is truncated or unreadable (read \(got) of \(frames) frames): \(String(cString: sf_strerror(file)))")
        }
        return (samples, channels, Int(info.samplerate))
    }
}

/// Opening input files (scenes, audio) without hanging on what is not a regular file: the
/// open is non-blocking, so a FIFO with no writer or a device cannot stall it, and anything
/// but a regular file is refused before a byte is read. Any thread.
package enum RegularFile {
    /// A read-only descriptor (blocking mode, close-on-exec) for the regular file at `path`;
    /// the caller closes it. `missing` is the reason given for a path that does not exist.
    package static func open(_ path: String, missing: String = "no such file") throws(AudioFile.Failure) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw AudioFile.Failure(code: .io, reason: code == ENOENT ? missing : "cannot open: \(String(cString: strerror(code)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw AudioFile.Failure(code: .io, reason: "cannot open: \(reason)")
        }
        if let kind = nonRegularKind(st.st_mode) {
            close(fd)
            throw AudioFile.Failure(code: .io, reason: kind)
        }
        // Back to blocking reads (no difference for a regular file, but libsndfile expects it).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Why a file of this mode is refused; nil for a regular file.
    package static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "is a folder, not a file"
        case S_IFIFO: "is a FIFO (named pipe), not a regular file"
        case S_IFCHR: "is a character device, not a regular file"
        case S_IFBLK: "is a block device, not a regular file"
        case S_IFSOCK: "is a socket, not a regular file"
        default: "is not a regular file"
        }
    }

    /// The whole content of the regular file at `path`.
    package static func contents(_ path: String, missing: String = "no such file") throws(AudioFile.Failure) -> [UInt8] {
        let fd = try open(path, missing: missing)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw AudioFile.Failure(code: .io, reason: "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}
