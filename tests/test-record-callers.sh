#!/bin/sh
# The caller of every MPI call (tests/mpi/callers.c, 2 ranks): its MPI calls
# come from halo_exchange, global_sum and the static settle, and MPI_Init
# and MPI_Finalize from main. The recorder names each call's caller in a
# "caller" attribute of its ENTER, and tracesim names the compute before
# each call by it (phases). Built without -rdynamic, the names come from the
# program's ELF symbol table; a stripped copy has none, and its callers are
# named by file and offset. Skipped (77) without MPI.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
prog=$builddir/tests/mpi-callers

# phases NAME: the phase names tracesim lists for the trace, sorted, one a line.
phases() {
  printf '[network]\nlatency = 0.5\n' > "$work/net.hyp"
  "$builddir/tracesim" hypotheses check "$work/net.hyp" "$work/$1/traces.otf2" > "$work/$1.check" \
    || fail "$1: hypotheses check failed: $(cat "$work/$1.check")"
  sed -n '/^  phase /,$p' "$work/$1.check" | sed 1d | awk '{print $1}' | sort
}

if ! grep -q "define HAVE_LIBELF 1" "$builddir/config.h"; then
  echo "SKIP: tracesim was built without libelf: no names from symbol tables"
  exit 77
fi

record named 2 "$prog"
complete named
grep -q "^callers done" "$work/named.out" || fail "the program's output is missing"
# Every MPI call's ENTER carries its caller: 2 ranks x (MPI_Init, 4 steps x
# 3 calls, MPI_Finalize) = 28 ENTERs of MPI regions, 28 callers. rank 1's
# "warm-up" region shifts its local ids: a caller printed by name went
# through the mapping table.
n_mpi=$(grep -c '^ENTER .*Region: "MPI_' "$work/named.print")
[ "$n_mpi" -eq 28 ] || fail "expected 28 MPI ENTERs, found $n_mpi"
n_callers=$(grep -c 'ADDITIONAL ATTRIBUTES: ("caller" <[0-9]*>; REGION; "' "$work/named.print")
[ "$n_callers" -eq 28 ] || fail "expected 28 caller attributes, found $n_callers"
# Each call with its own caller, on each rank (rank 1 through its mapping).
for rank in 0 1; do
  pairs=$(events named "$rank" | awk '
    /^ENTER/ && match($0, /Region: "MPI_[A-Za-z_]*"/) { call = substr($0, RSTART + 9, RLENGTH - 10); next }
    call != "" && match($0, /REGION; "[^"]*"/) { print call ">" substr($0, RSTART + 9, RLENGTH - 10) }
    { call = "" }' | sort -u | tr '\n' ' ')
  expected="MPI_Allreduce>global_sum MPI_Barrier>settle MPI_Finalize>main MPI_Init>main MPI_Sendrecv>halo_exchange "
  [ "$pairs" = "$expected" ] || fail "rank $rank: calls and callers '$pairs', expected '$expected'"
done
# The phases: the compute before each call, named CALL@CALLER (none before
# MPI_Init, which opens the trace, nor after MPI_Finalize's ENTER).
got=$(phases named | tr '\n' ' ')
expected="MPI_Allreduce@global_sum MPI_Barrier@settle MPI_Finalize@main MPI_Sendrecv@halo_exchange "
[ "$got" = "$expected" ] || fail "phases: got '$got', expected '$expected'"

# Stripped: no symbol names the functions; each caller is the program's
# file name and an offset, the same on both ranks (ASLR does not move it).
cp "$builddir/tests/.libs/mpi-callers" "$work/app-stripped" 2> /dev/null \
  || cp "$builddir/tests/mpi-callers" "$work/app-stripped"
strip "$work/app-stripped" || fail "cannot strip"
record stripped 2 "$work/app-stripped"
complete stripped
got=$(phases stripped)
[ "$(echo "$got" | wc -l)" -eq 4 ] || fail "stripped: expected 4 phases, got: $got"
echo "$got" | grep -Eqv '^MPI_[A-Za-z]+@app-stripped\+0x[0-9a-f]+$' \
  && fail "stripped: a phase is not named CALL@app-stripped+0xOFFSET: $got"
echo "PASS"
