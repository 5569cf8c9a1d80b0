#!/usr/bin/env bash
# The function tables opened at run time (Sources/TuttiALSA/ALSAFunctions.swift,
# Sources/TuttiJACK/JACKFunctions.swift) give each dlsym'd function a hand-written
# @convention(c) type: nothing links the C function, so no compiler compares the two. This
# script does: for every `NAME = try library.function("SYMBOL")` of a table (JACK's:
# `NAME = try jack("SUFFIX")`, the symbol `jack_SUFFIX`) it writes
# `let _: <NAME's type> = SYMBOL` and type-checks the file against the C headers (the CALSA and
# CJACK module maps; `swiftc -typecheck` links nothing). Any difference is a compile error
# naming the symbol. About a second; Tests/TuttiALSATests/LibraryLoadingTests.swift runs it.
#
#   scripts/check-function-tables.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/tutti-tables.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$work/check.swift" <<'PY'
import re, sys
tables = [
    ("Sources/TuttiJACK/JACKFunctions.swift", "CJACK",
     {"Client": "OpaquePointer", "Port": "OpaquePointer",
      "MessageFunction": "(@convention(c) (UnsafePointer<CChar>?) -> Void)"}),
    ("Sources/TuttiALSA/ALSAFunctions.swift", "CALSA", {"PCM": "OpaquePointer", "Frames": "snd_pcm_uframes_t"}),
]
lines = ["import Glibc"]
for path, module, aliases in tables:
    text = open(path).read()
    types = {m.group(1): " ".join(m.group(2).split())
             for m in re.finditer(r"public var (\w+):\s*((?:.|\n)*?)\n\s*(?=///|//|public|$)", text)}
    symbols = re.findall(r'(\w+) = try library\.function\("(\w+)"\)', text)
    # JACK's table names each field's symbol through `jack("NAME")`: `jack_NAME`.
    symbols += [(field, "jack_" + name) for field, name in re.findall(r'(\w+) = try jack\("(\w+)"\)', text)]
    if not symbols:
        sys.exit(f"check-function-tables: no `try library.function` in {path}")
    lines.append(f"import {module}")
    for field, symbol in symbols:
        t = types[field]
        for alias, real in aliases.items():
            t = re.sub(r"\b" + alias + r"\b", real, t)
        lines.append(f"let check_{symbol}: {t} = {symbol}")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
n=$(grep -c "^let check_" "$work/check.swift")
swiftc -typecheck -I Sources/CJACK -I Sources/CALSA "$work/check.swift"
echo "check-function-tables: $n functions, each the type of its C declaration"
