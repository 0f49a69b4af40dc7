#!/bin/sh
# What-ifs checked against real runs: bench/apps/whatif (four communication
# patterns, bench/apps/README) is recorded unchanged with tracesim-record
# --cpu-time; from each such base trace tracesim predicts the run unchanged
# (identity: no hypothesis) and with bench/apps/fast.hyp (the kernel 2x
# cheaper), balanced.hyp (every rank the mean work) and both.hyp; and the
# program is really run those four ways, unrecorded. Compared: the wall time
# of the user region "loop", which every rank leaves after the same barrier
# (predicted: its predicted_s in summary.json over the ranks; real: what
# rank 0 prints).
#
# Per pattern and number of ranks, RUNS rounds, interleaved (each round
# records, then runs base, fast, balanced and both, before the next pattern),
# so that drift of the machine hits every variant alike; the table gives
# the median and range of each. Rows:
#   recorded  the recorded runs (the recorder's own dilation included)
#             against the identity replay of their traces;
#   base      the unrecorded base runs against the same identity replay;
#   fast, balanced, both  the real changed runs against the predictions.
# With more ranks than cores the ranks share the cores: the wall time of
# compute in the trace is stretched by that sharing; tracesim run
# --cpu-time takes the recorded CPU time instead (run's default on such a
# trace). Such rows show three predictions: --wall-time; --cpu-estimate (the
# CPU time estimated from the wall time and the node's load, as run does by
# itself for a trace without CPU time: model/node-load.h); --cpu-time. A prediction is "ok"
# when its median is within TOL % of the real median (10 with more ranks
# than cores, 5 otherwise) or inside the real runs' range.
#
# Usage: flock /tmp/tracesim-cpu.lock sh bench/apps-whatif.sh
# Environment: BUILD (build directory, default .), RUNS (5), ITERATIONS
# (100), PATTERNS ("sendrecv pipeline halo tree"), NPS ("4 2"), MPIEXEC
# (default Open MPI's launcher where tracesim was built for it too: it
# yields the core when a rank waits with more ranks than cores; MPICH's
# ranks spin, and an oversubscribed run then measures that spinning),
# WORK (default a new directory under /dev/shm; kept, with every trace),
# PREDICT_OPTIONS (more options of every prediction's tracesim run, e.g.
# "--residual none": doc/architecture.md, "Three kinds of time"),
# REPREDICT=1 (record and run nothing: predict again, with this build and
# PREDICT_OPTIONS, from the traces a previous run kept in WORK, against the
# real runs it measured).
# Run it on a quiet machine: the script measures the machine it runs on.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-100}
PATTERNS=${PATTERNS:-sendrecv pipeline halo tree}
NPS=${NPS:-4 2}
configured() { sed -n "s/^$1 = //p" "$BUILD/Makefile"; }
if [ -z "${MPIEXEC:-}" ]; then
  MPIEXEC=$(configured MPIEXEC_OPENMPI)
  [ -n "$MPIEXEC" ] && [ -x "$BUILD/bench/apps/whatif-openmpi" ] || MPIEXEC=$(configured MPIEXEC)
fi
REPREDICT=${REPREDICT:-}
[ -z "$REPREDICT" ] || [ -n "${WORK:-}" ] || { echo "apps-whatif: REPREDICT needs the WORK of a previous run" >&2; exit 1; }
WORK=${WORK:-$(mktemp -d /dev/shm/tracesim-apps-whatif.XXXXXX)}
mkdir -p "$WORK"
H=$SRC/bench/apps
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# tracesim-record takes the recorder built for the launcher's MPI library.
export TS_RECORD_LIBDIR="$BUILD/.libs"
die() { echo "apps-whatif: $*" >&2; exit 1; }

# The program built for the launcher's library: Open MPI's launcher also
# needs --oversubscribe for more ranks than cores. A mismatch would start
# singletons: run() checks the ranks the program counts.
if "$MPIEXEC" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  mpi=openmpi over=--oversubscribe prog=$BUILD/bench/apps/whatif-openmpi
  [ -x "$prog" ] || prog=$BUILD/bench/apps/whatif
else
  mpi=mpich over='' prog=$BUILD/bench/apps/whatif
fi
[ -x "$prog" ] || die "no $prog: build tracesim with MPI first"
[ -x "$BUILD/tracesim" ] || die "no $BUILD/tracesim"

. "$SRC/bench/apps-lib.sh"

