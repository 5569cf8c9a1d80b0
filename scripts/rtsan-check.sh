#!/usr/bin/env bash
# RealtimeSanitizer check of the render path. swiftc has no -sanitize=realtime, but the
# toolchain ships the runtime: this links it into a separate build of `tutti` (whole archive,
# symbols exported so `tutti play --rtsan` finds __rtsan_realtime_enter/exit with dlsym), then
# plays a busy 10 s scene through the ALSA backend with every render + conversion bracketed
# as a real-time context, and, when jackd is installed, 5 s of it through the JACK backend
# (the whole process callback bracketed) on a private dummy-driver server. rtsan aborts
# (exit 43) with a report on the first allocation, lock or blocking call inside; exit 0 means
# it found nothing.
#
# Not part of the SwiftPM test binary: rtsan must own malloc, which the tests' malloc counter
# (Tests/CTuttiTestSupport) interposes, and it cannot share a process with TSan.
#
#   scripts/rtsan-check.sh [SECONDS]          # default 10; uses a private PulseAudio server
#                                             # when pulseaudio is installed, else ALSA "null"
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
runtime="$toolchain/lib/swift/clang/lib/linux/libclang_rt.rtsan-$(uname -m).a"
[ -f "$runtime" ] || { echo "rtsan-check: no RealtimeSanitizer runtime at $runtime" >&2; exit 1; }

swift build --scratch-path .build-rtsan --product tutti \
  -Xlinker --whole-archive -Xlinker "$runtime" -Xlinker --no-whole-archive -Xlinker --export-dynamic
tutti=$(swift build --scratch-path .build-rtsan --show-bin-path)/tutti

