import CSndFile
import TuttiDSP

#if canImport(Glibc)
    import Glibc
#endif

/// A long audio file played without loading it: decoded (libsndfile) and converted to the
/// engine's rate and channel count (`ChunkedResampler`) a little at a time into a fixed ring
/// of about a second, which the render thread reads. Memory stays the same whatever the
/// file's length. Built by `AudioFile.sourceKind` for files longer than the engine's
/// `streamingThresholdSeconds`; plays as `SourceKind.file`.
///
/// The file is produced in the order playback reads it: from the requested position up to the
/// loop region's end, then from the region's start again as many times as wraps remain (the
/// seam contiguous in the ring, so loops wrap sample-exactly without a request), then on to
/// the file's end, after which it goes on from its first frame (or from the region's start,
/// when wraps remain: playback that started past the region). A seek, a stop or a new loop
/// region asks for data from a new position (a new generation, see `FileStreamLink`).
/// Converted output is the same as `AudioFile.load` gives for the whole file (same
/// converter, same blocks) from the start and on every whole-file loop; after a seek or a
/// region's seam into a converted file (a loop start other than 0), the converter restarts a
/// little before the target (time-aligned, history shorter). A file at the engine rate is
/// bit-exact everywhere.
///
/// Thread: created on a control thread, which fills the first 100 ms; from then on only the
/// engine's file worker touches its decoder and converter. The render side sees the ring and
/// the atomics of `FileStreamLink`. The engine keeps it alive until the source is removed.
public final class FileStream: @unchecked Sendable { // render-side memory: ring and atomics; decoder on the worker only
    /// The file, as given.
    public let path: String
    /// Length at the engine rate, frames.
    public let frameCount: Int
    /// Engine rate (what the ring holds), Hz.
    public let sampleRate: Int
    /// Engine channel count (what the ring holds).
    public let channelCount: Int
    /// The file's own rate, Hz, channels and length in frames.
    public let fileSampleRate: Int
    /// The file's channel count.
    public let fileChannelCount: Int
    /// The file's length, frames at its own rate.
    public let fileFrameCount: Int
    /// Frames the ring holds.
    public var capacityFrames: Int { ring.indices.capacity / channelCount }

    let storage: RingStorage<Float>
    let ring: SampleRing
    let link: FileStreamLink
    /// Set by the engine when a source plays it (one source per stream). Control thread.
    var isAttached = false
    /// The failure has been reported as an event. Control thread.
    var failureReported = false

    // Worker-owned (the creating thread before the stream is handed to the worker).
    private let fd: Int32
    private let file: OpaquePointer
    private let converter: ChunkedResampler?
    /// Next file frame to decode.
    private var decodePosition = 0
    /// Engine frame of the next frame produced (what playback's position will be there).
    private var playPosition = 0
    /// The loop region the data follows (engine frames) and the wraps left in it (-1:
    /// endless, 0: none): as the render side asked with the generation. Whole and endless
    /// until then (the file cyclically).
    private var loopStart = 0
    private var loopEnd: Int
    private var wraps = -1
    /// The wraps playback has again from the file's start after its end (it ended and rewound).
    private var wrapsAfterEnd = -1
    private var servedGeneration = 0
    /// Converted frames to drop after a seek (the converter restarts before the target).
    private var dropFrames = 0
    private let chunkFrames = 4_096
    private var decoded: [Float]
    private var staging: [Float]
    /// Why the file stopped (nil while it streams). Written by the worker before `link.failed`.
    private var failureReason: String?

