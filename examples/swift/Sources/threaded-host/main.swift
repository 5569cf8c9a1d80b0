// A threaded Swift host of Tutti, laid out as a real one is: three threads share one engine
// (examples/c/threaded.c is the same program in C).
//
//   render thread  stands for the audio device's callback: every 256 frames (5.33 ms, paced
//                  on CLOCK_MONOTONIC deadlines) it renders one block into a preallocated
//                  buffer and copies it into the take. It never waits for data (a device does
//                  not): what the stream lacks is played as silence and reported. Inside its
//                  loop it only calls `AudioEngine.render(into:frameCount:)` and reads
//                  `SourceHandle.underrunFrames` (both lock- and allocation-free) and copies
//                  memory; it hands the take over when it finishes.
//   feeder thread  a decoder or network client: it generates a 440 Hz tone at 44.1 kHz (the
//                  engine runs at 48 kHz; the stream converts) and writes it into a stream
//                  source (`SourceHandle.write`) in 10 ms chunks, keeping about the stream's
//                  capacity (16384 frames, 0.37 s) ahead: when the stream is full it sleeps
//                  5 ms and writes the rest. After 2 s of tone it calls `endStream()`: every
//                  written frame is heard, then `sourceEnded`.
//   main thread    the application: it creates everything, lets the feeder fill the stream
//                  before the "device" starts, then waits on the engine's event descriptor and
//                  prints every event; once the engine clock passes 0.3 s it schedules a
//                  navigation prompt (a second session, voicePrompt with duckOthers, a 660 Hz
//                  tone) for 0.5 s starting 0.1 s ahead, which ducks the music. When the
//                  stream's `sourceEnded` arrives it stops the render thread and joins both.
//
// Then it checks its own result by measurement and exits 1 when it is wrong: the stream's
// tone has its true pitch (440 Hz, not the 479 Hz of 44.1 kHz frames played at 48 kHz) and
// its level outside the prompt; it is ducked by 15 dB under the prompt, which is heard;
// `sourceEnded` came at the frame every written frame accounts for (2 s of tone plus the
// silence reported as underruns). A loaded machine may starve the feeder: the render thread
// records the stream's underrun count after every block, and the measurement skips the 50 ms
// windows that touch a block with underrun silence, so the checks hold with underruns too.
// Every span measured comes from the events' frames, none from wall-clock time.
//
// Threads are plain pthreads here (what a host has); whatever they share is Sendable: the
// engine and the handles are, the flags are `Synchronization` atomics, and the take comes back
// through a `Mutex` once the render thread is done with it. Run from examples/swift:
//
//   swift run threaded-host
import Synchronization
import Tutti

#if canImport(Glibc)
    import Glibc
#endif

/// The program's constants (frames at the engine rate unless named otherwise).
enum Setup {
    static let rate = 48_000
    static let channels = 2
    static let blockFrames = 256
    /// The take's room: the render thread stops when it is full (8 s).
    static let maxBlocks = 8 * rate / blockFrames
    static let streamRate = 44_100
    /// Frames at `streamRate`: how far the feeder may run ahead.
    static let streamCapacity = 16_384
    /// 2 s of tone, frames at `streamRate`.
    static let streamFrames = 2 * streamRate
    /// 10 ms at `streamRate`.
    static let chunkFrames = 441
    static let toneHz = 440.0
    static let toneAmplitude = 0.25
    static let promptHz = 660.0
    static let promptAmplitude: Float = 0.3
    static let duckDB = -15.0
    /// The measurement's window: 50 ms.
    static let window = 2_400
}

/// What the threads share: flags and counters as atomics, and the render thread's result.
final class Shared: Sendable {
    /// main → render, feeder: finish.
    let stop = Atomic<Bool>(false)
    /// feeder → main: the stream is full (or the feeder gave up): the device may start.
    let primed = Atomic<Bool>(false)
    /// render → main: blocks rendered so far.
    let blocks = Atomic<Int>(0)
    /// feeder: frames written, and whether a write failed.
    let fed = Atomic<Int>(0)
    let feederFailed = Atomic<Bool>(false)
    /// The render thread's take, handed over when its loop is over.
    let result = Mutex<Take?>(nil)
}

/// What the render thread recorded.
struct Take: Sendable {
    /// Interleaved frames, `blocks × blockFrames` of them.
    var audio: [Float]
    /// Per block: the stream's underrun count after it.
    var underruns: [Int64]
    var blocks: Int
    var renderFailures: Int
}

