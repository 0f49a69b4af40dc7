#!/bin/sh
# The recorder under MPI_THREAD_MULTIPLE (tests/mpi/threads.c, 2 ranks):
# every thread's MPI calls, each on its own thread's location. Hand counts
# per rank, from the program:
# - the main thread (location = rank): MPI_Init_thread, 5 MPI_Send, 5
#   MPI_Recv, MPI_Barrier, MPI_Finalize: 13 ENTERs; 5 MPI_SEND and 5
#   MPI_RECV records;
# - the second thread (location 1 << 32 | rank = 4294967296 + rank): 5
#   MPI_Send, 5 MPI_Recv, MPI_Irecv, MPI_Isend, MPI_Waitall: 13 ENTERs;
#   5 MPI_SEND, 5 MPI_RECV, one each of MPI_ISEND, MPI_IRECV_REQUEST,
#   MPI_IRECV and MPI_ISEND_COMPLETE;
# - the archive says the thread level the program was given.
# tracesim then counts the 26 calls of the second threads (13 a rank) and
# replays each second thread as a location of its own, matched by tag
# against the other rank's: the predicted archive has the same events on
# the same locations, and the identity replay is within 5% of the run.
# Skipped (77) without MPI, or when the library does not provide
# MPI_THREAD_MULTIPLE.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
# value FILE EXPR: a Python expression of the JSON document s in FILE
value() { python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
record threads 2 "$builddir/tests/mpi-threads"
if grep -q "no MPI_THREAD_MULTIPLE" "$work/threads.out"; then
  echo "SKIP: the MPI library does not provide MPI_THREAD_MULTIPLE"
  exit 77
fi
grep -q "^threads done" "$work/threads.out" || fail "the program's output is missing"
"${OTF2_PRINT:-otf2-print}" "$work/threads/traces.otf2" > "$work/threads.print" 2>&1 \
  || fail "otf2-print failed: $(cat "$work/threads.print")"
# count RECORD LOCATION: how many RECORD events LOCATION has.
count() {
  awk -v r="$1" -v l="$2" '$1 == r && $2 == l { n++ } END { print n + 0 }' "$work/threads.print"
}
expect() {
  got=$(count "$1" "$2")
  [ "$got" -eq "$3" ] || fail "location $2 has $got $1 events, expected $3"
}
# every_location: the hand counts above, on every location of the archive
# printed in $work/threads.print.
every_location() {
  for r in 0 1; do
    t=$((4294967296 + r))
    expect ENTER "$r" 13
    expect MPI_SEND "$r" 5
    expect MPI_RECV "$r" 5
    expect ENTER "$t" 13
    expect LEAVE "$t" 13
    expect MPI_SEND "$t" 5
    expect MPI_RECV "$t" 5
    expect MPI_ISEND "$t" 1
    expect MPI_IRECV_REQUEST "$t" 1
    expect MPI_IRECV "$t" 1
    expect MPI_ISEND_COMPLETE "$t" 1
  done
}
every_location
grep -q "^mpi level: *MPI_THREAD_MULTIPLE" "$work/threads.info" \
  || fail "info does not say the thread level: $(head -5 "$work/threads.info")"
grep -q "on other threads 26 calls" "$work/threads.info" \
  || fail "info does not count the other threads' calls: $(grep -A5 'MPI calls' "$work/threads.info")"
"$builddir/tracesim" info --json --no-replay "$work/threads/traces.otf2" > "$work/threads.json" \
  || fail "info --json failed"
got=$(value "$work/threads.json" "s['threads']['mpi_calls_replayed']")
[ "$got" -eq 26 ] || fail "info --json counts $got calls replayed on other threads, expected 26"
[ "$(value "$work/threads.json" "s['threads']['mpi_calls_not_replayed']")" -eq 0 ] \
  || fail "info --json leaves calls on other threads unreplayed"
# Replayed: every location's events again, each on its own location.
"$builddir/tracesim" run -q "$work/threads/traces.otf2" -o "$work/threads-run" 2> "$work/run.err" \
  || fail "the replay of MPI from other threads failed: $(cat "$work/run.err")"
"${OTF2_PRINT:-otf2-print}" "$work/threads-run/predicted/traces.otf2" > "$work/threads.print" 2>&1 \
  || fail "otf2-print of the prediction failed: $(cat "$work/threads.print")"
every_location
original=$(value "$work/threads-run/summary.json" "s['original']['runtime_s']")
predicted=$(value "$work/threads-run/summary.json" "s['predicted']['runtime_s']")
python3 -c 'import sys; o, p = map(float, sys.argv[1:]); sys.exit(abs(p / o - 1) > 0.05)' \
  "$original" "$predicted" || fail "identity: predicted $predicted s for $original s"
# MPI_Send's visits: 5 on each of the 4 locations.
[ "$(value "$work/threads-run/summary.json" "[g['visits'] for g in s['regions'] if g['name'] == 'MPI_Send']")" = "[20]" ] \
  || fail "summary's MPI_Send visits: $(grep -A2 '"MPI_Send"' "$work/threads-run/summary.json")"
# Under MPI_THREAD_FUNNELED (the program's "funneled" mode: the same calls,
# the second thread's while the main one waits) the calls of the second
# threads break MPI's rules: info says so beside the level, and so does
# the replay's refusal.
record funneled 2 "$builddir/tests/mpi-threads" funneled
grep -q "^mpi level: *MPI_THREAD_FUNNELED: but the program was given MPI_THREAD_FUNNELED, under which only the thread that initialised MPI may call it: the 26 calls of other threads break MPI's rules" \
  "$work/funneled.info" || fail "info does not hold the calls against the level: $(grep 'mpi level' "$work/funneled.info")"
if "$builddir/tracesim" run -q "$work/funneled/traces.otf2" -o "$work/funneled-run" 2> "$work/run.err"; then
  fail "the funneled trace replayed"
fi
grep -q "the program was given MPI_THREAD_FUNNELED" "$work/run.err" \
  || fail "the refusal does not say the level: $(cat "$work/run.err")"
echo "PASS: every thread's MPI calls recorded on its own location, counted and replayed"
