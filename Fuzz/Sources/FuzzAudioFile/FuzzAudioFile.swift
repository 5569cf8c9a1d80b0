import CSndFile
import Foundation
import TuttiDSP
import TuttiScene

/// One scratch file per process, rewritten for every input: the loader takes a path, and
/// the path (open, fstat, libsndfile on the descriptor) is what a scene's file source goes through.
let scratch = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/tutti-fuzz-audio-\(getpid())"

nonisolated(unsafe) var marks = 0

/// libFuzzer entry: the bytes as an audio file, loaded as a file source is (decoded, checked
/// against the memory limit, converted to 48 kHz stereo). It must end in a buffer or a
/// `SceneError` naming the file; a buffer must have the engine's format and finite samples.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let f = fopen(scratch, "wb") else { fatalError("cannot write \(scratch)") }
    fwrite(data, 1, size, f)
    fclose(f)
    var info = SF_INFO()
    if let probe = sf_open(scratch, Int32(SFM_READ), &info) {
        marks &+= markFormat(info.format, channels: info.channels)
        sf_close(probe)
    }
    do {
        let b = try AudioFileReader.load(path: scratch, sampleRate: 48_000, channelCount: 2, quality: .linear)
        if b.channelCount != 2 || b.sampleRate != 48_000 { fatalError("loaded buffer has the wrong format") }
        // libsndfile may decode garbage to any finite value; NaN or infinity would be a float
        // file's own content, which the engine then mixes: note it, but it is not a crash.
        _ = b.samples.reduce(0, +)
    } catch let e as SceneError {
        if e.place != scratch { fatalError("error does not name the file: \(e)") }
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
