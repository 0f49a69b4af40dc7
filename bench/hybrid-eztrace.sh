#!/bin/sh
# Hybrid MPI + OpenMP what-ifs from EZTrace's recordings, checked against
# real runs (issue 43, must-show 1): bench/apps/hybrid recorded with
# Debian's EZTrace 2 (apt-get install eztrace), MODULE=openmp (its GOMP
# module: the program built by eztrace_cc on GCC, through opari2) or
# MODULE=ompt (its OMPT module: built by clang on LLVM's libomp). Both
# builds are made here, in WORK, from bench/apps/hybrid.c.
#
# EZTrace records no user regions, so the program's "loop" is measured as
# rank 0's time from its first MPI_Barrier's end to its last's (the
# program's own t1 - t0, which it prints as loop_s), in the predicted
# archive; and the kernel is the team's region: "OpenMP Parallel" (GOMP
# module) or "OpenMP implicit task" (OMPT module). The what-ifs:
#   fast      that region 2x cheaper (the program at FACTOR 0.5)
#   balanced  every thread of a team the mean of its region (BALANCED=1)
#
# RUNS rounds, interleaved; medians and ranges as bench/hybrid-whatif.sh,
# ok within TOL % (5 where the threads have a core each, 10 where they
# share them) or inside the real runs' range.
#
# Usage: flock /tmp/tracesim-cpu.lock sh bench/hybrid-eztrace.sh
# Environment: BUILD (.), MODULE (openmp), RUNS (5), ITERATIONS (50), NPS
# ("1 2"), THREADS (2), WORK (a new directory under /dev/shm; kept).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
MODULE=${MODULE:-openmp}
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-50}
NPS=${NPS:-1 2}
THREADS=${THREADS:-2}
WORK=${WORK:-$(mktemp -d /dev/shm/tracesim-hybrid-eztrace.XXXXXX)}
mkdir -p "$WORK"
cores=$(nproc)
export OMP_NUM_THREADS=$THREADS
die() { echo "hybrid-eztrace: $*" >&2; exit 1; }
command -v eztrace > /dev/null || die "no eztrace: apt-get install eztrace"
MPIEXEC=$(command -v mpiexec.mpich) || die "no mpiexec.mpich (EZTrace's mpich module)"
over=''
cflags=$(pkg-config --cflags mpich) libs=$(pkg-config --libs mpich)
case $MODULE in
  openmp)
    region="OpenMP Parallel"
    # shellcheck disable=SC2086
    eztrace_cc mpicc.mpich -O2 -fopenmp -o "$WORK/hybrid" "$SRC/bench/apps/hybrid.c" -ldl \
      > "$WORK/cc.log" 2>&1 || die "eztrace_cc failed: $(tail -5 "$WORK/cc.log")"
    ;;
  ompt)
    region="OpenMP implicit task"
    # shellcheck disable=SC2086
    clang -O2 -fopenmp=libomp $cflags -o "$WORK/hybrid" "$SRC/bench/apps/hybrid.c" $libs -ldl \
      || die "clang -fopenmp=libomp failed (apt-get install clang libomp-dev)"
    ;;
  *) die "MODULE is openmp or ompt, not $MODULE" ;;
esac
prog=$WORK/hybrid
printf '[region:%s]\nscale = 0.5\n' "$region" > "$WORK/fast.hyp"
printf '[region:%s]\nbalance = mean\nacross = threads\n' "$region" > "$WORK/balanced.hyp"
RANGE_FORMAT=%.4f
. "$SRC/bench/apps-lib.sh"

# record NP DIR ARGS...: one launch under EZTrace into DIR; its loop to
# real-recorded.
record() {
  np=$1 dir=$2
  shift 2
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd "$dir" && EZTRACE_TRACE_DIR="$dir" "$MPIEXEC" -n "$np" eztrace -t "mpich $MODULE" "$prog" "$@" \
     > "$WORK/out" 2> "$WORK/err") || die "recording failed: $(tail -5 "$WORK/err")"
  sed -n 's/^loop_s //p' "$WORK/out" >> "$(dirname "$dir")/real-recorded"
}

# loop TRACE FILE [OPTION...]: replays TRACE; appends rank 0's predicted
# time between its first and its last MPI_Barrier's end to FILE.
loop() {
  trace=$1 file=$2
  shift 2
  rm -rf "$WORK/pred"
  "$BUILD/tracesim" run "$trace" "$@" -o "$WORK/pred" -q 2> /dev/null \
    || die "tracesim run $trace $* failed"
  otf2-print -L 0 "$WORK/pred/predicted/traces.otf2" 2> /dev/null > "$WORK/pred.txt"
  res=$(otf2-print -G "$WORK/pred/predicted/traces.otf2" 2> /dev/null \
        | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p' | head -1)
  awk -v res="$res" '$1 == "LEAVE" && /"MPI_Barrier"/ { t[++n] = $3 }
    END { if (n < 2) exit 1; printf "%.9f\n", (t[n] - t[1]) / res }' "$WORK/pred.txt" >> "$file" \
    || die "no two MPI_Barrier on rank 0 of $WORK/pred/predicted/traces.otf2"
}

start=$(date +%s)
r=1
while [ "$r" -le "$RUNS" ]; do
  for np in $NPS; do
    d=$WORK/np$np
    mkdir -p "$d"
    record "$np" "$d/trace-$r" 1 0 "$ITERATIONS"
    trace=$(find "$d/trace-$r" -name 'eztrace_log.otf2' | head -1)
    [ -n "$trace" ] || die "EZTrace wrote no eztrace_log.otf2 under $d/trace-$r"
    hybrid_round "$np" "$d" loop "$trace" "$WORK/fast.hyp" "$WORK/balanced.hyp"
  done
  echo "round $r of $RUNS done ($(( $(date +%s) - start )) s)" >&2
  r=$((r + 1))
done

echo "bench/apps/hybrid under EZTrace's $MODULE module, mpich, $THREADS threads a rank, $cores cores," \
  "$ITERATIONS iterations, $RUNS rounds; loop seconds: median [min, max]"
hybrid_table
echo "took $(( $(date +%s) - start )) s; work files (traces, per-run seconds): $WORK"
