#!/bin/sh
# tracesim vs SimGrid's smpireplaymain on platforms written by
# `tracesim platform`: the same machine description, the same trace, the
# same network model (CM02, no cross-traffic), the same allreduce (recursive
# doubling). For each rank count, the ring workload of bench/vs-smpireplay.sh
# (halo exchange: irecv left, isend right, waitall, an allreduce every 10
# iterations) is replayed on a flat, a fat-tree, a torus and a dragonfly
# cluster of 4-core nodes, 4 ranks a node in block order (smpirun gets the
# same placement as a hostfile). It prints both predicted runtimes and their
# difference; doc/platforms.md keeps the table.
#
# Usage: bench/platforms-vs-smpireplay.sh [RANKS...]   (default: 256 1024)
# Environment: BUILD (default .), ACTIONS (default 400000), WORK (scratch dir).
set -eu
BUILD=${BUILD:-.}
ACTIONS=${ACTIONS:-400000}
SMPIRUN=${SMPIRUN:-smpirun}
REPLAYMAIN=${REPLAYMAIN:-/usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-bench.XXXXXX)}
TRACESIM=$(cd "$BUILD" && pwd)/tracesim
TRACEGEN=$(cd "$BUILD" && pwd)/ts-tracegen
[ $# -gt 0 ] || set -- 256 1024
CORES=4

# The topologies for @1 nodes: flat, fat tree, torus, dragonfly.
topologies() {
  case $1 in
    64) echo "flat fat-tree:2;8,8;1,8;1,1 torus:4,4,4 dragonfly:2,4;4,1;2,1;4" ;;
    256) echo "flat fat-tree:2;16,16;1,16;1,1 torus:8,8,4 dragonfly:4,4;4,1;4,1;4" ;;
    *) echo "flat" ;;
  esac
}

printf '%6s %-30s | %12s %12s %8s\n' ranks topology tracesim_s smpireplay_s diff_%
for n in "$@"; do
  nodes=$((n / CORES))
  iters=$((ACTIONS / (5 * n)))
  [ "$iters" -ge 10 ] || iters=10
  d=$WORK/n$n
  rm -rf "$d"; mkdir -p "$d"
  "$TRACEGEN" stencil -o "$d/trace" --ranks "$n" --iterations "$iters" >/dev/null
  "$TRACESIM" convert "$d/trace/traces.otf2" --to ti -o "$d/ti" -q
  i=0; : > "$d/ti/hosts"
  while [ $i -lt "$n" ]; do echo "node-$((i / CORES))" >> "$d/ti/hosts"; i=$((i + 1)); done
  for topo in $(topologies "$nodes"); do
    nodes_opt=""; [ "$topo" = flat ] && nodes_opt="--nodes $nodes"
    # shellcheck disable=SC2086
    "$TRACESIM" platform $nodes_opt --cores $CORES --topology "$topo" --network 100Gbps,1.5us \
      --intra-node 20GBps,0.3us -o "$d/platform.xml" >/dev/null
    rm -rf "$d/out"
    "$TRACESIM" run "$d/trace/traces.otf2" -p "$d/platform.xml" --ranks-per-node $CORES \
      -o "$d/out" -q --no-wait-states
    (cd "$d/ti" && "$SMPIRUN" -np "$n" -platform ../platform.xml -hostfile hosts \
       -replay traces.txt --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
       --cfg=smpi/allreduce:rdb --log=root.thres:warning --log=smpi_replay.thres:info \
       "$REPLAYMAIN" > ../smpi.log 2>&1)
    ts=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["predicted"]["runtime_s"])' "$d/out/summary.json")
    ss=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$d/smpi.log")
    awk -v n="$n" -v t="$topo" -v a="$ts" -v b="$ss" 'BEGIN {
      printf "%6d %-30s | %12.6f %12.6f %8.3f\n", n, t, a, b, 100 * (a - b) / b }'
  done
done
echo "work files: $WORK"
