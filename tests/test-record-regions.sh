#!/bin/sh
# User regions (tests/mpi/regions.c, 2 ranks): functions of a program built
# with -finstrument-functions, named by dladdr, with TS_RECORD_EXCLUDE
# leaving one out, and ts_region_begin/end. The ranks meet the names in
# different orders, so rank 1's trace needs a mapping table. Skipped (77)
# without MPI.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
prog=$builddir/tests/mpi-regions

record all 2 "$prog"
complete all
grep -q "^regions done" "$work/all.out" || fail "the program's output is missing"
# 2 ranks x KERNELS (5) calls of compute_kernel, each calling tiny once.
expect_visits all compute_kernel 10
expect_visits all tiny 10
# "phase": 3 per rank (rank 1: one empty, then 2 around barriers).
expect_visits all phase 6
# "unclosed", closed by MPI_Finalize on both ranks.
expect_visits all unclosed 2
# main is entered before MPI_Init: not recorded (no Leave without Enter).
expect_visits all main 0
grep -Eq "REGION .*Name: \"compute_kernel\".*Role: FUNCTION, Paradigm: USER" "$work/all.print" \
  || "${OTF2_PRINT:-otf2-print}" -G "$work/all/traces.otf2" | grep -Eq "REGION .*Name: \"compute_kernel\".*Role: FUNCTION, Paradigm: USER" \
  || fail "compute_kernel is not a USER function region"

TS_RECORD_EXCLUDE="tiny, nothing_else" record excl 2 "$prog"
complete excl
expect_visits excl compute_kernel 10
expect_visits excl tiny 0

# Built without -rdynamic, dladdr cannot name the program's functions: the
# names come from its ELF symbol table (when tracesim has libelf), else
# they are module+offset and compute_kernel is not found.
if grep -q "define HAVE_LIBELF 1" "$builddir/config.h"; then
  record plain 2 "$builddir/tests/mpi-regions-plain"
  complete plain
  expect_visits plain compute_kernel 10
  expect_visits plain tiny 10
else
  echo "symbol-table naming not checked: tracesim was built without libelf"
fi
echo "PASS"
