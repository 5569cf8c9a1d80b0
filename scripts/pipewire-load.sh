#!/usr/bin/env bash
# Xruns under load on PipeWire (not CI): 64 sources and 2 CPU hogs (`yes`), at quantum 128 and 64
# (forced with the `settings` metadata's clock.force-quantum), SECONDS each (default 60), on a
# private daemon + WirePlumber + session bus with a null sink ("testsink", 48 kHz stereo). For each
# quantum, three programs, each alone beside two fresh hogs:
#   1. `pw-play --target testsink` of a file (a 440 Hz tone, SECONDS + 2 s long): the reference the
#      issue names. pw-play renders on its main loop into buffers queued ahead of the graph (an
#      asynchronous node: more latency, more slack);
#   2. scripts/pipewire-ref.c (built here with -O2 -march=native): the smallest client that renders
#      as Tutti does, a sine computed in the process callback on PipeWire's real-time data thread,
#      one buffer per cycle (a baseline for that way of rendering, with next to no work per cycle);
#   3. `tutti play --backend pipewire --target testsink --period Q` of the 64-source load scene
#      (scripts/load-scene.py); with PERIODS, `--periods PERIODS` too (rendering that many quanta
#      ahead of the graph on a thread of its own, docs/backends.md "Rendering ahead").
# All are measured the same way: pw-top's ERR column (xruns/errors the daemon counted for the node
# and for the sink that drives the graph) read after SECONDS of playing, from pw-top's last screen
# (pw-top 0.3.65 has no batch mode: it runs under `script` and its screen is parsed); its QUANT
# column confirms the quantum; W/Q and B/Q (wait and busy time per quantum) give the load. tutti's
# own report adds its count of cycles it missed and the latency pw_stream_get_time gave (with
# PERIODS, how many of them found the ring short and how many were graph cycles lost). Each
# quantum runs ROUNDS rounds (default 3), the order of the three turning by one each round, and
# prints each round and the totals. Each round then plays 4. `pw-play` and tutti side by side (at
# once, beside two fresh hogs), counted apart in the same pw-top screens: the host's stalls, which
# make the count swing from one minute to the next far more than from one program to another, then
# hit both alike (a paired comparison). Builds tutti in release (.build-release).
#
#   scripts/pipewire-load.sh [SECONDS] [ROUNDS] [PERIODS]   (PIPEWIRE_LOAD_KEEP=1 keeps the work folder and pw-top's screens)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
rounds=${2:-3}
ahead=()
if [ -n "${3:-}" ]; then ahead=(--periods "$3"); fi
for tool in pipewire wireplumber pw-play pw-top pw-metadata dbus-daemon script sox cc pkg-config; do
  command -v "$tool" >/dev/null || {
    echo "pipewire-load: $tool is not installed (apt-get install --no-install-recommends pipewire pipewire-bin wireplumber dbus bsdutils sox gcc pkg-config libpipewire-0.3-dev)" >&2
    exit 1
  }
done

swift build -c release --scratch-path .build-release --product tutti >&2
tutti=$(swift build -c release --scratch-path .build-release --show-bin-path)/tutti

work=$(mktemp -d /tmp/tutti-pipewire-load.XXXXXX)
pids=()
bus_pid=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "${PIPEWIRE_LOAD_KEEP:-}" ]; then echo "pipewire-load: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# A private daemon: its own runtime, home and config folders, a null sink, its own session bus
# (without one WirePlumber disconnects and nothing is linked).
mkdir -p "$work/run" "$work/home" "$work/config/pipewire/pipewire.conf.d"
chmod 700 "$work/run"
cat >"$work/config/pipewire/pipewire.conf.d/null.conf" <<'EOF'
context.objects = [ { factory = adapter args = { factory.name = support.null-audio-sink node.name = "testsink"
  media.class = "Audio/Sink" object.linger = true audio.position = [ FL FR ] audio.rate = 48000 } } ]