/// A body for a pthread (Sendable: it runs on another thread).
final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Start a joinable pthread running `body`.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, nil,
        { arg in
            Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, box)
    precondition(rc == 0, "pthread_create failed (\(rc))")
    return thread
}

/// The "device": one block every `blockFrames / rate` seconds, on absolute deadlines (a late
/// wake-up renders the missed blocks back to back, as a device's catch-up would). The sleep
/// stands for the driver's wait between callbacks; the callback's own work is render + status
/// + copy. Everything it needs is allocated before the loop.
func renderLoop(_ engine: AudioEngine, _ stream: SourceHandle, _ shared: Shared) {
    let blockSamples = Setup.blockFrames * Setup.channels
    var audio = [Float](repeating: 0, count: Setup.maxBlocks * blockSamples)
    var underruns = [Int64](repeating: 0, count: Setup.maxBlocks)
    var block = [Float](repeating: 0, count: blockSamples)
    var blocks = 0
    var failures = 0
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    audio.withUnsafeMutableBufferPointer { audio in
        underruns.withUnsafeMutableBufferPointer { underruns in
            block.withUnsafeMutableBufferPointer { block in
                while blocks < Setup.maxBlocks, !shared.stop.load(ordering: .acquiring) {
                    // The callback.
                    if !engine.render(into: block.baseAddress!, frameCount: Setup.blockFrames) { failures += 1 }
                    underruns[blocks] = (try? stream.underrunFrames) ?? (blocks > 0 ? underruns[blocks - 1] : 0)
                    (audio.baseAddress! + blocks * blockSamples).update(from: block.baseAddress!, count: blockSamples)
                    blocks += 1
                    shared.blocks.store(blocks, ordering: .releasing)
                    // The device's wait.
                    let ns = start.tv_nsec + blocks * Setup.blockFrames * 1_000_000_000 / Setup.rate
                    var deadline = timespec(tv_sec: start.tv_sec + ns / 1_000_000_000, tv_nsec: ns % 1_000_000_000)
                    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) != 0 {}
                }
            }
        }
    }
    let take = Take(audio: audio, underruns: underruns, blocks: blocks, renderFailures: failures)
    shared.result.withLock { $0 = take }
}

/// The producer: 2 s of a 440 Hz tone at 44.1 kHz, written as the stream takes it, then the
/// end of the stream.
func feedLoop(_ stream: SourceHandle, _ shared: Shared) {
    defer { shared.primed.store(true, ordering: .releasing) }
    var chunk = [Float](repeating: 0, count: Setup.chunkFrames)
    var n = 0
    do {
        while n < Setup.streamFrames, !shared.stop.load(ordering: .acquiring) {
            let count = min(Setup.chunkFrames, Setup.streamFrames - n)
            for i in 0..<count {
                chunk[i] = Float(Setup.toneAmplitude * sin(2 * Double.pi * Setup.toneHz * Double(n + i) / Double(Setup.streamRate)))
            }
            var done = 0
            while done < count, !shared.stop.load(ordering: .acquiring) {
                done += try chunk.withUnsafeBufferPointer { try stream.write(UnsafeBufferPointer(rebasing: $0[done..<count])) }
                if done < count { // full: the stream holds `streamCapacity` frames ahead
                    shared.primed.store(true, ordering: .releasing)
                    usleep(5_000)
                }
            }
            n += done
            shared.fed.store(n, ordering: .releasing)
        }
        try stream.endStream()
    } catch {
        print("threaded-host: the feeder failed: \(error)")
        shared.feederFailed.store(true, ordering: .releasing)
    }
}

/// Amplitude of a `hz` sine in channel 0 of `audio`'s frames `from..<from + count` (a
/// Hann-windowed correlation).
func amplitude(_ audio: [Float], from: Int, count: Int, hz: Double) -> Double {
    var (re, im, weights) = (0.0, 0.0, 0.0)
    for k in 0..<count {
        let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(count - 1))
        let p = 2 * Double.pi * hz * Double(k) / Double(Setup.rate)
        let x = Double(audio[(from + k) * Setup.channels])
        re += w * x * cos(p)
        im += w * x * sin(p)
        weights += w
    }
    return 2 * (re * re + im * im).squareRoot() / weights
}

