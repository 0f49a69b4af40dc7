#!/bin/sh
# tracesim-record installed, as a user meets it: `make install DESTDIR=...`
# (a staged install, found relative to the script), and, run by
# `make installcheck` (distcheck: a --prefix install) with
# TS_INSTALLED_BINDIR set, the installed script records a trace with no
# TS_RECORD_LIB(DIR), also from a copy elsewhere (the configured libdir).
# A missing library: a clear message, nothing run, exit 127.
. "${top_srcdir:-.}/tests/test-record-lib.sh"
prog=$builddir/tests/mpi-halo
[ -x "$prog" ] || { echo "SKIP: tests/mpi-halo not built"; exit 77; }

# record_with SCRIPT NAME: 2 ranks of tests/mpi-halo into $work/NAME; the
# trace must be complete (10 iterations: 20 MPI_Irecv, 20 MPI_Allreduce).
record_with() {
  env -u TS_RECORD_LIB -u TS_RECORD_LIBDIR "$MPIEXEC" -n 2 sh "$1" -o "$work/$2" "$prog" \
    > "$work/$2.out" 2> "$work/$2.err" || fail "$2: rc $?: $(cat "$work/$2.err")"
  grep -q "^sum " "$work/$2.out" || fail "$2: the program's output is missing"
  [ -f "$work/$2/traces.otf2" ] || fail "$2: no archive: $(cat "$work/$2.err")"
  "$builddir/tracesim" info --no-replay "$work/$2/traces.otf2" > "$work/$2.info" \
    || fail "$2: tracesim info failed"
  grep -Eq "MPI_Irecv +20 " "$work/$2.info" || fail "$2: MPI_Irecv visits: $(cat "$work/$2.info")"
  grep -Eq "MPI_Allreduce +20 " "$work/$2.info" || fail "$2: visits: $(cat "$work/$2.info")"
}

if [ -n "${TS_INSTALLED_BINDIR:-}" ]; then
  script=$TS_INSTALLED_BINDIR/tracesim-record
  [ -f "$script" ] || fail "no $script"
  record_with "$script" prefix
  # A copy away from the install finds the library by the configured
  # libdir alone ($work/bin/../lib does not exist).
  mkdir -p "$work/bin" && cp "$script" "$work/bin/"
  record_with "$work/bin/tracesim-record" copied
  echo "PASS (installed in $TS_INSTALLED_BINDIR)"
  exit 0
fi

# A staged install of this build tree.
${MAKE:-make} -C "$builddir" install DESTDIR="$work/dest" > "$work/install.log" 2>&1 \
  || fail "make install DESTDIR failed: $(tail -20 "$work/install.log")"
script=$(find "$work/dest" -name tracesim-record -type f | head -1)
[ -n "$script" ] || fail "make install put no tracesim-record under $work/dest"
staged_lib=$(find "$work/dest" -name libtracesim-record.so | head -1)
[ -n "$staged_lib" ] || fail "make install put no libtracesim-record.so under $work/dest"
record_with "$script" staged

# The staged library removed (and the Open MPI one, which would do under
# Open MPI's launcher): the script says where it looked, runs nothing
# (the program's output is absent) and exits 127. Where the configured
# libdir holds an installed recorder, the script rightly takes that one.
rm -f "$(dirname "$staged_lib")"/libtracesim-record*.so
env -u TS_RECORD_LIB -u TS_RECORD_LIBDIR sh "$script" -o "$work/none" "$prog" \
  > "$work/none.out" 2> "$work/none.err"
rc=$?
if grep -q "is in none of" "$work/none.err"; then
  [ "$rc" -eq 127 ] || fail "missing library: rc $rc, expected 127"
  grep -q "$(dirname "$staged_lib")" "$work/none.err" \
    || fail "the message does not name the staged libdir: $(cat "$work/none.err")"
  [ ! -s "$work/none.out" ] || fail "the program ran without its recorder: $(cat "$work/none.out")"
  [ ! -e "$work/none" ] || fail "a trace directory was made"
else
  echo "missing-library check skipped: an installed recorder answered: $(cat "$work/none.err")"
fi

# TS_RECORD_LIB naming nothing: said, nothing run.
TS_RECORD_LIB=$work/nowhere.so sh "$script" -o "$work/none2" "$prog" > "$work/none2.out" 2> "$work/none2.err"
rc=$?
[ "$rc" -eq 127 ] || fail "TS_RECORD_LIB=nowhere: rc $rc"
grep -q "TS_RECORD_LIB names $work/nowhere.so, which does not exist" "$work/none2.err" \
  || fail "TS_RECORD_LIB=nowhere: $(cat "$work/none2.err")"

# A program that never calls MPI_Finalize under the recorder (here: no MPI
# at all) exits 0 but writes no trace: the script says so and exits 3.
TS_RECORD_LIB=$lib sh "$script" -o "$work/true" true > /dev/null 2> "$work/true.err"
rc=$?
[ "$rc" -eq 3 ] || fail "a program writing no trace: rc $rc, expected 3"
grep -q "true finished but wrote no trace in $work/true" "$work/true.err" \
  || fail "no trace: $(cat "$work/true.err")"
echo "PASS"