EOF
export XDG_RUNTIME_DIR="$work/run" HOME="$work/home" XDG_CONFIG_HOME="$work/config"
unset PIPEWIRE_REMOTE PIPEWIRE_RUNTIME_DIR
{ read -r DBUS_SESSION_BUS_ADDRESS; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS
pipewire >"$work/pipewire.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do pw-cli info 0 >/dev/null 2>&1 && break; sleep 0.1; done
wireplumber >"$work/wireplumber.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do pw-cli ls Client 2>/dev/null | grep -q 'application.name = "WirePlumber"' && break; sleep 0.1; done

python3 scripts/load-scene.py "$PWD/fixtures/audio" "$((seconds + 3))" >"$work/load.json"
sox -n -r 48000 -c 2 -b 16 "$work/tone.wav" synth "$((seconds + 2))" sine 440 vol 0.3
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -O2 -march=native -o "$work/pipewire-ref" scripts/pipewire-ref.c $(pkg-config --cflags --libs libpipewire-0.3) -lm

# pw-top's last screen, after SECONDS: "NAME ERR QUANT W/Q B/Q" for every node that ran.
cat >"$work/top.py" <<'EOF'
import re, sys
raw = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
screen = raw.split("\x1b[H\x1b[2J")
last = screen[-1] if len(screen) > 1 else raw
for part in reversed(screen):
    if "testsink" in part and re.search(r"\n|\x1b\[\d+d", part):
        last = part
        break
text = re.sub(r"\x1b\[\d+;\d+H|\x1b\[\d+d|\r", "\n", last)
text = re.sub(r"\x1b[\[(][0-9;?]*[A-Za-z]", "", text)
row = re.compile(r"^[RSIC]\s+\d+\s+(\d+)\s+\d+\s+\S+\s+\S+\s+(\S+)\s+(\S+)\s+(\d+)\s+\S+\s+\d+\s+\d+\s+(?:\+\s+)?(\S+)")
for line in text.split("\n"):
    m = row.match(line.strip())
    if m:
        quantum, wq, bq, err, name = m.groups()
        print(name, err, quantum, wq, bq)
EOF

# Runs pw-top for SECONDS (from now) and prints "ERR QUANT W/Q B/Q" of the node whose name starts
# with $1 (pw-top cuts names: "pw-pla") and of the sink; with $2, that node's too, after the sink's.
observe() {
  TERM=xterm timeout "$seconds" script -qc "pw-top" /dev/null >"$work/top-$1.raw" 2>/dev/null || true
  python3 "$work/top.py" "$work/top-$1.raw" >"$work/top.txt"
  local line
  line="$(row "$1") $(row testsink)"
  if [ -n "${2:-}" ]; then line="$line $(row "$2")"; fi
  echo "$line"
}

# "ERR QUANT W/Q B/Q" of the first node in $work/top.txt whose name starts with $1; "? ? ? ?" when
# pw-top had no row for it.
row() {
  local fields
  fields=$(awk -v n="$1" 'index($1, n) == 1 { print $2, $3, $4, $5; exit }' "$work/top.txt")
  echo "${fields:-? ? ? ?}"
}

# tutti's report of the run whose files are $work/$1.out and .err, on one line.
tutti_report() {
  echo "      tutti's own report: $(tr '\n' ' ' <"$work/$1.out") $(grep -h 'rendering ahead:' "$work/$1.err" || true)"
}

echo "pipewire-load: ${seconds} s per run, ${rounds} rounds, 64 sources, 2 CPU hogs, $(nproc) cores, $(pipewire --version | grep -o -m1 'libpipewire [0-9.]*')" >&2

# One run of $1 (pw-play, reference, tutti, or both: pw-play and tutti at once) at quantum $2
# (round $3) beside two fresh hogs: sets `result` to "ERR QUANT W/Q B/Q SINK_ERR SINK_QUANT SINK_W/Q
# SINK_B/Q" (both: pw-play's, then tutti's "ERR QUANT W/Q B/Q" appended) and leaves tutti's report in
# $work/play-Q-R.out (both: play-Q-R-both.out).
run() {
  local what=$1 quantum=$2 round=$3 hog1 hog2 pid
  yes >/dev/null &
  hog1=$!
  yes >/dev/null &
  hog2=$!
  pids+=("$hog1" "$hog2")
  sleep 0.5
  local report=play-$quantum-$round player=""
  case $what in
    pw-play) pw-play --target testsink "$work/tone.wav" & ;;
    reference) "$work/pipewire-ref" testsink "$quantum" "$((seconds + 2))" & ;;
    tutti | both)
      if [ "$what" = both ]; then
        report=$report-both
        pw-play --target testsink "$work/tone.wav" &
        player=$!
        pids+=("$player")
      fi
      "$tutti" play "$work/load.json" --backend pipewire --target testsink --period "$quantum" "${ahead[@]}" --no-mpris \
        --seconds "$((seconds + 2))" >"$work/$report.out" 2>"$work/$report.err" &
      ;;
  esac
  pid=$!
  pids+=("$pid")
  sleep 0.5
  if [ "$what" = both ]; then
    result=$(observe pw-pla tutti)
  else
    result=$(observe "${what:0:6}") # pw-top's names are cut: pw-pla, refere, tutti
  fi
  case $what in
    pw-play) # plays longer than it is watched
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      ;;
    reference) wait "$pid" || { echo "pipewire-load: the reference client failed" >&2; exit 1; } ;;
    tutti | both) wait "$pid" || { cat "$work/$report.err" >&2; exit 1; } ;;
  esac
  if [ -n "$player" ]; then
    kill "$player" 2>/dev/null || true
    wait "$player" 2>/dev/null || true
  fi
  kill "$hog1" "$hog2"
  wait "$hog1" "$hog2" 2>/dev/null || true
  sleep 0.5
}