/// Frequency of the tone in channel 0 of frames `from..<from + count`, from its rising zero
/// crossings (interpolated between samples); 0 with fewer than two.
func frequency(_ audio: [Float], from: Int, count: Int) -> Double {
    var (first, last, crossings) = (0.0, 0.0, 0)
    for k in 1..<count {
        let a = Double(audio[(from + k - 1) * Setup.channels])
        let b = Double(audio[(from + k) * Setup.channels])
        if a < 0, b >= 0 {
            let t = Double(k - 1) + a / (a - b)
            if crossings == 0 { first = t }
            last = t
            crossings += 1
        }
    }
    return crossings < 2 ? 0 : Double(crossings - 1) * Double(Setup.rate) / (last - first)
}

/// Whether frames `from..<from + window` are clear of underrun silence and its 2 ms fades: no
/// block from the one before to the one after saw the stream's underrun count grow.
func isClean(_ take: Take, from: Int) -> Bool {
    let first = max(from / Setup.blockFrames - 1, 0)
    let last = min((from + Setup.window - 1) / Setup.blockFrames + 1, take.blocks - 1)
    guard first <= last else { return false }
    return (first...last).allSatisfy { b in take.underruns[b] == (b > 0 ? take.underruns[b - 1] : 0) }
}

var failures = 0
/// Count a failed check, saying which.
@MainActor func expect(_ ok: Bool, _ what: String) {
    if !ok {
        print("threaded-host: CHECK FAILED: \(what)")
        failures += 1
    }
}

/// `x` rounded to `places` decimals, for printing.
func rounded(_ x: Double, _ places: Double = 3) -> Double {
    let scale = pow(10, places)
    return (x * scale).rounded() / scale
}

var configuration = AudioEngineConfiguration()
configuration.sampleRate = Setup.rate
configuration.channelCount = Setup.channels
configuration.ducking = DuckingSettings(levelDB: Setup.duckDB, attackSeconds: 0.1, releaseSeconds: 0.4)
let engine = try AudioEngine(configuration: configuration)
let music = try engine.makeSession(named: "music", category: .playback)
let stream = try music.makeStreamSource(
    sampleRate: Double(Setup.streamRate), channelCount: 1, capacityFrames: Setup.streamCapacity, name: "stream")
let nav = try engine.makeSession(SessionConfiguration(id: "nav", category: .playback, options: [.duckOthers], mode: .voicePrompt))
let prompt = try nav.makeToneSource(frequency: Setup.promptHz, amplitude: Setup.promptAmplitude, name: "prompt")
let eventFD = try engine.eventFileDescriptor()
let shared = Shared()

// The feeder fills the stream before the device starts (as a host primes its buffers).
let feeder = startThread { [stream, shared] in feedLoop(stream, shared) }
while !shared.primed.load(ordering: .acquiring) { usleep(1_000) }
try stream.play()
let render = startThread { [engine, stream, shared] in renderLoop(engine, stream, shared) }

// The application: events as they come, the prompt once the clock passes 0.3 s.
var (duckBegan, duckEnded, ended): (Int64?, Int64?, Int64?) = (nil, nil, nil)
var (eventCount, underrunEvents, underrunReported) = (0, 0, Int64(0))
var promptScheduled = false
while ended == nil, shared.blocks.load(ordering: .acquiring) < Setup.maxBlocks {
    var descriptor = pollfd(fd: eventFD, events: Int16(POLLIN), revents: 0)
    _ = poll(&descriptor, 1, 20)
    if !promptScheduled, engine.framesRendered >= Int64(Setup.rate * 3 / 10) {
        let at = engine.framesRendered + Int64(Setup.rate / 10)
        let end = at + Int64(Setup.rate / 2)
        try nav.setActive(true, at: .frame(at))
        try prompt.play(at: .frame(at))
        try prompt.stop(at: .frame(end))
        try nav.setActive(false, options: .notifyOthersOnDeactivation, at: .frame(end))
        print("main: prompt scheduled for frames \(at)..\(end)")
        promptScheduled = true
    }
    for event in engine.pollEvents() {
        eventCount += 1
        print("\(rounded(Double(event.frame) / Double(Setup.rate))) s  \(event.kind)")
        switch event.kind {
        case .duckingBegan(let session, _) where session == music.id: duckBegan = event.frame
        case .duckingEnded(let session) where session == music.id: duckEnded = event.frame
        case .sourceEnded(let source, _) where source == stream.id: ended = event.frame
        case .sourceUnderrun(_, _, let frames):
            underrunEvents += 1
            underrunReported += frames
        default: break
        }
    }
}
shared.stop.store(true, ordering: .releasing)
pthread_join(render, nil)
pthread_join(feeder, nil)
guard let take = shared.result.withLock({ $0 }) else { fatalError("the render thread left no take") }
let underrunTotal = take.underruns[0..<take.blocks].max() ?? 0
let fed = shared.fed.load(ordering: .acquiring)
print(
    "threaded-host: \(take.blocks) blocks rendered (\(take.renderFailures) render failures); \(fed) stream frames fed; "
        + "\(eventCount) events, \(underrunEvents) sourceUnderrun (\(underrunReported) frames in their first render call; "
        + "\(underrunTotal) underrun frames in all)")

