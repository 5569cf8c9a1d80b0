#!/usr/bin/env python3
"""Rewrites tutti/constants.py from include/tutti.h: every `#define TUTTI_X NUMBER` and every
enum value `TUTTI_X = N`, in header order, plus the expression macros written by hand below.

    python3 bindings/python/tools/update_constants.py [path/to/tutti.h]

Run it when the header gains constants (tests/test_constants.py fails and names them); new
enum values also need a member in the matching enum class of tutti/_api.py (the same test
names the class).
"""

import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
HEADER = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "include" / "tutti.h"
TARGET = HERE.parent / "tutti" / "constants.py"

HEAD = '''"""Every numeric constant of include/tutti.h, under its C name.

The header's constants are macros and anonymous enums, which ctypes and cffi cannot read;
they are copied here (by tools/update_constants.py), and ``tests/test_constants.py`` parses
the header and fails when a value differs or a constant is missing. The enum classes of
``tutti`` (``Category``, ``EventType``, ...) are built from these values.
"""

'''

TAIL = '''
# Macros that are expressions, not numbers.
#: ``at`` for "the first frame of the next block rendered" (``(tutti_frame)-1``).
TUTTI_NOW = -1
#: ``TUTTI_VERSION_MAJOR << 16 | TUTTI_VERSION_MINOR << 8 | TUTTI_VERSION_PATCH``.
TUTTI_VERSION = (TUTTI_VERSION_MAJOR << 16) | (TUTTI_VERSION_MINOR << 8) | TUTTI_VERSION_PATCH


def TUTTI_REMOTE_COMMAND_BIT(command: int) -> int:
    """The bit of a remote command in a session's remote-command mask (``1 << command``)."""
    return 1 << int(command)
'''


def main() -> None:
    text = HEADER.read_text()
    found = [(m.start(), m.group(1), m.group(2)) for m in re.finditer(r"^#define (TUTTI_\w+) (0x[0-9A-Fa-f]+|\d+)u?\b", text, re.M)]
    for body in re.finditer(r"enum\s*\{(.*?)\}", text, re.S):
        stripped = re.sub(r"/\*.*?\*/", lambda c: " " * len(c.group(0)), body.group(1), flags=re.S)
        for m in re.finditer(r"\b(TUTTI_[A-Z0-9_]+)\s*=\s*(-?\d+)", stripped):
            found.append((body.start(1) + m.start(), m.group(1), m.group(2)))
    found.sort()
    TARGET.write_text(HEAD + "".join(f"{name} = {value}\n" for _, name, value in found) + TAIL)
    print(f"{TARGET}: {len(found)} constants from {HEADER}")


if __name__ == "__main__":
    main()
