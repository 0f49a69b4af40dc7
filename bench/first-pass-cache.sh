#!/bin/sh
# What the kept first pass saves a sweep's resume or Slurm task: one point of
# a sweep on a halo-exchange trace (ts-tracegen stencil), run with the first
# pass computed (no cache) and read from OUT/inputs/first-pass.cache,
# alternately, RUNS times each. It prints the best wall time of each and
# their difference, which is what the cache saves each task or resume.
# Run it on a quiet machine (no build beside it).
#
# Usage: bench/first-pass-cache.sh   Environment: BUILD (default .),
#   RANKS (64), ITERATIONS (3000), RUNS (3), WORK (scratch dir).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
RANKS=${RANKS:-64}
ITERATIONS=${ITERATIONS:-3000}
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-bench.XXXXXX)}
cd "$WORK"
rm -rf tr out
"$BUILD/ts-tracegen" stencil -o tr --ranks "$RANKS" --iterations "$ITERATIONS" > /dev/null
printf '[region:compute_kernel]\nscale = ${f}\n' > k.hyp.in
printf '[sweep]\ntrace = tr/traces.otf2\nhypothesis = k.hyp.in\n[parameters]\nf = 0.5\n' > s.sweep
now() { date +%s.%N; }
timed() { t0=$(now); "$BUILD/tracesim" sweep s.sweep -o out -j 1 -q > /dev/null; echo "$(now) - $t0" | bc; }
computed=""; read_back=""
i=0
while [ $i -lt "$RUNS" ]; do
  rm -rf out
  computed="$computed $(timed)"
  rm out/points/p0000.key
  read_back="$read_back $(timed)"
  i=$((i + 1))
done
best() { for v in "$@"; do echo "$v"; done | sort -g | head -1; }
c=$(best $computed); r=$(best $read_back)
size=$(stat -c %s out/inputs/first-pass.cache)
trace=$(du -sb tr | cut -f1)
printf 'ranks %s, %s iterations: trace %s bytes, cache %s bytes\n' "$RANKS" "$ITERATIONS" "$trace" "$size"
printf 'one point, first pass computed: %.2f s; read from the cache: %.2f s; saved %.2f s (%.2fx)\n' \
  "$c" "$r" "$(echo "$c - $r" | bc)" "$(echo "$c / $r" | bc -l)"
