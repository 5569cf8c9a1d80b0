import CALSA
import Glibc
import TuttiOutput

/// An open, configured playback PCM in non-blocking mode (the render thread waits with
/// `snd_pcm_wait` and a timeout, so a device that stops consuming cannot block it forever).
///
/// Thread: the thread that holds the device — the control thread while opening and after
/// stopping, the render thread while it runs, the supervisor while the render thread is parked.
/// `@unchecked Sendable`: render-side memory (alsa-lib's handle, an `OpaquePointer`) passed
/// between those threads by `RenderCore`'s state, one holder at a time.
struct PCMDevice: @unchecked Sendable { // render-side memory: alsa-lib's handle, handed over by `state`
    var handle: OpaquePointer
    /// Local configuration the PCM was opened with; kept until it is closed.
    var localConfig: OpaquePointer?
    var negotiated: ALSANegotiated
    /// A sound server's plugin (`SND_PCM_TYPE_IOPLUG`: pulse, pipewire, jack): the render
    /// thread watches what it consumes against the clock (`ConsumptionWatch`), as such a
    /// plugin can let the server run dry without an EPIPE.
    var watchesConsumption = false

    /// Open `configuration.device` and negotiate with the `_near` calls; the values read back
    /// after `snd_pcm_hw_params` are the ones used. `wakeAnyRoom`: a non-blocking write takes
    /// whatever room there is (avail_min 1 frame, for PCMs that are never waited on) instead
    /// of whole periods. Not real-time: the control thread or the supervisor.
    static func open(
        _ configuration: ALSAOutputConfiguration, sampleRate: Int, channelCount: Int,
        functions f: ALSAFunctions, wakeAnyRoom: Bool = false
    ) throws -> PCMDevice {
        guard configuration.periodFrames > 0, configuration.periodCount > 0, !configuration.formats.isEmpty else {
            throw ALSAError.invalidConfiguration("periodFrames, periodCount and formats must not be empty or zero")
        }
        func check(_ rc: Int32, _ what: String) throws {
            if rc < 0 { throw ALSAError.call(what, code: rc, message: f.message(rc)) }
        }

        var localConfig: OpaquePointer?
        if let text = configuration.alsaConfig {
            try check(f.config_top(&localConfig), "snd_config_top")
            var input: OpaquePointer?
            let rc = f.input_buffer_open(&input, text, text.utf8.count)
            if rc < 0 {
                _ = f.config_delete(localConfig)
                try check(rc, "snd_input_buffer_open")
            }
            let loaded = f.config_load(localConfig, input)
            _ = f.input_close(input)
            if loaded < 0 {
                _ = f.config_delete(localConfig)
                try check(loaded, "snd_config_load (alsaConfig)")
            }
        }
        var pcm: OpaquePointer?
        let opened = f.open(&pcm, configuration.device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, config: localConfig)
        guard opened >= 0, let handle = pcm else {
            if localConfig != nil { _ = f.config_delete(localConfig) }
            throw ALSAError.call(
                "snd_pcm_open \"\(configuration.device)\"", code: opened < 0 ? opened : -ENODEV,
                message: f.message(opened < 0 ? opened : -ENODEV))
        }
        do {
            let negotiated = try negotiate(
                handle, configuration, sampleRate: sampleRate, channelCount: channelCount, f, wakeAnyRoom: wakeAnyRoom)
            let serverPlugin = f.pcm_type(handle) == SND_PCM_TYPE_IOPLUG
            return PCMDevice(handle: handle, localConfig: localConfig, negotiated: negotiated, watchesConsumption: serverPlugin)
        } catch {
            _ = f.pcm_close(handle)
            if localConfig != nil { _ = f.config_delete(localConfig) }
            throw error
        }
    }

