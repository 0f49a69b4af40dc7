#!/bin/sh
# tracesim vs SimGrid's own smpireplaymain on the same workload, in one run.
#
# For each rank count, the repo's generator writes a halo-exchange trace
# (compute, irecv left, isend right, waitall, an allreduce every 10 iterations)
# sized to about ACTIONS SimGrid actions; `tracesim convert --to ti` feeds it to
# smpirun -replay. Both replay it on the same cluster platform (written by
# `tracesim calibrate`), with the same network model (CM02, no cross-traffic)
# and the same allreduce algorithm (recursive doubling). tracesim runs with
# --no-wait-states: smpireplaymain replays and nothing else, so the replays
# are compared (the wait-state analysis is bench/waitstates-cost.sh's). Each side runs RUNS
# times; the best wall time of the whole command is reported (the least
# disturbed by other load).
#
# tracesim is linked with tcmalloc when configure finds it, and SimGrid's
# allocations are a good part of any replay's time. For a like-for-like view
# the script also runs smpireplaymain with that allocator preloaded, and
# prints that ratio too (ratio_alloc; "-" when tracesim uses glibc malloc).
#
# Usage: bench/vs-smpireplay.sh [RANKS...]   (default: 16 64 256 1024)
# Environment: BUILD (dir with tracesim and ts-tracegen, default .),
#              ACTIONS (default 1000000), RUNS (default 3), WORK (scratch dir).
# Run it on a quiet machine: nothing else (no build) beside it.
set -eu
BUILD=${BUILD:-.}
ACTIONS=${ACTIONS:-1000000}
RUNS=${RUNS:-3}
SMPIRUN=${SMPIRUN:-smpirun}
REPLAYMAIN=${REPLAYMAIN:-/usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-bench.XXXXXX)}
TRACESIM=$(cd "$BUILD" && pwd)/tracesim
TRACEGEN=$(cd "$BUILD" && pwd)/ts-tracegen
[ $# -gt 0 ] || set -- 16 64 256 1024

now() { date +%s.%N; }
ALLOC=$(ldd "$TRACESIM" | awk '/tcmalloc/ { print $3; exit }')
best() { sort -g | head -1; }

printf '%6s %6s %9s | %9s %9s %7s | %9s %7s | %12s %12s %7s | %10s %10s\n' \
  ranks iters ti_acts ts_wall_s smpi_wall_s ratio smpi_alloc ratio_alloc ts_sim_s smpi_sim_s diff_% \
  ts_act/s smpi_act/s
for n in "$@"; do
  # The TI trace has 5 actions per rank and iteration (compute, irecv,
  # compute for the call cost, isend, waitall) plus the allreduces.
  iters=$((ACTIONS / (5 * n)))
  [ "$iters" -ge 10 ] || iters=10
  d=$WORK/n$n
  rm -rf "$d"; mkdir -p "$d"
  "$TRACEGEN" stencil -o "$d/trace" --ranks "$n" --iterations "$iters" >/dev/null
  "$TRACESIM" calibrate "$d/trace/traces.otf2" -o "$d/platform.xml" >/dev/null
  "$TRACESIM" convert "$d/trace/traces.otf2" --to ti -o "$d/ti" -q
  i=0; : > "$d/ti/hosts"
  while [ $i -lt "$n" ]; do echo "node-$i" >> "$d/ti/hosts"; i=$((i + 1)); done
  ti_actions=$(cat "$d"/ti/ranks/*.txt | wc -l)

  : > "$d/ts.times"; : > "$d/smpi.times"; : > "$d/smpi-alloc.times"
  r=0
  while [ $r -lt "$RUNS" ]; do
    t0=$(now)
    "$TRACESIM" run "$d/trace/traces.otf2" -p "$d/platform.xml" -o "$d/out" -q --no-wait-states
    t1=$(now)
    (cd "$d/ti" && "$SMPIRUN" -np "$n" -platform ../platform.xml -hostfile hosts \
       -replay traces.txt --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
       --cfg=smpi/allreduce:rdb --log=root.thres:warning --log=smpi_replay.thres:info \
       "$REPLAYMAIN" > ../smpi.log 2>&1)
    t2=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$d/ts.times"
    awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }' >> "$d/smpi.times"
    if [ -n "$ALLOC" ]; then
      t2=$(now)
      (cd "$d/ti" && LD_PRELOAD=$ALLOC "$SMPIRUN" -np "$n" -platform ../platform.xml -hostfile hosts \
         -replay traces.txt --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
         --cfg=smpi/allreduce:rdb --log=root.thres:warning \
         "$REPLAYMAIN" > /dev/null 2>&1)
      t3=$(now)
      awk -v a="$t2" -v b="$t3" 'BEGIN { print b - a }' >> "$d/smpi-alloc.times"
    fi
    r=$((r + 1))
  done
  ts_wall=$(best < "$d/ts.times")
  smpi_wall=$(best < "$d/smpi.times")
  smpi_alloc=$(best < "$d/smpi-alloc.times")
  ts_sim=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["predicted"]["runtime_s"])' "$d/out/summary.json")
  smpi_sim=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$d/smpi.log")
  awk -v n="$n" -v it="$iters" -v a="$ti_actions" -v tw="$ts_wall" -v sw="$smpi_wall" \
      -v sa="$smpi_alloc" -v ts="$ts_sim" -v ss="$smpi_sim" 'BEGIN {
    if (sa == "") { sa_s = "-"; ra_s = "-" } else { sa_s = sprintf ("%.3f", sa); ra_s = sprintf ("%.2fx", sa / tw) }
    printf "%6d %6d %9d | %9.3f %9.3f %6.2fx | %9s %7s | %12.6f %12.6f %7.3f | %10.0f %10.0f\n",
      n, it, a, tw, sw, sw / tw, sa_s, ra_s, ts, ss, 100 * (ts - ss) / ss, a / tw, a / sw }'
done
echo "(ratio = smpireplaymain wall / tracesim wall; smpi_alloc, ratio_alloc: the same with smpireplaymain"
echo " on tracesim's allocator ($ALLOC); diff = simulated time, tracesim vs smpireplaymain)"
echo "work files: $WORK"
