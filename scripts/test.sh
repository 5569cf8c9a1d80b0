#!/usr/bin/env bash
# The test command: installs what is missing (build libraries, sox, PulseAudio and the ALSA
# pulse plugin for the real-device tests, the JACK server for the JACK tests), checks the
# formatting and the DocC documentation (scripts/docs.sh: its own build folder, .build-docs;
# ~30 s), builds once in debug and runs every test, then the checks that cannot share that build:
#   - ThreadSanitizer on the ring stress, engine-thread and host-thread tests;
#   - RealtimeSanitizer around the render call through a 10 s play of a busy scene (ALSA),
#     and 5 s through JACK;
#   - libFuzzer + AddressSanitizer, 30 s on the scene decoder and 30 s on the audio-file
#     loader (scripts/fuzz.sh; its own build folder, .build-fuzz).
# Then the C ABI (scripts/test-c.sh): one release build installed into a temporary prefix,
# the C tests against it, the examples (C and a Swift package) built and run; then the Python
# package (scripts/test-python.sh: the same release build installed again, pytest, the example).
# Last, scripts/pipewire-ref.c (scripts/pipewire-load.sh's reference client) must compile
# without a warning, so the load script does not rot between its (manual) runs.
# The PulseAudio and JACK tests start their own private servers (JACK: dummy driver).
# chromium-headless-shell (~64 MB, about 15 s to install) renders the timeline picture to PNG
# for its browser test; without it that one check is skipped, saying so. gdb: the test run's
# watchdog (scripts/watchdog.sh) dumps the threads of a run that hangs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh pulseaudio libasound2-plugins pulseaudio-utils jackd2 chromium-headless-shell gdb

echo "== swift format lint (configuration: .swift-format)"
swift format lint --strict --recursive Sources Tests Benchmarks/Sources Benchmarks/Benchmarks Fuzz/Sources examples/swift/Sources

echo "== DocC: the catalog builds without warnings, ≥ 95 % of public members have an abstract"
bash scripts/docs.sh

echo "== debug build and all tests"
swift build --build-tests
log=$(mktemp)
# A hang (e.g. inside libjack) fails the run after 5 minutes without output, with every
# thread's stack (gdb) in the log, instead of stalling CI.
bash scripts/watchdog.sh 300 "$log" -- swift test --skip-build
passed=$(grep -Eo 'Test run with [0-9]+ tests' "$log" | grep -Eo '[0-9]+' | tail -1)
rm -f "$log"

echo "== ThreadSanitizer: rings, engine and host threads"
swift build --build-tests --sanitize=thread --scratch-path .build-tsan
swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter 'RingStress|EngineThread|HostThread'

echo "== RealtimeSanitizer: 10 s of a busy scene through the ALSA backend (and 5 s through JACK)"
bash scripts/rtsan-check.sh 10

echo "== libFuzzer: scene decoder and audio-file loader, 30 s each"
bash scripts/fuzz.sh 30

echo "== C ABI: install, C tests, examples"
bash scripts/test-c.sh

echo "== Python: the ctypes package (bindings/python) against an installed library, pytest, the example"
bash scripts/test-python.sh

echo "== scripts/pipewire-ref.c (the load script's reference client) compiles without a warning"
ref=$(mktemp -d)
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -O2 -Wall -Wextra -Werror -o "$ref/pipewire-ref" scripts/pipewire-ref.c $(pkg-config --cflags --libs libpipewire-0.3) -lm
rm -rf "$ref"

echo "tests: ${passed:-0} passed, 0 failed (and the C tests above)"
