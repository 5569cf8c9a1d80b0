// swift-format-ignore-file: AlwaysUseLowerCamelCase

// The function table mirrors alsa-lib's C names on purpose.
import CALSA
import Glibc

/// Every alsa-lib call the backend makes (plus the two scheduling syscalls), as plain C
/// function pointers: the defaults are the real functions; tests swap in fakes to inject
/// each error. C function pointers (not closures) so the render thread calls them without
/// reference counting. A fake cannot capture context: it finds its state through the
/// handle it gets (see the tests' `MockDevice`).
///
/// Value type: any thread. The backend copies it at creation.
public struct ALSAFunctions: @unchecked Sendable {
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

    // Open / close. `pcm_open` gets the loaded configuration, or nil for the global one.
    /// `snd_pcm_open`, or `snd_pcm_open_lconf` when given a loaded configuration.
    public var pcm_open:
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

    /// The table of the real alsa-lib functions (``system`` is this).
    public init() {
        config_top = { snd_config_top($0) }
        input_buffer_open = { snd_input_buffer_open($0, $1, $2) }
        config_load = { snd_config_load($0, $1) }
        input_close = { snd_input_close($0) }
        config_delete = { snd_config_delete($0) }
        pcm_open = { pcm, name, stream, mode, config in
            config == nil ? snd_pcm_open(pcm, name, stream, mode) : snd_pcm_open_lconf(pcm, name, stream, mode, config)
        }
        pcm_close = { snd_pcm_close($0) }
        pcm_nonblock = { snd_pcm_nonblock($0, $1) }
        hw_params_malloc = { snd_pcm_hw_params_malloc($0) }
        hw_params_free = { snd_pcm_hw_params_free($0) }
        hw_params_any = { snd_pcm_hw_params_any($0, $1) }
        hw_params_set_access = { snd_pcm_hw_params_set_access($0, $1, $2) }
        hw_params_test_format = { snd_pcm_hw_params_test_format($0, $1, $2) }
        hw_params_set_format = { snd_pcm_hw_params_set_format($0, $1, $2) }
        hw_params_set_channels_near = { snd_pcm_hw_params_set_channels_near($0, $1, $2) }
        hw_params_set_rate_near = { snd_pcm_hw_params_set_rate_near($0, $1, $2, $3) }
        hw_params_set_period_size_near = { snd_pcm_hw_params_set_period_size_near($0, $1, $2, $3) }
        hw_params_set_buffer_size_near = { snd_pcm_hw_params_set_buffer_size_near($0, $1, $2) }
        hw_params = { snd_pcm_hw_params($0, $1) }
        hw_params_get_format = { snd_pcm_hw_params_get_format($0, $1) }
        hw_params_get_channels = { snd_pcm_hw_params_get_channels($0, $1) }
        hw_params_get_rate = { snd_pcm_hw_params_get_rate($0, $1, $2) }
        hw_params_get_period_size = { snd_pcm_hw_params_get_period_size($0, $1, $2) }
        hw_params_get_buffer_size = { snd_pcm_hw_params_get_buffer_size($0, $1) }
        sw_params_malloc = { snd_pcm_sw_params_malloc($0) }
        sw_params_free = { snd_pcm_sw_params_free($0) }
        sw_params_current = { snd_pcm_sw_params_current($0, $1) }
        sw_params_set_start_threshold = { snd_pcm_sw_params_set_start_threshold($0, $1, $2) }
        sw_params_set_avail_min = { snd_pcm_sw_params_set_avail_min($0, $1, $2) }
        sw_params = { snd_pcm_sw_params($0, $1) }
        writei = { snd_pcm_writei($0, $1, $2) }
        wait = { snd_pcm_wait($0, $1) }
        recover = { snd_pcm_recover($0, $1, $2) }
        prepare = { snd_pcm_prepare($0) }
        resume = { snd_pcm_resume($0) }
        drop = { snd_pcm_drop($0) }
        drain = { snd_pcm_drain($0) }
        readi = { snd_pcm_readi($0, $1, $2) }
        avail_update = { snd_pcm_avail_update($0) }
        state = { snd_pcm_state($0) }
        start = { snd_pcm_start($0) }
        link = { snd_pcm_link($0, $1) }
        unlink = { snd_pcm_unlink($0) }
        strerror = { snd_strerror($0) }
        device_name_hint = { snd_device_name_hint($0, $1, $2) }
        device_name_get_hint = { snd_device_name_get_hint($0, $1) }
        device_name_free_hint = { snd_device_name_free_hint($0) }
        set_fifo_priority = { priority in
            var param = sched_param()
            param.sched_priority = priority
            return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        }
        lock_memory = { mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : errno }
    }

    /// The real alsa-lib.
    public static let system = ALSAFunctions()

    /// alsa-lib's message for a negative error code.
    public func message(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "error \(code)" }
        return String(cString: p)
    }
}
