#!/usr/bin/env bash
# Starts a private PulseAudio server with a null sink (a paced, real ALSA device through the
# ALSA "pulse" plugin; see docs/architecture.md, "Output"), in its own runtime directory, and
# prints the environment to use it:
#
#   eval "$(scripts/start-pulse.sh)"     # then ALSA "default" and "pulse" play on it
#   ...
#   kill "$TUTTI_PULSE_PID"
#
# Works as root (user mode; the root warning is harmless) and as any other user.
# Needs: pulseaudio libasound2-plugins (pulseaudio-utils for pactl/parec, optional).
set -euo pipefail
command -v pulseaudio >/dev/null || { echo "start-pulse: pulseaudio is not installed (apt-get install --no-install-recommends pulseaudio libasound2-plugins pulseaudio-utils)" >&2; exit 1; }
d=$(mktemp -d /tmp/tutti-pulse.XXXXXX)
mkdir -p "$d/xdg" "$d/home"
chmod 700 "$d/xdg"
sock="$d/xdg/pa.sock"
# norewinds=1: without it the null sink renders 2 s ahead and every prepare stalls 1.4-2 s.
XDG_RUNTIME_DIR="$d/xdg" HOME="$d/home" setsid pulseaudio -n --daemonize=no --exit-idle-time=-1 --use-pid-file=no \
  -L "module-native-protocol-unix auth-anonymous=1 socket=$sock" \
  -L 'module-null-sink sink_name=nullsink rate=48000 channels=2 norewinds=1' \
  -L module-always-sink >"$d/pulse.log" 2>&1 </dev/null &
pid=$!
for _ in $(seq 100); do
  [ -S "$sock" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$d/pulse.log" >&2; exit 1; }
  sleep 0.05
done
[ -S "$sock" ] || { echo "start-pulse: no socket after 5 s; log: $d/pulse.log" >&2; exit 1; }
if command -v pactl >/dev/null; then
  for _ in $(seq 50); do PULSE_SERVER="unix:$sock" pactl info >/dev/null 2>&1 && break; sleep 0.1; done
fi
# Other users (e.g. a setpriv'd test) may connect too: the socket is anonymous-auth.
chmod 711 "$d" "$d/xdg"
# Only PULSE_SERVER is needed by clients (libpulse and the ALSA plugin read it); HOME and
# XDG_RUNTIME_DIR stay untouched so nothing else (SwiftPM's caches) moves.
cat <<EOF
export PULSE_SERVER=unix:$sock
export TUTTI_PULSE_DIR=$d
export TUTTI_PULSE_PID=$pid
EOF
