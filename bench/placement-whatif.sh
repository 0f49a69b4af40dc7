#!/bin/sh
# What-if table for a real trace: the same run on 1, 2, 4 and 8 ranks per
# node, on three interconnect presets. The platform starts from the traced
# machine (tracesim platform --like: its cores, and its network as the
# shared memory between ranks of one node, which is all an 8-rank trace of
# one node knows) and changes the nodes and the network between them.
# Prints, per row, the predicted runtime and the wait states that moved
# (seconds, all ranks); doc/platforms.md keeps the table and reads it.
#
# Usage: bench/placement-whatif.sh TRACE   (an 8-rank trace; default: the
#        corpus' LAMMPS melt, /work/corpus/lammps_melt_openmpi_np8)
# Environment: BUILD (default .), WORK (scratch dir), RANKS (default 8).
set -eu
BUILD=${BUILD:-.}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-bench.XXXXXX)}
TRACESIM=$(cd "$BUILD" && pwd)/tracesim
TRACE=${1:-/work/corpus/lammps_melt_openmpi_np8/lmp_trace/eztrace_log.otf2}
RANKS=${RANKS:-8}

row() { # label, out dir
  python3 - "$1" "$2/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
w = d["wait_states"]["predicted"]
print("%-22s %10.4f %8.2f%% | %8.4f %8.4f %8.4f %8.4f" % (sys.argv[1], d["predicted"]["runtime_s"],
      100 * (d["predicted"]["runtime_s"] / d["original"]["runtime_s"] - 1),
      w["late_sender"], w["late_receiver"], w["wait_nxn"], w["late_broadcast"]))
PY
}

printf '%-22s %10s %9s | %8s %8s %8s %8s\n' platform runtime_s vs_trace late_snd late_rcv wait_nxn late_bcast
rm -rf "$WORK/out"
"$TRACESIM" run "$TRACE" -o "$WORK/out" -q
row "calibrated (identity)" "$WORK/out"
for net in ib-hdr 100gbe slingshot; do
  for rpn in 1 2 4 8; do
    nodes=$((RANKS / rpn))
    "$TRACESIM" platform --like "$TRACE" --nodes "$nodes" --cores "$rpn" --network "$net" \
      -o "$WORK/p.xml" > /dev/null
    rm -rf "$WORK/out"
    "$TRACESIM" run "$TRACE" -p "$WORK/p.xml" --ranks-per-node "$rpn" -o "$WORK/out" -q
    row "$net, $rpn/node" "$WORK/out"
  done
done
echo "work files: $WORK"
