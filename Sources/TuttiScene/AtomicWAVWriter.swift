import CSndFile
import Foundation
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// The container of a rendered file. A WAV's RIFF sizes are 32-bit, so it holds at most
/// 4 GiB; RF64 (EBU Tech 3306: the same layout with 64-bit sizes, read by libsndfile, sox,
/// ffmpeg) holds more. Renders stay plain WAV while they fit. Value type: any thread.
public enum WAVContainer: String, Sendable {
    case wav, rf64

    /// The most sample data (bytes) a plain WAV gets: 4 GiB less 4 KiB of room for the header
    /// chunks (RIFF, fmt, fact, data: under 100 bytes as libsndfile writes them).
    public static let wavDataLimitBytes = Int(UInt32.max) - 4095

    /// The container for `frameCount` frames of `channelCount` channels in `format`
    /// (s24 is packed, 3 bytes a sample): `.wav` while the data fits `wavDataLimitBytes`.
    public static func required(frameCount: Int64, channelCount: Int, format: SampleFormat) -> WAVContainer {
        let bytes = Double(frameCount) * Double(channelCount) * Double(format.bitsPerSample / 8)
        return bytes > Double(wavDataLimitBytes) ? .rf64 : .wav
    }
}

/// Writes a WAV (or RF64) file atomically: samples go to a temporary file beside the
/// destination, which replaces the destination only on `commit()`. Until then, and on
/// `discard()` or deinit, the destination is untouched. Control side (or the offline render thread).
public final class AtomicWAVWriter {
    /// The path the file gets on `commit()`. The writer's thread.
    public let destination: String
    /// The hidden file the samples go to until then (`.NAME.tutti-PID.tmp` beside the destination). The writer's thread.
    public let temporaryPath: String
    /// The sample format written (s16 and s24 TPDF-dithered). The writer's thread.
    public let format: SampleFormat
    /// Interleaved channels per frame. The writer's thread.
    public let channelCount: Int
    /// Plain WAV, or RF64 for outputs larger than a WAV can hold. The writer's thread.
    public let container: WAVContainer
    private var file: OpaquePointer?
    private var quantizer: TPDFQuantizer?
    private var intBuffer: [Int32] = []
    private var ditherBuffer: [Float] = []
    /// Frames written so far. The writer's thread.
    public private(set) var framesWritten = 0
    /// A plain WAV refuses data past this many bytes instead of wrapping its sizes (lowered by tests).
    var wavDataLimitBytes = WAVContainer.wavDataLimitBytes

    /// Creates the temporary file. `frameCount`, the length to come, picks the container
    /// (`WAVContainer.required`) unless `container` is given; with neither, plain WAV.
    /// Errors name `path` (a folder, an unwritable folder). The writer's thread.
    public init(
        path: String, sampleRate: Int, channelCount: Int, format: SampleFormat, frameCount: Int64? = nil, container: WAVContainer? = nil
    ) throws {
        destination = path
        self.format = format
        self.channelCount = channelCount
        self.container =
            container ?? frameCount.map { WAVContainer.required(frameCount: $0, channelCount: channelCount, format: format) } ?? .wav
        let (dir, name) = AtomicWAVWriter.split(path)
        if name.isEmpty { throw SceneError(path, "output path names a folder, not a file") }
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw SceneError(path, "output path is a folder") }
        temporaryPath = (dir.isEmpty ? "" : dir + "/") + ".\(name).tutti-\(getpid()).tmp"
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        let sub: Int32
        switch format {
        case .float32: sub = Int32(SF_FORMAT_FLOAT)
        case .s16: sub = Int32(SF_FORMAT_PCM_16)
        case .s24: sub = Int32(SF_FORMAT_PCM_24)
        }
        info.format = Int32(self.container == .rf64 ? SF_FORMAT_RF64 : SF_FORMAT_WAV) | sub
        let tmp = temporaryPath
        guard let f = TemporaryFiles.create(tmp, { sf_open(tmp, Int32(SFM_WRITE), &info) }) else {
            throw SceneError(path, "cannot write: \(String(cString: sf_strerror(nil)))")
        }
        file = f
        // No PEAK chunk: it carries a timestamp, and renders must be byte-identical.
        sf_command(f, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        if format != .float32 { quantizer = TPDFQuantizer(format: format) }
    }

    deinit { discard() }

    /// Append interleaved float frames (quantized with TPDF dither for s16 / s24). The writer's thread.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let file else { throw SceneError(destination, "writer is closed") }
        let frames = samples.count / channelCount
        if container == .wav, (framesWritten + frames) * channelCount * (format.bitsPerSample / 8) > wavDataLimitBytes {
            throw SceneError(
                destination,
                "the output would pass the 4 GiB a WAV file can hold (\(framesWritten + frames) frames); RF64 is chosen only for a length given up front"
            )
        }
        let written: sf_count_t
        if var q = quantizer {
            if intBuffer.count < samples.count {
                intBuffer = [Int32](repeating: 0, count: samples.count)
                ditherBuffer = [Float](repeating: 0, count: samples.count)
            }
            written = intBuffer.withUnsafeMutableBufferPointer { ib in
                ditherBuffer.withUnsafeMutableBufferPointer { db in
                    // libsndfile's int path takes 32-bit left-justified samples and keeps the top bits exactly.
                    q.quantizeLeftJustified(samples.baseAddress!, count: samples.count, scratch: db.baseAddress!, into: ib.baseAddress!)
                }
                return sf_writef_int(file, ib.baseAddress, sf_count_t(frames))
            }
            quantizer = q
        } else {
            written = sf_writef_float(file, samples.baseAddress, sf_count_t(frames))
        }
        guard written == frames else {
            throw SceneError(destination, "write failed: \(String(cString: sf_strerror(file)))")
        }
        framesWritten += frames
    }

    /// Finish the file and move it into place. The writer's thread.
    public func commit() throws {
        try TemporaryFiles.together { try commit(in: &$0) }
    }

    /// Finish the file and move it into place inside `TemporaryFiles.together` (with other
    /// outputs, all or none); `commit()` alone otherwise. The writer's thread.
    public func commit(in held: inout TemporaryFiles.Held) throws {
        guard let f = file else { throw SceneError(destination, "writer is closed") }
        file = nil
        let rc = sf_close(f)
        guard rc == 0 else {
            held.remove(temporaryPath)
            throw SceneError(destination, "closing the file failed: \(String(cString: sf_error_number(rc)))")
        }
        guard held.moveIntoPlace(temporaryPath, to: destination) == 0 else {
            let reason = String(cString: strerror(errno))
            held.remove(temporaryPath)
            throw SceneError(destination, "cannot move the finished file into place: \(reason)")
        }
    }

    /// Drop the temporary file; the destination stays as it was. The writer's thread.
    public func discard() {
        if let f = file {
            sf_close(f)
            file = nil
            TemporaryFiles.remove(temporaryPath)
        }
    }

    static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }
}
