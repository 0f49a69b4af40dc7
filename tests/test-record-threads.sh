#!/bin/sh
# The recorder under MPI_THREAD_MULTIPLE (tests/mpi/threads.c, 2 ranks): it
# records the thread that called MPI_Init, and says how many MPI calls of
# other threads it did not record: on each rank the second thread's 5
# MPI_Send (rank 0) or MPI_Recv (rank 1). The main threads' barrier is in
# the trace, which replays; the worker's calls are not. Skipped (77)
# without MPI, or when the library does not provide MPI_THREAD_MULTIPLE.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
record threads 2 "$builddir/tests/mpi-threads"
if grep -q "no MPI_THREAD_MULTIPLE" "$work/threads.out"; then
  echo "SKIP: the MPI library does not provide MPI_THREAD_MULTIPLE"
  exit 77
fi
grep -q "^threads done" "$work/threads.out" || fail "the program's output is missing"
for r in 0 1; do
  grep -q "tracesim-record: rank $r: 5 MPI calls of threads other than the one that called MPI_Init were not recorded" \
    "$work/threads.err" || fail "rank $r does not say what it did not record: $(cat "$work/threads.err")"
done
complete threads
expect_visits threads MPI_Barrier 2
expect_visits threads MPI_Send 0
expect_visits threads MPI_Recv 0
echo "PASS: the recorder says which MPI calls of other threads it did not record"
