#!/usr/bin/env bash
# Renders a real output larger than 4 GiB and checks it with sox (not run in CI: it writes
# 4.3 GB and reads it back). A WAV's RIFF sizes are 32-bit; such an output must come out as
# RF64 with every frame readable, not as a WAV whose sizes wrapped.
#
#   scripts/check-rf64.sh [TUTTI]     # TUTTI: a tutti binary (default: builds the release one)
#
# The scene: a 1 kHz tone at amplitude 0.5 for 11 200 s (48 kHz stereo float32: 4.30 GB of
# samples), its gain halved 5 s before the end, so the tail proves that the last frames are
# where they belong. Needs about 4.4 GB free in ${TMPDIR:-/tmp}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh sox
if [ $# -ge 1 ]; then
  tutti=$1
else
  swift build -c release --product tutti
  tutti=.build/release/tutti
fi
seconds=11200
frames=$((seconds * 48000))
dir=$(mktemp -d "${TMPDIR:-/tmp}/tutti-rf64.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cat >"$dir/scene.json" <<JSON
{"duration": $seconds, "engine": {"sampleRate": 48000, "channels": 2, "output": "float32"},
 "sessions": [{"id": "s", "category": "playback"}],
 "sources": [{"id": "t", "session": "s", "tone": {"frequency": 1000, "amplitude": 0.5}, "loop": true}],
 "events": [{"at": 0, "session": "s", "action": "activate"}, {"at": 0, "source": "t", "action": "play"},
            {"at": $((seconds - 5)), "source": "t", "action": "setGain", "value": 0.5}]}
JSON

fail() { echo "check-rf64: FAILED: $*" >&2; exit 1; }
start=$(date +%s.%N)
"$tutti" render "$dir/scene.json" -o "$dir/out.wav" --quiet || fail "tutti render exited $?"
render_s=$(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN { printf \"%.1f\", b - a }")
bytes=$(stat -c %s "$dir/out.wav")
magic=$(head -c 4 "$dir/out.wav")
echo "rendered $seconds s in ${render_s} s: $bytes bytes, container $magic"
[ "$bytes" -gt 4294967296 ] || fail "the output is not larger than 4 GiB ($bytes bytes)"
[ "$magic" = RF64 ] || fail "the output starts with '$magic', not RF64"

# sox sees every frame...
samples=$(soxi -s "$dir/out.wav" 2>/dev/null)
echo "soxi: $samples frames (expected $frames), $(soxi -e "$dir/out.wav" 2>/dev/null), $(soxi -c "$dir/out.wav" 2>/dev/null) ch, $(soxi -r "$dir/out.wav" 2>/dev/null) Hz"
[ "$samples" = "$frames" ] || fail "sox reads $samples frames, expected $frames"
# ...reads all of them, and the level before and after the gain change 5 s from the end is right.
start=$(date +%s.%N)
whole=$(sox "$dir/out.wav" -n stat 2>&1)
read_s=$(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN { printf \"%.1f\", b - a }")
read_samples=$(echo "$whole" | awk '/^Samples read/ {print $3}')
echo "sox stat over the whole file (${read_s} s): $read_samples samples read"
[ "$read_samples" = $((frames * 2)) ] || fail "sox stat read $read_samples samples, expected $((frames * 2))"
rms() { sox "$dir/out.wav" -n trim "$1" "$2" stat 2>&1 | awk '/^RMS +amplitude/ {print $3}'; }
before=$(rms $((seconds - 10)) 4)
after=$(rms $((seconds - 4)) 4)
echo "RMS 10-6 s before the end: $before (expected 0.3536); last 4 s: $after (expected 0.1768)"
awk -v b="$before" -v a="$after" 'BEGIN { exit !((b - 0.35355 < 0.001 && 0.35355 - b < 0.001) && (a - 0.17678 < 0.001 && 0.17678 - a < 0.001)) }' \
  || fail "wrong levels in the tail"
echo "check-rf64: ok"
