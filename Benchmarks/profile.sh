#!/usr/bin/env bash
# Instruction counts per block under callgrind: deterministic (the same count whatever else
# the machine does), so engine / reference ratios can be checked on a busy machine.
#
#   Benchmarks/profile.sh                 # the default set (N=128 B=256 mix, streams at N=8)
#   Benchmarks/profile.sh mix 128 256     # one configuration: mode N B [quality]
#   KEEP=1 Benchmarks/profile.sh ...      # keep the callgrind files (callgrind_annotate them)
#
# Counts only what happens inside the measured blocks (`--toggle-collect` on RenderProfile's
# measuredBlock, which wraps each timed render call and nothing else), per block.
# valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 emits, so it runs a copy of the
# binary stripped of debug info (function names stay).
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product RenderProfile >/dev/null
work=$(mktemp -d)
cp .build/release/RenderProfile "$work/RenderProfile"
strip -g "$work/RenderProfile"

measured_fn='$s13RenderProfile13measuredBlockyyyyXEF'

# count MODE N B [QUALITY] -> instructions per block
count() {
    local mode=$1 n=$2 b=$3 q=${4:-} blocks out
    # Enough blocks for a stable average, few enough to stay quick under valgrind.
    blocks=$(( 200000 / (n * b / 64 + 1) + 20 ))
    [ "$mode" = stream ] || [ "$mode" = bare ] && blocks=$(( blocks / 20 + 20 ))
    out="$work/$mode-$q-$n-$b.cg"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$measured_fn" \
        "$work/RenderProfile" "$mode" ${q:+$q} "$n" "$b" "$blocks" >/dev/null 2>"$out.log"
    local total
    total=$(grep -E '^summary:|^totals:' "$out" | head -1 | awk '{print $2}')
    echo $(( total / blocks ))
}

row() { # label engine reference
    awk -v l="$1" -v e="$2" -v r="$3" 'BEGIN { printf "| %s | %d | %d | %.3f× |\n", l, e, r, e / r }'
}

echo "| configuration | engine instructions per block | reference instructions per block | ratio |"
echo "|---|---:|---:|---:|"
if [ $# -gt 0 ]; then
    mode=$1; n=$2; b=$3; q=${4:-}
    case $mode in
        stream) row "stream $q N=$n B=$b vs bare src_process" "$(count stream "$n" "$b" "$q")" "$(count bare "$n" "$b" "$q")" ;;
        *) row "$mode N=$n B=$b vs C reference" "$(count "$mode" "$n" "$b")" "$(count reference "$n" "$b")" ;;
    esac
else
    for nb in "128 64" "128 256" "128 1024" "8 256"; do
        set -- $nb
        row "mix N=$1 B=$2 vs C reference" "$(count mix "$1" "$2")" "$(count reference "$1" "$2")"
    done
    for q in sincBest sincMedium sincFastest linear zeroOrderHold; do
        row "stream $q N=8 B=256 vs bare src_process" "$(count stream 8 256 "$q")" "$(count bare 8 256 "$q")"
    done
fi
if [ -n "${KEEP:-}" ]; then echo "callgrind files: $work" >&2; else rm -rf "$work"; fi
