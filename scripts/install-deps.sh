#!/usr/bin/env bash
# Installs the Debian packages Tutti needs, only those that are missing.
# Used by scripts/demo.sh, scripts/test.sh and .ci/run.
set -euo pipefail
packages=(pkg-config libsamplerate0-dev libsndfile1-dev libasound2-dev libjack-jackd2-dev sox python3 "$@")
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
command -v swift >/dev/null || { echo "swift is not on PATH: install Swift 6.1 or newer (swift.org)" >&2; exit 1; }
