#!/usr/bin/env python3
"""png-colours.py PNG MIN_COLOURS MIN_INK: exit 0 when the PNG (8-bit RGB or
RGBA, as chromium writes screenshots) has at least MIN_COLOURS distinct
colours and at least MIN_INK of its pixels are not white: a page that drew
something, not a blank one.
png-colours.py PNG --has RRGGBB --below Y: exit 0 when a pixel of that
colour is at row Y or below (a legend's swatch under a figure's axis).
The standard library only (zlib, struct)."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                sys.exit("%s: not 8-bit RGB(A)" % path)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * bpp
    previous = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + a) & 255
            elif kind == 2:
                row[i] = (row[i] + b) & 255
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        previous = row
        for x in range(0, stride, bpp):
            yield y, bytes(row[x:x + 3])


def has(path, colour, below):
    want = bytes.fromhex(colour)
    rows = sum(1 for y, p in pixels(path) if y >= below and p == want)
    print("%s: %d pixels of #%s at row %d or below" % (path, rows, colour, below))
    sys.exit(0 if rows else 1)


def main():
    if len(sys.argv) == 6 and sys.argv[2] == "--has" and sys.argv[4] == "--below":
        has(sys.argv[1], sys.argv[3], int(sys.argv[5]))
    path, least, ink = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    colours, total, inked = set(), 0, 0
    for _, p in pixels(path):
        total += 1
        if p != b"\xff\xff\xff":
            inked += 1
        if len(colours) < 4096:
            colours.add(p)
    print("%s: %d colours, %.1f%% not white" % (path, len(colours), 100.0 * inked / max(total, 1)))
    sys.exit(0 if len(colours) >= least and inked >= ink * total else 1)


main()
