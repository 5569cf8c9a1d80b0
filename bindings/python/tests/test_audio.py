"""Audio measured in render output: levels, frequency, bit-exact streams, ducking."""

import numpy as np
import pytest

import tutti
from conftest import RATE, db, dominant_hz, rms


def test_render_returns_frames_by_channels_float32(engine):
    out = engine.render(1000)
    assert out.dtype == np.float32 and out.shape == (1000, 2) and out.flags.c_contiguous
    assert engine.frame == 1000
    assert not np.any(out), "an engine with nothing playing renders silence"
    buffer = np.full((256, 2), 7.0, dtype=np.float32)
    assert engine.render(256, out=buffer) is buffer and not np.any(buffer), "out= is filled in place"
    assert engine.frame == 1256
    with pytest.raises(tutti.InvalidArgumentError, match="out must be float32"):
        engine.render(256, out=np.zeros((256, 2), dtype=np.float64))
    assert engine.frame == 1256, "a refused render renders nothing"


def test_tone_level_and_frequency(engine, music):
    tone = music.tone(1000.0, 0.5)
    tone.play()
    out = engine.render(RATE)
    steady = out[4800:]
    assert np.array_equal(steady[:, 0], steady[:, 1]), "a tone is on every channel"
    # A sine of peak 0.5: RMS 0.5 / sqrt(2), peak 0.5.
    assert rms(steady[:, 0]) == pytest.approx(0.5 / np.sqrt(2), rel=1e-3)
    assert float(np.max(np.abs(steady))) == pytest.approx(0.5, abs=1e-3)
    assert dominant_hz(steady[:, 0]) == pytest.approx(1000.0, abs=0.5)
    assert tone.state == tutti.SourceState.PLAYING
    assert tone.position == RATE


def test_gain_step_lands_on_the_frame_asked(engine, music):
    tone = music.tone(440.0, 0.5)
    tone.play(at=0)
    tone.set_gain(0.0, at=24000)
    out = engine.render(RATE)
    assert rms(out[20000:24000, 0]) > 0.3
    assert not np.any(out[24000:]), "silent from frame 24000 exactly"
    assert tone.info().gain == 0.0


def test_stream_at_engine_rate_is_bit_identical(engine, music):
    rng = np.random.default_rng(23)
    data = rng.uniform(-0.9, 0.9, size=(24000, 2)).astype(np.float32)
    stream = music.stream(RATE, channels=2, capacity_frames=32768)
    assert stream.write(data) == 24000
    stream.play()
    out = engine.render(24000)
    assert np.array_equal(out, data), f"{int(np.sum(out != data))} samples differ from those written"


def test_mono_stream_plays_on_both_channels_and_write_reports_a_full_ring(engine, music):
    data = (0.25 * np.sin(2 * np.pi * 500 * np.arange(8192) / RATE)).astype(np.float32)
    stream = music.stream(RATE, channels=1, capacity_frames=4096)
    assert stream.write(data) == 4096, "a 4096-frame ring takes 4096 frames"
    assert stream.write(data[4096:]) == 0, "a full ring takes nothing"
    stream.play()
    out = engine.render(4096)
    assert np.array_equal(out[:, 0], data[:4096]) and np.array_equal(out[:, 1], data[:4096])
    assert stream.write(data[4096:]) == 4096, "rendering freed the ring"


def test_stream_end_plays_every_frame_then_ends(engine, music):
    data = np.full(10000, 0.5, dtype=np.float32)
    stream = music.stream(RATE, channels=1, capacity_frames=16384)
    assert stream.write(data) == 10000
    stream.end()
    stream.play(at=0)
    out = engine.render(12000)
    assert np.all(out[:10000] == 0.5) and not np.any(out[10000:])
    ended = [e for e in engine.events() if e.type == tutti.EventType.SOURCE_ENDED]
    assert len(ended) == 1
    assert ended[0].source is stream and ended[0].session is music
    assert ended[0].frame == 10000, "the frame after its last"
    assert ended[0].type_name == "SOURCE_ENDED"
    assert stream.state == tutti.SourceState.ENDED
    assert stream.status().underrun_frames == 0