    private static func negotiate(
        _ pcm: OpaquePointer, _ c: ALSAOutputConfiguration, sampleRate: Int, channelCount: Int,
        _ f: ALSAFunctions, wakeAnyRoom: Bool
    ) throws -> ALSANegotiated {
        func check(_ rc: Int32, _ what: String) throws {
            if rc < 0 { throw ALSAError.call(what, code: rc, message: f.message(rc)) }
        }
        var hw: OpaquePointer?
        try check(f.hw_params_malloc(&hw), "snd_pcm_hw_params_malloc")
        defer { f.hw_params_free(hw) }
        try check(f.hw_params_any(pcm, hw), "snd_pcm_hw_params_any")
        try check(f.hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access (interleaved)")
        guard let format = c.formats.first(where: { f.hw_params_test_format(pcm, hw, $0.alsa) == 0 }) else {
            throw ALSAError.noUsableFormat(c.formats)
        }
        try check(f.hw_params_set_format(pcm, hw, format.alsa), "snd_pcm_hw_params_set_format \(format.rawValue)")
        var channels = UInt32(channelCount)
        try check(f.hw_params_set_channels_near(pcm, hw, &channels), "snd_pcm_hw_params_set_channels_near")
        var rate = UInt32(sampleRate)
        var dir: Int32 = 0
        try check(f.hw_params_set_rate_near(pcm, hw, &rate, &dir), "snd_pcm_hw_params_set_rate_near")
        var period = snd_pcm_uframes_t(c.periodFrames)
        dir = 0
        try check(f.hw_params_set_period_size_near(pcm, hw, &period, &dir), "snd_pcm_hw_params_set_period_size_near")
        var buffer = snd_pcm_uframes_t(c.periodFrames * c.periodCount)
        try check(f.hw_params_set_buffer_size_near(pcm, hw, &buffer), "snd_pcm_hw_params_set_buffer_size_near")
        try check(f.hw_params(pcm, hw), "snd_pcm_hw_params")

        // What the device actually installed (the `_near` out-values can be refined by the
        // later calls; only the installed configuration counts).
        var gotFormat = SND_PCM_FORMAT_UNKNOWN
        try check(f.hw_params_get_format(hw, &gotFormat), "snd_pcm_hw_params_get_format")
        try check(f.hw_params_get_channels(hw, &channels), "snd_pcm_hw_params_get_channels")
        try check(f.hw_params_get_rate(hw, &rate, &dir), "snd_pcm_hw_params_get_rate")
        try check(f.hw_params_get_period_size(hw, &period, &dir), "snd_pcm_hw_params_get_period_size")
        try check(f.hw_params_get_buffer_size(hw, &buffer), "snd_pcm_hw_params_get_buffer_size")
        guard let granted = OutputSampleFormat(alsa: gotFormat) else { throw ALSAError.noUsableFormat(c.formats) }
        guard Int(rate) == sampleRate else { throw ALSAError.rateMismatch(wanted: sampleRate, granted: Int(rate)) }
        guard Int(channels) == channelCount else { throw ALSAError.channelMismatch(wanted: channelCount, granted: Int(channels)) }
        guard period > 0, buffer > 0 else {
            throw ALSAError.call("snd_pcm_hw_params", code: -EINVAL, message: "the device granted an empty period or buffer")
        }
        guard buffer > period else { throw ALSAError.periodEqualsBuffer(frames: Int(period)) }

        var sw: OpaquePointer?
        try check(f.sw_params_malloc(&sw), "snd_pcm_sw_params_malloc")
        defer { f.sw_params_free(sw) }
        try check(f.sw_params_current(pcm, sw), "snd_pcm_sw_params_current")
        // Start once the buffer is full (the first writes never race an empty buffer); wake
        // when a whole period is free.
        try check(f.sw_params_set_start_threshold(pcm, sw, buffer), "snd_pcm_sw_params_set_start_threshold")
        try check(f.sw_params_set_avail_min(pcm, sw, wakeAnyRoom ? 1 : period), "snd_pcm_sw_params_set_avail_min")
        try check(f.sw_params(pcm, sw), "snd_pcm_sw_params")
        return ALSANegotiated(
            sampleRate: Int(rate), channelCount: Int(channels), format: granted,
            periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// Close (not real-time).
    func close(_ f: ALSAFunctions) {
        _ = f.pcm_close(handle)
        if localConfig != nil { _ = f.config_delete(localConfig) }
    }
}