    /// Opens `path` for streaming at `sampleRate` Hz × `channelCount` channels, converting at
    /// `quality`, into a ring of `ringFrames` frames (rounded up to a power of two). Throws
    /// `io` or `format` for what `AudioFile` refuses. Control thread.
    package init(path: String, sampleRate: Int, channelCount: Int, quality: ResamplerQuality, ringFrames: Int) throws(AudioFile.Failure) {
        let fd = try RegularFile.open(path, missing: "cannot read audio file: no such file")
        var info = SF_INFO()
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_FALSE)) else {
            close(fd)
            throw AudioFile.Failure(code: .format, reason: "cannot read audio file: \(String(cString: sf_strerror(nil)))")
        }
        func refuse(_ reason: String) -> AudioFile.Failure {
            sf_close(file)
            close(fd)
            return AudioFile.Failure(code: .format, reason: reason)
        }
        guard (1...2).contains(Int(info.channels)) else { throw refuse("has \(info.channels) channels; Tutti reads mono or stereo files") }
        guard info.samplerate >= 1000, info.samplerate <= 768_000 else {
            throw refuse("sample rate \(info.samplerate) Hz is not supported")
        }
        guard info.frames > 0, info.seekable != 0 else { throw refuse("cannot stream audio file: empty or not seekable") }
        var converter: ChunkedResampler?
        if Int(info.samplerate) != sampleRate {
            do {
                converter = try ChunkedResampler(
                    quality: quality, channelCount: Int(info.channels), fromRate: Double(info.samplerate), toRate: Double(sampleRate))
            } catch {
                throw refuse("cannot convert from \(info.samplerate) Hz to \(sampleRate) Hz: \(error)")
            }
        }
        self.path = path
        self.fd = fd
        self.file = file
        self.converter = converter
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        fileSampleRate = Int(info.samplerate)
        fileChannelCount = Int(info.channels)
        fileFrameCount = Int(info.frames)
        frameCount = AudioFile.convertedFrameCount(fileFrameCount, from: fileSampleRate, to: sampleRate)
        loopEnd = frameCount
        boundary = frameCount
        storage = RingStorage(capacity: max(ringFrames, 2 * chunkFrames) * channelCount)
        ring = SampleRing(storage)
        link = FileStreamLink.create()
        decoded = [Float](repeating: 0, count: chunkFrames * fileChannelCount)
        staging = [Float](repeating: 0, count: chunkFrames * 2)
    }

    deinit {
        sf_close(file)
        close(fd)
        link.destroy()
    }

    /// Why it stopped streaming, once the render side may know (nil while it streams).
    /// Any thread.
    public var failure: String? {
        link.failed.pointee.load(ordering: .acquiring) != 0 ? failureReason : nil
    }

    /// The render side's view, `dryFadeFrames` long fades around a dry spell.
    func node(dryFadeFrames: Int) -> FileStreamNode {
        FileStreamNode(ring: ring, link: link, frameCount: frameCount, channelCount: channelCount, dryFadeFrames: dryFadeFrames)
    }

    /// Fill the ring with at least `frames` frames (or all it holds) now, on this thread:
    /// the first fill at creation, so a play starts at once. Control thread, before the
    /// worker has the stream.
    func prefill(frames: Int) {
        let target = min(frames, capacityFrames) * channelCount
        while ring.indices.count < target {
            if service(budget: target / channelCount) == 0 { break }
        }
    }

    /// Worker: take up a new generation if one was asked for, then write up to `budget`
    /// frames into the ring (only when a useful amount is free). Returns the frames written
    /// (0: nothing to do, or failed).
    func service(budget: Int) -> Int {
        if link.failed.pointee.load(ordering: .relaxed) != 0 { return 0 }
        let wanted = link.requestedGeneration.pointee.load(ordering: .acquiring)
        if wanted != servedGeneration {
            startGeneration(wanted, at: link.requestedPosition.pointee.load(ordering: .relaxed))
            if link.failed.pointee.load(ordering: .relaxed) != 0 { return 0 }
        }
        let ch = channelCount
        var written = 0
        // Small writes are not worth a pass: wait until a block's worth is free.
        guard ring.indices.writable().count / ch >= min(1_024, capacityFrames / 4) else { return 0 }
        while written < budget {
            let free = ring.indices.writable().count / ch
            let want = min(free, budget - written, chunkFrames)
            if want <= 0 { break }
            let got = staging.withUnsafeMutableBufferPointer { produce(into: $0.baseAddress!, frameCount: want) }
            if got == 0 { break }
            _ = staging.withUnsafeBufferPointer { ring.write(from: $0.baseAddress!, count: got * ch) }
            written += got
        }
        return written
    }

    /// Take up generation `generation`: data from engine frame `position` on, following the
    /// loop region asked with it; then publish where the new generation's data starts.
    private func startGeneration(_ generation: Int, at position: Int) {
        let target = min(max(position, 0), frameCount)
        let start = link.requestedLoopStart.pointee.load(ordering: .relaxed)
        let end = link.requestedLoopEnd.pointee.load(ordering: .relaxed)
        if start >= 0, end > start, end <= frameCount {
            loopStart = start
            loopEnd = end
            wraps = link.requestedWraps.pointee.load(ordering: .relaxed)
            wrapsAfterEnd = link.requestedWrapsAfterEnd.pointee.load(ordering: .relaxed)
        } else {
            (loopStart, loopEnd, wraps, wrapsAfterEnd) = (0, frameCount, -1, -1)
        }
        // At the file's end: `produce` goes on where playback does (a wrap or the start).
        jump(to: target == frameCount ? 0 : target)
        playPosition = target
        boundary = wraps != 0 && target < loopEnd ? loopEnd : frameCount
        // Data of this generation starts at the ring's write counter; publish that first.
        link.servedStart.pointee.store(ring.indices.writable().start, ordering: .relaxed)
        servedGeneration = generation
        link.servedGeneration.pointee.store(generation, ordering: .releasing)
    }

    /// Restart the decoder (and converter) so the next frame produced is engine frame
    /// `target` (< `frameCount`).
    private func jump(to target: Int) {
        playPosition = target
        boundary = wraps != 0 && target < loopEnd ? loopEnd : frameCount
        if let converter {
            // Restart on a file frame whose time is a whole engine frame (a multiple of q), a
            // little before the target, and drop the converted frames up to it: the output
            // stays on the same time grid as the whole file's. From frame 0: exactly the
            // whole file's conversion.
            let g = gcd(fileSampleRate, sampleRate)
            let q = fileSampleRate / g
            let p = sampleRate / g
            let preroll = 4_096
            let fileFrame = target * q / p
            let start = max(0, fileFrame - preroll) / q * q
            dropFrames = target - start / q * p
            do { try converter.reset() } catch { fail("cannot restart the converter: \(error)") }
            seek(toFileFrame: start)
        } else {
            dropFrames = 0
            seek(toFileFrame: target)
        }
    }

    /// Where the data produced from `playPosition` wraps or ends: the region's end while wraps
    /// remain and it was before it when the data started there (a generation or a wrap), else
    /// the file's end — as `SourceNode.wrapFrame(count:)` decides before the frames are read.
    private var boundary = 0

    /// At `boundary`: on at the region's start (one wrap fewer) when wraps remain (as
    /// `SourceNode.wrap(count:)`), else — at the file's end, where playback ends and rewinds
    /// (`Renderer.endOfContent`) — from its first frame with the wraps of a rewind.
    private func crossBoundary() {
        if wraps != 0 {
            if wraps > 0 { wraps -= 1 }
            jump(to: loopStart)
        } else {
            wraps = wrapsAfterEnd
            jump(to: 0)
        }
    }

    private func seek(toFileFrame frame: Int) {
        if sf_seek(file, sf_count_t(frame), SEEK_SET) < 0 {
            fail("cannot seek to frame \(frame): \(String(cString: sf_strerror(file)))")
        }
        decodePosition = frame
    }

    private func fail(_ reason: String) {
        guard failureReason == nil else { return }
        failureReason = reason
        link.failed.pointee.store(1, ordering: .releasing)
    }

    /// Up to `frameCount` frames at the engine rate and channel count into `out` (room for
    /// `frameCount` × 2 samples), never past `boundary` (crossed first when there); 0 only
    /// when the file cannot be read further.
    private func produce(into out: UnsafeMutablePointer<Float>, frameCount wanted: Int) -> Int {
        while true {
            if link.failed.pointee.load(ordering: .relaxed) != 0 { return 0 }
            if playPosition >= boundary {
                crossBoundary()
                continue
            }
            let want = min(wanted, boundary - playPosition)
            let got = converter == nil ? decodeDirect(into: out, frameCount: want) : convert(into: out, frameCount: want)
            if got == 0 {
                if link.failed.pointee.load(ordering: .relaxed) != 0 { return 0 }
                // The converter ran out before the length it was expected to give: the end.
                playPosition = frameCount
                boundary = frameCount
                continue
            }
            playPosition += got
            return got
        }
    }

    /// Up to `want` frames of a file at the engine rate, from `decodePosition`.
    private func decodeDirect(into out: UnsafeMutablePointer<Float>, frameCount want: Int) -> Int {
        let n = min(want, fileFrameCount - decodePosition)
        guard n > 0, let got = decode(into: out, frameCount: n) else { return 0 }
        ChannelMap.mapInPlace(out, frameCount: got, from: fileChannelCount, to: channelCount)
        return got
    }

    /// Up to `want` converted frames (after dropping a restart's `dropFrames`); 0 when the
    /// whole file went through the converter (or failed).
    private func convert(into out: UnsafeMutablePointer<Float>, frameCount want: Int) -> Int {
        guard let converter else { return 0 }
        while true {
            if link.failed.pointee.load(ordering: .relaxed) != 0 { return 0 }
            let available = converter.availableFrameCount
            if available > 0 {
                let n = min(available, dropFrames > 0 ? min(dropFrames, chunkFrames) : want)
                let got = converter.pull(into: UnsafeMutableBufferPointer(start: out, count: n * fileChannelCount))
                if dropFrames > 0 {
                    dropFrames -= got
                    continue
                }
                ChannelMap.mapInPlace(out, frameCount: got, from: fileChannelCount, to: channelCount)
                return got
            }
            if converter.isFinished { return 0 }
            if decodePosition < fileFrameCount {
                let n = min(chunkFrames, fileFrameCount - decodePosition)
                let ok = decoded.withUnsafeMutableBufferPointer { d -> Bool in
                    guard let got = decode(into: d.baseAddress!, frameCount: n) else { return false }
                    do {
                        try converter.push(UnsafeBufferPointer(start: d.baseAddress!, count: got * fileChannelCount))
                    } catch {
                        fail("conversion failed: \(error)")
                        return false
                    }
                    return true
                }
                if !ok { return 0 }
            } else {
                do { try converter.finish() } catch {
                    fail("conversion failed: \(error)")
                    return 0
                }
            }
        }
    }

    /// Exactly `n` frames from the file at `decodePosition`, or nil (and failed) when it
    /// holds fewer than its header said (truncated, shrunk, unreadable).
    private func decode(into out: UnsafeMutablePointer<Float>, frameCount n: Int) -> Int? {
        var got = 0
        while got < n {
            let r = Int(sf_readf_float(file, out + got * fileChannelCount, sf_count_t(n - got)))
            if r <= 0 { break }
            got += r
        }
        decodePosition += got
        guard got == n else {
            fail(
                "file is truncated or unreadable at frame \(decodePosition) of \(fileFrameCount): \(String(cString: sf_strerror(file)))"
            )
            return nil
        }
        return got
    }
}

private func gcd(_ a: Int, _ b: Int) -> Int {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