def test_duck_others_lowers_the_music_by_the_default_15_db(engine, music):
    song = music.tone(440.0, 0.5)
    song.play()
    before = rms(engine.render(RATE)[RATE // 2 :, 0])
    nav = engine.session(
        "nav", tutti.Category.PLAYBACK, mode=tutti.Mode.VOICE_PROMPT, options=tutti.Option.DUCK_OTHERS
    )
    nav.activate()
    ducked = rms(engine.render(RATE)[RATE // 2 :, 0])  # the 0.1 s attack is over
    assert db(ducked / before) == pytest.approx(-15.0, abs=0.2)
    events = list(engine.events())
    began = [e for e in events if e.type == tutti.EventType.DUCKING_BEGAN]
    assert [e.session for e in began] == [music], [(e.type_name, e.session) for e in events]
    nav.deactivate(notify_others=True)
    restored = rms(engine.render(RATE)[RATE // 2 :, 0])  # the 0.4 s release is over
    assert db(restored / before) == pytest.approx(0.0, abs=0.05)
    assert any(e.type == tutti.EventType.DUCKING_ENDED and e.session is music for e in engine.events())


def test_the_engines_duck_envelope_is_a_config_field():
    with tutti.Engine(channels=1, ducking_level_db=-20.0, ducking_attack_seconds=0.0) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        music.tone(440.0, 0.5).play()
        before = rms(engine.render(RATE)[RATE // 2 :, 0])
        nav = engine.session("nav", tutti.Category.PLAYBACK, options=tutti.Option.DUCK_OTHERS)
        nav.activate()
        ducked = rms(engine.render(RATE // 10)[RATE // 20 :, 0])  # no attack: ducked within 50 ms
        assert db(ducked / before) == pytest.approx(-20.0, abs=0.2)
    with pytest.raises(tutti.InvalidArgumentError, match="ducking_level_db"):
        tutti.Engine(ducking_level_db=-100.0)


def test_pan_pause_and_seek(engine, music, tmp_path):
    tone = music.tone(1000.0, 0.5)
    assert tone.info().pan is None, "never panned: no pan stage"
    tone.set_pan(-1.0)
    assert tone.info().pan == -1.0
    tone.play()
    out = engine.render(9600)[4800:]
    assert not np.any(out[:, 1]), "panned hard left: the right channel is silent"
    assert rms(out[:, 0]) == pytest.approx(0.5 / np.sqrt(2), rel=1e-3), "the near channel at full level"
    tone.pause()
    out = engine.render(4800)
    assert not np.any(out[960:]), "silent after the 10 ms pause fade"
    held = tone.position
    engine.render(4800)
    assert tone.state == tutti.SourceState.PAUSED and tone.position == held

    from conftest import write_wav

    path = tmp_path / "ramp.wav"
    write_wav(path, np.linspace(0.0, 0.9, RATE))
    clip = music.file(path)
    clip.seek(24000)
    engine.render(100)
    assert clip.position == 24000 and clip.state == tutti.SourceState.PAUSED
    with pytest.raises(tutti.InvalidArgumentError):
        clip.seek(-1)


def _fitted_snr_db(x: np.ndarray, hz: float = 1000.0) -> float:
    """SNR of x (whole cycles of hz at RATE) against its least-squares sine at hz."""
    t = 2 * np.pi * hz * np.arange(len(x)) / RATE
    basis = np.stack([np.sin(t), np.cos(t)], axis=1)
    coefficients, *_ = np.linalg.lstsq(basis, x.astype(np.float64), rcond=None)
    fit = basis @ coefficients
    return float(10 * np.log10(np.sum(fit**2) / max(np.sum((x - fit) ** 2), 1e-300)))


def _converted(quality=None, file_quality=None, buffer=False) -> np.ndarray:
    """0.4 s (whole cycles) of a 44.1 kHz 1 kHz sine played at 48 kHz by an engine with those
    qualities, through a stream source (or a buffer source with the default quality)."""
    sine = (0.5 * np.sin(2 * np.pi * 1000 * np.arange(44100) / 44100)).astype(np.float32)
    with tutti.Engine(sample_rate=RATE, channels=1, stream_quality=quality, file_quality=file_quality) as e:
        music = e.session("music", tutti.Category.PLAYBACK)
        if buffer:
            source = music.buffer(sine, 44100)
        else:
            source = music.stream(44100, channels=1, capacity_frames=44100)
            assert source.write(sine) == 44100
        source.play()
        return e.render(RATE // 2 + 4800)[4800 : 4800 + RATE * 2 // 5, 0]


def test_the_engines_stream_quality_converts_its_streams():
    Q = tutti.ResamplerQuality
    snr = {q: _fitted_snr_db(_converted(q)) for q in (Q.SINC_BEST, Q.SINC_MEDIUM, Q.SINC_FASTEST, Q.ZERO_ORDER_HOLD)}
    for q in snr:
        assert abs(dominant_hz(_converted(q)) - 1000) < 1, q
    assert snr[Q.SINC_BEST] > snr[Q.SINC_MEDIUM] + 3 > snr[Q.SINC_FASTEST] + 6, snr
    assert snr[Q.SINC_FASTEST] > 60 and snr[Q.ZERO_ORDER_HOLD] < 40, snr
    assert _fitted_snr_db(_converted(None)) == pytest.approx(snr[Q.SINC_MEDIUM], abs=0.01), "the default is medium"
    with pytest.raises(tutti.InvalidArgumentError, match="stream_quality"):
        tutti.Engine(stream_quality=Q.SOXR_HQ)
    with pytest.raises(tutti.InvalidArgumentError, match="file_quality"):
        tutti.Engine(file_quality=99)


def test_the_engines_file_quality_is_the_buffers_default():
    Q = tutti.ResamplerQuality
    assert _fitted_snr_db(_converted(buffer=True)) > 100, "libsoxr HQ by default"
    assert _fitted_snr_db(_converted(file_quality=Q.ZERO_ORDER_HOLD, buffer=True)) < 40