// The checks.
expect(!shared.feederFailed.load(ordering: .acquiring) && fed == Setup.streamFrames, "the feeder wrote the whole tone and ended the stream")
expect(take.renderFailures == 0, "every render succeeded")
expect(ended != nil, "the stream's sourceEnded arrived")
if let ended {
    // Heard: 2 s of tone at 48 kHz, plus the silence of the underruns.
    let heard = ended - underrunTotal
    let what = "sourceEnded at frame \(ended): \(heard) frames of tone heard, \(2 * Setup.rate) expected"
    print("threaded-host: \(what)")
    expect(abs(heard - Int64(2 * Setup.rate)) <= 64, what)
}
if let duckBegan, let duckEnded, let ended, duckEnded > duckBegan {
    // Windows of the stream alone (from 50 ms in, ending before the duck's attack and after
    // its 0.4 s release) and windows under the prompt (after the 0.1 s attack).
    var (alone, under): ([(amplitude: Double, hz: Double)], [(db: Double, prompt: Double)]) = ([], [])
    for from in stride(from: Setup.rate / 20, through: Int(ended) - Setup.rate / 20 - Setup.window, by: Setup.window)
    where isClean(take, from: from) {
        if from + Setup.window <= Int(duckBegan) || from >= Int(duckEnded) + Setup.rate / 2 {
            alone.append(
                (
                    amplitude(take.audio, from: from, count: Setup.window, hz: Setup.toneHz),
                    frequency(take.audio, from: from, count: Setup.window)
                ))
        } else if from >= Int(duckBegan) + Setup.rate * 3 / 20, from + Setup.window <= Int(duckEnded) {
            let level = amplitude(take.audio, from: from, count: Setup.window, hz: Setup.toneHz)
            under.append(
                (20 * log10(level / Setup.toneAmplitude), amplitude(take.audio, from: from, count: Setup.window, hz: Setup.promptHz)))
        }
    }
    let (levels, pitches) = (alone.map(\.amplitude), alone.map(\.hz))
    let (ducked, prompts) = (under.map(\.db), under.map(\.prompt))
    print(
        "threaded-host: stream alone, \(alone.count) clean windows: \(rounded(pitches.min() ?? 0))..\(rounded(pitches.max() ?? 0)) Hz, "
            + "amplitude \(rounded(levels.min() ?? 0, 4))..\(rounded(levels.max() ?? 0, 4))")
    print(
        "threaded-host: under the prompt, \(under.count) clean windows: stream \(rounded(ducked.min() ?? 0, 2))..\(rounded(ducked.max() ?? 0, 2)) dB, "
            + "prompt amplitude \(rounded(prompts.min() ?? 0, 4))..\(rounded(prompts.max() ?? 0, 4))")
    expect(alone.count >= 4 && !under.isEmpty, "enough windows clear of underruns to measure")
    expect(pitches.allSatisfy { abs($0 - Setup.toneHz) < 0.5 }, "the stream plays at its true pitch (440 Hz)")
    expect(levels.allSatisfy { abs($0 / Setup.toneAmplitude - 1) < 0.03 }, "the stream's level outside the prompt")
    expect(ducked.allSatisfy { abs($0 - Setup.duckDB) < 1 }, "the stream is ducked by 15 dB under the prompt")
    expect(prompts.allSatisfy { abs($0 / Double(Setup.promptAmplitude) - 1) < 0.03 }, "the prompt is heard")
} else {
    expect(false, "the music was ducked (duckingBegan, then duckingEnded)")
}
if failures > 0 {
    print("threaded-host: \(failures) check(s) failed")
    exit(1)
}
print("threaded-host: all checks passed")
