#!/usr/bin/env bash
# Benchmark smoke run, for CI: builds the Benchmarks package (release) and runs a very short
# pass of every benchmark family, then checks that a render does not allocate (0 mallocs, the
# static threshold in Benchmarks/Thresholds/) and that this check can fail.
#
# Figures from a smoke run are NOT measurements (a few dozen samples on whatever machine CI
# is); they only show that the benchmarks build and run. See docs/performance.md.
#
#   scripts/bench-smoke.sh            # build + smoke pass + malloc check + its self-test
#
# Exit status: non-zero when a build or a benchmark fails, or when a render allocated.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"

start=$(date +%s)
export TUTTI_BENCH_SMOKE=1

echo "== bench-smoke: short pass of every benchmark (TUTTI_BENCH_SMOKE=1)"
swift package benchmark --no-progress

echo "== bench-smoke: 0 mallocs per render (static threshold)"
swift package benchmark thresholds check --target RenderBenchmarks --filter 'ZeroMalloc.*' --no-progress

echo "== bench-smoke: the malloc check catches an allocation (self-test, a failure is expected here)"
if TUTTI_BENCH_INJECT_MALLOC=1 swift package benchmark thresholds check --target RenderBenchmarks \
        --filter 'ZeroMalloc.*' --no-progress --quiet >/dev/null 2>&1; then
    echo "bench-smoke: FAILED: an injected malloc was not detected; the 0-malloc check means nothing" >&2
    exit 1
fi

echo "== bench-smoke: OK in $(( $(date +%s) - start )) s"
