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
