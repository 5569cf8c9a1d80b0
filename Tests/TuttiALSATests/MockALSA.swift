import CALSA
import Foundation
import Glibc
import TuttiOutput

@testable import TuttiALSA

/// A fake PCM behind `ALSAFunctions.mock`: the `snd_pcm_t *` the backend gets is this
/// object's address, so the C-convention fakes find it without captures. Records every
/// byte written and every call (with the calling thread's name).
/// Thread: any (one lock).
final class MockDevice: @unchecked Sendable {
    enum WriteStep {
        /// writei returns this (negative) code.
        case error(Int32)
        /// writei takes at most this many frames.
        case accept(Int)
        /// writei sleeps this long (a blocking write), then proceeds normally.
        case block(Double)
    }

    let name: String
    private let lock = NSLock()

    // Negotiation behaviour.
    var formats: Set<OutputSampleFormat> = [.float32, .s32, .s16]
    var grantedRate: UInt32?
    var grantedChannels: UInt32?
    /// What the `_near` calls answer for a request.
    var nearPeriod: (UInt) -> UInt = { $0 }
    var nearBuffer: (UInt) -> UInt = { $0 }
    /// What is installed (read back after `snd_pcm_hw_params`) given the `_near` answers.
    var installedPeriod: (UInt) -> UInt = { $0 }
    var installedBuffer: (UInt) -> UInt = { $0 }

    // Streaming behaviour.
    var writeScript: [WriteStep] = []
    /// After this many frames, writes start to be refused (EAGAIN) until `unfreeze()` or a reopen.
    var freezeAfterFrames: Int?
    private(set) var frozen = false
    /// Results for `snd_pcm_resume`, in order; then 0.
    var resumeResults: [Int32] = []
    /// Results for `snd_pcm_open` calls after the first, in order; then success.
    var reopenResults: [Int32] = []
    /// Write at most this many frames per second of wall time (nil: unpaced), or of `clock`'s time.
    var pace: Double?
    /// A simulated clock for `pace` instead of wall time: `wait` advances it (to when the
    /// device has room for `availMin` frames) instead of sleeping, and a paced device that ran
    /// dry is an underrun (writei: -EPIPE, counted in `underrunTimes`; recover starts it again).
    var clock: SimulatedClock?
    /// Paced on `clock`: plays nothing from `at` for `seconds` of its time, then goes on (a
    /// stalled driver or sound server). Not for a device waited on.
    var stall: (at: Double, seconds: Double)?
    /// As a capture PCM: frames (a 1 kHz sine of amplitude 0.5 at 48 kHz in every channel)
    /// become ready at 48 000 a second from `snd_pcm_start`, in bursts of this many frames
    /// (a sound server's delivery; 0: as they come) once `captureSteadyFrames` have come one by
    /// one.
    var captureBurstFrames = 0
    var captureSteadyFrames = 0
    private var captureStart: Double?
    private(set) var captureRead = 0

    // Records.
    private(set) var data: [UInt8] = []
    private(set) var calls: [(name: String, thread: String, code: Int32)] = []
    private(set) var opens = 0
    private(set) var closes = 0
    private(set) var isOpen = false
    private(set) var maxWriteFrames = 0
    private(set) var installed: (format: OutputSampleFormat, rate: UInt32, channels: UInt32, period: UInt, buffer: UInt)?
    var startThreshold: UInt = 0
    var availMin: UInt = 0
    private var paceStart: Double?
    private var pacedFrames = 0
    /// `clock`'s seconds at each underrun (simulated clock only).
    private(set) var underrunTimes: [Double] = []
    private var underrunPending = false

