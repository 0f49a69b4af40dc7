#!/bin/sh
# How much sharing cores stretches compute: bench/apps/spin.c recorded with
# tracesim-record --cpu-time at 2 and 8 ranks with MPICH and Open MPI, and
# LAMMPS's melt at 8 (Open MPI, when lmp is installed); the compute between
# MPI calls summed over ranks, by the wall clock and by the CPU time
# readings (doc/recorder.md). On a machine with fewer cores than ranks the
# wall column grows, the CPU column does not: what `--cpu-time` corrects.
#
# Usage: bench/cpu-time.sh   Environment: BUILD (default .), WORK.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$(mktemp -d /tmp/tracesim-cpu.XXXXXX)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TS_RECORD_LIBDIR=$BUILD/.libs
mkdir -p "$WORK"
mpicc.mpich -O1 -o "$WORK/spin-mpich" "$SRC/bench/apps/spin.c"
mpicc.openmpi -O1 -o "$WORK/spin-openmpi" "$SRC/bench/apps/spin.c"

# Wall and CPU seconds of the compute between a LEAVE and the next ENTER.
compute() {
  otf2-print "$1" 2> /dev/null | awk '
    $1 == "METRIC" { match ($0, /UINT64; [0-9]+/); v = substr ($0, RSTART + 8, RLENGTH - 8)
                     if (last[$2] == "LEAVE") { wall += $3 - at[$2]; cpu += v - prev[$2] }
                     prev[$2] = v }
    $1 == "ENTER" || $1 == "LEAVE" { last[$2] = $1; at[$2] = $3 }
    END { printf "%.3f s %.3f s %.2fx", wall / 1e9, cpu / 1e9, (cpu > 0 ? wall / cpu : 0) }'
}

printf '%-28s %9s %9s %7s\n' "program, MPI, ranks" wall CPU ratio
for mpi in mpich openmpi; do
  for np in 2 8; do
    rm -rf "$WORK/$mpi-$np"
    "mpirun.$mpi" $([ $mpi = openmpi ] && echo --oversubscribe) -np $np \
      sh "$BUILD/recorder/tracesim-record" -o "$WORK/$mpi-$np" --cpu-time "$WORK/spin-$mpi" \
      > /dev/null 2> "$WORK/$mpi-$np.err"
    set -- $(compute "$WORK/$mpi-$np/traces.otf2")
    printf '%-28s %7s s %7s s %7s\n' "spin, $mpi, $np" "$1" "$3" "$5"
  done
done
if command -v lmp > /dev/null; then
  rm -rf "$WORK/lammps-8"
  (cd "$WORK" && mpirun.openmpi --oversubscribe -np 8 sh "$BUILD/recorder/tracesim-record" \
     -o "$WORK/lammps-8" --cpu-time lmp -in "$SRC/bench/apps/in.melt.scaling" -log none \
     -var px 4 -var py 2 -var bx 10 -var by 10 > /dev/null 2> "$WORK/lammps-8.err")
  set -- $(compute "$WORK/lammps-8/traces.otf2")
  printf '%-28s %7s s %7s s %7s\n' "LAMMPS melt, openmpi, 8" "$1" "$3" "$5"
fi
echo "(work files in $WORK)"
