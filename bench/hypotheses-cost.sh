#!/bin/sh
# What applying hypotheses costs: the bench workload (the generator's halo
# exchange) replayed without and with hypotheses, best of RUNS wall times.
# `scale` rewrites bursts as they stream; `balance` also reads the actions
# once more before the replay.
#
# Usage: bench/hypotheses-cost.sh   Environment: BUILD, RANKS (64), ITERS (2000), RUNS (5).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
RANKS=${RANKS:-64}
ITERS=${ITERS:-2000}
RUNS=${RUNS:-5}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-hypcost.XXXXXX)}
"$BUILD/ts-tracegen" stencil -o "$WORK/t" --ranks "$RANKS" --iterations "$ITERS" > /dev/null
"$BUILD/tracesim" calibrate "$WORK/t/traces.otf2" -o "$WORK/p.xml" > /dev/null
printf '[region:compute_kernel]\nscale = 0.5\n' > "$WORK/scale.hyp"
printf '[region:compute_kernel]\nbalance = mean\n' > "$WORK/balance.hyp"
best() {
  b=
  i=0
  while [ $i -lt "$RUNS" ]; do
    "$BUILD/tracesim" run "$WORK/t/traces.otf2" -p "$WORK/p.xml" -o "$WORK/o" -q "$@"
    w=$(awk -F: '/"wall_s"/ { gsub(/[ ,]/, "", $2); print $2 }' "$WORK/o/summary.json")
    b=$(awk -v a="$b" -v w="$w" 'BEGIN { print (a == "" || w < a) ? w : a }')
    i=$((i + 1))
  done
  echo "$b"
}
none=$(best)
scale=$(best -H "$WORK/scale.hyp")
balance=$(best -H "$WORK/balance.hyp")
awk -v n="$none" -v s="$scale" -v b="$balance" -v r="$RANKS" -v it="$ITERS" 'BEGIN {
  printf "%d ranks, %d iterations, best of runs (wall_s from summary.json)\n", r, it
  printf "  no hypothesis      %8.3f s\n", n
  printf "  scale = 0.5        %8.3f s   %+6.1f %%\n", s, 100 * (s - n) / n
  printf "  balance = mean     %8.3f s   %+6.1f %%\n", b, 100 * (b - n) / n }'
