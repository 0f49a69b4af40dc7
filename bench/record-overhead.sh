#!/bin/sh
# The recorder's dilation: tests/mpi/halo (ITERATIONS exchanges of 1000
# bytes with both neighbours, an MPI_Test, an MPI_Wait or MPI_Waitall and an
# MPI_Allreduce each, after COMPUTE_US of computation) with and without
# tracesim-record, RUNS runs of each, interleaved, median of each; prints
# the ratio of the program's own time (MPI_Init to MPI_Finalize, as the
# program measures it) and of the whole launch (mpiexec wall time, which
# adds the recorder's set-up and its definitions and clock sync at
# MPI_Finalize). Run from the build directory:
#   sh bench/record-overhead.sh [RANKS] [ITERATIONS] [COMPUTE_US] [RUNS]
set -eu
ranks=${1:-2}
iterations=${2:-2000}
compute_us=${3:-200}
runs=${4:-7}
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-$(dirname "$0")/..}
mpiexec=${MPIEXEC:-$(sed -n 's/^MPIEXEC = //p' "$builddir/Makefile")}
lib=$builddir/.libs/libtracesim-record.so
prog=$builddir/tests/mpi-halo
[ -f "$lib" ] && [ -x "$prog" ] || { echo "build the recorder first (needs MPI)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-record-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
# one KIND: append "program-seconds wall-seconds" to $work/KIND.
one() {
  t0=$(now)
  if [ "$1" = plain ]; then
    "$mpiexec" -n "$ranks" "$prog" "$iterations" "$compute_us" > "$work/out"
  else
    rm -rf "$work/trace"
    TS_RECORD_LIB=$lib "$mpiexec" -n "$ranks" sh "$builddir/recorder/tracesim-record" \
      -o "$work/trace" "$prog" "$iterations" "$compute_us" > "$work/out"
  fi
  t1=$(now)
  p=$(sed -n 's/^elapsed //p' "$work/out")
  echo "$p $(echo "$t0 $t1" | awk '{ print $2 - $1 }')" >> "$work/$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for i in $(seq "$runs"); do
  one plain
  one recorded
done
pp=$(cut -d' ' -f1 "$work/plain" | median)
pr=$(cut -d' ' -f1 "$work/recorded" | median)
wp=$(cut -d' ' -f2 "$work/plain" | median)
wr=$(cut -d' ' -f2 "$work/recorded" | median)
events=$(du -sk "$work/trace" | cut -f1)
echo "halo: $ranks ranks, $iterations iterations, $compute_us us compute each, median of $runs interleaved runs"
printf "program time:  plain %.4f s  recorded %.4f s  ratio %.4f\n" "$pp" "$pr" "$(echo "$pr $pp" | awk '{ print $1 / $2 }')"
printf "whole launch:  plain %.4f s  recorded %.4f s  ratio %.4f\n" "$wp" "$wr" "$(echo "$wr $wp" | awk '{ print $1 / $2 }')"
echo "trace size: ${events} KiB"
