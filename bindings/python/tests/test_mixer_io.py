"""What the package gained to match the C API, measured in render output: session gain and
resume, ducking rules, the interaction table, bus effects, sources from memory, input sources
and their recording, output buses, and output to a device (ALSA's "null" PCM)."""

import os

import numpy as np
import pytest

import tutti
from conftest import RATE, db, dominant_hz, rms


def sine(frequency_hz: float, frames: int, amplitude: float = 0.5) -> np.ndarray:
    return (amplitude * np.sin(2 * np.pi * frequency_hz * np.arange(frames) / RATE)).astype(np.float32)


def test_session_gain_scales_its_sources(engine, music):
    music.tone(440.0, 0.5).play()
    before = rms(engine.render(RATE // 2)[:, 0])
    music.set_gain(0.25)
    after = rms(engine.render(RATE // 2)[RATE // 10 :, 0])
    assert db(after / before) == pytest.approx(db(0.25), abs=0.05)
    with pytest.raises(tutti.InvalidArgumentError, match="gain"):
        music.set_gain(-1.0)


def test_a_manual_resume_session_stays_paused_until_resumed(engine):
    music = engine.session("music", tutti.Category.PLAYBACK, attributes=tutti.Attribute.MANUAL_RESUME)
    music.tone(440.0, 0.5).play()
    assert rms(engine.render(RATE // 4)[:, 0]) > 0.3
    engine.begin_phone_call()
    engine.render(RATE // 4)
    engine.end_phone_call()
    engine.render(RATE // 4)
    assert rms(engine.render(RATE // 4)[:, 0]) < 1e-4, "resumed by itself"
    music.resume()
    engine.render(RATE // 10)  # the fade-in
    assert rms(engine.render(RATE // 4)[:, 0]) == pytest.approx(0.5 / np.sqrt(2), rel=0.01)


def test_a_ducking_rule_sets_the_level_between_two_sessions():
    with tutti.Engine(channels=1) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        nav = engine.session("nav", tutti.Category.PLAYBACK, options=tutti.Option.DUCK_OTHERS)
        engine.set_ducking_rules([tutti.DuckingRule(by=nav, duck=music, level_db=-6.0, attack_seconds=0.0)])
        music.tone(440.0, 0.5).play()
        before = rms(engine.render(RATE // 2)[:, 0])
        nav.activate()
        ducked = rms(engine.render(RATE // 10)[RATE // 20 :, 0])
        assert db(ducked / before) == pytest.approx(-6.0, abs=0.2)
        with pytest.raises(tutti.InvalidArgumentError, match=r"rules\[0\]"):
            engine.set_ducking_rules([tutti.DuckingRule(by=nav, duck=music, level_db=-200.0)])


def test_a_signal_rule_ducks_only_while_the_ducker_sounds():
    with tutti.Engine(channels=1) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        nav = engine.session("nav", tutti.Category.PLAYBACK, options=tutti.Option.DUCK_OTHERS)
        rule = tutti.DuckingRule(
            by=nav, duck=music, level_db=-12.0, attack_seconds=0.01, release_seconds=0.01,
            trigger=tutti.DuckingTrigger.SIGNAL, threshold_db=-40.0, hold_seconds=0.05,
        )
        engine.set_ducking_rules([rule])
        music.tone(440.0, 0.5).play()
        prompt = nav.tone(660.0, 0.5)
        nav.activate()
        prompt.play(at=4800)
        prompt.pause(at=9600)
        x = engine.render(14400)[:, 0]
        events = [(e.type, e.frame) for e in engine.events() if e.type in (tutti.EventType.DUCKING_BEGAN, tutti.EventType.DUCKING_ENDED)]
        assert events == [(tutti.EventType.DUCKING_BEGAN, 5280), (tutti.EventType.DUCKING_ENDED, 12480)]

        def level_db(part):  # the 440 Hz tone's level against its 0.5 amplitude (whole periods of both tones)
            t = np.arange(len(part)) / RATE
            amplitude = 2 * np.abs(np.mean(part * np.exp(-2j * np.pi * 440.0 * t)))
            return db(amplitude / 0.5)

        assert level_db(x[1200:3600]) == pytest.approx(0.0, abs=0.1)  # nav active, silent: unity
        assert level_db(x[6000:8400]) == pytest.approx(-12.0, abs=0.1)  # under the prompt
        assert level_db(x[13200:14400]) == pytest.approx(0.0, abs=0.1)  # after hold and release
        with pytest.raises(tutti.InvalidArgumentError, match=r"rules\[0\]\.threshold_db"):
            engine.set_ducking_rules([tutti.DuckingRule(by=nav, duck=music, level_db=-6.0, trigger=tutti.DuckingTrigger.SIGNAL, threshold_db=3.0)])
        with pytest.raises(tutti.InvalidArgumentError, match=r"rules\[0\]\.trigger"):
            engine.set_ducking_rules([tutti.DuckingRule(by=nav, duck=music, level_db=-6.0, trigger=9)])


def test_an_interaction_row_rejects_an_incoming_category(engine, music):
    music.tone(440.0, 0.5).play()
    engine.render(256)
    engine.set_interactions([tutti.Interaction(active=music, incoming=tutti.Category.AMBIENT, outcome=tutti.Outcome.REJECT)])
    game = engine.session("game", tutti.Category.AMBIENT)
    with pytest.raises(tutti.DeniedError):
        game.activate()
    assert game.status().state == tutti.SessionState.INACTIVE
    engine.set_interactions([])
    game.activate()
    with pytest.raises(tutti.InvalidArgumentError, match=r"rows\[0\]"):
        engine.set_interactions([tutti.Interaction(active=music, incoming=music, outcome=tutti.Outcome.MIX)])


def test_a_lowpass_on_the_bus_keeps_the_low_tone_and_cuts_the_high_one(engine, music):
    low, high = music.tone(100.0, 0.25), music.tone(5000.0, 0.25)
    music.set_effects([tutti.Effect.lowpass(500.0)])
    low.play()
    high.play()
    x = engine.render(RATE)[RATE // 2 :, 0].astype(np.float64)
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    hz = np.fft.rfftfreq(len(x), 1.0 / RATE)
    level = lambda f: spectrum[np.argmin(np.abs(hz - f))]  # noqa: E731
    assert db(level(5000.0) / level(100.0)) < -30.0
    assert dominant_hz(x) == pytest.approx(100.0, abs=0.5)
    music.set_effect(0, tutti.Effect.highpass(2000.0), glide_frames=480)
    y = engine.render(RATE)[RATE // 2 :, 0]
    assert dominant_hz(y) == pytest.approx(5000.0, abs=1.0)
    with pytest.raises(tutti.InvalidArgumentError, match=r"effects\[0\]"):
        music.set_effects([tutti.Effect.lowpass(30000.0)])


def test_a_buffer_source_plays_its_samples_and_loops(engine, music):
    samples = np.linspace(-0.5, 0.5, 4800, dtype=np.float32)
    source = music.buffer(samples, RATE, loop=True)
    source.play()
    out = engine.render(9600)
    np.testing.assert_allclose(out[:4800, 0], samples, atol=1e-6)
    np.testing.assert_allclose(out[:4800, 1], samples, atol=1e-6)
    np.testing.assert_allclose(out[4800:, 0], samples, atol=1e-6)  # looped, sample-exact
    with pytest.raises(tutti.InvalidArgumentError, match="shape"):
        music.buffer(np.zeros((10, 3)), RATE)


def test_a_loop_region_wraps_its_count_then_plays_to_the_end(engine, music):
    samples = np.arange(1000, dtype=np.float32) / 1000.0
    source = music.buffer(samples, RATE)
    source.set_loop(True, start_frame=200, end_frame=400, count=2)
    source.play()
    out = engine.render(1600)[:, 0]
    expected = np.concatenate([samples[:400], samples[200:400], samples[200:400], samples[400:], np.zeros(200)])
    np.testing.assert_allclose(out, expected, atol=1e-6)
    assert source.state == tutti.SourceState.ENDED
    with pytest.raises(tutti.InvalidArgumentError, match="end_frame"):
        source.set_loop(True, start_frame=300, end_frame=300)


def tone_level(x: np.ndarray, frequency_hz: float) -> float:
    """The amplitude of a sine at frequency_hz in x (a Hann-windowed DFT bin)."""
    w = np.hanning(len(x))
    k = np.arange(len(x))
    bin_ = np.sum(w * x.astype(np.float64) * np.exp(-2j * np.pi * frequency_hz * k / RATE))
    return float(2 * np.abs(bin_) / np.sum(w))


def test_a_crossfade_gives_way_at_equal_power_and_stops_the_old_source(engine, music):
    old, new = music.tone(440.0, 0.5), music.tone(1000.0, 0.5)
    old.play(at=0)
    new.crossfade(old, 9600, at=4800)
    out = engine.render(4800 + 9600 + 4800)[:, 0]
    assert tone_level(out[:4800], 440.0) == pytest.approx(0.5, abs=0.005)
    assert tone_level(out[:4800], 1000.0) < 0.001
    middle = out[4800 + 4800 - 480 : 4800 + 4800 + 480]
    assert db(tone_level(middle, 440.0) / 0.5) == pytest.approx(-3.0103, abs=0.1)
    assert db(tone_level(middle, 1000.0) / 0.5) == pytest.approx(-3.0103, abs=0.1)
    assert tone_level(out[14400:], 1000.0) == pytest.approx(0.5, abs=0.005)
    assert tone_level(out[14400:], 440.0) < 0.001
    assert old.state == tutti.SourceState.STOPPED
    assert new.state == tutti.SourceState.PLAYING


def test_a_bad_crossfade_fails_naming_the_argument(engine, music):
    old, new, idle = music.tone(440.0, 0.5), music.tone(1000.0, 0.5), music.tone(2000.0, 0.5)
    elsewhere = engine.session("other", tutti.Category.PLAYBACK).tone(3000.0, 0.5)
    old.play()
    with pytest.raises(tutti.InvalidArgumentError, match="from"):
        old.crossfade(old, 4800)
    with pytest.raises(tutti.InvalidArgumentError, match="from"):
        elsewhere.crossfade(old, 4800)
    with pytest.raises(tutti.InvalidArgumentError, match="duration_frames"):
        new.crossfade(old, 0)
    with pytest.raises(tutti.StateError, match="from"):
        new.crossfade(idle, 4800)
    out = engine.render(9600)[:, 0]
    assert tone_level(out[4800:], 440.0) == pytest.approx(0.5, abs=0.005)
    assert tone_level(out[4800:], 1000.0) < 0.001
    assert new.state == tutti.SourceState.STOPPED


def test_a_rate_of_two_is_an_octave_up_and_half_as_long(engine, music):
    source = music.buffer(sine(440.0, RATE), RATE)
    assert source.info().rate == 1.0
    source.set_rate(2.0, ramp_frames=0)
    assert source.info().rate == 2.0
    source.play()
    out = engine.render(RATE // 4)[:, 0]
    assert dominant_hz(out) == pytest.approx(880.0, abs=0.5)
    assert source.position == RATE // 2
    engine.render(RATE // 4 + 1)
    assert source.state == tutti.SourceState.ENDED
    for bad in (0.2, 4.5, float("nan")):
        with pytest.raises(tutti.InvalidArgumentError, match="rate"):
            source.set_rate(bad)
    assert source.info().rate == 2.0  # the failed calls changed nothing


def test_an_input_is_heard_at_its_gain_and_recorded():
    with tutti.Engine(channels=1) as engine:
        call = engine.session("call", tutti.Category.PLAY_AND_RECORD)
        mic = call.input(channels=1, capacity_frames=RATE, record_capacity_frames=RATE)
        mic.set_gain(1.0)
        mic.play()
        captured = sine(1000.0, 4800)
        assert mic.write(captured) == 4800
        out = engine.render(4800)[:, 0]
        assert rms(out[480:]) == pytest.approx(rms(captured[480:]), rel=0.02)
        assert dominant_hz(out) == pytest.approx(1000.0, abs=2.0)
        recorded = mic.read_recorded(RATE)
        assert recorded.shape == (4800, 1)
        np.testing.assert_array_equal(recorded[:, 0], captured)
        assert mic.recording() == tutti.Recording(start_frame=0, dropped_frames=0)
    with tutti.Engine() as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        with pytest.raises(tutti.StateError):
            music.input()


def test_a_source_plays_to_the_output_bus_it_is_set_to():
    with tutti.Engine(output_buses=["main", "cue"]) as engine:
        assert engine.output_buses == ("main", "cue")
        desk = engine.session("desk", tutti.Category.MULTI_ROUTE)
        tone = desk.tone(440.0, 0.5)
        tone.set_output_bus("cue")
        tone.play()
        buses = engine.render_output_buses(RATE // 2)
        assert rms(buses["cue"][:, 0]) == pytest.approx(0.5 / np.sqrt(2), rel=0.01)
        assert np.max(np.abs(buses["main"])) == 0.0
        assert tone.output_bus == "cue"
        with pytest.raises(tutti.InvalidArgumentError, match="nope"):
            tone.set_output_bus("nope")


def test_the_old_route_names_still_work_with_a_deprecation_warning():
    """routes=, Engine.routes, render_routes, Source.set_route and Source.route: the
    deprecated names (and C functions) of the output buses, for one release."""
    with pytest.warns(DeprecationWarning, match="output_buses"):
        engine = tutti.Engine(routes=["main", "cue"])
    with engine:
        with pytest.warns(DeprecationWarning, match="Engine.output_buses"):
            assert engine.routes == ("main", "cue")
        desk = engine.session("desk", tutti.Category.MULTI_ROUTE)
        tone = desk.tone(440.0, 0.5)
        with pytest.warns(DeprecationWarning, match="set_output_bus"):
            tone.set_route("cue")
        tone.play()
        with pytest.warns(DeprecationWarning, match="render_output_buses"):
            buses = engine.render_routes(RATE // 2)
        assert rms(buses["cue"][:, 0]) == pytest.approx(0.5 / np.sqrt(2), rel=0.01)
        assert np.max(np.abs(buses["main"])) == 0.0
        with pytest.warns(DeprecationWarning, match="output_bus"):
            assert tone.route == "cue"
        assert tone.output_bus == "cue"
        with pytest.raises(tutti.InvalidArgumentError, match="tutti_source_set_route"):
            with pytest.warns(DeprecationWarning):
                tone.set_route("nope")
    with pytest.raises(TypeError, match="not both"):
        tutti.Engine(routes=["main", "cue"], output_buses=["main", "cue"])


def test_output_to_a_device_then_pull_rendering_again(engine, music):
    music.tone(440.0, 0.5).play()
    assert engine.output_backend is None
    engine.start_output(device="null", period_frames=256, periods=3)
    assert engine.output_running
    assert engine.output_backend == tutti.Backend.ALSA
    with pytest.raises(tutti.StateError):
        engine.render(256)
    with pytest.raises(tutti.StateError):
        engine.start_output(device="null")
    engine.stop_output(drain=True)
    assert not engine.output_running
    assert engine.output_backend is None
    before = engine.frame
    engine.render(256)
    assert engine.frame == before + 256
    with pytest.raises(tutti.DeviceError, match="hw:99,0"):
        engine.start_output(device="hw:99,0")
    assert not engine.output_running
    engine.stop_output()  # none runs: fine


def test_a_host_effect_halves_the_bus_from_its_frame_and_goes_away_cleanly(engine, music):
    tone = music.tone(440.0, 0.5)
    tone.play()
    calls = []

    def halve(samples):
        calls.append(samples.shape)
        samples *= 0.5

    dry = tutti.Engine(sample_rate=RATE, channels=2)
    try:
        dry_tone = dry.session("music", tutti.Category.PLAYBACK).tone(440.0, 0.5)
        dry_tone.play()
        music.set_host_effect(halve, at=1000)
        out = engine.render(4800)
        reference = dry.render(4800)
        np.testing.assert_array_equal(out[:1000], reference[:1000])
        np.testing.assert_array_equal(out[1000:], reference[1000:] * np.float32(0.5))
        assert calls and all(shape[1] == 2 for shape in calls)
        assert sum(shape[0] for shape in calls) == 3800
        music.set_host_effect(None)
        np.testing.assert_array_equal(engine.render(4800), dry.render(4800))
        music.set_gain(1.0)  # a later call: the engine has let go of the callback
        assert not tutti._api._host_effects
        with pytest.raises(tutti.InvalidArgumentError, match="at"):
            music.set_host_effect(halve, at=-5)
    finally:
        dry.close()


def test_a_master_chain_is_heard_and_a_bad_one_is_refused_by_name():
    with tutti.Engine(sample_rate=RATE, channels=1, master_effects=[tutti.Effect.notch(440.0, 0.5)]) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        music.tone(440.0, 0.25).play()
        music.tone(3000.0, 0.25).play()
        out = engine.render(RATE // 2)[:, 0]
        spectrum = np.abs(np.fft.rfft(out[4800:].astype(np.float64) * np.hanning(len(out) - 4800)))
        hz = np.fft.rfftfreq(len(out) - 4800, 1.0 / RATE)
        at = lambda f: spectrum[np.argmin(np.abs(hz - f))]  # noqa: E731
        assert db(at(440.0) / at(3000.0)) < -60  # the master's notch takes the 440 Hz tone out
    with pytest.raises(tutti.InvalidArgumentError, match=r"config->master_effects\[1\]\.frequency_hz"):
        tutti.Engine(master_effects=[tutti.Effect.lowpass(1000.0), tutti.Effect.lowpass(30000.0)])


def test_a_master_host_effect_halves_the_output_and_needs_a_master_stage(engine, music):
    calls = []

    def halve(samples):
        calls.append(samples.shape)
        samples *= 0.5

    with pytest.raises(tutti.StateError, match="master stage"):
        engine.set_master_host_effect(halve)  # the fixture's engine has none
    assert not tutti._api._host_effects
    with tutti.Engine(sample_rate=RATE, channels=2, master_effects=[]) as mastered, tutti.Engine(
        sample_rate=RATE, channels=2, master_effects=[]
    ) as dry:
        for e in (mastered, dry):
            e.session("music", tutti.Category.PLAYBACK).tone(440.0, 0.5).play()
        mastered.set_master_host_effect(halve, at=1000)
        out = mastered.render(4800)
        reference = dry.render(4800)
        assert rms(reference[1000:]) > 0.3
        np.testing.assert_array_equal(out[:1000], reference[:1000])
        np.testing.assert_array_equal(out[1000:], reference[1000:] * np.float32(0.5))
        assert sum(shape[0] for shape in calls) == 3800 and all(shape[1] == 2 for shape in calls)
        mastered.set_master_host_effect(None)
        np.testing.assert_array_equal(mastered.render(4800), dry.render(4800))
        mastered.set_volume(1.0)  # a later call: the engine has let go of the callback
        assert not tutti._api._host_effects
        with pytest.raises(tutti.InvalidArgumentError, match="at"):
            mastered.set_master_host_effect(halve, at=-5)
        assert not tutti._api._host_effects


def _snr_at_1khz(x: np.ndarray) -> float:
    """SNR (dB) of x (whole cycles of 1 kHz at RATE) against its least-squares 1 kHz sine."""
    t = np.arange(len(x)) / RATE
    basis = np.stack([np.sin(2 * np.pi * 1000 * t), np.cos(2 * np.pi * 1000 * t)], axis=1)
    fit = basis @ np.linalg.lstsq(basis, x.astype(np.float64), rcond=None)[0]
    return 10 * np.log10(np.sum(fit**2) / np.sum((x - fit) ** 2))


@pytest.mark.parametrize(
    "quality, low, high",
    [
        (tutti.ResamplerQuality.DEFAULT, 100, 200),
        (tutti.ResamplerQuality.SINC_BEST, 100, 200),
        (tutti.ResamplerQuality.ZERO_ORDER_HOLD, 0, 40),
    ],
)
def test_a_buffer_is_converted_with_the_quality_asked(quality, low, high):
    with tutti.Engine(channels=1) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        t = np.arange(44100) / 44100
        music.buffer(0.5 * np.sin(2 * np.pi * 1000 * t), 44100, quality=quality).play()
        out = engine.render(RATE // 2 + 4800)[4800 : 4800 + 19200, 0]
        assert low < _snr_at_1khz(out) < high


def test_an_unknown_quality_names_flags(engine, music):
    with pytest.raises(tutti.InvalidArgumentError, match="flags"):
        music.buffer(np.zeros(16), 44100, quality=9)


@pytest.mark.skipif(not os.access("/usr/bin/dbus-daemon", os.X_OK) or not os.access("/usr/bin/dbus-send", os.X_OK),
                    reason="needs dbus-daemon and dbus-send (the Debian package dbus)")
def test_mpris_serves_the_output_on_a_private_session_bus(engine, music, tmp_path, monkeypatch):
    import subprocess
    import time

    address = f"unix:path={tmp_path}/bus"
    daemon = subprocess.Popen(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}"])
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(f"{tmp_path}/bus") and time.monotonic() < deadline:
            time.sleep(0.02)
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)

        def names() -> str:
            return subprocess.run(
                ["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                 "org.freedesktop.DBus.ListNames"], capture_output=True, text=True, check=True).stdout

        music.tone(440.0, 0.5).play()
        engine.start_output(device="null")  # off by default
        assert '"org.mpris.MediaPlayer2.tutti"' not in names()
        engine.stop_output()
        engine.start_output(device="null", mpris=True)
        assert '"org.mpris.MediaPlayer2.tutti"' in names()
        engine.stop_output()
        assert '"org.mpris.MediaPlayer2.tutti"' not in names()
    finally:
        daemon.terminate()
        daemon.wait()


def test_watch_desktop_is_on_by_default_and_passed_through(engine, music):
    from tutti import _native

    config = _native.init_struct(_native.OutputConfig, tutti._lib.tutti_output_config_init_size)
    assert config.watch_desktop == 1 and config.reserved0 == 0
    # watch_other_audio, its former name, is the same field (an anonymous union).
    assert _native.OutputConfig.watch_desktop.offset == _native.OutputConfig.watch_other_audio.offset
    config.watch_other_audio = 0
    assert config.watch_desktop == 0
    music.tone(440.0, 0.5).play()
    engine.start_output(device="null", watch_desktop=False)  # ALSA sees no other apps: it plays
    assert engine.output_running
    engine.stop_output()
    # The old keyword still works, with a DeprecationWarning.
    with pytest.warns(DeprecationWarning, match="watch_desktop"):
        engine.start_output(device="null", watch_other_audio=False)
    assert engine.output_running
    engine.stop_output()


def test_streams_default_single_and_per_session_is_pipewire_only(engine, music):
    from tutti import _native

    config = _native.init_struct(_native.OutputConfig, tutti._lib.tutti_output_config_init_size)
    assert config.streams == tutti.constants.TUTTI_STREAMS_SINGLE and config.reserved1 == 0
    with pytest.raises(tutti.InvalidArgumentError, match="per-session"):
        engine.start_output(device="null", streams="per-session")  # ALSA plays one mix
    assert not engine.output_running
    with pytest.raises(ValueError, match="streams"):
        engine.start_output(device="null", streams="both")
    # PipeWire renders ahead with periods for main's stream only: refused before any daemon is asked.
    with pytest.raises(tutti.InvalidArgumentError, match="periodCount: rendering ahead plays main alone"):
        engine.start_output(backend=tutti.Backend.PIPEWIRE, periods=3, streams="per-session")
    assert not engine.output_running


def _pipewire_tools():
    import shutil

    return [shutil.which(name) for name in ("pipewire", "wireplumber", "pw-play", "pw-cli", "dbus-daemon")]


@pytest.mark.skipif(None in _pipewire_tools(), reason="needs pipewire, wireplumber, pw-play, pw-cli and dbus-daemon")
@pytest.mark.parametrize("watch", [True, False])
def test_watch_desktop_decides_whether_pw_play_reaches_the_policy(engine, music, tmp_path, monkeypatch, watch):
    """A private PipeWire daemon with a null sink: pw-play's stream makes other_audio() playing
    (client "pw-play") only while the output watches; unwatched it stays as the host set it."""
    import subprocess
    import time
    import wave

    pipewire, wireplumber, pw_play, pw_cli, dbus_daemon = _pipewire_tools()
    run, home, conf = tmp_path / "run", tmp_path / "home", tmp_path / "config" / "pipewire" / "pipewire.conf.d"
    for folder in (run, home, conf):
        folder.mkdir(parents=True)
    run.chmod(0o700)
    (conf / "null.conf").write_text(
        'context.objects = [ { factory = adapter args = { factory.name = support.null-audio-sink node.name = "testsink" '
        'media.class = "Audio/Sink" object.linger = true audio.position = [ FL FR ] audio.rate = 48000 } } ]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPEWIRE_")}
    env.update(XDG_RUNTIME_DIR=str(run), HOME=str(home), XDG_CONFIG_HOME=str(tmp_path / "config"))
    children = []

    def wait_for(what, ready, seconds=30.0):
        deadline = time.monotonic() + seconds
        while not ready():
            assert time.monotonic() < deadline, f"{what} was not ready within {seconds} s"
            time.sleep(0.05)

    def cli(*args) -> str:
        return subprocess.run([pw_cli, *args], env=env, capture_output=True, text=True).stdout

    try:
        bus = subprocess.Popen([dbus_daemon, "--session", "--nofork", "--nopidfile", f"--address=unix:path={tmp_path}/bus"])
        children.append(bus)
        wait_for("dbus-daemon", lambda: (tmp_path / "bus").exists())
        env["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={tmp_path}/bus"
        children.append(subprocess.Popen([pipewire], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for("pipewire", lambda: "id: 0" in cli("info", "0"))
        children.append(subprocess.Popen([wireplumber], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for("wireplumber", lambda: 'application.name = "WirePlumber"' in cli("ls", "Client"))
        for key in ("XDG_RUNTIME_DIR", "HOME", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS"):
            monkeypatch.setenv(key, env[key])
        monkeypatch.delenv("PIPEWIRE_REMOTE", raising=False)

        music.tone(440.0, 0.5).play()
        engine.start_output(tutti.Backend.PIPEWIRE, "testsink", watch_desktop=watch)
        try:
            time.sleep(0.5)
            assert engine.other_audio() == tutti.OtherAudioState(False, False)  # its own stream never counts
            seconds = 4
            samples = (0.25 * np.sin(2 * np.pi * 440 * np.arange(RATE * seconds) / RATE) * 32767).astype("<i2")
            with wave.open(str(tmp_path / "other.wav"), "wb") as f:
                f.setnchannels(1)
                f.setsampwidth(2)
                f.setframerate(RATE)
                f.writeframes(samples.tobytes())
            player = subprocess.Popen([pw_play, "--target", "testsink", str(tmp_path / "other.wav")], env=env)
            children.append(player)
            deadline = time.monotonic() + (10 if watch else 1.5)  # unwatched: long enough to have been seen
            while not engine.other_audio().other_audio_playing and time.monotonic() < deadline:
                time.sleep(0.05)
            assert player.poll() is None, "pw-play ended before the check: the test proves nothing"
            assert engine.other_audio().other_audio_playing == watch
            assert engine.other_audio_clients() == (["pw-play"] if watch else [])
        finally:
            engine.stop_output()
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait()


@pytest.mark.skipif(
    None in _pipewire_tools() or __import__("shutil").which("pw-dump") is None,
    reason="needs pipewire, wireplumber, pw-cli, pw-dump and dbus-daemon",
)
def test_per_session_streams_show_each_session_with_its_role(engine, music, tmp_path, monkeypatch):
    """A private PipeWire daemon: start_output(streams="per-session") gives each session a
    stream "tutti-ID" with its media.role (pw-dump), and a role set while playing is announced."""
    import json
    import subprocess
    import time

    pipewire, wireplumber, _, pw_cli, dbus_daemon = _pipewire_tools()
    pw_dump = __import__("shutil").which("pw-dump")
    run, home, conf = tmp_path / "run", tmp_path / "home", tmp_path / "config" / "pipewire" / "pipewire.conf.d"
    for folder in (run, home, conf):
        folder.mkdir(parents=True)
    run.chmod(0o700)
    (conf / "null.conf").write_text(
        'context.objects = [ { factory = adapter args = { factory.name = support.null-audio-sink node.name = "testsink" '
        'media.class = "Audio/Sink" object.linger = true audio.position = [ FL FR ] audio.rate = 48000 } } ]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPEWIRE_")}
    env.update(XDG_RUNTIME_DIR=str(run), HOME=str(home), XDG_CONFIG_HOME=str(tmp_path / "config"))
    children = []

    def wait_for(what, ready, seconds=30.0):
        deadline = time.monotonic() + seconds
        while not ready():
            assert time.monotonic() < deadline, f"{what} was not ready within {seconds} s"
            time.sleep(0.05)

    def cli(*args) -> str:
        return subprocess.run([pw_cli, *args], env=env, capture_output=True, text=True).stdout

    def roles() -> dict:
        dump = json.loads(subprocess.run([pw_dump], env=env, capture_output=True, text=True).stdout or "[]")
        props = [o.get("info", {}).get("props", {}) for o in dump if o.get("type") == "PipeWire:Interface:Node"]
        return {p["node.name"]: p.get("media.role") for p in props if p.get("media.class") == "Stream/Output/Audio"}

    try:
        bus = subprocess.Popen([dbus_daemon, "--session", "--nofork", "--nopidfile", f"--address=unix:path={tmp_path}/bus"])
        children.append(bus)
        wait_for("dbus-daemon", lambda: (tmp_path / "bus").exists())
        env["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={tmp_path}/bus"
        children.append(subprocess.Popen([pipewire], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for("pipewire", lambda: "id: 0" in cli("info", "0"))
        children.append(subprocess.Popen([wireplumber], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for("wireplumber", lambda: 'application.name = "WirePlumber"' in cli("ls", "Client"))
        for key in ("XDG_RUNTIME_DIR", "HOME", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS"):
            monkeypatch.setenv(key, env[key])
        monkeypatch.delenv("PIPEWIRE_REMOTE", raising=False)

        engine.session("world", tutti.Category.AMBIENT)
        music.tone(440.0, 0.2).play()
        engine.start_output(tutti.Backend.PIPEWIRE, "testsink", watch_desktop=False, streams="per-session")
        try:
            wait_for("the session streams", lambda: {"tutti-music", "tutti-world"} <= roles().keys(), seconds=10)
            seen = roles()
            assert seen["tutti-music"] == "Music" and seen["tutti-world"] == "Game", seen
            music.media_role = "Movie"
            wait_for("the new role", lambda: roles().get("tutti-music") == "Movie", seconds=10)
        finally:
            engine.stop_output()
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait()
