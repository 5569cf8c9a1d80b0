#!/usr/bin/env bash
# Issue 24 benchmark: what policy actions cost as sessions grow. For each N (default 100 1000
# 2000 4000 10000), a scene of N ambient sessions with a tone each, every session activated
# and its tone played at 0 s (2 N policy actions), is rendered with `tutti render`: 0.5 s long
# (the whole job), and 0.01 s long; the same 0.01 s scene with no event (setup only) is the
# baseline. Prints the wall time of each (best of 3) and the cost per action:
# (0.01 s activated − 0.01 s idle) / 2 N (the 0.01 s of mixing N tones is included: small).
#
#   scripts/bench-sessions.sh [N ...]
#
# TUTTI=path uses that binary instead of building the release one. Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then set -- 100 1000 2000 4000 10000; fi
if [ -z "${TUTTI:-}" ]; then
  swift build -c release --product tutti >/dev/null
  TUTTI=.build/release/tutti
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/tutti-bench-sessions.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# scene N ACTIVE FILE DURATION: N sessions and tones; ACTIVE=1 activates and plays each at 0 s.
scene() {
  local n=$1 active=$2 i
  {
    printf '{"duration": %s, "sessions": [' "$4"
    for ((i = 0; i < n; i++)); do printf '%s{"id": "s%d", "category": "ambient"}' "$([ $i -gt 0 ] && echo ,)" "$i"; done
    printf '], "sources": ['
    for ((i = 0; i < n; i++)); do
      printf '%s{"id": "t%d", "session": "s%d", "tone": {"frequency": 440, "amplitude": 0.0001}}' "$([ $i -gt 0 ] && echo ,)" "$i" "$i"
    done
    printf '], "events": ['
    if [ "$active" = 1 ]; then
      for ((i = 0; i < n; i++)); do
        printf '%s{"at": 0, "session": "s%d", "action": "activate"}, {"at": 0, "source": "t%d", "action": "play"}' \
          "$([ $i -gt 0 ] && echo ,)" "$i" "$i"
      done
    fi
    printf ']}\n'
  } >"$3"
}

# best N FILE: the best wall time (s) of 3 renders of FILE.
best() {
  local b="" t s e
  for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$TUTTI" render "$2" -o "$dir/out.wav" >/dev/null
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}

printf '%8s %14s %16s %14s %14s\n' sessions "0.5 s scene s" "0.01 s scene s" "0.01 s idle s" "µs per action"
for n in "$@"; do
  scene "$n" 1 "$dir/long.json" 0.5
  scene "$n" 1 "$dir/active.json" 0.01
  scene "$n" 0 "$dir/idle.json" 0.01
  l=$(best "$n" "$dir/long.json")
  a=$(best "$n" "$dir/active.json")
  i=$(best "$n" "$dir/idle.json")
  per=$(echo "($a - $i) / (2 * $n) * 1000000" | bc -l)
  printf '%8d %14.3f %16.3f %14.3f %14.1f\n' "$n" "$l" "$a" "$i" "$per"
done
