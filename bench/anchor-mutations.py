#!/usr/bin/env python3
"""Random byte changes in a file of an OTF2 archive (the anchor file unless
FILE names another: traces.def, traces/0.def, traces/0.evt): how many make
`tracesim info` slow (> 2 s), large (> 300 MB) or die by a signal. Usage:
  BUILD=. python3 bench/anchor-mutations.py SEED [N] [FILE]   (default N = 150)
The trace is a 4-rank ts-tracegen stencil written to a scratch directory."""
import os, random, shutil, subprocess, sys, tempfile, time

build = os.environ.get("BUILD", ".")
seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
count = int(sys.argv[2]) if len(sys.argv) > 2 else 150
target = sys.argv[3] if len(sys.argv) > 3 else "traces.otf2"
random.seed(seed)
work = tempfile.mkdtemp(prefix="ts-anchor-")
src = os.path.join(work, "trace")
subprocess.run([os.path.join(build, "ts-tracegen"), "stencil", "-o", src, "--ranks", "4",
                "--iterations", "20"], check=True, stdout=subprocess.DEVNULL)
orig = open(os.path.join(src, target), "rb").read()
bad = []
for k in range(count):
    m = os.path.join(work, "m")
    shutil.rmtree(m, ignore_errors=True)
    shutil.copytree(src, m)
    b = bytearray(orig)
    for _ in range(random.randint(1, 4)):
        b[random.randrange(len(b))] = random.randrange(256)
    open(os.path.join(m, target), "wb").write(b)
    t = time.time()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", os.path.join(build, "tracesim"), "info",
                            os.path.join(m, "traces.otf2")], capture_output=True, timeout=10)
        rc, kib = p.returncode, int(p.stderr.decode(errors="replace").strip().split("\n")[-1])
    except subprocess.TimeoutExpired:
        rc, kib = "timeout", -1
    dt = time.time() - t
    if rc not in (0, 1) or dt > 2 or kib > 300000:
        bad.append((k, rc, round(dt, 2), kib))
shutil.rmtree(work)
print(f"{len(bad)} of {count} mutations slow, large or killed: {bad}")
