#!/usr/bin/env bash
# Fuzzes the two parsers that take outside input, with libFuzzer and AddressSanitizer:
#   FuzzScene      the scene decoder (and a short render of scenes that decode);
#   FuzzAudioFile  the audio-file loader (open checks, libsndfile, memory guard, conversion).
#
#   scripts/fuzz.sh [SECONDS]      # each harness runs SECONDS (default 30); scripts/test.sh runs 30
#
# Builds only what the harnesses need (TuttiScene and below, instrumented) from the Fuzz/
# package into .build-fuzz. Seeds: fixtures/fuzz/{scene,audio} (regenerate with
# fixtures/fuzz/make-seeds.py); what the fuzzers add goes to .build-fuzz/corpus/, never into
# the fixtures. A crash, a leak-free out-of-memory or a timeout fails the script and leaves
# the input in .build-fuzz/artifacts/: reproduce it with `.build-fuzz/debug/FuzzX FILE`, then
# turn it into a regular test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
scratch=.build-fuzz
# One -sanitize=fuzzer,address for the compiler: given as two flags (`--sanitize=fuzzer
# --sanitize=address`), the last one wins and the code ends up without coverage or without
# ASan, whichever SwiftPM happens to pass last. `--sanitize=fuzzer` makes SwiftPM link libFuzzer.
for harness in FuzzScene FuzzAudioFile; do
  swift build --package-path Fuzz --scratch-path "$scratch" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address --product "$harness" 2>&1 \
    | grep -v -e "Cannot export local symbol '__asan" -e '^\[' || true
  [ -x "$scratch/debug/$harness" ] || { echo "fuzz: $harness did not build" >&2; exit 1; }
done
mkdir -p "$scratch/artifacts"
status=0
run() { # harness, seeds, extra flags...
  local harness=$1 seeds=$2 corpus="$scratch/corpus/$1"
  shift 2
  mkdir -p "$corpus"
  local log="$scratch/$harness.log"
  echo "== $harness: $seeds, ${seconds} s"
  # detect_leaks=0: the Swift runtime's caches look like leaks to LeakSanitizer.
  if ASAN_OPTIONS=detect_leaks=0 TMPDIR="$scratch" "$scratch/debug/$harness" "$corpus" "$seeds" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -detect_leaks=0 -print_final_stats=1 \
      -artifact_prefix="$scratch/artifacts/$harness-" "$@" >"$log" 2>&1; then
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" | sed 's/^/   /' || true
    grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$log" | sed 's/^/   /' || true
    # No coverage means no instrumentation: the run proved nothing.
    grep -q -E '^#[0-9]+[[:space:]]+DONE[[:space:]]+cov: [1-9]' "$log" || { echo "fuzz: $harness ran without coverage (not instrumented?)" >&2; status=1; }
  else
    status=1
    echo "fuzz: $harness FAILED; the end of its log ($log):" >&2
    grep -v -e '^#' "$log" | tail -40 >&2
    ls -1 "$scratch/artifacts/$harness-"* 2>/dev/null | sed 's/^/   input: /' >&2 || true
  fi
}
run FuzzScene fixtures/fuzz/scene -dict=fixtures/fuzz/scene.dict -max_len=8192
run FuzzAudioFile fixtures/fuzz/audio -max_len=8192
exit $status
