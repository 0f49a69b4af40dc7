#!/bin/sh
# The recorder on Fortran programs: the ring of tests/mpi/ring.f90 (`use
# mpi`) and of tests/mpi/ring_f08.f90 (`use mpi_f08`). The MPI library's
# Fortran bindings call its C functions by other names than a C program
# would (Open MPI's every PMPI_ one; MPICH's mpi_f08 bindings PMPI_Init,
# PMPI_Waitall...), which the recorder interposes too
# (recorder/record-fortran.c): under MPICH and, where tracesim was built
# for it too, under Open MPI, each ring at 3 ranks must be recorded whole
# and replay. Derived by hand from the program: 3 ranks x 3 iterations give
# 9 visits each of MPI_Irecv, MPI_Isend, MPI_Waitall, MPI_Send and
# MPI_Recv, and 3 of MPI_Allreduce (one a rank); every message is recorded
# (none inferred or missing); the caller of each of the 3 x (1 + 15 + 1 +
# 1) = 54 calls is the main program (gfortran's MAIN__), not the bindings;
# the program prints the sum 0 + 1 + 2 = 3. Skipped (77) without MPI or
# without gfortran.
. "${top_srcdir:-.}/tests/test-record-lib.sh"
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

# run NAME COMPILER LIBRARY LAUNCHER SOURCE: build SOURCE, record it at 3
# ranks into $work/NAME and check it.
run() {
  "$2" -o "$work/$1.exe" "$5" 2> "$work/fc.err" || fail "$2: $(cat "$work/fc.err")"
  case $2 in *openmpi) over=--oversubscribe ;; *) over= ;; esac
  TS_RECORD_LIB=$3 "$4" $over -n 3 sh "$builddir/recorder/tracesim-record" -o "$work/$1" \
    "$work/$1.exe" > "$work/$1.out" 2> "$work/$1.err" || fail "$1: $(cat "$work/$1.err")"
  "$builddir/tracesim" info "$work/$1/traces.otf2" > "$work/$1.info" \
    || fail "$1: tracesim info failed"
  check "$1"
}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
srcdir=${top_srcdir:-.}/tests/mpi
# The library tracesim-record preloads by default, with the compiler of the
# MPI it was built for.
if ldd "$lib" | grep -q libmpich; then fc=mpif90.mpich; else fc=mpifort.openmpi; fi
command -v "$fc" > /dev/null || fail "no $fc for the recorder's MPI"
run ring "$fc" "$lib" "$MPIEXEC" "$srcdir/ring.f90"
run ring-f08 "$fc" "$lib" "$MPIEXEC" "$srcdir/ring_f08.f90"

# The Open MPI library, where tracesim was built for Open MPI too.
ompi_lib=$builddir/.libs/libtracesim-record-openmpi.so
if [ -f "$ompi_lib" ] && [ -n "${MPIEXEC_OPENMPI:-}" ] && command -v mpifort.openmpi > /dev/null; then
  run ring-ompi mpifort.openmpi "$ompi_lib" "$MPIEXEC_OPENMPI" "$srcdir/ring.f90"
  run ring-f08-ompi mpifort.openmpi "$ompi_lib" "$MPIEXEC_OPENMPI" "$srcdir/ring_f08.f90"
fi
echo "PASS"
