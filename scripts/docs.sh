#!/usr/bin/env bash
# Builds the DocC documentation (catalog Sources/Tutti/Tutti.docc) without the SwiftPM plugin,
# prints its coverage, and fails when it falls short:
#   - any warning or error from docc (an unresolved ``link`` in the catalog or in a `///`
#     comment, a bad topic group, ...);
#   - fewer than 95 % of the public members with an abstract (the issue's measure: docc's
#     experimental coverage, "Members" row).
#
#   scripts/docs.sh [OUTPUT]    # default .build-docs/Tutti.doccarchive; scripts/test.sh runs it
#
# The symbol graphs come from the compiler while it builds `Tutti` in its own folder
# (.build-docs; the flags differ from the test build's, so sharing .build would rebuild it).
# Tutti's graph holds the types it re-exports one by one from TuttiEngine, TuttiPolicy, TuttiDSP and
# TuttiOutput (Sources/Tutti/Exports.swift: one page tree, as a host sees `import Tutti`); the backends
# TuttiALSA, TuttiJACK and TuttiPipeWire get their own.
# `swift package dump-symbol-graph` is not used: it builds every target, exits non-zero on the
# test-discovery module, keeps the re-exports out of Tutti's graph and counts the standard
# library's text as the abstract of every `init(rawValue:)`.
# `--enable-inherited-docs`: without it docc drops the comments of re-exported members that
# implement a protocol requirement (`description`, `==`) as "inherited".
# docc checks no link in the comments of re-exported modules (to it they are another module's
# text), so a second, catalog-less run over TuttiEngine, TuttiPolicy and TuttiDSP's own graphs
# does only that, TuttiOutput's included (a link from one of them to another must then name the module:
# ``TuttiPolicy/PolicyState``).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build-docs/Tutti.doccarchive}
scratch=.build-docs
graphs="$PWD/$scratch/symbol-graphs"   # the compiler writes a module's graph when it compiles it
modules=(Tutti TuttiALSA TuttiJACK TuttiPipeWire)
minimum=95
start=$SECONDS

# A module is compiled (and its graph written) only when it changed: a graph missing next to
# an up-to-date build means the folder was tampered with, so start that build from scratch.
for m in "${modules[@]}"; do
  if [ -d "$scratch" ] && [ ! -f "$graphs/$m.symbols.json" ]; then rm -rf "$scratch"; break; fi
done
mkdir -p "$graphs"
log="$scratch/build.log"
if ! swift build --target Tutti --scratch-path "$scratch" \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
  -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
  -Xswiftc -symbol-graph-skip-synthesized-members >"$log" 2>&1; then
  cat "$log" >&2
  echo "docs: swift build --target Tutti failed" >&2
  exit 1
fi

# Only our modules: the graphs of other packages' modules and of the re-exported modules
# on their own (already inside Tutti's) stay out.
input="$scratch/docc-input"
rm -rf "$input" "$out"
mkdir -p "$input"
for m in "${modules[@]}"; do
  cp "$graphs/$m.symbols.json" "$input/"
  for extension in "$graphs/$m"@*.symbols.json; do [ -e "$extension" ] && cp "$extension" "$input/"; done
done

diagnostics="$scratch/docc-diagnostics.json"
status=0
docc convert Sources/Tutti/Tutti.docc --additional-symbol-graph-dir "$input" --output-path "$out" \
  --enable-inherited-docs --experimental-documentation-coverage --coverage-summary-level brief \
  --diagnostics-file "$diagnostics" || status=$?

# The links in the re-exported modules' comments (see above); its output is thrown away.
reexported="$scratch/docc-reexported"
rm -rf "$reexported" "$scratch/docc-reexported.out"
mkdir -p "$reexported"
cp "$graphs"/{TuttiEngine,TuttiPolicy,TuttiDSP,TuttiOutput}.symbols.json "$reexported/"
docc convert --additional-symbol-graph-dir "$reexported" --output-path "$scratch/docc-reexported.out" \
  --fallback-display-name Tutti --fallback-bundle-identifier tutti \
  --diagnostics-file "$scratch/docc-reexported-diagnostics.json" >/dev/null 2>&1 || status=$?

python3 - "$out/documentation-coverage.json" "$minimum" "$status" "$diagnostics" "$scratch/docc-reexported-diagnostics.json" <<'EOF'
import collections, json, sys
coverage_path, minimum, status = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
failed = status != 0
if failed:
    print(f"docs: docc convert exited with {status}")

diagnostics = []
for path in sys.argv[4:]:
    try:
        diagnostics += json.load(open(path))["diagnostics"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"docs: cannot read docc's diagnostics ({path}): {e}")
serious = [d for d in diagnostics if d.get("severity") in ("warning", "error")]
for d in serious:
    source = d.get("source", "?").replace("file://", "")
    line = d.get("range", {}).get("start", {}).get("line", "?")
    print(f"docs: {d['severity']}: {source}:{line}: {d.get('summary', '')}")
if serious:
    failed = True

# docc's rows: these kinds make "Types" and "Members" of its brief summary.
types = {"Class", "Structure", "Enumeration", "Protocol", "Type Alias", "Actor"}
members = {"Enumeration Case", "Initializer", "Instance Method", "Instance Property",
           "Instance Subscript", "Type Method", "Type Property", "Type Subscript"}
try:
    entries = json.load(open(coverage_path))
except (OSError, ValueError) as e:
    sys.exit(f"docs: cannot read the coverage ({coverage_path}): {e}")
rows = collections.defaultdict(lambda: [0, 0])  # (module, row) -> [with abstract, all]
undocumented = []
for e in entries:
    kind = e["kind"]["name"]
    row = "types" if kind in types else "members" if kind in members else None
    if row is None:
        continue
    path = e["referencePath"].split("/documentation/", 1)[-1]
    module = path.split("/")[0]
    for key in ((module, row), ("all", row)):
        rows[key][0] += e["hasAbstract"]
        rows[key][1] += 1
    if not e["hasAbstract"]:
        undocumented.append(path)
print("docs: abstracts per module (types, members)")
for module in sorted({m for m, _ in rows if m != "all"}):
    cells = []
    for row in ("types", "members"):
        have, total = rows[(module, row)]
        cells.append(f"{row} {have}/{total}")
    print(f"  {module:10} " + ", ".join(cells))
have, total = rows[("all", "members")]
if total == 0:
    sys.exit("docs: the coverage lists no members (has docc's format changed?)")
share = 100.0 * have / total
print(f"docs: members with an abstract: {have}/{total} = {share:.1f} % (minimum {minimum:g} %)")
if share < minimum:
    failed = True
    print("docs: without an abstract:")
    for path in sorted(undocumented):
        print(f"  {path}")
sys.exit(1 if failed else 0)
EOF
echo "docs: $out ($((SECONDS - start)) s)"
