#!/bin/sh
# Trace reading cost and memory, measured in one run.
#
# 1. Reading: for the generator's halo workload at RANKS ranks, the median
#    wall time of OTF2 alone decoding every event (bench/ts-bare-read), of
#    `tracesim info` (tracesim's streaming first pass: conversion to actions,
#    clock alignment, call costs) and of `tracesim run`, and their ratios.
# 2. Memory: peak RSS of `tracesim run` (summary.json's max_rss_kib) when the
#    trace grows 10x at fixed ranks; it must stay flat (within 20 %).
#
# Usage: bench/read-and-memory.sh   Environment: BUILD (default .), RANKS
# (default 64), ITERS (default 1000), RUNS (default 3), WORK.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
RANKS=${RANKS:-64}
ITERS=${ITERS:-1000}
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-read.XXXXXX)}

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() {  # RUNS times COMMAND..., prints the median wall seconds
  : > "$WORK/times"
  i=0
  while [ $i -lt "$RUNS" ]; do
    t0=$(now); "$@" > /dev/null; t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$WORK/times"
    i=$((i + 1))
  done
  median < "$WORK/times"
}
rss() { awk -F: '/"max_rss_kib"/ { gsub(/[^0-9]/, "", $2); print $2 }' "$1/summary.json"; }

echo "== reading ($RANKS ranks, $ITERS iterations)"
"$BUILD/ts-tracegen" stencil -o "$WORK/t1" --ranks "$RANKS" --iterations "$ITERS" > /dev/null
"$BUILD/tracesim" calibrate "$WORK/t1/traces.otf2" -o "$WORK/platform.xml" > /dev/null
bare=$(timed "$BUILD/bench/ts-bare-read" "$WORK/t1/traces.otf2")
info=$(timed "$BUILD/tracesim" info "$WORK/t1/traces.otf2")
run=$(timed "$BUILD/tracesim" run "$WORK/t1/traces.otf2" -p "$WORK/platform.xml" -o "$WORK/o1" -q)
events=$("$BUILD/bench/ts-bare-read" "$WORK/t1/traces.otf2" | awk '{ print $1 }')
awk -v e="$events" -v b="$bare" -v i="$info" -v r="$run" 'BEGIN {
  printf "%-28s %9s %12s %8s\n", "", "wall_s", "events/s", "x bare"
  printf "%-28s %9.3f %12.0f %8.2f\n", "OTF2 decode only", b, e / b, 1
  printf "%-28s %9.3f %12.0f %8.2f\n", "tracesim info (first pass)", i, e / i, i / b
  printf "%-28s %9.3f %12.0f %8.2f\n", "tracesim run (whole replay)", r, e / r, r / b }'

echo "== memory ($RANKS ranks, trace x1 and x10)"
"$BUILD/ts-tracegen" stencil -o "$WORK/t10" --ranks "$RANKS" --iterations $((ITERS * 10)) > /dev/null
"$BUILD/tracesim" run "$WORK/t10/traces.otf2" -p "$WORK/platform.xml" -o "$WORK/o10" -q
r1=$(rss "$WORK/o1"); r10=$(rss "$WORK/o10")
awk -v a="$r1" -v b="$r10" -v n="$ITERS" 'BEGIN {
  printf "%10d iterations: peak RSS %8.1f MiB\n", n, a / 1024
  printf "%10d iterations: peak RSS %8.1f MiB   (x%.2f for 10x the trace)\n", n * 10, b / 1024, b / a }'
echo "work files: $WORK"
