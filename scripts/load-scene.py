#!/usr/bin/env python3
"""The load scene of scripts/jack-load.sh and scripts/pipewire-load.sh, on stdout.

64 sources (files at four rates and tones) across four sessions, a gain ramp every 0.2 s,
ducking on and off, volume steps.

    scripts/load-scene.py AUDIO_FOLDER SECONDS > load.json
"""
import json, sys
audio, seconds = sys.argv[1], float(sys.argv[2])
files = ["music-44100.wav", "game-bg-22050.wav", "game-fx-48000.wav", "lesson-24000.wav", "voice-22050.wav", "voip-16000.wav"]
sessions = ["music", "game", "podcast", "nav"]
sources = []
for i in range(64):
    s = {"id": f"s{i}", "session": sessions[i % 3], "loop": True, "gain": 0.01 + 0.0005 * i}
    if i % 2 == 0:
        s["file"] = f"{audio}/{files[i // 2 % len(files)]}"
    else:
        s["tone"] = {"frequency": 110.0 * (1 + i * 0.13), "amplitude": 0.3}
    sources.append(s)
events = [{"at": 0.0, "session": x, "action": "activate"} for x in sessions[:3]]
events += [{"at": 0.0, "source": s["id"], "action": "play"} for s in sources]
t, k = 0.2, 0
while t < seconds - 0.1:
    events.append({"at": round(t, 3), "source": f"s{k % 64}", "action": "setGain", "value": 0.005 + 0.002 * (k % 10), "ramp": 0.15})
    if k % 10 == 0:
        events.append({"at": round(t, 3), "session": "nav", "action": "activate"})
    if k % 10 == 5:
        events.append({"at": round(t, 3), "session": "nav", "action": "deactivate", "notifyOthers": True})
    if k % 25 == 12:
        events.append({"at": round(t, 3), "device": "volumeDown" if k % 50 == 12 else "volumeUp"})
    t += 0.2
    k += 1
events.sort(key=lambda e: e["at"])
scene = {
    "engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 256, "resampler": "sincFastest", "output": "float32"},
    "duration": seconds,
    "sessions": [
        {"id": "music", "category": "playback", "options": ["mixWithOthers"]},
        {"id": "game", "category": "ambient"},
        {"id": "podcast", "category": "playback", "options": ["mixWithOthers"]},
        {"id": "nav", "category": "playback", "options": ["duckOthers"]},
    ],
    "sources": sources,
    "events": events,
}
json.dump(scene, sys.stdout)
