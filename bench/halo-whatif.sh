#!/bin/sh
# A what-if checked against reality: bench/halo-whatif (a real MPI halo
# exchange with an imbalanced compute_kernel) is recorded by tracesim-record
# at kernel factor 1.0; tracesim predicts the run at factor 0.5 from that
# trace (scenarios/whatif/fast.hyp: compute_kernel scale = 0.5); the program
# is really run at factor 0.5. Compared: the wall time of the loop (the user
# region halo_loop, which ends after a barrier), predicted vs measured.
#
# The recording and the real runs are interleaved, RUNS times each, and
# the medians compared, so that machine noise hits both sides alike.
#
# Usage: bench/halo-whatif.sh   Environment: BUILD (default .), RANKS (2),
#        ITERATIONS (100), RUNS (5), MPIEXEC (mpiexec), WORK.
# Run it on a quiet machine, with RANKS no larger than the cores.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RANKS=${RANKS:-2}
ITERATIONS=${ITERATIONS:-100}
RUNS=${RUNS:-5}
MPIEXEC=${MPIEXEC:-mpiexec}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-halo.XXXXXX)}
prog=$BUILD/bench/halo-whatif
lib=$BUILD/.libs/libtracesim-record.so
[ -x "$prog" ] && [ -f "$lib" ] || { echo "build tracesim with MPI first (no $prog or $lib)" >&2; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$WORK/pred"; : > "$WORK/meas"; : > "$WORK/rec"
r=0
while [ "$r" -lt "$RUNS" ]; do
  rm -rf "$WORK/trace" "$WORK/out"
  TS_RECORD_LIB=$lib "$MPIEXEC" -n "$RANKS" sh "$BUILD/recorder/tracesim-record" -o "$WORK/trace" \
    "$prog" 1.0 "$ITERATIONS" | awk '/^loop_s/ { print $2 }' >> "$WORK/rec"
  "$BUILD/tracesim" run "$WORK/trace/traces.otf2" -H "$SRC/scenarios/whatif/fast.hyp" \
    -o "$WORK/out" -q
  # halo_loop's predicted seconds, summed over ranks: every rank leaves it
  # after the same barrier, so the mean is the loop's wall time.
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
r = [x for x in s["regions"] if x["name"] == "halo_loop"][0]
print(r["predicted_s"] / s["ranks"])' "$WORK/out/summary.json" >> "$WORK/pred"
  "$MPIEXEC" -n "$RANKS" "$prog" 0.5 "$ITERATIONS" | awk '/^loop_s/ { print $2 }' >> "$WORK/meas"
  r=$((r + 1))
done
rec=$(median < "$WORK/rec"); pred=$(median < "$WORK/pred"); meas=$(median < "$WORK/meas")
echo "halo_loop at factor 1.0, recorded:        $rec s (median of $RUNS)"
echo "halo_loop at factor 0.5, predicted:       $pred s (median of $RUNS traces)"
echo "halo_loop at factor 0.5, measured:        $meas s (median of $RUNS runs)"
awk -v p="$pred" -v m="$meas" 'BEGIN { printf "prediction / measurement: %.3f (%+.1f%%)\n", p / m, 100 * (p / m - 1) }'
echo "work files: $WORK"
