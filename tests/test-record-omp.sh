#!/bin/sh
# The recorder on OpenMP teams (tests/mpi/omp.c, 2 ranks of 2 threads, GCC's
# libgomp): every thread of a team recorded into a location of its own,
# and the trace replayed with its teams (doc/threads.md). Hand counts, per
# rank and parallel region (3 of them):
# - the worker: THREAD_TEAM_BEGIN, ENTER "!$omp parallel", "work"
#   (ENTER, LEAVE), "!$omp barrier" (ENTER, LEAVE), "work" again, LEAVE
#   parallel, THREAD_TEAM_END: 10 events, 30 in all;
# - the master: the same but THREAD_TEAM_END, plus THREAD_FORK, the
#   implicit barrier (ENTER, LEAVE), THREAD_TEAM_END and THREAD_JOIN: 4
#   threading events a region (fork, team begin, team end, join), 12.
# Skipped (77) without MPI, or without GCC's OpenMP.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
[ -x "$builddir/tests/mpi-omp" ] || { echo "SKIP: no OpenMP test program"; exit 77; }
OMP_NUM_THREADS=2 record omp 2 "$builddir/tests/mpi-omp"
grep -q "^omp done, 2 threads" "$work/omp.out" || fail "the program's output: $(cat "$work/omp.out")"
complete omp
"$builddir/tracesim" info --json --no-replay "$work/omp/traces.otf2" > "$work/omp.json" \
  || fail "info --json failed"
check() {
  got=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(repr(eval(sys.argv[2])))' \
    "$work/omp.json" "$1")
  [ "$got" = "$2" ] || fail "$1 is $got, expected $2"
}
check "[r['threads'] for r in s['per_rank']]" "[2, 2]"
check "[r['thread_events'] for r in s['per_rank']]" "[12, 12]"
check "[r['other_threads_events'] for r in s['per_rank']]" "[30, 30]"
check "s['threads']['mpi_events_not_replayed']" 0
# Both ranks on this machine's node: 4 threads on it.
grep -q "2 ranks (4 threads)" "$work/omp.info" || fail "info's nodes: $(grep nodes "$work/omp.info")"
# The masters' regions, replayed: "work" twice a region, 2 ranks x 3
# regions; each region's explicit and implicit barrier once.
expect_visits omp work 12
expect_visits omp '!$omp barrier' 6
expect_visits omp '!$omp implicit barrier' 6
# --cpu-time: every thread's CPU time read before each of its ENTERs and
# LEAVEs, into its own location. A worker's, a region: the parallel
# region's ENTER and LEAVE, "work"'s twice, the barrier's: 8 readings, 24
# more events (54). The master reads 8 too and 1 at the implicit barrier's
# LEAVE (its ENTER follows its part's end, read at the same tick), beside
# its MPI calls' readings.
OMP_NUM_THREADS=2 record omp-cpu 2 --cpu-time "$builddir/tests/mpi-omp"
"$builddir/tracesim" info --json --no-replay "$work/omp-cpu/traces.otf2" > "$work/omp.json" \
  || fail "info --json failed (--cpu-time)"
check "[r['other_threads_events'] for r in s['per_rank']]" "[54, 54]"
"$builddir/tracesim" run -q --cpu-time "$work/omp-cpu/traces.otf2" -o "$work/omp-cpu-run" \
  || fail "the trace with every thread's CPU time does not replay with --cpu-time"
echo "PASS: OpenMP teams recorded on every thread and replayed"
