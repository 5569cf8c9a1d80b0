import CJACK
import Foundation
import Glibc
import Synchronization
import TuttiJACK

/// A small JACK client for the tests: input ports `in_1 … in_N` whose every cycle is copied,
/// with the cycle's frame time, into preallocated memory. Connected to another client's
/// outputs it records what they played, bit for bit (float ports, no conversion).
///
/// Thread: the test's creates, reads and closes it; JACK's process thread runs `process`
/// (copies only; the storage is never reallocated).
final class Recorder: @unchecked Sendable {
    /// libjack, as the backend loads it (the tests do not link it either).
    let f: JACKFunctions
    let client: OpaquePointer
    let name: String
    let channelCount: Int
    let ports: UnsafeMutablePointer<OpaquePointer?>
    let capacityFrames: Int
    /// Interleaved samples of every cycle recorded, in order.
    let samples: UnsafeMutablePointer<Float>
    static let maxCycles = 1 << 16
    let cycleTimes: UnsafeMutablePointer<UInt32>
    let cycleStarts: UnsafeMutablePointer<Int>
    let frames = Atomic<Int>(0)
    let cycles = Atomic<Int>(0)
    /// Cycles dropped because the storage was full.
    let overflows = Atomic<Int>(0)
    private var closed = false

    init(server: String, name: String = "rec", channelCount: Int = 2, seconds: Double, sampleRate: Int = 48_000) throws {
        let f = try JACKFunctions.system
        var status = jack_status_t(0)
        guard
            let c = f.openClient(name, options: JackNoStartServer.rawValue | JackUseExactName.rawValue, status: &status, serverName: server)
        else { throw RecorderError.open(status: status.rawValue) }
        self.f = f
        client = c
        self.name = name
        self.channelCount = channelCount
        capacityFrames = Int(seconds * Double(sampleRate))
        samples = .allocate(capacity: capacityFrames * channelCount)
        samples.initialize(repeating: 0, count: capacityFrames * channelCount)
        cycleTimes = .allocate(capacity: Recorder.maxCycles)
        cycleStarts = .allocate(capacity: Recorder.maxCycles)
        ports = .allocate(capacity: channelCount)
        for i in 0..<channelCount {
            ports[i] = f.port_register(c, "in_\(i + 1)", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsInput.rawValue), 0)
        }
        _ = f.set_process_callback(
            c,
            { n, arg in
                Unmanaged<Recorder>.fromOpaque(arg!).takeUnretainedValue().process(Int(n))
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        guard f.activate(c) == 0 else { throw RecorderError.activate }
    }

    deinit {
        close()
        samples.deallocate()
        cycleTimes.deallocate()
        cycleStarts.deallocate()
        ports.deallocate()
    }

    enum RecorderError: Error {
        case open(status: UInt32)
        case activate
    }

    /// Port full names, `rec:in_1` …
    var portNames: [String] { (1...channelCount).map { "\(name):in_\($0)" } }

    /// Connect `source` (another client's output port) to our `in_<channel>`; false on failure.
    func connect(_ source: String, toChannel channel: Int) -> Bool {
        f.connect(client, source, "\(name):in_\(channel)") == 0
    }

    /// Stop recording (closes the client). Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        _ = f.client_close(client)
    }

    private func process(_ n: Int) {
        let start = frames.load(ordering: .relaxed)
        let cycle = cycles.load(ordering: .relaxed)
        guard start + n <= capacityFrames, cycle < Recorder.maxCycles else {
            overflows.add(1, ordering: .relaxed)
            return
        }
        cycleTimes[cycle] = f.last_frame_time(client)
        cycleStarts[cycle] = start
        for c in 0..<channelCount {
            guard let raw = f.port_get_buffer(ports[c], jack_nframes_t(n)) else { continue }
            let input = raw.assumingMemoryBound(to: Float.self)
            for f in 0..<n { samples[(start + f) * channelCount + c] = input[f] }
        }
        frames.store(start + n, ordering: .releasing)
        cycles.store(cycle + 1, ordering: .releasing)
    }

    /// Everything recorded so far, interleaved.
    var recording: [Float] {
        Array(UnsafeBufferPointer(start: samples, count: frames.load(ordering: .acquiring) * channelCount))
    }

    /// Index (in frames) into `recording` where the cycle that started at JACK frame time
    /// `frameTime` begins; nil when no recorded cycle started there.
    func frameIndex(ofCycleAt frameTime: UInt32) -> Int? {
        let count = cycles.load(ordering: .acquiring)
        for i in 0..<count where cycleTimes[i] == frameTime { return cycleStarts[i] }
        return nil
    }

    /// Where (in frames of `recording`) the first cycle starts whose frame time does not follow
    /// on from the previous one (a cycle lost to an xrun); nil when the recording is continuous.
    var firstDiscontinuity: Int? {
        let count = cycles.load(ordering: .acquiring)
        for i in 1..<max(count, 1) where cycleTimes[i] != cycleTimes[i - 1] &+ UInt32(cycleStarts[i] - cycleStarts[i - 1]) {
            return cycleStarts[i]
        }
        return nil
    }

    /// Frame times that do not follow on from the previous cycle (a restarted clock, a lost
    /// cycle): their count.
    var discontinuities: Int {
        let count = cycles.load(ordering: .acquiring)
        var n = 0
        for i in 1..<max(count, 1) {
            let expected = cycleTimes[i - 1] &+ UInt32(cycleStarts[i] - cycleStarts[i - 1])
            if cycleTimes[i] != expected { n += 1 }
        }
        return n
    }
}
