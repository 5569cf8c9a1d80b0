#!/usr/bin/env bash
# Soak: plays a busy scene live for MINUTES through a private PulseAudio null sink (paced at
# the real rate; scripts/start-pulse.sh) with 64 sources and two CPU hogs (`yes > /dev/null`)
# beside it, and reports the xruns, the process's RSS and its open descriptors at the start
# and at the end (a leak shows as growth). Not run in CI.
#
#   scripts/soak.sh MINUTES [-- EXTRA tutti play OPTIONS]      # e.g. scripts/soak.sh 2
#
# The scene: 64 looping sources in 4 sessions — file sources at 16, 22.05, 44.1 and 48 kHz
# (converted at load) and tones — plus, every 5 s, a ducking prompt, a gain ramp or a volume
# change, so the policy and the command queue stay busy. TUTTI=path uses that binary instead
# of building the release one; HOGS=N runs N CPU hogs instead of 2; PULSE_RT=1 raises the sound path's own threads (see below).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:?usage: scripts/soak.sh MINUTES [-- tutti play options]}
shift
[ "${1:-}" = "--" ] && shift
bash scripts/install-deps.sh pulseaudio libasound2-plugins pulseaudio-utils
if [ -z "${TUTTI:-}" ]; then
  swift build -c release --product tutti
  TUTTI=.build/release/tutti
fi
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
dir=$(mktemp -d "${TMPDIR:-/tmp}/tutti-soak.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "${TUTTI_PULSE_PID:-}" ] && kill "$TUTTI_PULSE_PID" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

audio=$(pwd)/fixtures/audio
python3 - "$dir/scene.json" "$seconds" "$audio" <<'PY'
import json, sys
path, seconds, audio = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = ["music-44100.wav", "game-bg-22050.wav", "voip-16000.wav", "sine1k-48000-stereo.wav",
         "lesson-24000.wav", "call-16000.wav", "sine1k-22050-mono.wav", "game-fx-48000.wav"]
sessions = [{"id": "music", "category": "playback", "options": ["mixWithOthers"]},
            {"id": "game", "category": "ambient"},
            {"id": "voice", "category": "playback", "options": ["mixWithOthers"]},
            {"id": "nav", "category": "playback", "options": ["duckOthers"]}]
sources, events = [], []
for s in ("music", "game", "voice"):
    events.append({"at": 0, "session": s, "action": "activate"})
for i in range(64):
    session = ("music", "game", "voice")[i % 3]
    src = {"id": f"s{i}", "session": session, "gain": 0.05, "loop": True}
    if i % 2 == 0:
        src["file"] = f"{audio}/{files[(i // 2) % len(files)]}"
    else:
        src["tone"] = {"frequency": 110 + 37 * i, "amplitude": 0.5}
    sources.append(src)
    events.append({"at": 0, "source": src["id"], "action": "play"})
sources.append({"id": "prompt", "session": "nav", "tone": {"frequency": 880, "amplitude": 0.3}, "loop": True})
t, k = 5, 0
while t < seconds - 1:
    kind = k % 3
    if kind == 0:
        events += [{"at": t, "session": "nav", "action": "activate"}, {"at": t, "source": "prompt", "action": "play"},
                   {"at": t + 1.5, "session": "nav", "action": "deactivate", "notifyOthers": True}]
    elif kind == 1:
        events.append({"at": t, "source": f"s{k % 64}", "action": "setGain", "value": 0.02 + 0.01 * (k % 5), "ramp": 0.5})
    else:
        events.append({"at": t, "device": "volume", "value": 0.5 + 0.1 * (k % 5)})
    t += 5
    k += 1
json.dump({"duration": seconds, "engine": {"resampler": "sincMedium"}, "sessions": sessions, "sources": sources,
           "events": events}, open(path, "w"))
PY

eval "$(bash scripts/start-pulse.sh)"
for _ in $(seq "${HOGS:-2}"); do yes >/dev/null & pids+=($!); done
"$TUTTI" play "$dir/scene.json" --backend alsa --device pulse --period 256 --periods 4 "$@" >"$dir/out" 2>"$dir/err" &
tutti=$!
pids+=("$tutti")

# Both print nothing (and succeed) once the process is gone.
rss() { awk '/^VmRSS/ {print $2}' "/proc/$tutti/status" 2>/dev/null || true; }
fds() { if [ -d "/proc/$tutti/fd" ]; then ls "/proc/$tutti/fd" 2>/dev/null | wc -l || true; fi; }
for _ in $(seq 600); do grep -q "render thread:" "$dir/err" 2>/dev/null && break; kill -0 "$tutti" 2>/dev/null || break; sleep 0.05; done
kill -0 "$tutti" 2>/dev/null || { cat "$dir/err" >&2; echo "soak: tutti play did not start" >&2; exit 1; }
# Between tutti's SCHED_FIFO render thread and the server's SCHED_RR sink thread, the samples
# pass through threads at normal priority: the ALSA pulse plugin's libpulse thread in tutti
# ("threaded-ml") and the server's main thread. Starved by the hogs, they stall the stream
# (xruns) whatever the render thread does. PULSE_RT=1 makes both SCHED_RR 10, to tell those
# xruns from the engine's.
if [ "${PULSE_RT:-0}" = 1 ]; then
  chrt -r -p 10 "$TUTTI_PULSE_PID" >/dev/null
  for t in /proc/$tutti/task/*; do
    [ "$(cat "$t/comm")" = threaded-ml ] && chrt -r -p 10 "$(basename "$t")" >/dev/null
  done
fi
sleep 2
rss_start=$(rss); fds_start=$(fds); rss_max=$rss_start
echo "soak: playing $seconds s, 64 sources, ${HOGS:-2} CPU hogs; at start: RSS ${rss_start} kB, ${fds_start} fds"
# Sampled every second until the process exits: the last sample is the end figure.
rss_end=$rss_start; fds_end=$fds_start; elapsed=2
while kill -0 "$tutti" 2>/dev/null; do
  sleep 1
  elapsed=$((elapsed + 1))
  r=$(rss); f=$(fds)
  if [ -n "$r" ] && [ -n "$f" ] && [ "$f" -gt 0 ]; then rss_end=$r; fds_end=$f; fi
  [ -n "$r" ] && [ "$r" -gt "$rss_max" ] && rss_max=$r
  if [ $((elapsed % 30)) -eq 0 ]; then echo "soak: ${elapsed} s: RSS ${r:-?} kB, ${f} fds, $(grep -c 'xrun' "$dir/err" || true) xrun lines"; fi
done
status=0
wait "$tutti" || status=$?
echo "soak: $(cat "$dir/out")"
grep -v -e '^tutti: playing' -e '^tutti: render thread' "$dir/err" | sed 's/^/soak: stderr: /' | tail -20 || true
xruns=$(sed -n 's/.*: \([0-9]*\) xruns.*/\1/p' "$dir/out")
echo "soak: xruns ${xruns:-?}; RSS ${rss_start} kB at start, ${rss_end} kB at the end (max ${rss_max}); fds ${fds_start} at start, ${fds_end} at the end (last sample, within 1 s of exit); tutti exit ${status}"
[ "$status" -eq 0 ] || exit 1
