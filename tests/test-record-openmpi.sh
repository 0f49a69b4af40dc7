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
# The trace says which MPI library recorded it (MPI_Get_library_version:
# "Open MPI v4.1.4, ..."), and the replay builds broadcasts and reductions
# on that library's binomial tree: at 2 ranks no call can tell the shapes
# apart (that needs 4 ranks), where MPICH's was "assumed".
grep -q "^mpi:        Open MPI v" "$work/halo.info" || fail "the MPI library is not named: $(cat "$work/halo.info")"
grep -q "^binomial trees: Open MPI's, as the trace's MPI library builds them" "$work/halo.info" \
  || fail "not Open MPI's trees: $(grep binomial "$work/halo.info")"
"$builddir/tracesim" info --json "$work/halo/traces.otf2" | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["mpi_library"].startswith("Open MPI v"), d["mpi_library"]
assert d["binomial_tree"] == "openmpi", d["binomial_tree"]' \
  || fail "info --json does not say Open MPI's library and tree"
grep -q "^MPI library: Open MPI v" "$work/halo/tracesim-record.txt" \
  || fail "the recording's tracesim-record.txt does not name Open MPI: $(cat "$work/halo/tracesim-record.txt")"
echo "PASS"
