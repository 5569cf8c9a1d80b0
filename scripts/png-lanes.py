#!/usr/bin/env python3
"""Count the lanes of a timeline screenshot (a PNG from a headless browser).

    python3 scripts/png-lanes.py SHOT.png COLUMN NAME=#rrggbb [NAME=#rrggbb ...]

Reads the PNG with the standard library only (zlib), looks at pixel column
COLUMN from top to bottom and counts, for each named colour, the runs of
pixels of that colour (within 8 per channel): a lane's label strip is one
run. Prints one JSON object: {"width", "height", "runs": {NAME: count},
"nonWhite": fraction of pixels that are not white}. Exit status 1 if the
file is not an 8-bit RGB/RGBA PNG.
"""

import json
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = prev[x]
            ul = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                line[x] = (line[x] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        width, height, channels, rows = read_png(sys.argv[1])
    except (OSError, ValueError, zlib.error) as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    column = int(sys.argv[2])
    colours = {}
    for arg in sys.argv[3:]:
        name, hexcode = arg.split("=")
        hexcode = hexcode.lstrip("#")
        colours[name] = tuple(int(hexcode[k:k + 2], 16) for k in (0, 2, 4))
    runs = {name: 0 for name in colours}
    inside = {name: False for name in colours}
    for y in range(height):
        px = rows[y][column * channels:column * channels + 3]
        for name, rgb in colours.items():
            hit = all(abs(px[c] - rgb[c]) <= 8 for c in range(3))
            if hit and not inside[name]:
                runs[name] += 1
            inside[name] = hit
    non_white = 0
    for row in rows:
        for x in range(0, width * channels, channels):
            if row[x] < 245 or row[x + 1] < 245 or row[x + 2] < 245:
                non_white += 1
    print(json.dumps({"width": width, "height": height, "runs": runs,
                      "nonWhite": round(non_white / (width * height), 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
