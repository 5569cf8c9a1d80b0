"""Events from a short file, errors with the library's message, handles and closing."""

import numpy as np
import pytest

import tutti
from conftest import RATE, write_wav


def test_short_file_ends_with_an_event(engine, music, tmp_path):
    path = tmp_path / "beep.wav"
    write_wav(path, 0.5 * np.sin(2 * np.pi * 440 * np.arange(4800) / RATE))
    beep = music.file(path)
    assert beep.info().length == 4800
    beep.play(at=1000)
    engine.render(RATE // 2)
    events = list(engine.events())
    ended = [e for e in events if e.type == tutti.EventType.SOURCE_ENDED]
    assert len(ended) == 1, [e.type_name for e in events]
    assert ended[0].frame == 1000 + 4800
    assert ended[0].source is beep and ended[0].source_id == beep.id
    assert ended[0].reason == 0 and ended[0].flags == 0
    assert list(engine.events()) == [], "each event is taken once"


def test_event_type_names_come_from_the_library():
    for member in tutti.EventType:
        assert tutti._lib.tutti_event_type_string(member).decode() == member.name


def test_bad_gain_raises_with_the_library_message(engine, music):
    tone = music.tone(440.0, 0.5)
    with pytest.raises(tutti.InvalidArgumentError) as caught:
        tone.set_gain(float("nan"))
    error = caught.value
    assert error.code == tutti.Result.INVALID_ARGUMENT and error.name == "INVALID_ARGUMENT"
    assert str(error) == tutti.last_error(), "the same words as tutti_last_error() in C"
    assert "tutti_source_set_gain" in str(error) and "gain" in str(error)
    with pytest.raises(tutti.InvalidArgumentError, match="gain"):
        tone.set_gain(17.0)
    assert tone.info().gain == 1.0, "a failing call changes nothing"


def test_removed_source_is_not_found(engine, music):
    tone = music.tone(440.0, 0.5)
    tone.remove()
    with pytest.raises(tutti.NotFoundError) as caught:
        tone.play()
    assert caught.value.code == tutti.Result.NOT_FOUND
    assert str(caught.value) == tutti.last_error() and str(caught.value)
    with pytest.raises(tutti.NotFoundError):
        tone.status()
    music.remove()
    with pytest.raises(tutti.NotFoundError):
        music.tone(440.0, 0.5)


def test_null_and_wrong_kind_misuse(engine, music, tmp_path):
    with pytest.raises(tutti.InvalidArgumentError) as caught:
        engine.session(None)  # passed as NULL: the library names the argument
    assert str(caught.value) == tutti.last_error() and "name" in str(caught.value)
    with pytest.raises(tutti.InvalidArgumentError):
        music.tone(-5.0, 0.5)
    missing = tmp_path / "missing.wav"
    with pytest.raises(tutti.TuttiIOError) as io:
        music.file(missing)
    assert str(missing) in str(io.value)
    stream = music.stream(RATE, channels=2, capacity_frames=1024)
    with pytest.raises(tutti.InvalidArgumentError, match=r"shape \(frames, 2\)"):
        stream.write(np.zeros(16, dtype=np.float32))
    with pytest.raises(tutti.StateError):
        stream.seek(0)
    stream.end()
    with pytest.raises(tutti.StateError) as twice:
        stream.end()
    assert str(twice.value) == tutti.last_error()
    with pytest.raises(tutti.StateError):
        stream.write(np.zeros((4, 2), dtype=np.float32))
    with pytest.raises(tutti.InvalidArgumentError):
        tutti.Engine(sample_rate=1000)


def test_calls_after_close_raise_and_handles_keep_the_engine():
    engine = tutti.Engine()
    session = engine.session("music", tutti.Category.PLAYBACK)
    tone = session.tone(440.0, 0.5)
    del engine  # the handles keep it alive
    tone.play()
    assert tone.engine.render(256).shape == (256, 2)
    tone.engine.close()
    assert tone.engine.closed
    with pytest.raises(tutti.StateError, match="closed"):
        tone.play()
    with pytest.raises(tutti.StateError):
        tone.engine.render(16)
    tone.engine.close()  # idempotent


def test_stats_and_version(engine, music):
    music.tone(440.0, 0.5)
    stats = engine.stats()
    assert stats.sessions == 1 and stats.sources == 1 and stats.frames_rendered == 0
    assert tutti.version() == tutti.__version__


def test_a_missing_library_is_a_clear_import_error(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, TUTTI_LIBRARY=str(tmp_path / "libtutti.so.1"))
    run = subprocess.run([sys.executable, "-c", "import tutti"], env=env, capture_output=True, text=True)
    assert run.returncode != 0
    assert "ImportError" in run.stderr and "TUTTI_LIBRARY" in run.stderr and "scripts/install.sh" in run.stderr


def test_arguments_ctypes_would_wrap_are_refused_by_name(engine, music):
    tone = music.tone(440.0, 0.5)
    with pytest.raises(tutti.InvalidArgumentError, match="ramp_frames"):
        tone.set_gain(0.5, ramp_frames=-1)  # would be 4294967295 frames through ctypes
    assert tone.info().gain == 1.0, "nothing changed"
    with pytest.raises(tutti.InvalidArgumentError, match="capacity_frames"):
        music.stream(RATE, 1, 1 << 32)  # would wrap to 0
    with pytest.raises(tutti.InvalidArgumentError, match="NUL"):
        engine.session("nav\0x")
    with pytest.raises(tutti.InvalidArgumentError, match="sample_rate"):
        tutti.Engine(sample_rate=-48000)


def test_writes_to_a_removed_stream_are_not_found(engine, music):
    stream = music.stream(RATE, 1, 1024)
    assert stream.write(np.zeros(10, np.float32)) == 10
    stream.remove()
    with pytest.raises(tutti.NotFoundError) as caught:
        stream.write(np.zeros(10, np.float32))
    assert str(caught.value) == tutti.last_error()


def test_event_fd_polls_readable_while_events_wait(engine, music):
    import select

    fd = engine.event_fd()
    assert select.select([fd], [], [], 0)[0] == [], "nothing waits yet"
    stream = music.stream(RATE, 1, 1024)
    assert stream.write(np.full(100, 0.5, np.float32)) == 100
    stream.end()
    stream.play()
    engine.render(480)
    assert select.select([fd], [], [], 2.0)[0] == [fd], "readable within 2 s of an event rendered"
    assert [e.type_name for e in engine.events()] == ["SOURCE_ENDED"]


def test_a_feeder_thread_writes_while_the_main_thread_renders(engine, music):
    """The threaded host: one thread writes a stream (ctypes drops the GIL in each call), the
    renderer pulls blocks once their frames are written; the output is the data, bit for bit."""
    import threading
    import time

    total, block = 48000, 480
    data = np.random.default_rng(7).uniform(-0.5, 0.5, total).astype(np.float32)
    stream = music.stream(RATE, 1, 2048)
    written = [0]

    def feed():
        while written[0] < total:
            taken = stream.write(data[written[0] : written[0] + 256])
            written[0] += taken
            if taken == 0:
                time.sleep(0.0005)

    feeder = threading.Thread(target=feed)
    feeder.start()
    stream.play()
    blocks = []
    deadline = time.monotonic() + 60
    while len(blocks) * block < total:
        while written[0] < (len(blocks) + 1) * block and time.monotonic() < deadline:
            time.sleep(0.0002)
        blocks.append(engine.render(block)[:, 0].copy())
    feeder.join(10)
    assert not feeder.is_alive()
    out = np.concatenate(blocks)
    assert np.array_equal(out, data), f"{int(np.sum(out != data))} samples differ"
    assert stream.status().underrun_frames == 0


def test_other_apps_audio_is_an_event_and_counts_for_the_hints(engine, music):
    engine.set_other_audio(True, silence_secondary=True, clients=["pw-play", "mpv"], at=0)
    engine.set_other_audio(True, silence_secondary=True, clients=["pw-play", "mpv"], at=0)  # the same: no event
    engine.render(480)
    state = music.status()
    assert state.other_audio_playing and state.silence_secondary_hint
    changed = [e for e in engine.events() if e.type == tutti.EventType.OTHER_AUDIO_CHANGED]
    assert len(changed) == 1 and changed[0].other_audio_playing and changed[0].other_audio_silence_secondary
    assert changed[0].session is None and changed[0].source is None
    engine.set_other_audio(False)
    engine.render(480)
    assert not music.status().other_audio_playing
    changed = [e for e in engine.events() if e.type == tutti.EventType.OTHER_AUDIO_CHANGED]
    assert len(changed) == 1 and not changed[0].other_audio_playing and not changed[0].other_audio_silence_secondary
    with pytest.raises(tutti.InvalidArgumentError, match="at"):
        engine.set_other_audio(True, at=-5)


def test_other_audio_reads_back_what_was_set(engine):
    assert engine.other_audio() == tutti.OtherAudioState(False, False)
    engine.set_other_audio(True, clients=["pw-play"])
    assert engine.other_audio() == tutti.OtherAudioState(True, False)
    engine.set_other_audio(True, silence_secondary=True)
    state = engine.other_audio()
    assert state.other_audio_playing and state.silence_secondary
    engine.set_other_audio(False)
    assert engine.other_audio() == tutti.OtherAudioState(False, False)


def test_other_audio_clients_are_the_names_set(engine):
    assert engine.other_audio_clients() == []
    engine.set_other_audio(True, clients=["mpv", "pw-play", "Café"])
    assert engine.other_audio_clients() == ["mpv", "pw-play", "Café"]
    engine.set_other_audio(True, clients=["x" * 300])  # longer than any first guess
    assert engine.other_audio_clients() == ["x" * 300]
    engine.set_other_audio(False)
    assert engine.other_audio_clients() == []
    # The C call's house model: sizes always, INVALID_ARGUMENT (nothing written) when short.
    import ctypes

    engine.set_other_audio(True, clients=["mpv", "vlc"])
    count, length = ctypes.c_size_t(), ctypes.c_size_t()
    buffer = ctypes.create_string_buffer(b"?" * 8, 8)
    result = tutti._lib.tutti_system_get_other_audio_clients(engine.ptr, buffer, 7, ctypes.byref(count), ctypes.byref(length))
    assert result == tutti.constants.TUTTI_ERROR_INVALID_ARGUMENT and "capacity" in tutti.last_error()
    assert (count.value, length.value, buffer.raw) == (2, 8, b"?" * 8)
    assert tutti._lib.tutti_system_get_other_audio_clients(engine.ptr, buffer, 8, None, None) == tutti.constants.TUTTI_OK
    assert buffer.raw == b"mpv\0vlc\0"
