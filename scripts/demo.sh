#!/usr/bin/env bash
# The main job: renders the 20-second demo scene to out/demo.wav (and its event log),
# then plays it if this machine has an audio device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product tutti
mkdir -p out
.build/release/tutti render fixtures/scenes/demo.json -o out/demo.wav --events out/demo.jsonl
echo "rendered out/demo.wav and out/demo.jsonl"
# Play it if this machine has somewhere to play it (a sound card, a PulseAudio server, a
# PipeWire session): `tutti play` picks the backend itself (`auto`: PipeWire, JACK, then ALSA).
if [ -e /dev/snd ] || [ -n "${PULSE_SERVER:-}" ] || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/pulse/native" ] \
  || [ -S "${XDG_RUNTIME_DIR:-/nonexistent}/${PIPEWIRE_REMOTE:-pipewire-0}" ]; then
  if .build/release/tutti play fixtures/scenes/demo.json; then exit 0; fi
fi
echo "no audio device to play it on; open out/demo.wav in any player"
