#!/usr/bin/env python3
"""README.md's code examples are files of examples/, quoted verbatim.

A fenced block right after a line `<!-- snippet: PATH -->` must equal the file PATH (the
test script builds and runs those files, so the README's examples compile and work).

    scripts/readme-snippets.py check     # exit 1 naming each block that differs
    scripts/readme-snippets.py update    # rewrite those blocks from the files
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = root / "README.md"
pattern = re.compile(r"(<!-- snippet: (?P<path>[^ ]+) -->\n```(?P<lang>\w*)\n)(?P<body>.*?)(```\n)", re.S)


def main(mode: str) -> int:
    text = readme.read_text()
    found = list(pattern.finditer(text))
    if not found:
        print("readme-snippets: README.md quotes no example (<!-- snippet: PATH --> before a fenced block)", file=sys.stderr)
        return 1
    stale = []
    for m in found:
        source = (root / m["path"]).read_text()
        if m["body"] != source:
            stale.append(m["path"])
    if mode == "update":
        text = pattern.sub(lambda m: m[1] + (root / m["path"]).read_text() + m[5], text)
        readme.write_text(text)
        print(f"readme-snippets: {len(found)} blocks written")
        return 0
    for path in stale:
        print(f"readme-snippets: README.md's block of {path} differs from the file (scripts/readme-snippets.py update)", file=sys.stderr)
    if not stale:
        print(f"readme-snippets: {len(found)} README blocks equal their example files ({', '.join(m['path'] for m in found)})")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "check"))
