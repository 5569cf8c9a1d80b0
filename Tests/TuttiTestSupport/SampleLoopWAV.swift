import Foundation

/// Write a mono float32 WAV at `path` (`rate` Hz) with a `smpl` chunk holding one forward
/// loop from frame `loopStart` to `loopEnd` (the chunk's end is inclusive: the last frame of
/// the loop), built by hand (libsndfile's loop array does not import into Swift). Any test
/// thread.
public func writeWAVWithSampleLoop(_ path: String, _ samples: [Float], rate: Int, loopStart: UInt32, loopEnd: UInt32) {
    var bytes: [UInt8] = []
    func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    func tag(_ s: String) { bytes += Array(s.utf8) }
    let data = samples.count * 4
    tag("RIFF")
    u32(UInt32(4 + (8 + 16) + (8 + 60) + (8 + data)))
    tag("WAVE")
    tag("fmt ")
    u32(16)
    u16(3) // IEEE float
    u16(1)
    u32(UInt32(rate))
    u32(UInt32(rate * 4))
    u16(4)
    u16(32)
    tag("smpl")
    u32(60)
    for v in [0, 0, UInt32(1_000_000_000 / rate), 60, 0, 0, 0, 1, 0] { u32(UInt32(v)) }
    // One loop: id, type 0 (forward), start, end (inclusive), fraction, play count 0 (endless).
    for v in [0, 0, loopStart, loopEnd, 0, 0] { u32(v) }
    tag("data")
    u32(UInt32(data))
    for s in samples { u32(s.bitPattern) }
    FileManager.default.createFile(atPath: path, contents: Data(bytes))
}