hyp() {
  case $1 in
    base) ;;
    *) echo "-H $H/$1.hyp" ;;
  esac
}

start=$(date +%s)
if [ -n "$REPREDICT" ]; then
  for p in $PATTERNS; do
    for np in $NPS; do
      [ -f "$WORK/$p-$np/trace-$RUNS/traces.otf2" ] || die "REPREDICT: no $WORK/$p-$np/trace-$RUNS"
      rm -f "$WORK/$p-$np"/pred-*
    done
  done
fi
r=1
while [ "$r" -le "$RUNS" ]; do
  for p in $PATTERNS; do
    for np in $NPS; do
      d=$WORK/$p-$np
      if [ -z "$REPREDICT" ]; then
        mkdir -p "$d"
        rm -rf "$d/trace-$r"
        run "$np" "$d/real-recorded" -o "$d/trace-$r" --cpu-time -- "$p" 1 0 "$ITERATIONS"
        run "$np" "$d/real-base" -- "$p" 1 0 "$ITERATIONS"
        run "$np" "$d/real-fast" -- "$p" 0.5 0 "$ITERATIONS"
        run "$np" "$d/real-balanced" -- "$p" 1 1 "$ITERATIONS"
        run "$np" "$d/real-both" -- "$p" 0.5 1 "$ITERATIONS"
      fi
      for v in base fast balanced both; do
        # shellcheck disable=SC2046
        predict "$d/trace-$r/traces.otf2" "$d/pred-$v-wall" --wall-time $(hyp $v)
        if [ "$np" -gt "$cores" ]; then
          # shellcheck disable=SC2046
          predict "$d/trace-$r/traces.otf2" "$d/pred-$v-cpu" --cpu-time $(hyp $v)
          # The same trace's CPU time estimated from its wall time and the
          # node's load, as for a trace recorded without it.
          # shellcheck disable=SC2046
          predict "$d/trace-$r/traces.otf2" "$d/pred-$v-est" --cpu-estimate $(hyp $v)
        fi
      done
    done
  done
  echo "round $r of $RUNS done ($(( $(date +%s) - start )) s)" >&2
  r=$((r + 1))
done


echo "bench/apps/whatif, $mpi ($MPIEXEC), $cores cores, $ITERATIONS iterations, $RUNS rounds," \
  "predicted with: ${PREDICT_OPTIONS:-(defaults)};" \
  "loop seconds: median [min, max]"
printf '%-9s %2s %-9s %-22s | %-22s %7s %-7s | %-22s %7s %-7s | %-22s %7s %s\n' pattern NP variant real \
  "predicted (wall)" err verdict "predicted (--cpu-estimate)" err verdict "predicted (--cpu-time)" err verdict
ok=0 all=0
for p in $PATTERNS; do
  for np in $NPS; do
    d=$WORK/$p-$np
    tol=5
    [ "$np" -gt "$cores" ] && tol=10
    for v in recorded base fast balanced both; do
      pv=$v
      [ "$v" = recorded ] && pv=base
      # shellcheck disable=SC2046
      set -- $(stats "$d/real-$v")
      rmed=$1 rmin=$2 rmax=$3
      line=$(printf '%-9s %2s %-9s %-22s' "$p" "$np" "$v" "$(range "$rmed" "$rmin" "$rmax")")
      for mode in wall est cpu; do
        if [ -f "$d/pred-$pv-$mode" ]; then
          # shellcheck disable=SC2046
          set -- $(stats "$d/pred-$pv-$mode")
          err=$(awk -v p="$1" -v r="$rmed" 'BEGIN { printf "%+.1f", 100 * (p / r - 1) }')
          verdict=$(awk -v e="$err" -v t="$tol" -v p="$1" -v lo="$rmin" -v hi="$rmax" \
            'BEGIN { print ((e <= t && e >= -t) || (p >= lo && p <= hi)) ? "ok" : "off" }')
          all=$((all + 1))
          [ "$verdict" = ok ] && ok=$((ok + 1))
          line=$(printf '%s | %-22s %6s%% %-7s' "$line" "$(range "$1" "$2" "$3")" "$err" "$verdict")
        else
          line=$(printf '%s | %-22s %7s %-7s' "$line" - - -)
        fi
      done
      echo "$line" | sed 's/ *$//'
    done
  done
done
echo "$ok of $all predictions ok (within 10% with more ranks than cores, 5% otherwise, or inside the real range)"
echo "took $(( $(date +%s) - start )) s; work files (traces, per-run seconds): $WORK"
