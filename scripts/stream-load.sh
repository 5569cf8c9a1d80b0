#!/usr/bin/env bash
# Streaming under load (issue 10): `tutti play` of 64 streaming file sources (looping 30 s
# files at 16, 22.05, 44.1 and 48 kHz, each above the 10 s streaming threshold, so each
# source streams through its own ring) for SECONDS (default 60) through a private PulseAudio
# null sink (scripts/start-pulse.sh) at period 256, with two CPU hogs (`yes > /dev/null`)
# beside it. Reports the streaming sources' underrun frames (what `tutti play` prints at the
# end), the device xruns and the peak RSS. Not run in CI.
#
#   scripts/stream-load.sh [SECONDS] [-- EXTRA tutti play OPTIONS]
#
# TUTTI=path uses that binary instead of building the release one; HOGS=N runs N hogs;
# PULSE_RT=1 raises the sound server's and the pulse plugin's threads (see scripts/soak.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
[ "${1:-}" = "--" ] && shift
bash scripts/install-deps.sh pulseaudio libasound2-plugins pulseaudio-utils sox >/dev/null
if [ -z "${TUTTI:-}" ]; then
  swift build -c release --product tutti >/dev/null
  TUTTI=.build/release/tutti
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/tutti-stream-load.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "${TUTTI_PULSE_PID:-}" ] && kill "$TUTTI_PULSE_PID" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

rates=(16000 22050 44100 48000)
for i in 0 1 2 3 4 5 6 7; do
  sox -q -n -r "${rates[$((i % 4))]}" -c $((1 + i % 2)) -b 16 "$dir/f$i.wav" synth 30 sine $((150 + 50 * i)) vol 0.3
done
python3 - "$dir/scene.json" "$seconds" "$dir" <<'PY'
import json, sys
path, seconds, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sessions = [{"id": f"s{k}", "category": "playback", "options": ["mixWithOthers"]} for k in range(4)]
sources = [{"id": f"f{i}", "session": f"s{i % 4}", "file": f"{d}/f{i % 8}.wav", "gain": 0.02, "loop": True} for i in range(64)]
events = [{"at": 0, "session": s["id"], "action": "activate"} for s in sessions]
events += [{"at": 0, "source": s["id"], "action": "play"} for s in sources]
json.dump({"duration": seconds, "sessions": sessions, "sources": sources, "events": events}, open(path, "w"))
PY

eval "$(bash scripts/start-pulse.sh)"
for _ in $(seq "${HOGS:-2}"); do yes >/dev/null & pids+=($!); done
"$TUTTI" play "$dir/scene.json" --backend alsa --device pulse --period 256 --periods 4 "$@" >"$dir/out" 2>"$dir/err" &
tutti=$!
pids+=("$tutti")
for _ in $(seq 600); do grep -q "render thread:" "$dir/err" 2>/dev/null && break; kill -0 "$tutti" 2>/dev/null || break; sleep 0.05; done
if [ "${PULSE_RT:-0}" = 1 ]; then
  chrt -r -p 10 "$TUTTI_PULSE_PID" >/dev/null
  for t in /proc/$tutti/task/*; do
    [ "$(cat "$t/comm")" = threaded-ml ] && chrt -r -p 10 "$(basename "$t")" >/dev/null
  done
fi
rss_max=0
while kill -0 "$tutti" 2>/dev/null; do
  r=$(awk '/^VmHWM/ {print $2}' "/proc/$tutti/status" 2>/dev/null || true)
  [ -n "$r" ] && [ "$r" -gt "$rss_max" ] && rss_max=$r
  sleep 1
done
status=0
wait "$tutti" || status=$?
echo "stream-load: $(cat "$dir/out")"
grep -v -e '^tutti: playing' -e '^tutti: render thread' "$dir/err" | sed 's/^/stream-load: stderr: /' | tail -20 || true
underruns=$(sed -n 's/.*streaming file sources: \([0-9]*\) underrun frames.*/\1/p' "$dir/err")
xruns=$(sed -n 's/.*: \([0-9]*\) xruns.*/\1/p' "$dir/out")
echo "stream-load: 64 streaming sources, ${HOGS:-2} hogs, period 256, ${seconds} s: ${underruns:-?} underrun frames, ${xruns:-?} xruns, peak RSS $((rss_max / 1024)) MB; tutti exit ${status}"
[ "$status" -eq 0 ] || exit 1