work=$(mktemp -d /tmp/tutti-rtsan.XXXXXX)
jack_server="tutti-rtsan-$$"
jackd_pid=""
cleanup() {
  [ -n "${TUTTI_PULSE_PID:-}" ] && kill "$TUTTI_PULSE_PID" 2>/dev/null
  if [ -n "$jackd_pid" ]; then kill "$jackd_pid" 2>/dev/null; wait "$jackd_pid" 2>/dev/null; rm -f /dev/shm/*_"${jack_server}"_*; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A busy scene: 4 sessions, 23 sources (files at four rates, 16 tones), a gain ramp every
# 0.2 s, pan moves, rate glides, crossfades back and forth (before the call), ducking on and off every second
# (music by the prompt's signal, a sidechain),
# volume steps, system sounds, a phone call.
python3 - "$PWD/fixtures/audio" "$seconds" >"$work/busy.json" <<'EOF'
import json, sys
audio, seconds = sys.argv[1], float(sys.argv[2])
sources = [
    {"id": "song", "session": "music", "file": f"{audio}/music-44100.wav", "loop": True, "gain": 0.5},
    {"id": "bg", "session": "game", "file": f"{audio}/game-bg-22050.wav", "loop": True, "gain": 0.4},
    {"id": "fx", "session": "game", "file": f"{audio}/game-fx-48000.wav", "loop": True, "gain": 0.3},
    {"id": "fx2", "session": "game", "file": f"{audio}/game-fx-48000.wav", "loop": True, "gain": 0.3, "rate": 1.25},
    {"id": "lesson", "session": "podcast", "file": f"{audio}/lesson-24000.wav", "loop": True, "gain": 0.5},
    {"id": "prompt", "session": "nav", "file": f"{audio}/voice-22050.wav"},
]
tones = [f"t{i}" for i in range(16)]
sources += [{"id": t, "session": "game", "tone": {"frequency": 110.0 * (1 + i * 0.37), "amplitude": 0.02}, "loop": True}
            for i, t in enumerate(tones)]
sources.append({"id": "quiet", "session": "music", "silence": True})
events = [
    {"at": 0.0, "session": "music", "action": "activate"},
    {"at": 0.0, "source": "song", "action": "play"},
    {"at": 0.0, "source": "quiet", "action": "play"},
    {"at": 0.0, "session": "game", "action": "activate"},
    {"at": 0.0, "source": "bg", "action": "play"},
    {"at": 0.0, "source": "fx", "action": "play"},
    {"at": 0.0, "session": "podcast", "action": "activate"},
    {"at": 0.0, "source": "lesson", "action": "play"},
]
events += [{"at": round(0.05 * i, 3), "source": t, "action": "play"} for i, t in enumerate(tones)]
t, k = 1.0, 0
while t < seconds - 0.01:
    events.append({"at": round(t, 3), "source": tones[k % 16], "action": "setGain", "value": 0.3 + 0.6 * ((k * 7) % 10) / 10, "ramp": 0.15})
    if k % 5 == 0:
        events.append({"at": round(t, 3), "session": "nav", "action": "activate"})
        events.append({"at": round(t, 3), "source": "prompt", "action": "play"})
    if k % 5 == 3:
        events.append({"at": round(t, 3), "session": "nav", "action": "deactivate", "notifyOthers": True})
    if k % 4 == 1:
        events.append({"at": round(t, 3), "device": "volumeDown" if k % 8 == 1 else "volumeUp"})
    if k % 8 == 2:
        events.append({"at": round(t, 3), "system": "systemSound", "file": f"{audio}/ui-chime-44100.wav"})
    if k % 6 == 4:
        events.append({"at": round(t, 3), "source": "bg", "action": "setRate", "value": 1.5 if k % 12 == 4 else 0.75, "ramp": 0.1})
    if k % 3 == 0:
        events.append({"at": round(t, 3), "source": tones[k % 16], "action": "setPan", "value": -0.8 if k % 2 else 0.6, "ramp": 0.05})
    if k % 10 == 2 and t < 5.5:
        events.append({"at": round(t, 3), "source": "fx2", "action": "crossfade", "from": "fx", "duration": 0.3})
    if k % 10 == 7 and t < 5.5:
        events.append({"at": round(t, 3), "source": "fx", "action": "crossfade", "from": "fx2", "duration": 0.3})
    if k % 11 == 6:
        events.append({"at": round(t, 3), "source": "song", "action": "setGain", "value": 0.3 + 0.1 * (k % 4), "ramp": 0.3})
    t += 0.2
    k += 1
if seconds > 7:
    events.append({"at": 6.0, "system": "phoneCall", "action": "begin", "file": f"{audio}/call-16000.wav"})
    events.append({"at": 7.0, "system": "phoneCall", "action": "end"})
    events.append({"at": 7.0, "source": "song", "action": "play"})
events.sort(key=lambda e: e["at"])
scene = {
    "engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 256, "resampler": "sincFastest", "output": "float32",
               "ducking": {"rules": [{"by": "nav", "duck": "music", "level": -12, "trigger": "signal", "threshold": -40, "hold": 0.2}]}},
    "duration": seconds,
    "sessions": [
        {"id": "music", "category": "playback", "options": ["mixWithOthers"]},
        {"id": "game", "category": "ambient"},
        {"id": "podcast", "category": "playback", "options": ["mixWithOthers"], "mode": "spokenAudio"},
        {"id": "nav", "category": "playback", "options": ["duckOthers"]},
    ],
    "sources": sources,
    "events": events,
}
json.dump(scene, sys.stdout, indent=1)
EOF

device=null
if command -v pulseaudio >/dev/null; then
  eval "$(scripts/start-pulse.sh)"
  device=default   # /etc/alsa/conf.d/99-pulse.conf sends "default" to the running server
fi
echo "rtsan-check: playing a busy ${seconds} s scene on \"$device\" with RealtimeSanitizer around each render" >&2
set +e
"$tutti" play "$work/busy.json" --backend alsa --device "$device" --rtsan
status=$?
set -e
if [ $status -ne 0 ]; then
  echo "rtsan-check: FAILED (exit $status)" >&2
  exit $status
fi
if command -v jackd >/dev/null && command -v jack_wait >/dev/null; then
  JACK_NO_AUDIO_RESERVATION=1 jackd -n "$jack_server" -S -d dummy -r 48000 -p 128 >"$work/jackd.log" 2>&1 &
  jackd_pid=$!
  JACK_DEFAULT_SERVER="$jack_server" jack_wait -w -t 5 >/dev/null 2>&1 || { cat "$work/jackd.log" >&2; exit 1; }
  echo "rtsan-check: playing 5 s of it through JACK with RealtimeSanitizer around each process callback" >&2
  set +e
  JACK_DEFAULT_SERVER="$jack_server" "$tutti" play "$work/busy.json" --backend jack --seconds 5 --rtsan
  status=$?
  set -e
  if [ $status -ne 0 ]; then
    echo "rtsan-check: FAILED through JACK (exit $status)" >&2
    exit $status
  fi
else
  echo "rtsan-check: jackd is not installed: the JACK backend is not checked" >&2
fi
echo "rtsan-check: clean: nothing reported" >&2
