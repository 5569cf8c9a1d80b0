#!/usr/bin/env bash
# Xruns under load on PipeWire (not CI): 64 sources and 2 CPU hogs (`yes`), at quantum 128 and 64
# (forced with the `settings` metadata's clock.force-quantum), SECONDS each (default 60), on a
# private daemon + WirePlumber + session bus with a null sink ("testsink", 48 kHz stereo). For each
# quantum:
#   1. `pw-play --target testsink` of a file (a 440 Hz tone, SECONDS + 2 s long) with the hogs: the
#      reference the issue names (a plain client of the same graph in the same conditions);
#   2. `tutti play --backend pipewire --target testsink --period Q` of the 64-source load scene
#      (scripts/load-scene.py) with the hogs.
# Both are measured the same way: pw-top's ERR column (xruns/errors the daemon counted for the
# node and for the sink that drives the graph) read after SECONDS of playing, from pw-top's last
# screen (pw-top 0.3.65 has no batch mode: it runs under `script` and its screen is parsed); its
# QUANT column confirms the quantum; W/Q and B/Q (wait and busy time per quantum) give the load.
# tutti's own report adds its count of cycles it missed and the latency pw_stream_get_time gave.
# Each quantum runs ROUNDS rounds (default 3) of both, alternating which goes first, and prints
# each round and the totals. Builds tutti in release (.build-release).
#
#   scripts/pipewire-load.sh [SECONDS] [ROUNDS]   (PIPEWIRE_LOAD_KEEP=1 keeps the work folder and pw-top's screens)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
rounds=${2:-3}
for tool in pipewire wireplumber pw-play pw-top pw-metadata dbus-daemon script sox; do
  command -v "$tool" >/dev/null || {
    echo "pipewire-load: $tool is not installed (apt-get install --no-install-recommends pipewire pipewire-bin wireplumber dbus bsdutils sox)" >&2
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
# with $1 (pw-top cuts names: "pw-pla") and of the sink.
observe() {
  TERM=xterm timeout "$seconds" script -qc "pw-top" /dev/null >"$work/top-$1.raw" 2>/dev/null || true
  python3 "$work/top.py" "$work/top-$1.raw" >"$work/top.txt"
  local node sink
  node=$(awk -v n="$1" 'index($1, n) == 1 { print $2, $3, $4, $5; exit }' "$work/top.txt")
  sink=$(awk '$1 == "testsink" { print $2, $3, $4, $5; exit }' "$work/top.txt")
  echo "${node:-? ? ? ?} ${sink:-? ? ? ?}"
}

echo "pipewire-load: ${seconds} s per run, ${rounds} rounds, 64 sources, 2 CPU hogs, $(nproc) cores, $(pipewire --version | grep -o -m1 'libpipewire [0-9.]*')" >&2

# One run of $1 (pw-play or tutti) at quantum $2 (round $3) beside two fresh hogs: sets `result`
# to "ERR QUANT W/Q B/Q SINK_ERR" and leaves tutti's report in $work/play-Q-R.out.
run() {
  local what=$1 quantum=$2 round=$3 hog1 hog2 pid
  yes >/dev/null &
  hog1=$!
  yes >/dev/null &
  hog2=$!
  pids+=("$hog1" "$hog2")
  sleep 0.5
  if [ "$what" = pw-play ]; then
    pw-play --target testsink "$work/tone.wav" &
    pid=$!
    pids+=("$pid")
    sleep 0.5
    result=$(observe pw-pla)
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  else
    "$tutti" play "$work/load.json" --backend pipewire --target testsink --period "$quantum" --no-mpris \
      --seconds "$((seconds + 2))" >"$work/play-$quantum-$round.out" 2>"$work/play-$quantum-$round.err" &
    pid=$!
    pids+=("$pid")
    sleep 0.5
    result=$(observe tutti)
    wait "$pid" || { cat "$work/play-$quantum-$round.err" >&2; exit 1; }
  fi
  kill "$hog1" "$hog2"
  wait "$hog1" "$hog2" 2>/dev/null || true
  sleep 0.5
}

# The daemon's count swings from run to run (on this 2-core VM the same client gave 12 and 33
# errors in 30 s): each quantum runs ROUNDS rounds, pw-play first in odd rounds and tutti first in
# even ones, and the totals are compared.
for quantum in 128 64; do
  pw-metadata -n settings 0 clock.force-quantum "$quantum" >/dev/null
  ref_total=0
  total=0
  unread=0
  for round in $(seq "$rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
      run pw-play "$quantum" "$round"
      read -r ref_err ref_q ref_wq ref_bq sink_ref_err _ <<<"$result"
      run tutti "$quantum" "$round"
      read -r err q wq bq sink_err _ <<<"$result"
    else
      run tutti "$quantum" "$round"
      read -r err q wq bq sink_err _ <<<"$result"
      run pw-play "$quantum" "$round"
      read -r ref_err ref_q ref_wq ref_bq sink_ref_err _ <<<"$result"
    fi
    if [[ $ref_err =~ ^[0-9]+$ && $err =~ ^[0-9]+$ ]]; then
      ref_total=$((ref_total + ref_err))
      total=$((total + err))
    else
      unread=$((unread + 1)) # pw-top's screen had no row for a node: the round is left out
    fi
    printf '%4d frames, round %d, %d s each: pw-play of a file %3s errors (quantum %s, W/Q %s, B/Q %s; the sink %s); tutti, 64 sources %3s errors (quantum %s, W/Q %s, B/Q %s; the sink %s)\n' \
      "$quantum" "$round" "$seconds" "$ref_err" "$ref_q" "$ref_wq" "$ref_bq" "$sink_ref_err" "$err" "$q" "$wq" "$bq" "$sink_err"
    echo "      tutti's own report: $(cat "$work/play-$quantum-$round.out")"
  done
  if [ "$unread" -eq "$rounds" ]; then
    verdict="no round read"
  elif [ "$total" -le "$ref_total" ]; then
    verdict="no more than pw-play"
  else
    verdict="MORE than pw-play"
  fi
  printf '%4d frames, %d rounds of %d s (%d unread): pw-play %d errors in all, tutti %d (%s)\n' "$quantum" "$rounds" "$seconds" \
    "$unread" "$ref_total" "$total" "$verdict"
  pw-metadata -n settings 0 clock.force-quantum 0 >/dev/null
done
