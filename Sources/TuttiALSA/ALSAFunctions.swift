// swift-format-ignore-file: AlwaysUseLowerCamelCase

// The function table mirrors alsa-lib's C names on purpose.
import CALSA
import Glibc
import TuttiEngine
import TuttiOutput

/// Every alsa-lib call the backend makes (plus the two scheduling syscalls), as plain C
/// function pointers: ``system`` holds the real functions, taken from alsa-lib opened at run
/// time (`dlopen`: Tutti does not link it, so it runs without it until ALSA is asked for);
/// tests swap in fakes to inject each error. C function pointers (not closures) so the
/// render thread calls them without reference counting. A fake cannot capture context: it
/// finds its state through the handle it gets (see the tests' `MockDevice`).
///
/// Value type: any thread. The backend copies it at creation.
public struct ALSAFunctions: SystemFunctionTable {
    /// An open PCM handle (`snd_pcm_t *`).
    public typealias PCM = OpaquePointer
    /// A count of frames (`snd_pcm_uframes_t`).
    public typealias Frames = snd_pcm_uframes_t

    // Configuration for one open (`ALSAOutputConfiguration.alsaConfig`).
    /// Calls alsa-lib's `snd_config_top`.
    public var config_top: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    /// Calls alsa-lib's `snd_input_buffer_open`.
    public var input_buffer_open: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, Int) -> Int32
    /// Calls alsa-lib's `snd_config_load`.
    public var config_load: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    /// Calls alsa-lib's `snd_input_close`.
    public var input_close: @convention(c) (OpaquePointer?) -> Int32
    /// Calls alsa-lib's `snd_config_delete`.
    public var config_delete: @convention(c) (OpaquePointer?) -> Int32

    // Open / close. `pcm_open_lconf` when a configuration was loaded (`alsaConfig`), else `pcm_open`.
    /// Calls alsa-lib's `snd_pcm_open` (the global configuration).
    public var pcm_open: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, snd_pcm_stream_t, Int32) -> Int32
    /// Calls alsa-lib's `snd_pcm_open_lconf` (with a loaded configuration, never nil).
    public var pcm_open_lconf:
        @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, snd_pcm_stream_t, Int32, OpaquePointer?) -> Int32
    /// Calls alsa-lib's `snd_pcm_close`.
    public var pcm_close: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_nonblock`.
    public var pcm_nonblock: @convention(c) (PCM?, Int32) -> Int32

    // Hardware parameters.
    /// Calls alsa-lib's `snd_pcm_hw_params_malloc`.
    public var hw_params_malloc: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_free`.
    public var hw_params_free: @convention(c) (OpaquePointer?) -> Void
    /// Calls alsa-lib's `snd_pcm_hw_params_any`.
    public var hw_params_any: @convention(c) (PCM?, OpaquePointer?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_set_access`.
    public var hw_params_set_access: @convention(c) (PCM?, OpaquePointer?, snd_pcm_access_t) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_test_format`.
    public var hw_params_test_format: @convention(c) (PCM?, OpaquePointer?, snd_pcm_format_t) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_set_format`.
    public var hw_params_set_format: @convention(c) (PCM?, OpaquePointer?, snd_pcm_format_t) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_set_channels_near`.
    public var hw_params_set_channels_near: @convention(c) (PCM?, OpaquePointer?, UnsafeMutablePointer<UInt32>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_set_rate_near`.
    public var hw_params_set_rate_near:
        @convention(c) (PCM?, OpaquePointer?, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<Int32>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_set_period_size_near`.
    public var hw_params_set_period_size_near:
        @convention(c) (PCM?, OpaquePointer?, UnsafeMutablePointer<Frames>?, UnsafeMutablePointer<Int32>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_set_buffer_size_near`.
    public var hw_params_set_buffer_size_near: @convention(c) (PCM?, OpaquePointer?, UnsafeMutablePointer<Frames>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params`.
    public var hw_params: @convention(c) (PCM?, OpaquePointer?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_get_format`.
    public var hw_params_get_format: @convention(c) (OpaquePointer?, UnsafeMutablePointer<snd_pcm_format_t>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_get_channels`.
    public var hw_params_get_channels: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt32>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_get_rate`.
    public var hw_params_get_rate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<Int32>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_get_period_size`.
    public var hw_params_get_period_size:
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<Frames>?, UnsafeMutablePointer<Int32>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_hw_params_get_buffer_size`.
    public var hw_params_get_buffer_size: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Frames>?) -> Int32

    // Software parameters.
    /// Calls alsa-lib's `snd_pcm_sw_params_malloc`.
    public var sw_params_malloc: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_sw_params_free`.
    public var sw_params_free: @convention(c) (OpaquePointer?) -> Void
    /// Calls alsa-lib's `snd_pcm_sw_params_current`.
    public var sw_params_current: @convention(c) (PCM?, OpaquePointer?) -> Int32
    /// Calls alsa-lib's `snd_pcm_sw_params_set_start_threshold`.
    public var sw_params_set_start_threshold: @convention(c) (PCM?, OpaquePointer?, Frames) -> Int32
    /// Calls alsa-lib's `snd_pcm_sw_params_set_avail_min`.
    public var sw_params_set_avail_min: @convention(c) (PCM?, OpaquePointer?, Frames) -> Int32
    /// Calls alsa-lib's `snd_pcm_sw_params`.
    public var sw_params: @convention(c) (PCM?, OpaquePointer?) -> Int32

    // Streaming. `writei`, `wait` and `recover` (for EPIPE only) run on the render thread.
    /// Calls alsa-lib's `snd_pcm_writei`; the render thread calls it.
    public var writei: @convention(c) (PCM?, UnsafeRawPointer?, Frames) -> snd_pcm_sframes_t
    /// Calls alsa-lib's `snd_pcm_wait`; the render thread calls it.
    public var wait: @convention(c) (PCM?, Int32) -> Int32
    /// Calls alsa-lib's `snd_pcm_recover`; the render thread calls it.
    public var recover: @convention(c) (PCM?, Int32, Int32) -> Int32
    /// Calls alsa-lib's `snd_pcm_prepare`.
    public var prepare: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_resume`.
    public var resume: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_drop`.
    public var drop: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_drain`.
    public var drain: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_readi` (capture); the render thread calls it.
    public var readi: @convention(c) (PCM?, UnsafeMutableRawPointer?, Frames) -> snd_pcm_sframes_t
    /// Calls alsa-lib's `snd_pcm_avail_update` (capture: frames ready to read); the render thread calls it.
    public var avail_update: @convention(c) (PCM?) -> snd_pcm_sframes_t
    /// Calls alsa-lib's `snd_pcm_delay` (playback: frames queued before the next one written is
    /// heard); the render thread calls it once per period for each output bus past main (clock correction).
    public var delay: @convention(c) (PCM?, UnsafeMutablePointer<snd_pcm_sframes_t>?) -> Int32
    /// Calls alsa-lib's `snd_pcm_type` (a sound server's plugin is `SND_PCM_TYPE_IOPLUG`); the
    /// control thread or the supervisor calls it after opening a PCM.
    public var pcm_type: @convention(c) (PCM?) -> snd_pcm_type_t
    /// Calls alsa-lib's `snd_pcm_state`; the render thread calls it while capture waits for playback to start.
    public var state: @convention(c) (PCM?) -> snd_pcm_state_t
    /// Calls alsa-lib's `snd_pcm_start` (an unlinked capture PCM is started by hand).
    public var start: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_link` (playback and capture start and stop together).
    public var link: @convention(c) (PCM?, PCM?) -> Int32
    /// Calls alsa-lib's `snd_pcm_unlink`.
    public var unlink: @convention(c) (PCM?) -> Int32
    /// Calls alsa-lib's `snd_strerror`.
    public var strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?

    // Device listing (`tutti devices`).
    /// Calls alsa-lib's `snd_device_name_hint`.
    public var device_name_hint:
        @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutableRawPointer?>?>?) -> Int32
    /// Calls alsa-lib's `snd_device_name_get_hint`.
    public var device_name_get_hint: @convention(c) (UnsafeRawPointer?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    /// Calls alsa-lib's `snd_device_name_free_hint`.
    public var device_name_free_hint: @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32

    // Scheduling of the calling thread: 0 or an errno. Not alsa-lib, hooked so tests can
    // make promotion fail as an unprivileged user would.
    /// Moves the calling thread to SCHED_FIFO at this priority (`pthread_setschedparam`); 0 or an errno.
    public var set_fifo_priority: @convention(c) (Int32) -> Int32
    /// `mlockall(MCL_CURRENT | MCL_FUTURE)`; 0 or an errno.
    public var lock_memory: @convention(c) () -> Int32

    /// alsa-lib's file name, as `dlopen` finds it.
    public static let libraryFileName = "libasound.so.2"
    /// The Debian packages that install it (errors name them).
    public static let libraryPackages = "libasound2 (named libasound2t64 since Debian 13 and Ubuntu 24.04)"
    /// The backend, as errors name it.
    public static let backendName = "ALSA"

    /// The table of `library`'s functions (alsa-lib's names: `pcm_open` is `snd_pcm_open`); the
    /// two scheduling hooks are the real calls. Throws `.device` naming a function the library
    /// lacks. Any thread, not real-time.
    public init(library: SystemLibrary) throws(TuttiError) {
        config_top = try library.function("snd_config_top")
        input_buffer_open = try library.function("snd_input_buffer_open")
        config_load = try library.function("snd_config_load")
        input_close = try library.function("snd_input_close")
        config_delete = try library.function("snd_config_delete")
        pcm_open = try library.function("snd_pcm_open")
        pcm_open_lconf = try library.function("snd_pcm_open_lconf")
        pcm_close = try library.function("snd_pcm_close")
        pcm_nonblock = try library.function("snd_pcm_nonblock")
        hw_params_malloc = try library.function("snd_pcm_hw_params_malloc")
        hw_params_free = try library.function("snd_pcm_hw_params_free")
        hw_params_any = try library.function("snd_pcm_hw_params_any")
        hw_params_set_access = try library.function("snd_pcm_hw_params_set_access")
        hw_params_test_format = try library.function("snd_pcm_hw_params_test_format")
        hw_params_set_format = try library.function("snd_pcm_hw_params_set_format")
        hw_params_set_channels_near = try library.function("snd_pcm_hw_params_set_channels_near")
        hw_params_set_rate_near = try library.function("snd_pcm_hw_params_set_rate_near")
        hw_params_set_period_size_near = try library.function("snd_pcm_hw_params_set_period_size_near")
        hw_params_set_buffer_size_near = try library.function("snd_pcm_hw_params_set_buffer_size_near")
        hw_params = try library.function("snd_pcm_hw_params")
        hw_params_get_format = try library.function("snd_pcm_hw_params_get_format")
        hw_params_get_channels = try library.function("snd_pcm_hw_params_get_channels")
        hw_params_get_rate = try library.function("snd_pcm_hw_params_get_rate")
        hw_params_get_period_size = try library.function("snd_pcm_hw_params_get_period_size")
        hw_params_get_buffer_size = try library.function("snd_pcm_hw_params_get_buffer_size")
        sw_params_malloc = try library.function("snd_pcm_sw_params_malloc")
        sw_params_free = try library.function("snd_pcm_sw_params_free")
        sw_params_current = try library.function("snd_pcm_sw_params_current")
        sw_params_set_start_threshold = try library.function("snd_pcm_sw_params_set_start_threshold")
        sw_params_set_avail_min = try library.function("snd_pcm_sw_params_set_avail_min")
        sw_params = try library.function("snd_pcm_sw_params")
        writei = try library.function("snd_pcm_writei")
        wait = try library.function("snd_pcm_wait")
        recover = try library.function("snd_pcm_recover")
        prepare = try library.function("snd_pcm_prepare")
        resume = try library.function("snd_pcm_resume")
        drop = try library.function("snd_pcm_drop")
        drain = try library.function("snd_pcm_drain")
        readi = try library.function("snd_pcm_readi")
        avail_update = try library.function("snd_pcm_avail_update")
        delay = try library.function("snd_pcm_delay")
        pcm_type = try library.function("snd_pcm_type")
        state = try library.function("snd_pcm_state")
        start = try library.function("snd_pcm_start")
        link = try library.function("snd_pcm_link")
        unlink = try library.function("snd_pcm_unlink")
        strerror = try library.function("snd_strerror")
        device_name_hint = try library.function("snd_device_name_hint")
        device_name_get_hint = try library.function("snd_device_name_get_hint")
        device_name_free_hint = try library.function("snd_device_name_free_hint")
        set_fifo_priority = { priority in
            var param = sched_param()
            param.sched_priority = priority
            return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        }
        lock_memory = { mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : errno }
    }

    private static let loaded = loadOnce()

    /// The real alsa-lib, loaded on first use (once per process; thread-safe). Throws the
    /// error of `load(fileName:)` when alsa-lib is not installed. Any thread, not real-time.
    public static var system: ALSAFunctions {
        get throws(TuttiError) { try loaded.get() }
    }

    /// `pcm_open_lconf` with a loaded configuration, `pcm_open` without one.
    func open(
        _ pcm: UnsafeMutablePointer<OpaquePointer?>, _ name: String, _ stream: snd_pcm_stream_t, _ mode: Int32, config: OpaquePointer?
    ) -> Int32 {
        guard let config else { return pcm_open(pcm, name, stream, mode) }
        return pcm_open_lconf(pcm, name, stream, mode, config)
    }

    /// alsa-lib's message for a negative error code.
    public func message(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "error \(code)" }
        return String(cString: p)
    }
}
