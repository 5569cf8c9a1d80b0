import Tutti
import TuttiDSP
import TuttiEngine

/// The scene layer's face of `AudioFile` (the project's one reader): the same files and
/// checks, with errors as `SceneError`s placed at the file's path. Control side only
/// (allocates, does I/O): any thread but a real-time one.
public enum AudioFileReader {
    /// The most memory one file may take once loaded: `AudioFile.maximumLoadedBytes`. Any thread.
    public static var maximumLoadedBytes: Int { AudioFile.maximumLoadedBytes }

    /// Decode a whole file (1 or 2 channels, any rate libsndfile reads) to interleaved float.
    /// Anything but a regular file (a FIFO, a folder, a device) is refused before it is read.
    /// Errors name the file. Any thread but a real-time one.
    public static func read(path: String) throws -> AudioBuffer {
        do {
            let d = try AudioFile.decode(path: path) { _ throws(AudioFile.Failure) in }
            return AudioBuffer(interleaved: d.samples, channelCount: d.channelCount, sampleRate: Double(d.sampleRate))
        } catch {
            throw SceneError(path, error.reason)
        }
    }

    /// Decode a whole file and convert it to `sampleRate` Hz and `channelCount` channels: what
    /// a file source plays. A file whose converted samples would take more than
    /// `maximumLoadedBytes` is refused from its header, before it is decoded. Errors name the file. Any thread but a real-time one.
    public static func load(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality) throws -> AudioBuffer {
        var converted = false
        return try load(path: path, sampleRate: sampleRate, channelCount: channelCount, quality: quality, converted: &converted)
    }

    /// `load`, telling whether the file needed converting (another rate or channel count).
    static func load(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality, converted: inout Bool) throws
        -> AudioBuffer
    {
        do {
            return try AudioFile.load(
                path: path, sampleRate: sampleRate, channelCount: channelCount, quality: quality, converted: &converted)
        } catch {
            throw SceneError(path, error.reason)
        }
    }
}
