#!/usr/bin/env bash
# Xruns under load on JACK (not CI): 64 sources and 2 CPU hogs (`yes`), at 128 and 64 frames
# per cycle, SECONDS each (default 60). For each buffer size, on a private dummy-driver server
# (realtime as root at priority 70, so clients run at 65; default asynchronous mode):
#   1. the server alone with the hogs: an observer client counts JACK's xrun callbacks;
#   2. a trivial client (jack_simple_client: a sine to the playback ports) with the hogs, when
#      installed: what one more client in the graph costs, whatever it does;
#   3. `tutti play` of a 64-source scene with the hogs: the same observer counts, started
#      once tutti renders (and after its own 0.5 s warm-up: the notes say xruns come in the
#      first 0.35 s after activate/connect), and tutti reports its own count (from activation
#      on). The observer also samples JACK's DSP load.
# Builds tutti in release (.build-release).
#
#   scripts/jack-load.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
command -v jackd >/dev/null || { echo "jack-load: jackd is not installed (apt-get install --no-install-recommends jackd2)" >&2; exit 1; }

swift build -c release --scratch-path .build-release --product tutti >&2
tutti=$(swift build -c release --scratch-path .build-release --show-bin-path)/tutti

work=$(mktemp -d /tmp/tutti-jack-load.XXXXXX)
server="tutti-load-$$"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f /dev/shm/*_"${server}"_* 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The load scene (scripts/load-scene.py): 64 sources, gain ramps, ducking, volume steps.
python3 scripts/load-scene.py "$PWD/fixtures/audio" "$((seconds + 3))" >"$work/load.json"

# Counts JACK's xrun callbacks for SECONDS (after its own 0.5 s warm-up: activating a client
# may cause one) as a client that does no processing; samples JACK's DSP load every 0.1 s.
# Prints: xruns, mean load %, max load %.
cat >"$work/observe.py" <<'EOF'
import ctypes, sys, time
server, seconds = sys.argv[1].encode(), float(sys.argv[2])
jack = ctypes.CDLL("libjack.so.0")
jack.jack_client_open.restype = ctypes.c_void_p
jack.jack_cpu_load.restype = ctypes.c_float
status = ctypes.c_int(0)
client = jack.jack_client_open(b"xrun-observer", 0x01 | 0x04 | 0x20, ctypes.byref(status), server)  # NoStartServer | UseExactName | ServerName
if not client:
    sys.exit(f"observer: cannot open a client on {server.decode()} (status {status.value:#x})")
count = [0]
XRun = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
def on_xrun(arg):
    count[0] += 1
    return 0
callback = XRun(on_xrun)
jack.jack_set_xrun_callback(ctypes.c_void_p(client), callback, None)
jack.jack_activate(ctypes.c_void_p(client))
time.sleep(0.5)
count[0] = 0
loads = []
end = time.monotonic() + seconds
while time.monotonic() < end:
    time.sleep(0.1)
    loads.append(jack.jack_cpu_load(ctypes.c_void_p(client)))
jack.jack_client_close(ctypes.c_void_p(client))
print(count[0], f"{sum(loads) / max(len(loads), 1):.1f}", f"{max(loads, default=0):.1f}")
EOF

echo "jack-load: ${seconds} s per run, 64 sources, 2 CPU hogs, $(nproc) cores" >&2
for period in 128 64; do
  JACK_NO_AUDIO_RESERVATION=1 jackd -n "$server" -R -P 70 -d dummy -r 48000 -p "$period" >"$work/jackd-$period.log" 2>&1 &
  jackd_pid=$!
  pids+=("$jackd_pid")
  JACK_DEFAULT_SERVER="$server" jack_wait -w -t 5 >/dev/null
  yes >/dev/null &
  hog1=$!
  yes >/dev/null &
  hog2=$!
  pids+=("$hog1" "$hog2")
  sleep 0.5

  read -r alone alone_load alone_max < <(python3 "$work/observe.py" "$server" "$seconds")

  trivial="(jack_simple_client not installed)"
  if command -v jack_simple_client >/dev/null; then
    JACK_DEFAULT_SERVER="$server" jack_simple_client >/dev/null 2>&1 &
    simple_pid=$!
    pids+=("$simple_pid")
    read -r simple simple_load simple_max < <(python3 "$work/observe.py" "$server" "$seconds")
    kill "$simple_pid"
    wait "$simple_pid" 2>/dev/null || true
    trivial=$(printf '%3d xruns (load mean %s%%, max %s%%)' "$simple" "$simple_load" "$simple_max")
  fi

  JACK_DEFAULT_SERVER="$server" "$tutti" play "$work/load.json" --backend jack --seconds "$((seconds + 2))" \
    >"$work/play-$period.out" 2>"$work/play-$period.err" &
  play_pid=$!
  pids+=("$play_pid")
  for _ in $(seq 600); do grep -q "engine frame 0 at JACK frame" "$work/play-$period.err" && break; sleep 0.05; done
  read -r with with_load with_max < <(python3 "$work/observe.py" "$server" "$seconds")
  wait "$play_pid" || { cat "$work/play-$period.err" >&2; exit 1; }
  own=$(grep -Eo '[0-9]+ xruns' "$work/play-$period.out" | grep -Eo '[0-9]+')

  kill "$hog1" "$hog2" "$jackd_pid"
  wait "$hog1" "$hog2" "$jackd_pid" 2>/dev/null || true
  rm -f /dev/shm/*_"${server}"_* 2>/dev/null || true
  late=$(grep -c "control thread was late" "$work/play-$period.err" || true)
  printf '%4d frames, %d s each: server alone %3d xruns (DSP load mean %s%%, max %s%%); a trivial client %s; tutti %3d xruns (load mean %s%%, max %s%%)\n' \
    "$period" "$seconds" "$alone" "$alone_load" "$alone_max" "$trivial" "$with" "$with_load" "$with_max"
  echo "      tutti's own report (from activation on; $late stretches of silence for a late control thread): $(cat "$work/play-$period.out")"
done
