#!/usr/bin/env bash
# Benchmark smoke run, for CI: builds the Benchmarks package (release), runs a very short pass
# of every benchmark family, then checks that a render does not allocate (0 mallocs in every
# sample, the limit in Benchmarks/Thresholds/) and that this check can fail.
#
# The benchmark executables are run directly, not through `swift package benchmark`: the
# plugin host (the `swift-package` process) crashed once on CI in libdispatch's epoll
# bookkeeping while relaying a benchmark's pipes (a SIGSEGV in the toolchain, not in a
# benchmark). Run directly, each executable runs every benchmark matching --filter and prints
# its samples ("Debug results for NAME:" and one histogram per metric); a failure prints
# "benchmark failed: NAME: REASON" (Benchmark.fail in Benchmarks/Sources/BenchHarness).
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
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "== bench-smoke: release build of the benchmarks"
swift build -c release
bin=$(swift build -c release --show-bin-path)

# run NAME EXECUTABLE [ARGS...]: runs one benchmark executable, its output in $log/NAME.
# Fails when it exits non-zero, reports a failed benchmark, or ran no benchmark.
run() {
    local name=$1 exe=$2
    shift 2
    if ! "$bin/$exe" "$@" >"$log/$name" 2>&1; then
        grep -v 'ETA: ' "$log/$name" | tail -30 >&2
        echo "bench-smoke: FAILED: $exe $* exited non-zero" >&2
        return 1
    fi
    if grep 'benchmark failed: ' "$log/$name" >&2; then
        echo "bench-smoke: FAILED: $exe $* (the line above)" >&2
        return 1
    fi
    local ran
    ran=$(grep -c '^Debug results for ' "$log/$name" || true)
    if [ "$ran" -eq 0 ]; then
        echo "bench-smoke: FAILED: $exe $* ran no benchmark" >&2
        return 1
    fi
    echo "   $exe: $ran benchmarks ran"
}

# mallocs NAME: prints "BENCHMARK<TAB>MAX" for every benchmark in $log/NAME that has a
# "Malloc (total)" metric (MAX: the largest count over its samples).
mallocs() {
    awk '
        /^Debug results for / { bench = substr($0, 19); sub(/:$/, "", bench); inMalloc = 0; next }
        /^Malloc \(total\):/ { inMalloc = 1; next }
        /^[A-Za-z].*:$/ { inMalloc = 0 }
        inMalloc && /^#\[Max/ { split($0, a, /[=,]/); gsub(/ /, "", a[2]); printf "%s\t%d\n", bench, a[2]; inMalloc = 0 }
    ' "$log/$1"
}

# check NAME: every ZeroMalloc benchmark in $log/NAME against its limit in Thresholds/
# (mallocCountTotal); fails when one is over, or when there is none to check.
check() {
    local checked=0 bench max file limit
    while IFS=$'\t' read -r bench max; do
        file="Thresholds/RenderBenchmarks.$bench.p90.json"
        [ -f "$file" ] || continue
        limit=$(sed -n 's/.*"mallocCountTotal" *: *\([0-9]*\).*/\1/p' "$file")
        if [ -z "$limit" ]; then
            echo "bench-smoke: $file has no mallocCountTotal" >&2
            return 1
        fi
        checked=$((checked + 1))
        if [ "$max" -gt "$limit" ]; then
            echo "bench-smoke: $bench: $max mallocs in a sample, limit $limit" >&2
            return 1
        fi
        echo "   $bench: at most $max mallocs per sample (limit $limit)"
    done < <(mallocs "$1")
    if [ "$checked" -eq 0 ]; then
        echo "bench-smoke: FAILED: no ZeroMalloc result to check against Thresholds/" >&2
        return 1
    fi
}

echo "== bench-smoke: short pass of every benchmark (TUTTI_BENCH_SMOKE=1)"
run render RenderBenchmarks
run scene SceneBenchmarks
run plot PlotBenchmarks

echo "== bench-smoke: 0 mallocs per render (Thresholds/)"
check render

echo "== bench-smoke: the malloc check catches an allocation (self-test, a failure is expected here)"
TUTTI_BENCH_INJECT_MALLOC=1 run inject RenderBenchmarks --filter 'ZeroMalloc.*'
if check inject >/dev/null 2>&1; then
    echo "bench-smoke: FAILED: an injected malloc was not detected; the 0-malloc check means nothing" >&2
    exit 1
fi

echo "== bench-smoke: OK in $(( $(date +%s) - start )) s"
