import CSndFile
import Foundation
import Tutti
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// Reading audio files with libsndfile. Control side only (allocates, does I/O).
public enum AudioFileReader {
    /// Decode a whole file (1 or 2 channels, any rate libsndfile reads) to interleaved float.
    /// Errors name the file.
    public static func read(path: String) throws -> AudioBuffer {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
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

/// Writes a WAV file atomically: samples go to a temporary file beside the destination,
/// which replaces the destination only on `commit()`. Until then, and on `discard()` or
/// deinit, the destination is untouched. Control side (or the offline render thread).
public final class AtomicWAVWriter {
    public let destination: String
    public let temporaryPath: String
    public let format: SampleFormat
    public let channelCount: Int
    private var file: OpaquePointer?
    private var quantizer: TPDFQuantizer?
    private var intBuffer: [Int32] = []
    private var ditherBuffer: [Float] = []
    public private(set) var framesWritten = 0

    public init(path: String, sampleRate: Int, channelCount: Int, format: SampleFormat) throws {
        destination = path
        self.format = format
        self.channelCount = channelCount
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
        info.format = Int32(SF_FORMAT_WAV) | sub
        guard let f = sf_open(temporaryPath, Int32(SFM_WRITE), &info) else {
            throw SceneError(path, "cannot write: \(String(cString: sf_strerror(nil)))")
        }
        file = f
        // No PEAK chunk: it carries a timestamp, and renders must be byte-identical.
        sf_command(f, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        if format != .float32 { quantizer = TPDFQuantizer(format: format) }
    }

    deinit { discard() }

    /// Append interleaved float frames (quantized with TPDF dither for s16 / s24).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let file else { throw SceneError(destination, "writer is closed") }
        let frames = samples.count / channelCount
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

    /// Finish the file and move it into place.
    public func commit() throws {
        guard let f = file else { throw SceneError(destination, "writer is closed") }
        file = nil
        let rc = sf_close(f)
        guard rc == 0 else {
            unlink(temporaryPath)
            throw SceneError(destination, "closing the file failed: \(String(cString: sf_error_number(rc)))")
        }
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw SceneError(destination, "cannot move the finished file into place: \(reason)")
        }
    }

    /// Drop the temporary file; the destination stays as it was.
    public func discard() {
        if let f = file {
            sf_close(f)
            file = nil
            unlink(temporaryPath)
        }
    }

    static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }
}

/// Writes a text file atomically: `prepare()` writes the temporary file beside the
/// destination, `commit()` renames it into place, `discard()` removes it.
public final class AtomicTextWriter {
    public let destination: String
    private let temporaryPath: String
    private var text = ""
    private var prepared = false

    public init(path: String) throws {
        destination = path
        let (dir, name) = AtomicWAVWriter.split(path)
        if name.isEmpty { throw SceneError(path, "output path names a folder, not a file") }
        temporaryPath = (dir.isEmpty ? "" : dir + "/") + ".\(name).tutti-\(getpid()).tmp"
        // Fail now, before any rendering, if the folder is not writable.
        guard let f = fopen(temporaryPath, "wb") else { throw SceneError(path, "cannot write: \(String(cString: strerror(errno)))") }
        fclose(f)
    }

    /// The temporary file never outlives the writer (after a commit it is already renamed away).
    deinit { discard() }

    public func append(_ s: String) { text += s }

    public func prepare() throws {
        guard let f = fopen(temporaryPath, "wb") else { throw SceneError(destination, "cannot write: \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let n = fwrite(bytes, 1, bytes.count, f)
        let closed = fclose(f)
        guard n == bytes.count, closed == 0 else {
            throw SceneError(destination, "write failed: \(String(cString: strerror(errno)))")
        }
        prepared = true
    }

    public func commit() throws {
        if !prepared { try prepare() }
        guard rename(temporaryPath, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw SceneError(destination, "cannot move the finished file into place: \(reason)")
        }
    }

    public func discard() { unlink(temporaryPath) }
}
