#!/bin/sh
# The recorder on OpenMP teams (tests/mpi/omp.c, 2 ranks of 2 threads, GCC's
# libgomp): every thread of a team recorded into a location of its own,
# and the trace replayed with its teams (doc/threads.md). Hand counts, per
# rank and parallel region (3 of them):
# - the worker: THREAD_TEAM_BEGIN, ENTER "!$omp parallel", "work"
#   (ENTER, LEAVE), "!$omp barrier" (ENTER, LEAVE), "work" again, the
#   dynamic loop's "!$omp implicit barrier" (ENTER, LEAVE: GOMP_loop_end),
#   LEAVE parallel, THREAD_TEAM_END: 12 events, 36 in all;
# - the master: the same but THREAD_TEAM_END, plus THREAD_FORK, the
#   team's implicit barrier (ENTER, LEAVE), THREAD_TEAM_END and THREAD_JOIN: 4
#   threading events a region (fork, team begin, team end, join), 12.
# Skipped (77) without MPI, or without GCC's OpenMP; LLVM's (below) where
# clang and libomp are installed.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
[ -x "$builddir/tests/mpi-omp" ] || { echo "SKIP: no OpenMP test program"; exit 77; }
check() {
  got=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(repr(eval(sys.argv[2])))' \
    "$work/omp.json" "$1")
  [ "$got" = "$2" ] || fail "$1 is $got, expected $2"
}
# teams NAME PROGRAM WORKER_EVENTS: PROGRAM recorded as NAME on 2 ranks of 2
# threads, complete; each rank has 2 threads, 12 threading events of its
# own and WORKER_EVENTS on its worker; the masters' regions replayed:
# "work" twice a region, 2 ranks x 3 regions; each region's explicit
# barrier once, and two implicit ones (the loop's and the team's).
teams() {
  OMP_NUM_THREADS=2 record "$1" 2 "$2"
  grep -q "^omp done, 2 threads" "$work/$1.out" || fail "$1: the program's output: $(cat "$work/$1.out")"
  complete "$1"
  "$builddir/tracesim" info --json --no-replay "$work/$1/traces.otf2" > "$work/omp.json" \
    || fail "$1: info --json failed"
  check "[r['threads'] for r in s['per_rank']]" "[2, 2]"
  check "[r['thread_events'] for r in s['per_rank']]" "[12, 12]"
  check "[r['other_threads_events'] for r in s['per_rank']]" "[$3, $3]"
  check "s['threads']['mpi_events_not_replayed']" 0
  expect_visits "$1" work 12
  expect_visits "$1" '!$omp barrier' 6
  expect_visits "$1" '!$omp implicit barrier' 12
}
# cpu_teams NAME PROGRAM WORKER_EVENTS: the same recorded with --cpu-time.
cpu_teams() {
  OMP_NUM_THREADS=2 record "$1" 2 --cpu-time "$2"
  "$builddir/tracesim" info --json --no-replay "$work/$1/traces.otf2" > "$work/omp.json" \
    || fail "$1: info --json failed"
  check "[r['other_threads_events'] for r in s['per_rank']]" "[$3, $3]"
}
teams omp "$builddir/tests/mpi-omp" 36
# Both ranks on this machine's node: 4 threads on it.
grep -q "2 ranks (4 threads)" "$work/omp.info" || fail "info's nodes: $(grep nodes "$work/omp.info")"
# --cpu-time: every thread's CPU time read before each of its ENTERs and
# LEAVEs, into its own location. A worker's, a region: the parallel
# region's ENTER and LEAVE, "work"'s twice, the two barriers': 10
# readings, 30 more events (66). The master reads 8 too and 1 at the implicit barrier's
# LEAVE (its ENTER follows its part's end, read at the same tick), beside
# its MPI calls' readings.
cpu_teams omp-cpu "$builddir/tests/mpi-omp" 66
"$builddir/tracesim" run -q --cpu-time "$work/omp-cpu/traces.otf2" -o "$work/omp-cpu-run" \
  || fail "the trace with every thread's CPU time does not replay with --cpu-time"
# LLVM's runtime (libomp), followed through OMPT (recorder/record-ompt.c):
# the same program built by clang. Score-P's layout, every thread alike: a
# region's worker has THREAD_TEAM_BEGIN, ENTER "!$omp parallel", "work"
# twice (4), "!$omp barrier" (2), "!$omp implicit barrier" (4: the loop's,
# and the team's last barrier, inside the parallel region), LEAVE parallel
# and THREAD_TEAM_END: 14 events, 42 in all; the master the same plus fork
# and join: 4 threading events a region again, 12. The workers' last
# team ends after MPI_Finalize in the runtime's eyes; the recorder closes
# it there, so every ENTER has its LEAVE (ts-check-archive). With
# --cpu-time a worker reads its CPU time before each of its 12 ENTERs and
# LEAVEs a region: 36 more, 78.
if [ -x "$builddir/tests/mpi-omp-llvm" ]; then
  teams llvm "$builddir/tests/mpi-omp-llvm" 42
  cpu_teams llvm-cpu "$builddir/tests/mpi-omp-llvm" 78
  # The identity replay is the recording, to the nanosecond's rounding.
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
o, p = d["original"]["runtime_s"], d["predicted"]["runtime_s"]
sys.exit(0 if abs(o - p) <= 1e-9 * max(o, 1) else 1)' "$work/llvm-run/summary.json" \
    || fail "llvm: the identity replay is not the recording: $(grep -o '"runtime_s" *: *[0-9.e-]*' "$work/llvm-run/summary.json" | tr '\n' ' ')"
else
  echo "(no clang build of the program: LLVM's runtime not checked)"
fi
echo "PASS: OpenMP teams recorded on every thread and replayed"