    init(_ name: String) {
        self.name = name
        MockDevice.register(self)
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func unfreeze() {
        withLock {
            frozen = false
            freezeAfterFrames = nil
        }
    }
    var frameBytes: Int { installed.map { Int($0.channels) * $0.format.bytesPerSample } ?? 0 }
    func count(_ call: String) -> Int { withLock { calls.filter { $0.name == call }.count } }
    func threads(of call: String) -> Set<String> { withLock { Set(calls.filter { $0.name == call }.map(\.thread)) } }
    func codes(of call: String) -> [Int32] { withLock { calls.filter { $0.name == call }.map(\.code) } }

    var floats: [Float] {
        withLock { data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }
    }
    var int16s: [Int16] {
        withLock { data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } }
    }
    var int32s: [Int32] {
        withLock { data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } }
    }

    fileprivate func record(_ call: String, _ code: Int32 = 0) {
        calls.append((call, currentThreadName(), code))
    }

    // MARK: Registry (pcm_open finds the device by name)

    nonisolated(unsafe) private static var devices: [String: MockDevice] = [:]
    private static let registryLock = NSLock()

    static func register(_ d: MockDevice) {
        registryLock.lock()
        devices[d.name] = d
        registryLock.unlock()
    }

    static func named(_ name: String) -> MockDevice? {
        registryLock.lock()
        defer { registryLock.unlock() }
        return devices[name]
    }

    static func from(_ pcm: OpaquePointer?) -> MockDevice {
        Unmanaged<MockDevice>.fromOpaque(UnsafeRawPointer(pcm!)).takeUnretainedValue()
    }

    // MARK: Behaviour

    fileprivate func open(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        withLock {
            if opens > 0, !reopenResults.isEmpty {
                let rc = reopenResults.removeFirst()
                record("open", rc)
                if rc < 0 { return rc }
            }
            if opens > 0 { freezeAfterFrames = nil } // a reopened device consumes again
            opens += 1
            isOpen = true
            frozen = false
            paceStart = nil
            record("open")
            out?.pointee = OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
            return 0
        }
    }

    fileprivate func close() -> Int32 {
        withLock {
            closes += 1
            isOpen = false
            record("close")
            return 0
        }
    }

    fileprivate func write(_ buffer: UnsafeRawPointer?, _ frames: UInt) -> Int {
        var step: WriteStep?
        withLock {
            if !writeScript.isEmpty { step = writeScript.removeFirst() }
        }
        if case .block(let s)? = step {
            usleep(UInt32(s * 1e6))
            step = nil
        }
        return withLock {
            guard isOpen else {
                record("writei", -EBADFD)
                return Int(-EBADFD)
            }
            var n = Int(frames)
            switch step {
            case .error(let code)?:
                record("writei", code)
                return Int(code)
            case .accept(let max)?:
                n = min(n, max)
            default:
                break
            }
            if let limit = freezeAfterFrames, data.count / frameBytes >= limit { frozen = true }
            if frozen {
                record("writei", -EAGAIN)
                return Int(-EAGAIN)
            }
            if underrunPending {
                record("writei", -EPIPE)
                return Int(-EPIPE)
            }
            if let pace {
                let now = clock?.seconds ?? monotonic()
                if let clock, let start = paceStart, Double(pacedFrames) < playing(now, since: start) * pace {
                    // Ran dry: everything written was played before now.
                    underrunTimes.append(clock.seconds)
                    underrunPending = true
                    record("writei", -EPIPE)
                    return Int(-EPIPE)
                }
                if paceStart == nil { paceStart = now }
                let allowed = Int(playing(now, since: paceStart!) * pace) + Int(installed?.buffer ?? 0) - pacedFrames
                n = min(n, max(allowed, 0))
                if n == 0 {
                    record("writei", -EAGAIN)
                    return Int(-EAGAIN)
                }
                pacedFrames += n
            }
            data.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: n * frameBytes))
            maxWriteFrames = max(maxWriteFrames, n)
            record("writei", Int32(n))
            return n
        }
    }

    /// Frames written and not yet played (paced), 0 unpaced (it plays what it gets at once).
    fileprivate func delay() -> Int {
        withLock {
            guard let pace, let start = paceStart else { return 0 }
            let now = clock?.seconds ?? monotonic()
            return max(pacedFrames - Int(playing(now, since: start) * pace), 0)
        }
    }

    /// Seconds it played between `start` and `now`: all of them but a `stall`'s.
    private func playing(_ now: Double, since start: Double) -> Double {
        guard let stall else { return now - start }
        let stalled = max(min(now, stall.at + stall.seconds) - max(start, stall.at), 0)
        return now - start - stalled
    }

    /// recover after an underrun: the device starts again with an empty buffer.
    fileprivate func recover(_ err: Int32) -> Int32 {
        withLock {
            if underrunPending {
                underrunPending = false
                paceStart = nil
                pacedFrames = 0
            }
            record("recover", err)
            return 0
        }
    }

    fileprivate func wait(_ timeout: Int32) -> Int32 {
        if let clock = withLock({ clock }) {
            // Simulated time: on to the moment there is room for `availMin` frames.
            withLock {
                if let pace, let start = paceStart {
                    let room = Double(pacedFrames) - Double(installed?.buffer ?? 0) + Double(max(availMin, 1))
                    // A hundredth of a frame past it: the write's truncation must see the whole room.
                    clock.advance(to: start + (room + 0.01) / pace)
                }
                record("wait", 1)
            }
            return 1
        }
        let (isFrozen, paced) = withLock { (frozen, pace != nil) }
        if isFrozen {
            usleep(UInt32(timeout) * 1000)
            withLock { record("wait", 0) }
            return 0
        }
        if paced { usleep(min(UInt32(timeout) * 1000, 2_000)) }
        withLock { record("wait", 1) }
        return 1
    }

    fileprivate func captureAvailable() -> Int {
        withLock {
            guard let captureStart else { return 0 }
            let elapsed = Int((monotonic() - captureStart) * 48_000)
            let steady = captureSteadyFrames
            let delivered =
                captureBurstFrames > 0 && elapsed > steady ? steady + (elapsed - steady) / captureBurstFrames * captureBurstFrames : elapsed
            return delivered - captureRead
        }
    }

    fileprivate func captureRead(_ buffer: UnsafeMutableRawPointer?, _ frames: UInt) -> Int {
        let n = min(Int(frames), captureAvailable())
        if n <= 0 { return Int(-EAGAIN) }
        return withLock {
            let channels = Int(installed?.channels ?? 1)
            let out = buffer!.assumingMemoryBound(to: Float.self)
            for f in 0..<n {
                let v = Float(0.5 * sin(2 * Double.pi * 1_000 * Double(captureRead + f) / 48_000))
                for c in 0..<channels { out[f * channels + c] = v }
            }
            captureRead += n
            record("readi", Int32(n))
            return n
        }
    }

    fileprivate func captureStarted() -> Int32 {
        withLock {
            captureStart = monotonic()
            captureRead = 0
            record("start")
            return 0
        }
    }

    fileprivate func resume() -> Int32 {
        withLock {
            let rc = resumeResults.isEmpty ? 0 : resumeResults.removeFirst()
            record("resume", rc)
            return rc
        }
    }

    fileprivate func simple(_ call: String, _ code: Int32 = 0) -> Int32 {
        withLock {
            record(call, code)
            return 0
        }
    }

    fileprivate func hwAny(_ hw: UnsafeMutablePointer<MockHW>) {
        hw.pointee = MockHW(
            device: Unmanaged.passUnretained(self).toOpaque(), format: .float32, rate: 48_000, channels: 2, period: 0, buffer: 0)
    }

    fileprivate func install(_ hw: UnsafeMutablePointer<MockHW>) -> Int32 {
        withLock {
            hw.pointee.period = installedPeriod(hw.pointee.period)
            hw.pointee.buffer = installedBuffer(hw.pointee.buffer)
            installed = (hw.pointee.format, hw.pointee.rate, hw.pointee.channels, hw.pointee.period, hw.pointee.buffer)
            record("hw_params")
            return 0
        }
    }
}

