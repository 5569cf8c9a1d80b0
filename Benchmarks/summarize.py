#!/usr/bin/env python3
"""Summarize a benchmark run into the tables of docs/performance.md.

    cd Benchmarks
    swift package --allow-writing-to-directory results benchmark --no-progress \
        --format jmh --path results
    python3 summarize.py results/Current_run.jmh.json

Reads JMH exports of `swift package benchmark` (every target; several files = several runs,
each figure is then the median of the runs' figures) and prints, in Markdown:
the mix-only table (engine vs the C -O3 reference and the C -O3 -march=native one, N x B), the fixed cost per source per
block (a straight-line fit of the per-block time against B), the moving-ramps cost, real-time
resampling vs bare src_process, file conversion per quality, the malloc count and the offline
render speed. Times are
wall-clock medians (p50) per block unless a column says otherwise.
"""
import json
import re
import sys

UNIT_NS = {"ns": 1.0, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(paths):
    """name -> [entry per run]: several runs (files) are summarized by their median."""
    results = {}
    for path in paths:
        with open(path) as f:
            for entry in json.load(f):
                name = entry["benchmark"].split(".", 3)[-1].replace("_", " ")
                results.setdefault(name, []).append(entry)
    return results


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def metric(entries, title):
    """The metric in each run that has it."""
    return [e["secondaryMetrics"][title] for e in entries if title in e["secondaryMetrics"]]


def time_ns(entries, percentile="50.0", title="Time (wall clock)"):
    """A time metric's percentile in ns, median over runs (custom metrics are in ns, unit "#")."""
    ms = metric(entries, title)
    if not ms:
        return None
    return median([m["scorePercentiles"][percentile] * UNIT_NS.get(m["scoreUnit"], 1.0) for m in ms])


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    r = load(sys.argv[1:])

    def find(pattern):
        return {m.groups(): e for name, e in r.items() if (m := re.fullmatch(pattern, name))}

    mix = find(r"Mix N=(\d+) B=(\d+)")

    def eng(key, p="50.0"):
        return time_ns(mix[key], p, "engine (ns)")

    def ref(key, p="50.0"):
        return time_ns(mix[key], p, "C -O3 reference (ns)")

    def nat(key, p="50.0"):
        return time_ns(mix[key], p, "C native reference (ns)")

    if mix:
        print("### Mix-only render vs the C references (p50 per block, engine and references in the same samples)\n")
        print("| N | B | engine | engine p99 | C -O3 (baseline) | C -O3 -march=native | engine / native "
              "| engine / baseline | engine ns per source-frame | native ns per source-frame | deadline used at p99 |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for key in sorted(mix, key=lambda k: (int(k[0]), int(k[1]))):
            n, b = int(key[0]), int(key[1])
            e, e99, c, a = eng(key), eng(key, "99.0"), ref(key), nat(key)
            sf = n * b
            deadline = b / 48000 * 1e9
            print(f"| {n} | {b} | {e / 1000:.2f} µs | {e99 / 1000:.2f} µs | {c / 1000:.2f} µs | {a / 1000:.2f} µs | "
                  f"**{e / a:.2f}×** | {e / c:.2f}× | {e / sf:.3f} | {a / sf:.3f} | {e99 / deadline * 100:.2f} % |")
        print()
        print("### Fixed cost per source per block\n")
        print("Straight line through the per-source time per block against B (B = 64, 256, 1024): "
              "the intercept is what a source costs whatever the block size, the slope what each "
              "frame costs; the last column is (engine − reference) / N at B = 256.\n")
        print("| N | engine: fixed ns per source per block | engine: ns per source-frame (slope) "
              "| reference: fixed | reference: slope | engine − reference at B=256, ns per source |")
        print("|---:|---:|---:|---:|---:|---:|")
        for n in sorted({int(k[0]) for k in mix}):
            bs = sorted(int(k[1]) for k in mix if int(k[0]) == n)
            if len(bs) < 2:
                continue
            a, s = fit(bs, [eng((str(n), str(b))) / n for b in bs])
            ra, rs = fit(bs, [ref((str(n), str(b))) / n for b in bs])
            k = (str(n), "256")
            over = f"{(eng(k) - ref(k)) / n:.1f}" if k in mix else "–"
            print(f"| {n} | {a:.1f} | {s:.3f} | {ra:.1f} | {rs:.3f} | {over} |")
        print()

    moving = find(r"Moving N=(\d+) B=(\d+)")
    if moving:
        print("### Every gain stage ramping (per-frame paths; settled = the Mix row, other samples)\n")
        print("| N | B | moving p50 | moving p99 | settled p50 | moving / settled |")
        print("|---:|---:|---:|---:|---:|---:|")
        for key in sorted(moving, key=lambda k: int(k[0])):
            m, m99 = time_ns(moving[key]), time_ns(moving[key], "99.0")
            s = eng(key) if key in mix else None
            print(f"| {key[0]} | {key[1]} | {m / 1000:.2f} µs | {m99 / 1000:.2f} µs | "
                  + (f"{s / 1000:.2f} µs | {m / s:.2f}× |" if s else "– | – |"))
        print()

    stream = find(r"Stream (\w+) N=(\d+) B=(\d+)")
    if stream:
        print("### Real-time resampling 44.1 → 48 kHz: engine stream sources vs bare src_process "
              "(p50 per block, interleaved)\n")
        print("| quality | N | B | engine | bare src_process | engine / bare | engine ns per source-frame "
              "| bare ns per source-frame | engine − bare per source per block | deadline used at p99 |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        order = ["sincBest", "sincMedium", "sincFastest", "linear", "zeroOrderHold"]
        for key in sorted(stream, key=lambda k: (order.index(k[0]) if k[0] in order else 9, int(k[1]))):
            q, n, b = key[0], int(key[1]), int(key[2])
            e = time_ns(stream[key], "50.0", "engine (ns)")
            e99 = time_ns(stream[key], "99.0", "engine (ns)")
            x = time_ns(stream[key], "50.0", "bare src_process (ns)")
            sf = n * b
            print(f"| {q} | {n} | {b} | {e / 1000:.1f} µs | {x / 1000:.1f} µs | {e / x:.3f}× | "
                  f"{e / sf:.2f} | {x / sf:.2f} | {(e - x) / n:.0f} ns | "
                  f"{e99 / (b / 48000 * 1e9) * 100:.1f} % |")
        print()

    convert = find(r"Convert (\w+)")
    if convert:
        print("### File conversion 44.1 → 48 kHz, stereo (resampleBuffer = ChunkedResampler; 1 s per sample)\n")
        print("| quality | ns per output frame (p50) | × real time |")
        print("|---|---:|---:|")
        for key in sorted(convert, key=lambda k: time_ns(convert[k])):
            t = time_ns(convert[key])
            print(f"| {key[0]} | {t / 48000:.1f} | {1e9 / t:.0f}× |")
        print()

    for name, e in r.items():
        if name.startswith("ZeroMalloc"):
            ms = metric(e, "Malloc (total)")
            print(f"### Mallocs per render\n\n{name}: mallocs per sample (50 blocks): "
                  f"max {max(m['scorePercentiles']['100.0'] for m in ms)} over "
                  f"{sum(len(m['rawData'][0]) for m in ms)} samples ({len(ms)} runs)\n")

    for name, e in r.items():
        if name.startswith("Offline"):
            xs = metric(e, "x real time")
            if xs:
                raw = [v for x in xs for v in x["rawData"][0]]
                print(f"### {name}\n\n× real time: p50 {median([x['scorePercentiles']['50.0'] for x in xs])} "
                      f"(median of {len(xs)} runs), best sample {max(raw)}, worst {min(raw)}, "
                      f"wall p50 {time_ns(e) / 1e6:.1f} ms\n")


if __name__ == "__main__":
    main()
