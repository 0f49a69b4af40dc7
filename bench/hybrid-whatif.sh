#!/bin/sh
# Hybrid MPI + OpenMP what-ifs checked against real runs (issue 43):
# bench/apps/hybrid (an OpenMP parallel region per iteration in which
# thread t computes 1 + 2t units, then a halo exchange from the master) is
# recorded unchanged with tracesim-record, which records every thread of
# its OpenMP teams (recorder/record-omp.c); from each base trace tracesim
# predicts the run unchanged (identity) and with bench/apps/fast.hyp
# (compute_kernel 2x cheaper on every thread) and bench/apps/threads-balanced.hyp
# (every thread of a team the mean of its compute_kernel); and the program
# is really run those ways, unrecorded. Compared: the wall time of the user region
# "loop" (predicted: its predicted_s over the ranks; real: what rank 0
# prints).
#
# RUNS rounds, interleaved; the table gives the median and range of each
# and the error of the predicted median against the real one. A prediction
# is "ok" within TOL % (5 where the threads have a core each, 10 where they
# share them) or inside the real runs' range.
#
# Usage: flock /tmp/tracesim-cpu.lock sh bench/hybrid-whatif.sh
# Environment: HYBRID_MODE (which threads call MPI: funneled, the master
# after each parallel region; multiple, every thread inside it, its own
# halo; other, the team's last thread inside it, for the rank; see
# bench/apps/hybrid.c), BUILD (build directory, default .), RUNS (5), ITERATIONS
# (50), NPS (ranks, "1 2"), THREADS (OMP_NUM_THREADS, 2), CPU_TIME (1:
# record every thread's CPU time and predict from it, --cpu-time), MPIEXEC (default
# Open MPI's launcher where the program was built for it too), WORK
# (default a new directory under /dev/shm; kept).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-50}
NPS=${NPS:-1 2}
THREADS=${THREADS:-2}
configured() { sed -n "s/^$1 = //p" "$BUILD/Makefile"; }
if [ -z "${MPIEXEC:-}" ]; then
  MPIEXEC=$(configured MPIEXEC_OPENMPI)
  [ -n "$MPIEXEC" ] && [ -x "$BUILD/bench/apps/hybrid-openmpi" ] || MPIEXEC=$(configured MPIEXEC)
fi
WORK=${WORK:-$(mktemp -d /dev/shm/tracesim-hybrid-whatif.XXXXXX)}
mkdir -p "$WORK"
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=$THREADS
export TS_RECORD_LIBDIR="$BUILD/.libs"
die() { echo "hybrid-whatif: $*" >&2; exit 1; }
if "$MPIEXEC" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  mpi=openmpi over="--oversubscribe --bind-to none" prog=$BUILD/bench/apps/hybrid-openmpi
  [ -x "$prog" ] || prog=$BUILD/bench/apps/hybrid
else
  mpi=mpich over='' prog=$BUILD/bench/apps/hybrid
fi
[ -x "$prog" ] || die "no $prog: build tracesim with MPI first"

RANGE_FORMAT=%.4f
REC_CPU=
if [ "${CPU_TIME:-0}" = 1 ]; then
  REC_CPU=--cpu-time
  PREDICT_OPTIONS="${PREDICT_OPTIONS:-} --cpu-time"
fi
. "$SRC/bench/apps-lib.sh"

start=$(date +%s)
r=1
while [ "$r" -le "$RUNS" ]; do
  for np in $NPS; do
    d=$WORK/np$np
    mkdir -p "$d"
    rm -rf "$d/trace-$r"
    # shellcheck disable=SC2086 # REC_CPU is empty or one word
    run "$np" "$d/real-recorded" -o "$d/trace-$r" $REC_CPU -- 1 0 "$ITERATIONS"
    hybrid_round "$np" "$d" predict "$d/trace-$r/traces.otf2" "$SRC/bench/apps/fast.hyp" \
      "$SRC/bench/apps/threads-balanced.hyp"
  done
  echo "round $r of $RUNS done ($(( $(date +%s) - start )) s)" >&2
  r=$((r + 1))
done


echo "bench/apps/hybrid (MPI ${HYBRID_MODE:-funneled}), $mpi ($MPIEXEC), $THREADS threads a rank, $cores cores," \
  "$ITERATIONS iterations, $RUNS rounds${REC_CPU:+, from CPU time}; loop seconds: median [min, max]"
hybrid_table
echo "took $(( $(date +%s) - start )) s; work files (traces, per-run seconds): $WORK"
