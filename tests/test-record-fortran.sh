#!/bin/sh
# The recorder on a Fortran program (tests/mpi/ring.f90, `use mpi`). The
# MPI library's Fortran bindings call its C PMPI_ functions, which the
# recorder interposes too (recorder/record-fortran.c): under MPICH and,
# where tracesim was built for it too, under Open MPI, the ring at 3 ranks
# must be recorded whole and replay. Derived by hand from the program: 3
# ranks x 3 iterations give 9 visits each of MPI_Irecv, MPI_Isend,
# MPI_Waitall, MPI_Send and MPI_Recv, and 3 of MPI_Allreduce (one a rank);
# every message is recorded (none inferred or missing); the caller of each
# of the 3 x (1 + 15 + 1 + 1) = 54 calls is the main program (gfortran's
# MAIN__), not the bindings; the program prints the sum 0 + 1 + 2 = 3.
# Skipped (77) without MPI or without gfortran.
. "${top_srcdir:-.}/tests/test-record-lib.sh"
src=${top_srcdir:-.}/tests/mpi/ring.f90
command -v gfortran > /dev/null || { echo "SKIP: no gfortran (setup.sh installs it)"; exit 77; }

# check NAME: what the derivation above says of the trace in $work/NAME.
check() {
  grep -q "^sum *3.0" "$work/$1.out" || fail "$1: the program's output: $(cat "$work/$1.out")"
  complete "$1"
  for region in MPI_Irecv MPI_Isend MPI_Waitall MPI_Send MPI_Recv; do
    expect_visits "$1" "$region" 9
  done
  expect_visits "$1" MPI_Allreduce 3
  callers=$(grep -o '"caller" <0>; REGION; "[^"]*"' "$work/$1.print" | sort | uniq -c | tr -s ' ')
  [ "$callers" = ' 54 "caller" <0>; REGION; "MAIN__"' ] || fail "$1: callers: $callers"
}

# The library tracesim-record preloads by default, with the compiler of the
# MPI it was built for.
if ldd "$lib" | grep -q libmpich; then fc=mpif90.mpich; else fc=mpifort.openmpi; fi
command -v "$fc" > /dev/null || fail "no $fc for the recorder's MPI"
"$fc" -o "$work/ring.exe" "$src" 2> "$work/fc.err" || fail "$fc: $(cat "$work/fc.err")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case $fc in *openmpi) over=--oversubscribe ;; *) over= ;; esac
TS_RECORD_LIB=$lib "$MPIEXEC" $over -n 3 sh "$builddir/recorder/tracesim-record" -o "$work/ring" \
  "$work/ring.exe" > "$work/ring.out" 2> "$work/ring.err" || fail "ring: $(cat "$work/ring.err")"
"$builddir/tracesim" info "$work/ring/traces.otf2" > "$work/ring.info" || fail "ring: tracesim info failed"
check ring

# The Open MPI library, where tracesim was built for Open MPI too.
ompi_lib=$builddir/.libs/libtracesim-record-openmpi.so
if [ -f "$ompi_lib" ] && [ -n "${MPIEXEC_OPENMPI:-}" ] && command -v mpifort.openmpi > /dev/null; then
  mpifort.openmpi -o "$work/ring-ompi.exe" "$src" 2> "$work/fc.err" || fail "mpifort.openmpi: $(cat "$work/fc.err")"
  TS_RECORD_LIB=$ompi_lib "$MPIEXEC_OPENMPI" --oversubscribe -n 3 \
    sh "$builddir/recorder/tracesim-record" -o "$work/ring-ompi" "$work/ring-ompi.exe" \
    > "$work/ring-ompi.out" 2> "$work/ring-ompi.err" || fail "ring-ompi: $(cat "$work/ring-ompi.err")"
  "$builddir/tracesim" info "$work/ring-ompi/traces.otf2" > "$work/ring-ompi.info" \
    || fail "ring-ompi: tracesim info failed"
  check ring-ompi
fi
echo "PASS"
