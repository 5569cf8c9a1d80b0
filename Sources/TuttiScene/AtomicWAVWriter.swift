import CSndFile
import Foundation
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

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
            if intBuffer.count < samples.count { intBuffer = [Int32](repeating: 0, count: samples.count) }
            let shift = Int32(32 - format.bitsPerSample)
            written = intBuffer.withUnsafeMutableBufferPointer { ib in
                q.quantize(samples.baseAddress!, count: samples.count, into: ib.baseAddress!)
                // libsndfile's int path takes 32-bit left-justified samples and keeps the top bits exactly.
                for i in 0..<samples.count { ib[i] <<= shift }
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
