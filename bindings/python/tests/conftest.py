"""Shared helpers: an engine per test, measurement helpers, the repository's header."""

import os
import pathlib
import wave

import numpy as np
import pytest

import tutti

RATE = 48000


def header_path() -> pathlib.Path:
    """include/tutti.h of the checkout these tests live in (TUTTI_HEADER overrides)."""
    if os.environ.get("TUTTI_HEADER"):
        return pathlib.Path(os.environ["TUTTI_HEADER"])
    return pathlib.Path(__file__).resolve().parents[3] / "include" / "tutti.h"


def rms(x: np.ndarray) -> float:
    """Root mean square of every sample of x (float64 arithmetic)."""
    return float(np.sqrt(np.mean(np.square(x.astype(np.float64)))))


def db(ratio: float) -> float:
    return 20.0 * np.log10(ratio)


def dominant_hz(mono: np.ndarray, rate: int = RATE) -> float:
    """The frequency of the largest FFT bin (Hann window), refined by parabolic interpolation."""
    x = mono.astype(np.float64) * np.hanning(len(mono))
    spectrum = np.abs(np.fft.rfft(x))
    k = int(np.argmax(spectrum[1:])) + 1
    a, b, c = np.log(spectrum[k - 1 : k + 2] + 1e-30)
    offset = 0.5 * (a - c) / (a - 2 * b + c)
    return (k + offset) * rate / len(mono)


def write_wav(path, samples: np.ndarray, rate: int = RATE) -> None:
    """16-bit PCM WAV of float samples in [-1, 1], shape (frames,) or (frames, channels)."""
    data = samples if samples.ndim == 2 else samples[:, None]
    pcm = np.clip(np.round(data * 32767.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(data.shape[1])
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())


@pytest.fixture
def engine():
    with tutti.Engine(sample_rate=RATE, channels=2) as e:
        yield e


@pytest.fixture
def music(engine):
    return engine.session("music", tutti.Category.PLAYBACK)