/// A clock shared by mock devices (`MockDevice.clock`): seconds that pass only when a
/// device waited on asks (`advance`), so a simulated minute takes as long as the work in it.
/// Thread: any (one lock).
final class SimulatedClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0.0

    /// Seconds since the start.
    var seconds: Double {
        lock.lock()
        defer { lock.unlock() }
        return now
    }

    /// On to `time` (never back).
    func advance(to time: Double) {
        lock.lock()
        now = max(now, time)
        lock.unlock()
    }
}

/// Fake `snd_pcm_hw_params_t`.
struct MockHW {
    var device: UnsafeMutableRawPointer
    var format: OutputSampleFormat
    var rate: UInt32
    var channels: UInt32
    var period: UInt
    var buffer: UInt
}

/// Fake `snd_pcm_sw_params_t`: only the device matters.
struct MockSW {
    var threshold: UInt = 0
    var availMin: UInt = 0
}

private func hw(_ p: OpaquePointer?) -> UnsafeMutablePointer<MockHW> { UnsafeMutablePointer<MockHW>(p!) }

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func currentThreadName() -> String {
    typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getname_np") else { return "?" }
    var buffer = [CChar](repeating: 0, count: 32)
    _ = unsafeBitCast(symbol, to: GetName.self)(pthread_self(), &buffer, 32)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension ALSAFunctions {
    /// Every PCM call goes to the `MockDevice` registered under the opened name; the
    /// configuration parser and `snd_strerror` stay real.
    static var mock: ALSAFunctions {
        // alsa-lib is installed wherever these tests build (its headers are).
        var f = try! ALSAFunctions.system
        f.pcm_open = { out, name, _, _ in
            guard let name, let d = MockDevice.named(String(cString: name)) else { return -ENOENT }
            return d.open(out)
        }
        f.pcm_open_lconf = { out, name, _, _, _ in
            guard let name, let d = MockDevice.named(String(cString: name)) else { return -ENOENT }
            return d.open(out)
        }
        f.pcm_close = { MockDevice.from($0).close() }
        f.pcm_nonblock = { p, _ in MockDevice.from(p).simple("nonblock") }
        f.hw_params_malloc = { out in
            out?.pointee = OpaquePointer(UnsafeMutablePointer<MockHW>.allocate(capacity: 1))
            return 0
        }
        f.hw_params_free = { hw($0).deallocate() }
        f.hw_params_any = { p, h in
            MockDevice.from(p).hwAny(hw(h))
            return 0
        }
        f.hw_params_set_access = { _, _, access in access == SND_PCM_ACCESS_RW_INTERLEAVED ? 0 : -EINVAL }
        f.hw_params_test_format = { p, _, format in
            let d = MockDevice.from(p)
            return d.withLock { OutputSampleFormat(alsa: format).map { d.formats.contains($0) } ?? false } ? 0 : -EINVAL
        }
        f.hw_params_set_format = { p, h, format in
            let d = MockDevice.from(p)
            guard let f = OutputSampleFormat(alsa: format), d.withLock({ d.formats.contains(f) }) else { return -EINVAL }
            hw(h).pointee.format = f
            return 0
        }
        f.hw_params_set_channels_near = { p, h, value in
            let d = MockDevice.from(p)
            value!.pointee = d.withLock { d.grantedChannels } ?? value!.pointee
            hw(h).pointee.channels = value!.pointee
            return 0
        }
        f.hw_params_set_rate_near = { p, h, value, _ in
            let d = MockDevice.from(p)
            value!.pointee = d.withLock { d.grantedRate } ?? value!.pointee
            hw(h).pointee.rate = value!.pointee
            return 0
        }
        f.hw_params_set_period_size_near = { p, h, value, _ in
            let d = MockDevice.from(p)
            value!.pointee = d.withLock { d.nearPeriod(value!.pointee) }
            hw(h).pointee.period = value!.pointee
            return 0
        }
        f.hw_params_set_buffer_size_near = { p, h, value in
            let d = MockDevice.from(p)
            value!.pointee = d.withLock { d.nearBuffer(value!.pointee) }
            hw(h).pointee.buffer = value!.pointee
            return 0
        }
        f.hw_params = { p, h in MockDevice.from(p).install(hw(h)) }
        f.hw_params_get_format = { h, out in
            out!.pointee = hw(h).pointee.format.alsa
            return 0
        }
        f.hw_params_get_channels = { h, out in
            out!.pointee = hw(h).pointee.channels
            return 0
        }
        f.hw_params_get_rate = { h, out, _ in
            out!.pointee = hw(h).pointee.rate
            return 0
        }
        f.hw_params_get_period_size = { h, out, _ in
            out!.pointee = hw(h).pointee.period
            return 0
        }
        f.hw_params_get_buffer_size = { h, out in
            out!.pointee = hw(h).pointee.buffer
            return 0
        }
        f.sw_params_malloc = { out in
            out?.pointee = OpaquePointer(UnsafeMutablePointer<MockSW>.allocate(capacity: 1))
            return 0
        }
        f.sw_params_free = { UnsafeMutablePointer<MockSW>($0!).deallocate() }
        f.sw_params_current = { _, _ in 0 }
        f.sw_params_set_start_threshold = { p, _, v in
            let d = MockDevice.from(p)
            d.withLock { d.startThreshold = v }
            return 0
        }
        f.sw_params_set_avail_min = { p, _, v in
            let d = MockDevice.from(p)
            d.withLock { d.availMin = v }
            return 0
        }
        f.sw_params = { _, _ in 0 }
        f.writei = { p, buffer, frames in MockDevice.from(p).write(buffer, frames) }
        f.wait = { p, timeout in MockDevice.from(p).wait(timeout) }
        f.recover = { p, err, _ in MockDevice.from(p).recover(err) }
        f.delay = { p, out in
            out?.pointee = snd_pcm_sframes_t(MockDevice.from(p).delay())
            return 0
        }
        f.prepare = { MockDevice.from($0).simple("prepare") }
        f.resume = { MockDevice.from($0).resume() }
        f.drop = { MockDevice.from($0).simple("drop") }
        f.drain = { MockDevice.from($0).simple("drain") }
        // Capture: not linkable (like the pulse plugin), started by the render thread.
        f.link = { _, _ in -ENOSYS }
        f.unlink = { _ in 0 }
        f.state = { _ in SND_PCM_STATE_RUNNING }
        f.pcm_type = { _ in SND_PCM_TYPE_HW }
        f.start = { MockDevice.from($0).captureStarted() }
        f.avail_update = { snd_pcm_sframes_t(MockDevice.from($0).captureAvailable()) }
        f.readi = { p, buffer, frames in MockDevice.from(p).captureRead(buffer, frames) }
        // Never promote a test's spinning render thread to SCHED_FIFO.
        f.set_fifo_priority = { _ in EPERM }
        f.lock_memory = { ENOMEM }
        return f
    }
}
