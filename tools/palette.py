#!/usr/bin/env python3
"""palette.py: the region colours of output/palette.c, chosen again.

Candidates: the sRGB grid of step 17 (0, 17, ..., 255 a channel) with
CIELAB lightness 30..88 (darker hides the hatches' dark lines, lighter is
near the page), split by CIELAB hue: the MPI band 340..70 degrees with
chroma >= 30 (reds, oranges, pinks, browns), the compute band 100..310
with chroma >= 20 (yellow-greens, greens, cyans, blues, violets). The
first colour of each band the candidate nearest to Vampir's MPI red and
application green, then greedy farthest-point choice, the bands taking
turns: each pick is the candidate
of its band farthest (CIEDE2000, Sharma et al. 2005) from white and every
colour chosen so far, the first in grid order on a tie. Prints the two
tables as C. Run: python3 tools/palette.py (about 10 s)."""
import math


def linear(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lab(rgb):
    r, g, b = (linear(x) for x in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def de2000(p, q):
    (L1, a1, b1), (L2, a2, b2) = p, q
    cb = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cb ** 7 / (cb ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0
    dh = 0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    dH = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    lb, cbp = (L1 + L2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        hb = h1 + h2
    elif abs(h1 - h2) <= 180:
        hb = (h1 + h2) / 2
    else:
        hb = (h1 + h2 + (360 if h1 + h2 < 360 else -360)) / 2
    t = (1 - 0.17 * math.cos(math.radians(hb - 30)) + 0.24 * math.cos(math.radians(2 * hb))
         + 0.32 * math.cos(math.radians(3 * hb + 6)) - 0.20 * math.cos(math.radians(4 * hb - 63)))
    rc = 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lb - 50) ** 2 / math.sqrt(20 + (lb - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    rt = -math.sin(math.radians(60 * math.exp(-((hb - 275) / 25) ** 2))) * rc
    dl, dc, dhh = (L2 - L1) / sl, (c2 - c1) / sc, dH / sh
    return math.sqrt(dl * dl + dc * dc + dhh * dhh + rt * dc * dhh)


SEEDS = ((221, 34, 34), (34, 153, 68))


def main():
    bands = ([], [])
    for r in range(0, 256, 17):
        for g in range(0, 256, 17):
            for b in range(0, 256, 17):
                L, a, bb = lab((r, g, b))
                c, h = math.hypot(a, bb), math.degrees(math.atan2(bb, a)) % 360
                if not 30 <= L <= 88:
                    continue
                if c >= 30 and (h >= 340 or h < 70):
                    bands[0].append(((r, g, b), (L, a, bb)))
                elif c >= 20 and 100 <= h <= 310:
                    bands[1].append(((r, g, b), (L, a, bb)))
    chosen, tables, least = [lab((255, 255, 255))], ([], []), 1e9
    for k in range(40):
        best, far = None, -1
        for rgb, l in bands[k % 2]:
            if k < 2:
                # Vampir's MPI red and application green first.
                d = -de2000(l, lab(SEEDS[k]))
            else:
                d = min(de2000(l, c) for c in chosen)
            if d > far:
                best, far = (rgb, l), d
        far = min(de2000(best[1], c) for c in chosen)
        chosen.append(best[1])
        tables[k % 2].append(best[0])
        least = min(least, far)
    for name, t in zip(("mpi", "compute"), tables):
        print("static const char *const %s_colours[TS_PALETTE_DISTINCT] = {" % name)
        for i in range(0, 20, 5):
            print("  " + " ".join('"#%02x%02x%02x",' % c for c in t[i:i + 5]))
        print("};")
    print("/* smallest difference: %.2f */" % least)


main()
