#!/usr/bin/env bash
# Installs the Debian packages Tutti needs, only those that are missing.
# Used by scripts/demo.sh, scripts/test.sh and .ci/run.
set -euo pipefail
# PipeWire: libspa-0.2-dev builds CPipeWire (headers only; libpipewire is loaded at run time);
# the daemon, WirePlumber, pw-record and libpipewire-0.3-dev (the header check) are for
# Tests/TuttiPipeWireTests. Never pipewire-alsa: it would take over ALSA's default device.
# MPRIS (`tutti play`): libsystemd0 is opened at run time (sd-bus; nothing to build against);
# dbus (dbus-daemon, dbus-send) runs the private session buses of the MPRIS and PipeWire tests.
packages=(pkg-config libsamplerate0-dev libsoxr-dev libsndfile1-dev libasound2-dev libjack-jackd2-dev sox python3
  libspa-0.2-dev libpipewire-0.3-dev pipewire pipewire-bin wireplumber libsystemd0 dbus "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # noninteractive: jackd2 asks (debconf) whether to enable real-time priority; unanswered, it is not.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The C libraries the package links, and the headers it builds against (alsa-lib, libspa; alsa-lib,
# libjack and libpipewire are opened at run time, never linked), pkg-config name → Debian
# package: say which one is missing here rather than leave a compile or link error to the build.
for pair in samplerate:libsamplerate0-dev soxr:libsoxr-dev sndfile:libsndfile1-dev alsa:libasound2-dev libspa-0.2:libspa-0.2-dev; do
  pc=${pair%%:*} deb=${pair#*:}
  if ! pkg-config --exists "$pc"; then
    echo "install-deps: pkg-config cannot find '$pc': install the Debian package $deb (apt-get install $deb)" >&2
    exit 1
  fi
done
command -v swift >/dev/null || { echo "swift is not on PATH: install Swift 6.1 or newer (swift.org)" >&2; exit 1; }
