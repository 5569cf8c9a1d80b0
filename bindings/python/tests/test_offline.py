"""An offline engine renders a 20 s file (streamed from disk) whole, the same on every run."""

import numpy as np

import tutti
from conftest import RATE, write_wav

SECONDS = 20


def render_file(path) -> np.ndarray:
    with tutti.Engine(sample_rate=RATE, channels=2, offline=True) as engine:
        song = engine.session("music", tutti.Category.PLAYBACK).file(path)
        song.play(at=0)
        out = np.concatenate([engine.render(4096) for _ in range(SECONDS * RATE // 4096 + 1)])
        assert song.status().underrun_frames == 0
        assert not [e for e in engine.events() if e.type == tutti.EventType.SOURCE_UNDERRUN]
        return out


def test_offline_renders_a_20_s_file_whole(tmp_path):
    frames = SECONDS * RATE
    t = np.arange(frames) / RATE
    # Sound everywhere: two tones whose sum never stays near zero for a whole window.
    left = 0.4 * np.sin(2 * np.pi * 220 * t) + 0.2 * np.sin(2 * np.pi * 331 * t)
    right = 0.4 * np.sin(2 * np.pi * 277 * t)
    path = tmp_path / "long.wav"
    write_wav(path, np.stack([left, right], axis=1))

    out = render_file(path)
    audio = out[:frames]
    windows = audio.reshape(-1, 480, 2)  # 10 ms windows
    silent = int(np.sum(np.all(np.abs(windows) < 1e-4, axis=(1, 2))))
    assert silent == 0, f"{silent} of {windows.shape[0]} 10 ms windows are silent"
    expected = np.stack([left, right], axis=1)
    expected = np.round(expected * 32767.0) / 32768.0  # the 16-bit file as libsndfile reads it
    assert float(np.max(np.abs(audio - expected))) < 1e-4, "the file's samples, in place"
    assert not np.any(out[frames:]), "silence after the end"
    again = render_file(path)
    assert np.array_equal(out, again), "byte-identical across runs"
