#!/bin/sh
# Wait-state analysis cost against trace length: `tracesim waitstates` on the
# bench workload at RANKS ranks, ITERS and 10 x ITERS iterations (10x the
# events), best of RUNS wall times each. Linear: the ratio stays near 10.
#
# Usage: bench/waitstates-cost.sh   Environment: BUILD, RANKS (64), ITERS (500), RUNS (3).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
RANKS=${RANKS:-64}
ITERS=${ITERS:-500}
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-wscost.XXXXXX)}
best() {
  b=
  i=0
  while [ $i -lt "$RUNS" ]; do
    t0=$(date +%s.%N)
    "$BUILD/tracesim" waitstates "$1" > /dev/null
    t1=$(date +%s.%N)
    b=$(awk -v a="$b" -v t0="$t0" -v t1="$t1" 'BEGIN { w = t1 - t0; print (a == "" || w < a) ? w : a }')
    i=$((i + 1))
  done
  echo "$b"
}
for k in 1 10; do
  "$BUILD/ts-tracegen" stencil -o "$WORK/t$k" --ranks "$RANKS" --iterations $((ITERS * k)) > /dev/null
done
e1=$("$BUILD/bench/ts-bare-read" "$WORK/t1/traces.otf2" | awk '{ print $1 }')
e10=$("$BUILD/bench/ts-bare-read" "$WORK/t10/traces.otf2" | awk '{ print $1 }')
w1=$(best "$WORK/t1/traces.otf2")
w10=$(best "$WORK/t10/traces.otf2")
awk -v e1="$e1" -v e10="$e10" -v w1="$w1" -v w10="$w10" 'BEGIN {
  printf "%10d events: %8.3f s\n", e1, w1
  printf "%10d events: %8.3f s   (x%.2f events -> x%.2f time)\n", e10, w10, e10 / e1, w10 / w1 }'
