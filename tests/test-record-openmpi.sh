#!/bin/sh
# The recorder under Open MPI: with MPICH and Open MPI both installed,
# configure builds libtracesim-record-openmpi, and tracesim-record preloads
# it under Open MPI's launcher (it sets OMPI_COMM_WORLD_SIZE). The halo
# program built for Open MPI, 2 ranks oversubscribed: every message
# recorded and the trace replays. Skipped (77) without Open MPI.
. "${top_srcdir:-.}/tests/test-record-lib.sh"
ompi_lib=$builddir/.libs/libtracesim-record-openmpi.so
prog=$builddir/tests/mpi-halo-openmpi
if [ ! -f "$ompi_lib" ] || [ ! -x "$prog" ] || [ -z "${MPIEXEC_OPENMPI:-}" ]; then
  echo "SKIP: tracesim was not built for Open MPI too"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The script picks the Open MPI library itself (TS_RECORD_LIB unset).
TS_RECORD_LIBDIR=$builddir/.libs "$MPIEXEC_OPENMPI" --oversubscribe -n 2 \
  sh "$builddir/recorder/tracesim-record" -o "$work/halo" "$prog" \
  > "$work/halo.out" 2> "$work/halo.err" || fail "the program failed: $(cat "$work/halo.err")"
grep -q "^sum " "$work/halo.out" || fail "the program's output is missing: $(cat "$work/halo.out")"
"$builddir/tracesim" info "$work/halo/traces.otf2" > "$work/halo.info" || fail "tracesim info failed"
complete halo
# 2 ranks x 10 iterations (tests/mpi/halo.c): 20 MPI_Irecv, 20 MPI_Allreduce.
grep -Eq "MPI_Irecv +20 " "$work/halo.info" || fail "MPI_Irecv visits: $(cat "$work/halo.info")"
grep -Eq "MPI_Allreduce +20 " "$work/halo.info" || fail "MPI_Allreduce visits: $(cat "$work/halo.info")"
grep -Eq "recorded +[1-9][0-9]* calls \(100.0%\)" "$work/halo.info" || fail "$(cat "$work/halo.info")"
echo "PASS"
