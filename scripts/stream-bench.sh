#!/usr/bin/env bash
# Issue 10 benchmark: offline render of N (default 8) × SECONDS (default 600) s 44.1 kHz
# stereo files mixed at 48 kHz with the default file quality (soxrHQ), against sox doing the
# same mix (`sox -m … rate -v`, very high quality) in the same run. Prints wall time, speed
# (× real time) and peak RSS (/usr/bin/time -v "Maximum resident set size") of each.
#
#   scripts/stream-bench.sh [N] [SECONDS]
#
# TUTTI=path uses that binary instead of building the release one; BEFORE=path also runs an
# older binary (e.g. one that loads files whole) for a before/after figure. The files are
# generated in a temporary folder (16-bit, ~106 MB each at 600 s) and removed at the end.
# Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-8}
seconds=${2:-600}
bash scripts/install-deps.sh sox time >/dev/null
if [ -z "${TUTTI:-}" ]; then
  swift build -c release --product tutti >/dev/null
  TUTTI=.build/release/tutti
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/tutti-stream-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

files=()
for i in $(seq "$n"); do
  f="$dir/f$i.wav"
  # A chord and a little noise per file, different pitches: real conversion work.
  sox -q -n -r 44100 -c 2 -b 16 "$f" synth "$seconds" sine $((200 + 37 * i)) sine $((1000 + 113 * i)) pinknoise vol 0.3
  files+=("$f")
done
python3 - "$dir/scene.json" "$seconds" "${files[@]}" <<'PY'
import json, sys
path, seconds, files = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
sessions = [{"id": "m", "category": "playback", "options": ["mixWithOthers"]}]
sources = [{"id": f"s{i}", "session": "m", "file": f, "gain": 1 / len(files)} for i, f in enumerate(files)]
events = [{"at": 0, "session": "m", "action": "activate"}] + [{"at": 0, "source": s["id"], "action": "play"} for s in sources]
json.dump({"duration": seconds, "engine": {"sampleRate": 48000, "channels": 2, "blockFrames": 1024},
           "sessions": sessions, "sources": sources, "events": events}, open(path, "w"))
PY

measure() { # label, command...
  local label=$1
  shift
  sync
  /usr/bin/time -v "$@" 2>"$dir/time" >/dev/null
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$dir/time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time")
  awk -v l="$label" -v w="$wall" -v r="$rss" -v d="$seconds" \
    'BEGIN { printf "stream-bench: %-22s %7.2f s wall  %7.1f× real time  peak RSS %7.1f MB\n", l, w, d / w, r / 1024 }'
}

echo "stream-bench: $n × $seconds s 44.1 kHz stereo → 48 kHz stereo, float32 out"
measure "sox -m … rate -v" sox -m "${files[@]}" -r 48000 -e floating-point -b 32 "$dir/sox.wav" rate -v
measure "tutti render" "$TUTTI" render "$dir/scene.json" -o "$dir/tutti.wav" --quiet
if [ -n "${BEFORE:-}" ]; then
  measure "before: $(basename "$BEFORE")" "$BEFORE" render "$dir/scene.json" -o "$dir/before.wav" --quiet
fi

# Time to the first output: `tutti render` of the first 50 ms of a scene that plays one file
# from t = 0, for a 10 s file (loaded whole) and for a SECONDS-long one (streamed): process
# wall time (start, decode, first frames, write) and the load time tutti reports. The first
# non-zero frame is the scene's first frame (checked).
sox -q -n -r 44100 -c 2 -b 16 "$dir/short.wav" synth 10 sine 440 vol 0.3
for f in "$dir/short.wav" "${files[0]}"; do
  python3 - "$dir/first.json" "$f" <<'PY'
import json, sys
json.dump({"duration": 0.05, "sessions": [{"id": "m", "category": "playback"}],
           "sources": [{"id": "s", "session": "m", "file": sys.argv[2]}],
           "events": [{"at": 0, "session": "m", "action": "activate"}, {"at": 0, "source": "s", "action": "play"}]},
          open(sys.argv[1], "w"))
PY
  length=$(soxi -D "$f")
  start=$(date +%s.%N)
  summary=$("$TUTTI" render "$dir/first.json" -o "$dir/first.wav" 2>&1 >/dev/null | tail -1)
  end=$(date +%s.%N)
  first=$(python3 - "$dir/first.wav" <<'PY'
import struct, sys, wave
# float32 WAV: find the first frame with a non-zero sample.
data = open(sys.argv[1], "rb").read()
i = data.find(b"data") + 8
samples = struct.unpack("<%df" % ((len(data) - i) // 4), data[i:])
print(next((k // 2 for k, v in enumerate(samples) if v != 0), -1))
PY
)
  awk -v l="$length" -v s="$start" -v e="$end" -v f="$first" -v m="$summary" \
    'BEGIN { printf "stream-bench: first 50 ms of a %5.0f s file: %6.1f ms wall (first non-zero frame %d) — %s\n", l, (e - s) * 1000, f, m }'
done
