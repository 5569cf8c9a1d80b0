#!/usr/bin/env bash
# The README's picture: the demo scene's timeline, drawn by `tutti render --plot`.
#
#   scripts/timeline-picture.sh           # regenerate docs/demo-timeline.svg
#   scripts/timeline-picture.sh --check   # regenerate into a temporary folder and compare (CI)
#
# The SVG is deterministic (the same scene gives the same bytes), so the check fails only
# when the engine, the policy, the demo or the drawing changed: regenerate and commit then.
# With a headless browser installed it also writes a PNG next to it (not committed: its
# pixels depend on the browser and the fonts).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product tutti >/dev/null
tutti=$(swift build --product tutti --show-bin-path)/tutti
committed=docs/demo-timeline.svg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tutti" render fixtures/scenes/demo.json -o "$tmp/demo.wav" --plot "$tmp/demo-timeline.svg" --quiet
if [ "${1:-}" = "--check" ]; then
  if cmp -s "$tmp/demo-timeline.svg" "$committed"; then
    echo "timeline picture: $committed is up to date ($(wc -c < "$committed") bytes)"
  else
    echo "timeline picture: $committed differs from what tutti draws now; run scripts/timeline-picture.sh and commit it" >&2
    diff <(tr '>' '\n' < "$committed") <(tr '>' '\n' < "$tmp/demo-timeline.svg") | head -20 >&2 || true
    exit 1
  fi
else
  cp "$tmp/demo-timeline.svg" "$committed"
  echo "wrote $committed ($(wc -c < "$committed") bytes)"
  for browser in chromium-headless-shell chromium; do
    if command -v "$browser" >/dev/null; then
      height=$(grep -o 'height="[0-9]*"' "$committed" | head -1 | grep -o '[0-9]*')
      "$browser" --headless --no-sandbox --hide-scrollbars --screenshot="$tmp/demo-timeline.png" \
        --window-size="1200,$height" "file://$PWD/$committed" >/dev/null 2>&1
      mkdir -p out
      cp "$tmp/demo-timeline.png" out/demo-timeline.png 2>/dev/null && echo "and out/demo-timeline.png (not committed)"
      break
    fi
  done
fi