# The daemon's count swings from run to run (on this 2-core VM the same client gave 12 and 33
# errors in 30 s): each quantum runs ROUNDS rounds, the order of the three programs turning by one
# each round, and the totals are compared.
programs=(pw-play reference tutti)
# tutti's total against $1's (the quantum's `total` and `unread`).
verdict() {
  if [ "$unread" -eq "$rounds" ]; then echo "no round read"
  elif [ "${total[tutti]}" -le "${total[$1]}" ]; then echo "no more than $1"
  else echo "MORE than $1"; fi
}
for quantum in 128 64; do
  pw-metadata -n settings 0 clock.force-quantum "$quantum" >/dev/null
  declare -A total=([pw-play]=0 [reference]=0 [tutti]=0)
  unread=0
  paired_player=0 paired_tutti=0 paired_unread=0
  for round in $(seq "$rounds"); do
    declare -A err=() line=()
    for k in 0 1 2; do
      what=${programs[$(((round - 1 + k) % 3))]}
      run "$what" "$quantum" "$round"
      read -r e q wq bq sink_err _ <<<"$result"
      err[$what]=$e
      line[$what]=$(printf '%3s errors (quantum %s, W/Q %s, B/Q %s; the sink %s)' "$e" "$q" "$wq" "$bq" "$sink_err")
    done
    if [[ ${err[pw-play]} =~ ^[0-9]+$ && ${err[reference]} =~ ^[0-9]+$ && ${err[tutti]} =~ ^[0-9]+$ ]]; then
      for what in "${programs[@]}"; do total[$what]=$((${total[$what]} + ${err[$what]})); done
    else
      unread=$((unread + 1)) # pw-top's screen had no row for a node: the round is left out
    fi
    printf '%4d frames, round %d, %d s each: pw-play of a file %s; reference %s; tutti, 64 sources %s\n' \
      "$quantum" "$round" "$seconds" "${line[pw-play]}" "${line[reference]}" "${line[tutti]}"
    tutti_report "play-$quantum-$round"
    # 4. Side by side: pw-play's and tutti's errors in the same minute.
    run both "$quantum" "$round"
    read -r pe pq _ _ sink_err _ _ _ te tq _ <<<"$result"
    if [[ $pe =~ ^[0-9]+$ && $te =~ ^[0-9]+$ ]]; then
      paired_player=$((paired_player + pe)) paired_tutti=$((paired_tutti + te))
    else
      paired_unread=$((paired_unread + 1))
    fi
    printf '%4d frames, round %d, side by side: pw-play %s errors (quantum %s), tutti %s (quantum %s); the sink %s\n' \
      "$quantum" "$round" "$pe" "$pq" "$te" "$tq" "$sink_err"
    tutti_report "play-$quantum-$round-both"
  done
  printf '%4d frames, %d rounds of %d s (%d unread): pw-play %d errors in all, reference %d, tutti %d (%s; %s)\n' "$quantum" \
    "$rounds" "$seconds" "$unread" "${total[pw-play]}" "${total[reference]}" "${total[tutti]}" "$(verdict pw-play)" "$(verdict reference)"
  if [ "$paired_unread" -eq "$rounds" ]; then paired="no round read"
  elif [ "$paired_tutti" -le "$paired_player" ]; then paired="no more than pw-play"
  else paired="MORE than pw-play"; fi
  printf '%4d frames, side by side, %d rounds of %d s (%d unread): pw-play %d errors in all, tutti %d (%s)\n' "$quantum" \
    "$rounds" "$seconds" "$paired_unread" "$paired_player" "$paired_tutti" "$paired"
  pw-metadata -n settings 0 clock.force-quantum 0 >/dev/null
done
