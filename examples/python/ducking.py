#!/usr/bin/env python3
"""A ducking scene rendered to a WAV file with the Python package (bindings/python).

Music plays for 3 s: a 110 Hz bass tone and a melody fed from numpy into a 44.1 kHz stream.
A navigation app speaks (an 880 Hz "prompt") from 1.0 s to 2.0 s; its session has the
DUCK_OTHERS option, so the music drops by 15 dB (the default duck) while it is active.

    python3 examples/python/ducking.py [OUT.wav]
"""

import sys
import wave

import numpy as np

import tutti

RATE = 48000
STREAM_RATE = 44100
SECONDS = 3
BLOCK = 480


def melody(seconds: float) -> np.ndarray:
    """A mono arpeggio at STREAM_RATE, float32, a quarter second per note."""
    notes = [330.0, 392.0, 494.0, 587.0]
    n = int(seconds * STREAM_RATE)
    t = np.arange(n) / STREAM_RATE
    hz = np.array(notes)[(t * 4).astype(int) % len(notes)]
    phase = 2 * np.pi * np.cumsum(hz) / STREAM_RATE
    return (0.2 * np.sin(phase)).astype(np.float32)


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "tutti-ducking.wav"
    print(f"libtutti {tutti.version()} from {tutti.library_path}")
    with tutti.Engine(sample_rate=RATE, channels=2) as engine:
        music = engine.session("music", tutti.Category.PLAYBACK)
        bass = music.tone(110.0, 0.15)
        tune = music.stream(STREAM_RATE, channels=1, capacity_frames=8192)
        nav = engine.session(
            "nav", tutti.Category.PLAYBACK, mode=tutti.Mode.VOICE_PROMPT, options=tutti.Option.DUCK_OTHERS
        )
        prompt = nav.tone(880.0, 0.3)

        # Music now; the prompt from 1.0 s to 2.0 s, exactly (frames on the engine clock).
        bass.play()
        tune.play()
        nav.activate(at=engine.seconds(1.0))
        prompt.play(at=engine.seconds(1.0))
        prompt.stop(at=engine.seconds(2.0))
        nav.deactivate(notify_others=True, at=engine.seconds(2.0))

        feed = melody(SECONDS + 1)
        fed = 0
        blocks = []
        names = {music.id: "music", nav.id: "nav"}
        while len(blocks) * BLOCK < SECONDS * RATE:
            fed += tune.write(feed[fed:])  # top the stream up: it takes what fits
            blocks.append(engine.render(BLOCK))
            for event in engine.events():
                print(f"{event.frame / RATE:6.3f} s  {event.type_name} (session {names.get(event.session_id, '-')})")
        tune.end()
        audio = np.concatenate(blocks)

    def level_db(start: float, end: float) -> float:
        x = audio[int(start * RATE) : int(end * RATE), 0].astype(np.float64)
        return 20 * np.log10(np.sqrt(np.mean(x * x)))

    print(
        f"left channel RMS: music {level_db(0.5, 1.0):.1f} dBFS, ducked music + prompt "
        f"{level_db(1.5, 2.0):.1f} dBFS, music again {level_db(2.5, 3.0):.1f} dBFS"
    )
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
    with wave.open(path, "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())
    print(f"wrote {path}: {audio.shape[0]} frames, 2 channels, {RATE} Hz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
