#!/bin/sh
# MPI + OpenMP traces in the location layouts real tools write
# (tests/hybrid-gen.c): read, counted and said, never misread.
#
# The trace (derived in hybrid-gen.c): 2 ranks of 2 threads. A master has
# 13 events: 4 threading events (fork, team begin, team end, join), which
# are not replayed, and 9 others (main, compute_kernel, the implicit
# barrier, an MPI_Send or MPI_Recv: enter, leave and the message). A
# worker has 6 events. So per rank: 9 events read, 4 threading events,
# 1 other thread of 6 events; in all 4 locations, 2 replayed, 12 events
# not replayed. The replay is the masters' timelines: rank 0 ends at 7 ms.
# - scorep: the OpenMP COMM_LOCATIONS group (every thread) is no rank
#   list, and the two thread teams' communicators (members 0 1 and 2 3 of
#   that group) are no MPI communicators: 2 foreign communicators.
# - eztrace: "OpenMP Thread Team" names group 4, never defined: 1 foreign;
#   its barrier is EZTrace's "OpenMP implicit barrier", a user function.
# - ezompt: eztrace, each worker's team marked only by its "OpenMP
#   implicit task" region (EZTrace's OMPT module): read as scorep's teams,
#   so every figure below is scorep's.
# - nogroup: no rank list at all. Each process is a rank; rank 1's is
#   location 2 (location 1, lower, has no events), so both ranks read 9
#   events, and rank 1 has 3 threads (2, 1, its worker); the third process
#   has only a thread without events: no rank, 1 location of no rank.
# - mpi-thread: rank 1's worker enters MPI_Isend at its 7th event (OTF2
#   counts from 1: team begin, enter, leave, enter, leave, team end, enter)
#   and logs the message: 2 MPI events on a thread that works in its
#   rank's team, replayed as a stream of its own (below).
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work hybrid
gen=$builddir/tests/hybrid-gen

for layout in scorep eztrace ezompt nogroup mpi-thread late teams2 teams3 cpu; do
  "$gen" "$layout" "$work/$layout" || fail "$layout: hybrid-gen"
done

# check LAYOUT EXPR EXPECTED: a Python expression of info --json
check() {
  got=$(value "$work/$1.json" "$2")
  [ "$got" = "$3" ] || fail "$1: $2 is $got, expected $3"
}

for layout in scorep eztrace ezompt nogroup; do
  "$tracesim" info --json --no-replay "$work/$layout/traces.otf2" > "$work/$layout.json" \
    || fail "$layout: info"
  check $layout "s['ranks']" 2
  check $layout "[r['events'] for r in s['per_rank']]" "[9, 9]"
  check $layout "[r['thread_events'] for r in s['per_rank']]" "[4, 4]"
  check $layout "[r['other_threads_events'] for r in s['per_rank']]" "[6, 6]"
  check $layout "s['threads']['replayed']" 2
  check $layout "s['threads']['events_not_replayed']" 12
  check $layout "s['threads']['mpi_events_not_replayed']" 0

  rm -rf "$work/out-$layout"
  "$tracesim" run -q "$work/$layout/traces.otf2" -o "$work/out-$layout" 2> "$work/$layout.err" \
    || fail "$layout: run: $(cat "$work/$layout.err")"
  s=$work/out-$layout/summary.json
  near "$(value "$s" "s['predicted']['runtime_s']")" 0.007 0.000002 \
    || fail "$layout: predicted $(value "$s" "s['predicted']['runtime_s']") s, expected 0.007 s"
  [ "$(value "$s" "s['threads']['events_not_replayed']")" = 12 ] || fail "$layout: summary's threads"
  grep -q 'threads\? of 2 ranks, 12 events: what they do inside thread teams' "$work/$layout.err" \
    || fail "$layout: run does not say how it replays the threads: $(cat "$work/$layout.err")"
  # No rank that never started: no -inf, NaN or missing figure in the numbers.
  ! grep -q -i ': *-\?\(inf\|nan\|infinity\)\b\|_s" *: *null' "$s" \
    || fail "$layout: summary.json has an infinite, NaN or null time"
done
check scorep "s['threads']['locations']" 4
check scorep "s['threads']['foreign_comms']" 2
check scorep "s['threads']['unplaced_locations']" 0
check eztrace "s['threads']['foreign_comms']" 1
check nogroup "s['threads']['locations']" 5
check nogroup "[r['threads'] for r in s['per_rank']]" "[2, 3]"
check nogroup "s['threads']['unplaced_locations']" 1
check nogroup "s['threads']['foreign_comms']" 0
[ "$(value "$work/out-scorep/summary.json" "s['threads']")" \
  = "{'locations': 4, 'replayed': 2, 'events_not_replayed': 12}" ] || fail "scorep: summary's threads"

# Teams replayed as phases: each master's compute_kernel (2 ms) then its
# barrier, which ends when its worker's 6 ms are done: the identity keeps
# 7 ms, the master's 4 ms in the barrier simulated, not work. A what-if on
# the threads' work, compute_kernel twice as fast (scale 0.5): each master
# computes 1 ms, its worker 3 ms, so the barrier ends at 3 ms and the run
# 3 ms earlier than the identity (whose 7.0008192 ms hold rank 1's 8 KiB
# receive on the calibrated network): 4.0008192 ms. Rank 0's work is its
# 1 + 0.9 ms of compute and its MPI_Send's 0.1 ms, 2 ms; its 2 ms in the
# barrier are simulated. Replaying the masters alone, the worker's halving
# is lost and the barrier's 4 ms are work: 6.0008192 ms.
printf '[region:compute_kernel]\nscale = 0.5\n' > "$work/fast.hyp"
for layout in scorep eztrace ezompt nogroup; do
  s=$work/out-$layout/summary.json
  near "$(value "$s" "s['predicted']['simulated_s'][0]")" 0.004 1e-9 \
    || fail "$layout: identity's simulated time $(value "$s" "s['predicted']['simulated_s']")"
  rm -rf "$work/fast-$layout"
  "$tracesim" run -q "$work/$layout/traces.otf2" -H "$work/fast.hyp" -o "$work/fast-$layout" \
    2> /dev/null || fail "$layout: the what-if failed"
  s=$work/fast-$layout/summary.json
  near "$(value "$s" "s['predicted']['runtime_s']")" 0.0040008192 1e-9 \
    || fail "$layout: what-if predicted $(value "$s" "s['predicted']['runtime_s']") s, expected 0.0040008192 s"
  near "$(value "$s" "s['predicted']['work_s'][0]")" 0.002 1e-9 || fail "$layout: rank 0's work"
  near "$(value "$s" "s['predicted']['simulated_s'][0]")" 0.002 1e-9 || fail "$layout: rank 0's wait"
done

# OpenMP barrier waits (waitstates.csv, summary.json, the predicted
# archive's metrics): each master is in its barrier from 2 to 6 ms, 4 ms
# in both timelines of the identity; with compute_kernel 2x faster, from 1
# to 3 ms: 2 ms predicted; balanced across threads, both threads reach the
# barrier at 4 ms: no wait, no row.
ws() { grep "^$2,omp_barrier_wait,!\$omp implicit barrier @kernel.c:12,$3," "$work/$1/waitstates.csv" \
         | cut -d, -f5; }
[ "$(ws out-scorep original 0)" = 0.004000000 ] && [ "$(ws out-scorep predicted 1)" = 0.004000000 ] \
  || fail "identity's barrier waits: $(cat "$work/out-scorep/waitstates.csv")"
[ "$(ws fast-scorep original 1)" = 0.004000000 ] && [ "$(ws fast-scorep predicted 0)" = 0.002000000 ] \
  || fail "fast's barrier waits: $(cat "$work/fast-scorep/waitstates.csv")"
near "$(value "$work/fast-scorep/summary.json" "s['wait_states']['predicted']['omp_barrier_wait']")" \
  0.004 1e-9 || fail "summary's predicted barrier wait (2 ranks x 2 ms)"
otf2-print "$work/fast-scorep/predicted/traces.otf2" | grep -q '"omp_barrier_wait" <[0-9]*>; DOUBLE; 0.002)' \
  || fail "the predicted archive has no omp_barrier_wait metric of 2 ms"
# Idle threads: outside its team a master runs alone and its worker has
# nothing to do. The team ends at 6 ms; rank 0 is in MPI_Send until 6.1
# ms and in main until 7 ms: 0.1 ms idle in MPI_Send, 0.9 in main, times
# its one other thread. With compute_kernel 2x faster the team ends at 3
# ms and the rest moves with it: the same 0.1 and 0.9 ms predicted.
idle() { grep "^$2,omp_idle_threads,$3,$4," "$work/$1/waitstates.csv" | cut -d, -f5; }
[ "$(idle fast-scorep original MPI_Send 0)" = 0.000100000 ] \
  && [ "$(idle fast-scorep original main 0)" = 0.000900000 ] \
  && [ "$(idle fast-scorep predicted MPI_Send 0)" = 0.000100000 ] \
  && [ "$(idle fast-scorep predicted main 0)" = 0.000900000 ] \
  || fail "idle threads: $(cat "$work/fast-scorep/waitstates.csv")"

# A barrier's residual (late): each master left its barrier 0.5 ms after
# its worker's work ended, which nothing simulated explains. The identity
# keeps it (pinned): 7.5008192 ms. The what-if above with it pinned: the
# barrier ends at 3 ms, 0.5 ms later the master goes on: 4.5008192 ms;
# without it (none): 4.0008192 ms. A what-if on a trace with threads scales
# it by default (--residual scaled: the sharing of cores and late wake-ups
# follow the threads' work).
for mode in default pinned none; do
  rm -rf "$work/late-$mode"
  opt="--residual $mode"
  [ $mode = default ] && opt=
  # shellcheck disable=SC2086
  "$tracesim" run -q "$work/late/traces.otf2" -H "$work/fast.hyp" $opt -o "$work/late-$mode" \
    2> /dev/null || fail "late: the what-if ($mode) failed"
done
"$tracesim" run -q "$work/late/traces.otf2" -o "$work/late-identity" 2> /dev/null \
  || fail "late: the identity failed"
near "$(value "$work/late-identity/summary.json" "s['predicted']['runtime_s']")" 0.0075008192 1e-9 \
  || fail "late: identity $(value "$work/late-identity/summary.json" "s['predicted']['runtime_s']")"
near "$(value "$work/late-pinned/summary.json" "s['predicted']['runtime_s']")" 0.0045008192 1e-9 \
  || fail "late: pinned $(value "$work/late-pinned/summary.json" "s['predicted']['runtime_s']")"
near "$(value "$work/late-none/summary.json" "s['predicted']['runtime_s']")" 0.0040008192 1e-9 \
  || fail "late: none $(value "$work/late-none/summary.json" "s['predicted']['runtime_s']")"
[ "$(value "$work/late-default/summary.json" "s['inputs']['options']['residual']")" = "'scaled'" ] \
  || fail "late: a what-if's residual is $(value "$work/late-default/summary.json" "s['inputs']['options']['residual']")"
# Every thread's barrier wait, summed per rank: in late, each worker enters
# the barrier at 6 ms (its 6 ms of work done) and waits until its master
# leaves it at 6.5 ms, 0.5 ms; the master waits from 2 to 6.5 ms, 4.5 ms:
# 5 ms a rank. The identity's prediction: the master enters at 2 ms, its
# worker's simulated work ends at 6 ms, the master leaves at 6.5 ms (the
# 0.5 ms residual pinned): again 4.5 + 0.5 ms. Under sharing (one core a
# host, shared-identity below) the master's 2 ms end at 4 ms, not 2: the
# master waits 4 ms, its worker none.
[ "$(ws late-identity original 0)" = 0.005000000 ] && [ "$(ws late-identity predicted 1)" = 0.005000000 ] \
  || fail "late: every thread's barrier waits: $(cat "$work/late-identity/waitstates.csv")"
# The predicted archive has each rank's worker as a thread of its own
# (location thread << 32 | rank, in its rank's process and thread team):
# rank 0's worker, with compute_kernel 2x faster, runs it from 0 to 3 ms
# and is in the barrier at once (entered and left at 3 ms).
otf2-print -G "$work/fast-scorep/predicted/traces.otf2" \
  | grep -q 'LOCATION *4294967296 *Name: "rank 0 thread 1".*Group: "MPI Rank 0"' \
  || fail "the predicted archive has no location for rank 0's worker"
otf2-print "$work/fast-scorep/predicted/traces.otf2" | grep ' 4294967296 ' > "$work/fast-worker.txt"
grep -q 'LEAVE *4294967296 *3000000 *Region: "compute_kernel"' "$work/fast-worker.txt" \
  && grep -q 'THREAD_TEAM_BEGIN *4294967296 *0 *Thread Team: "Thread team of rank 0"' "$work/fast-worker.txt" \
  && [ "$(grep -c 'implicit barrier' "$work/fast-worker.txt")" = 2 ] \
  || fail "rank 0's predicted worker: $(cat "$work/fast-worker.txt")"

# A second team of the master alone (teams2): its worker's events ended
# with the first, so it brings no work (and no read past its end). Its
# compute_kernel of 0.4 ms is halved by the what-if: 3 + 0.1 + 0.2 + 0.5 =
# 3.8 ms, and rank 1's receive adds 0.0008192 ms; the identity is as
# scorep's, 7.0008192 ms.
rm -rf "$work/teams2-id" "$work/teams2-fast"
"$tracesim" run -q "$work/teams2/traces.otf2" -o "$work/teams2-id" 2> "$work/teams2.err" \
  || fail "teams2: identity: $(cat "$work/teams2.err")"
"$tracesim" run -q "$work/teams2/traces.otf2" -H "$work/fast.hyp" -o "$work/teams2-fast" \
  2> "$work/teams2.err" || fail "teams2: what-if: $(cat "$work/teams2.err")"
near "$(value "$work/teams2-id/summary.json" "s['predicted']['runtime_s']")" 0.0070008192 1e-9 \
  || fail "teams2: identity $(value "$work/teams2-id/summary.json" "s['predicted']['runtime_s']")"
near "$(value "$work/teams2-fast/summary.json" "s['predicted']['runtime_s']")" 0.0038008192 1e-9 \
  || fail "teams2: what-if $(value "$work/teams2-fast/summary.json" "s['predicted']['runtime_s']")"

# What-ifs on the threads (scorep: the masters' compute_kernel 2 ms, their
# workers' 6 ms, one team phase; after it 1 ms on rank 0 to its end, and
# rank 1's receive adds 0.0008192 ms, so the run ends 1.0008192 ms after
# the phase).
# - balance = mean across = threads: each thread of the phase takes
#   (2 + 6) / 2 = 4 ms, so the barrier ends at 4 ms with no wait: 5.0008192
#   ms; rank 0's work 4 + 1 = 5 ms, nothing simulated (no barrier wait).
# - threads = 4: the phase's 8 ms over 4 threads, 2 ms each; the master
#   and its worker take 2 ms, 2 new threads are forked with theirs. The
#   calibrated host has the cores the trace shows threads, 2 (it does not
#   say its nodes' cores): 4 threads of 2 ms share them, the phase ends at
#   4 ms, the run at 5.0008192 ms.
# - threads = 1: the master alone takes the 8 ms, the worker no longer
#   exists: 9.0008192 ms, and no barrier wait.
# - teams2 balanced: its first team as scorep (4 ms), its second (the
#   master alone, 0.4 ms) has one thread and keeps it: 4 + 0.1 + 0.4 + 0.5
#   = 5.0 ms, 5.0008192 ms. With threads = 4, that second team's 0.4 ms go
#   over 4 threads, 0.1 ms each: the master, its worker (idle there in the
#   trace) and 2 new threads, on 2 cores: 0.2 ms; so 4 + 0.1 + 0.2 + 0.5 =
#   4.8 ms, 4.8008192 ms.
printf '[region:compute_kernel]\nbalance = mean\nacross = threads\n' > "$work/tbal.hyp"
printf '[region:compute_kernel]\nthreads = 4\n' > "$work/t4.hyp"
printf '[region:compute_kernel]\nthreads = 1\n' > "$work/t1.hyp"
# - set = 0.004 (a visit of compute_kernel, the rank's whole team, lasts 4
#   ms): the visit is the master's 2 ms and its worker's 6 ms of that phase
#   (forked before the master enters it), 8 ms: both are halved, as with
#   scale 0.5: 4.0008192 ms.
printf '[region:compute_kernel]\nset = 0.004\n' > "$work/set4.hyp"
# what LAYOUT HYP EXPECTED_RUNTIME
what() {
  rm -rf "$work/what-$1-$2"
  "$tracesim" run -q "$work/$1/traces.otf2" -H "$work/$2.hyp" -o "$work/what-$1-$2" \
    2> "$work/what.err" || fail "$1 with $2: $(cat "$work/what.err")"
  got=$(value "$work/what-$1-$2/summary.json" "s['predicted']['runtime_s']")
  near "$got" "$3" 1e-9 || fail "$1 with $2: predicted $got s, expected $3 s"
}
what scorep tbal 0.0050008192
what eztrace tbal 0.0050008192
what ezompt tbal 0.0050008192
what scorep t4 0.0050008192
what scorep t1 0.0090008192
# Under threads = 1 the worker is in no team: no location of its own in the
# predicted archive (2 locations, the ranks'), no barrier wait predicted
# (the masters' barriers last no time), no idle thread. A rule on a region
# the worker does not run (main) still makes the team 1 thread: the
# worker's 6 ms of compute_kernel, which no rule names, run on thread
# 1 mod 1 = 0, the master: 2 + 6 ms, then 1 ms: 9.0008192 ms again.
s=$work/what-scorep-t1/summary.json
[ "$(value "$s" "s['wait_states']['predicted']['omp_barrier_wait']")" = 0.0 ] \
  || fail "t1: predicted barrier wait $(value "$s" "s['wait_states']['predicted']['omp_barrier_wait']")"
[ "$(value "$s" "s['wait_states']['predicted']['omp_idle_threads']")" = 0.0 ] || fail "t1: idle threads"
"${OTF2_PRINT:-otf2-print}" -G "$work/what-scorep-t1/predicted/traces.otf2" > "$work/t1.defs" 2>&1 \
  || fail "t1: otf2-print"
[ "$(grep -c '^LOCATION ' "$work/t1.defs")" = 2 ] || fail "t1: locations $(grep '^LOCATION ' "$work/t1.defs")"
printf '[region:main]\nthreads = 1\n' > "$work/t1main.hyp"
what scorep t1main 0.0090008192
what scorep set4 0.0040008192
what teams2 tbal 0.0050008192
what teams2 t4 0.0048008192
# A thread-count what-if from ranks traced with one thread (single: teams
# of one, compute_kernel 6 ms, the node's 4 cores said). threads = 2: the
# phase's 6 ms over 2 threads, 3 ms each; the calibrated host has the
# node's 4 cores (the trace says them), so the 4 threads of the 2 ranks
# each have one: the phase ends at 3 ms, the run 1.0008192 ms later (as
# scorep), at 4.0008192 ms. Identity: 7.0008192 ms as traced (7 ms and
# the receive's 0.0008192). Each rank's new thread idles after its team:
# rank 0's from 3 to 4 ms, rank 1's to 4.0008192 ms: 2.0008192 ms of
# omp_idle_threads; no barrier wait (the team's threads end together).
# The predicted archive has the 2 new threads' locations: 4.
"$gen" single "$work/single" || fail "single: hybrid-gen"
printf '[region:compute_kernel]\nthreads = 2\n' > "$work/t2.hyp"
what single t2 0.0040008192
s=$work/what-single-t2/summary.json
near "$(value "$s" "s['wait_states']['predicted']['omp_idle_threads']")" 0.0020008192 1e-9 \
  || fail "single t2: idle threads $(value "$s" "s['wait_states']['predicted']['omp_idle_threads']")"
[ "$(value "$s" "s['wait_states']['predicted']['omp_barrier_wait']")" = 0.0 ] \
  || fail "single t2: barrier wait $(value "$s" "s['wait_states']['predicted']['omp_barrier_wait']")"
"${OTF2_PRINT:-otf2-print}" -G "$work/what-single-t2/predicted/traces.otf2" > "$work/t2.defs" 2>&1 \
  || fail "single t2: otf2-print"
[ "$(grep -c '^LOCATION ' "$work/t2.defs")" = 4 ] || fail "single t2: locations $(grep '^LOCATION ' "$work/t2.defs")"
# The new threads' 3 ms are compute_kernel's, the rule's region (on
# locations 1 << 32 | rank): from 0 to 3 ms (before, a burst of no region).
"${OTF2_PRINT:-otf2-print}" "$work/what-single-t2/predicted/traces.otf2" 2> /dev/null \
  | awk '$1 == "ENTER" || $1 == "LEAVE"' | grep '"compute_kernel"' \
  | awk '$2 >= 4294967296 { print $1, $2, $3 }' | sort > "$work/t2.kernel"
printf '%s\n' "ENTER 4294967296 0" "ENTER 4294967297 0" "LEAVE 4294967296 3000000" \
  "LEAVE 4294967297 3000000" | diff - "$work/t2.kernel" > /dev/null \
  || fail "single t2: the new threads' compute_kernel: $(cat "$work/t2.kernel")"
rm -rf "$work/single-id"
"$tracesim" run -q "$work/single/traces.otf2" -o "$work/single-id" 2> "$work/single.err" \
  || fail "single: $(cat "$work/single.err")"
near "$(value "$work/single-id/summary.json" "s['predicted']['runtime_s']")" 0.0070008192 1e-9 \
  || fail "single: identity $(value "$work/single-id/summary.json" "s['predicted']['runtime_s']")"
# The runtime's costs a one-thread trace cannot show (--omp-costs 1ms,0.5ms),
# under threads = 2: the team's fork takes 1 ms on the master before its
# threads start (phase 1-4 ms), its barrier (the implicit one, 4 ms) 0.5
# ms after the join: the run ends 1.5 ms later, 5.5008192 ms, and the
# 1.5 ms are simulated time, not work (rank 0's simulated 1.5 ms). The
# identity replay's teams are as traced: no cost, 7.0008192 ms.
rm -rf "$work/single-costs"
"$tracesim" run -q "$work/single/traces.otf2" -H "$work/t2.hyp" --omp-costs 1ms,0.5ms \
  -o "$work/single-costs" 2> "$work/costs.err" || fail "--omp-costs: $(cat "$work/costs.err")"
s=$work/single-costs/summary.json
near "$(value "$s" "s['predicted']['runtime_s']")" 0.0055008192 1e-9 \
  || fail "--omp-costs: predicted $(value "$s" "s['predicted']['runtime_s']")"
near "$(value "$s" "s['predicted']['simulated_s'][0]")" 0.0015 1e-9 \
  || fail "--omp-costs: rank 0 simulated $(value "$s" "s['predicted']['simulated_s'][0]")"
[ "$(value "$s" "s['inputs']['options']['omp_costs_s']")" = "[0.001, 0.0005]" ] \
  || fail "--omp-costs in summary.json: $(value "$s" "s['inputs']['options']['omp_costs_s']")"
rm -rf "$work/single-costs"
"$tracesim" run -q "$work/single/traces.otf2" --omp-costs 1ms,0.5ms -o "$work/single-costs" \
  2> "$work/costs.err" || fail "--omp-costs identity: $(cat "$work/costs.err")"
near "$(value "$work/single-costs/summary.json" "s['predicted']['runtime_s']")" 0.0070008192 1e-9 \
  || fail "--omp-costs identity: $(value "$work/single-costs/summary.json" "s['predicted']['runtime_s']")"
# A malformed value is refused before anything is written.
rm -rf "$work/bad-costs"
if "$tracesim" run -q "$work/single/traces.otf2" --omp-costs 1ms -o "$work/bad-costs" 2> "$work/costs.err"; then
  fail "--omp-costs 1ms was taken"
fi
grep -q "omp-costs '1ms': expected two durations" "$work/costs.err" || fail "the refusal: $(cat "$work/costs.err")"
[ ! -e "$work/bad-costs" ] || fail "a refused --omp-costs wrote $work/bad-costs"
# tracesim-omp-cost measures this machine's runtime (GCC's libgomp) for 2
# threads: its last line is the option, with two durations; the barrier
# cannot be free (a thread must see the other arrive), and run takes it.
OMP_WAIT_POLICY=passive "$builddir/tracesim-omp-cost" 2 > "$work/omp-cost.out" || fail "tracesim-omp-cost"
costs=$(tail -1 "$work/omp-cost.out")
echo "$costs" | grep -Eq '^--omp-costs [0-9]+\.[0-9]{2}us,[0-9]+\.[0-9]{2}us$' \
  || fail "tracesim-omp-cost printed: $(cat "$work/omp-cost.out")"
[ "$(echo "$costs" | sed 's/.*,\([0-9.]*\)us/\1/')" != 0.00 ] || fail "a free barrier: $costs"
rm -rf "$work/single-costs"
# shellcheck disable=SC2086 # the option and its value
"$tracesim" run -q "$work/single/traces.otf2" -H "$work/t2.hyp" $costs -o "$work/single-costs" \
  2> "$work/costs.err" || fail "run with $costs: $(cat "$work/costs.err")"
"$builddir/tracesim-omp-cost" 1 > /dev/null 2>&1 && fail "tracesim-omp-cost 1 was taken"
# A thread-count rule on a trace without any thread team would change
# nothing: refused, naming the rule's line, and nothing written.
printf 'ranks 1\n0 0 enter compute_kernel\n0 0.001 leave compute_kernel\n' > "$work/one.script"
"$builddir/ts-tracegen" script "$work/one.script" -o "$work/one" > /dev/null || fail "ts-tracegen (one)"
rm -rf "$work/one-t4"
if "$tracesim" run -q "$work/one/traces.otf2" -H "$work/t4.hyp" -o "$work/one-t4" 2> "$work/one.err"; then
  fail "a threads rule on a one-thread trace was taken"
fi
grep -q "t4.hyp:1: \[region:compute_kernel\] threads: no rank of .* ran a thread team" "$work/one.err" \
  || fail "the refusal: $(cat "$work/one.err")"
[ ! -e "$work/one-t4" ] || fail "the refused run wrote $work/one-t4"
# - teams3: the second team after the message is forked for 1 thread,
#   the third for 2. The worker is in the first and the third only: its
#   events after the first team are the third's. With compute_kernel 2x
#   faster: the first team 3 ms (as scorep), the message 0.1 ms, the
#   master alone 0.2 ms, the third team max(0.25, 1.0) = 1 ms, main's
#   last 0.5 ms: 4.8 ms, 4.8008192 ms (had the second team taken the
#   worker's work of the third, it would last 1 ms and the third 0.25 ms:
#   4.85 ms). Barrier waits per rank: traced 4 +
#   1.5 ms; predicted 2 + 0.75 ms.
printf '[region:compute_kernel]\nscale = 0.5\n' > "$work/fast3.hyp"
what teams3 fast3 0.0048008192
rm -rf "$work/id-teams3"
"$tracesim" run -q "$work/teams3/traces.otf2" -o "$work/id-teams3" 2> /dev/null || fail "teams3: run"
near "$(value "$work/id-teams3/summary.json" "s['predicted']['runtime_s']")" 0.009 0.000002 \
  || fail "teams3: identity $(value "$work/id-teams3/summary.json" "s['predicted']['runtime_s']")"
ws3() { grep "^$2,omp_barrier_wait,!\$omp implicit barrier @kernel.c:12,$3," "$work/$1/waitstates.csv" \
          | cut -d, -f5; }
[ "$(ws3 what-teams3-fast3 original 0)" = 0.005500000 ] \
  && [ "$(ws3 what-teams3-fast3 predicted 1)" = 0.002750000 ] \
  || fail "teams3's barrier waits: $(cat "$work/what-teams3-fast3/waitstates.csv")"
# Limited parallelism (Scalasca's): the lone master's team leaves the
# worker out for its whole length, in compute_kernel: 0.4 ms a rank
# traced (6.1-6.5 ms), 0.2 ms with the kernel 2x faster; the teams of 2
# leave nobody out.
lp() { grep "^$2,omp_limited_parallelism,$3,$4," "$work/$1/waitstates.csv" | cut -d, -f5; }
[ "$(lp what-teams3-fast3 original compute_kernel 0)" = 0.000400000 ] \
  && [ "$(lp what-teams3-fast3 predicted compute_kernel 1)" = 0.000200000 ] \
  && [ "$(grep -c omp_limited_parallelism "$work/what-teams3-fast3/waitstates.csv")" = 4 ] \
  || fail "teams3's limited parallelism: $(grep omp_limited "$work/what-teams3-fast3/waitstates.csv")"
near "$(value "$work/what-teams3-fast3/summary.json" "s['wait_states']['predicted']['omp_limited_parallelism']")" \
  0.0004 1e-12 || fail "teams3: summary's limited parallelism (2 ranks x 0.2 ms)"
# The predicted archive forks each team for the threads it asked for, and
# the worker begins 2 teams, not 3.
"${OTF2_PRINT:-otf2-print}" "$work/id-teams3/predicted/traces.otf2" > "$work/t3.print" 2>&1
[ "$(grep -c '^THREAD_FORK .*# Requested Threads: 1$' "$work/t3.print")" = 2 ] \
  || fail "teams3: forks of 1 thread: $(grep THREAD_FORK "$work/t3.print")"
[ "$(grep -c '^THREAD_TEAM_BEGIN  *4294967296 ' "$work/t3.print")" = 2 ] \
  || fail "teams3: rank 0's worker begins $(grep -c '^THREAD_TEAM_BEGIN  *4294967296 ' "$work/t3.print") teams"
# Threads sharing a core: the calibrated platform with 1 core a host. Each
# master's 2 ms and its worker's 6 ms run together on it: both at half
# speed for 4 ms (the master's 2 ms done), the worker's last 4 ms alone:
# the phase ends at 8 ms, the run at 9.0008192 ms (the barrier waits
# asleep: OMP_WAIT_POLICY=passive). compute_kernel 2x faster: 1 + 3 ms on
# the core, 4 ms, 5.0008192 ms. Balanced across threads: 4 + 4 ms, still 8
# ms on one core: nothing gained, 9.0008192 ms. threads = 4: 4 x 2 ms on
# the core, 9.0008192 ms.
sed 's/core="2"/core="1"/' "$work/out-scorep/platform.xml" > "$work/one-core.xml"
grep -q 'core="1"' "$work/one-core.xml" || fail "the calibrated platform has no core=\"2\" hosts"
# shared HYP EXPECTED
shared() {
  rm -rf "$work/shared-$1"
  opt=
  [ "$1" = identity ] || opt="-H $work/$1.hyp"
  # shellcheck disable=SC2086
  "$tracesim" run -q "$work/scorep/traces.otf2" -p "$work/one-core.xml" $opt \
    -o "$work/shared-$1" 2> "$work/shared.err" || fail "one core, $1: $(cat "$work/shared.err")"
  got=$(value "$work/shared-$1/summary.json" "s['predicted']['runtime_s']")
  near "$got" "$2" 1e-9 || fail "one core, $1: predicted $got s, expected $2 s"
}
shared identity 0.0090008192
shared fast 0.0050008192
shared tbal 0.0090008192
shared t4 0.0090008192
# --omp-wait active (OMP_WAIT_POLICY=active): a waiting thread spins and
# takes its share of the core. Rank 0: both threads at half speed until
# the master's 2 ms are done (4 ms); the master spins at the barrier, so
# the worker's last 4 ms still go at half speed (8 ms): the team ends at
# 12 ms. After it the worker spins until the rank ends: the master's 1 ms
# left (0.1 in MPI_Send, 0.9 in main) takes 2 ms: 14 ms. Rank 1's receive
# is done by then, its main ends before: the run takes 14 ms.
rm -rf "$work/shared-active"
"$tracesim" run -q "$work/scorep/traces.otf2" -p "$work/one-core.xml" --omp-wait active \
  -o "$work/shared-active" 2> "$work/shared.err" || fail "one core, active: $(cat "$work/shared.err")"
near "$(value "$work/shared-active/summary.json" "s['predicted']['runtime_s']")" 0.014 1e-9 \
  || fail "one core, active wait: $(value "$work/shared-active/summary.json" "s['predicted']['runtime_s']")"
[ "$(value "$work/shared-active/summary.json" "s['inputs']['options']['omp_wait']")" = "'active'" ] \
  && [ "$(value "$work/shared-tbal/summary.json" "s['inputs']['options']['omp_wait']")" = "'passive'" ] \
  || fail "summary.json does not say how OpenMP threads wait"
! "$tracesim" run -q "$work/scorep/traces.otf2" --omp-wait spinning -o "$work/bad-wait" \
  2> "$work/shared.err" && grep -q "omp-wait 'spinning': expected passive or active" "$work/shared.err" \
  && [ ! -e "$work/bad-wait" ] || fail "a bad --omp-wait: $(cat "$work/shared.err")"
[ "$(ws shared-identity predicted 0)" = 0.004000000 ] \
  || fail "one core: the master's barrier wait: $(cat "$work/shared-identity/waitstates.csv")"
# threads = 4: a rank has 3 other threads, all idle outside its team:
# rank 0's 0.1 ms in MPI_Send and 0.9 ms in main after it count 3 times
# predicted (0.3 and 2.7 ms), once in the trace (2 threads).
[ "$(idle what-scorep-t4 predicted MPI_Send 0)" = 0.000300000 ] \
  && [ "$(idle what-scorep-t4 predicted main 0)" = 0.002700000 ] \
  && [ "$(idle what-scorep-t4 original main 0)" = 0.000900000 ] \
  || fail "idle threads with threads = 4: $(cat "$work/what-scorep-t4/waitstates.csv")"
s=$work/what-scorep-tbal/summary.json
! grep -q "^predicted,omp_barrier_wait" "$work/what-scorep-tbal/waitstates.csv" \
  || fail "balanced threads still wait at the barrier: $(cat "$work/what-scorep-tbal/waitstates.csv")"
near "$(value "$s" "s['predicted']['work_s'][0]")" 0.005 1e-9 || fail "tbal: rank 0's work"
near "$(value "$s" "s['predicted']['simulated_s'][0]")" 0 1e-9 || fail "tbal: rank 0's wait"
"$tracesim" hypotheses check "$work/tbal.hyp" "$work/scorep/traces.otf2" > "$work/tbal.check" \
  || fail "hypotheses check refuses balance across threads"
grep -q "balance mean across each rank's threads, team phase by team phase" "$work/tbal.check" \
  || fail "hypotheses check does not say across threads: $(cat "$work/tbal.check")"
# What the rule selects counts every thread's compute_kernel: (2 + 6) ms on
# each of the 2 ranks.
grep -q "compute_kernel: 2 visits, 16 ms of compute as traced" "$work/tbal.check" \
  || fail "hypotheses check does not count the workers' compute: $(cat "$work/tbal.check")"

# advise on a trace with threads: each region also balanced across each
# rank's threads; compute_kernel so saves 7.0008192 - 5.0008192 = 2 ms (the
# balanced case above). The barrier is waiting, not compute: no row.
rm -rf "$work/advise"
"$tracesim" advise -q "$work/scorep/traces.otf2" -o "$work/advise" 2> "$work/advise.err" \
  || fail "advise: $(cat "$work/advise.err")"
row=$(grep ',compute_kernel,threads-balanced,' "$work/advise/results.csv") \
  || fail "advise has no threads-balanced row: $(cat "$work/advise/results.csv")"
near "$(echo "$row" | cut -d, -f7)" 0.002 1e-9 || fail "advise's threads-balanced saving: $row"
! cut -d, -f2 "$work/advise/results.csv" | grep -q barrier \
  || fail "advise proposes to speed up a barrier"

# extrapolate reads one location a rank: it refuses rather than lose the
# threads' work, and writes nothing.
rm -rf "$work/extrap"
if "$tracesim" extrapolate "$work/scorep/traces.otf2" "$work/eztrace/traces.otf2" --ranks 4 \
     -o "$work/extrap" 2> "$work/extrap.err"; then
  fail "extrapolate took a trace with threads"
fi
grep -q "2 ranks with 4 threads in all: extrapolate reads one location a rank" "$work/extrap.err" \
  || fail "extrapolate's refusal: $(cat "$work/extrap.err")"
[ ! -e "$work/extrap" ] || fail "extrapolate left $work/extrap"

# mpi-thread: rank 1's worker, which calls MPI after its team, is a stream
# of its own that joins its rank's team: its part of the phase is read
# from its own location, the master's barrier waits for it. The identity
# is scorep's, 7.0008192 ms; compute_kernel 2x faster too: 4.0008192 ms
# (the worker's 3 ms end the phase; had its part not been waited for, the
# master's 1 ms would, and rank 1 would end at 2.0008192 ms + its 1 ms
# after the receive). Its Isend follows its team: at 3 ms, on its own
# location (4294967297). Rank 1's master waits 2 ms at the barrier.
"$tracesim" info --json --no-replay "$work/mpi-thread/traces.otf2" > "$work/mpi-thread.json" \
  || fail "mpi-thread: info refuses to describe the trace"
check mpi-thread "s['threads']['mpi_events_not_replayed']" 0
check mpi-thread "s['threads']['mpi_threads_replayed']" 1
check mpi-thread "[r['other_threads_mpi_events'] for r in s['per_rank']]" "[0, 2]"
what mpi-thread fast 0.0040008192
# A rule over a team's threads reads the worker's part of each phase from
# its own stream (hypotheses/prepare.c):
# - balanced across threads: rank 1's master and its worker take the mean
#   of 2 and 6 ms, 4 ms each, as in scorep: 5.0008192 ms; the worker's
#   Isend, after its team, at 4 ms; no thread waits at the barrier (had
#   the worker's 6 ms not been seen, the mean would be the master's 2 ms
#   alone and the worker's 6 ms would stay: 7.0008192 ms);
# - threads = 4: the phase's 8 ms over 4 threads, 2 ms each (the worker's
#   stream 6 -> 2 ms), the 4 sharing the 2 cores the trace shows threads:
#   the team ends at 4 ms, 5.0008192 ms, as scorep's;
# - threads = 1 would leave the worker, whose calls need a thread, out of
#   the team: refused, naming the rule's line and the thread, and nothing
#   is written.
what mpi-thread tbal 0.0050008192
what mpi-thread t4 0.0050008192
for hyp in tbal t4; do
  otf2-print "$work/what-mpi-thread-$hyp/predicted/traces.otf2" 2> /dev/null \
    | grep -q 'MPI_ISEND *4294967297 *400[0-9]\{4\} ' \
    || fail "mpi-thread $hyp: the worker's Isend is not at 4 ms on its location"
done
s=$work/what-mpi-thread-tbal/summary.json
[ "$(value "$s" "s['wait_states']['predicted']['omp_barrier_wait']")" = 0.0 ] \
  || fail "mpi-thread tbal: barrier waits $(value "$s" "s['wait_states']['predicted']")"
rm -rf "$work/mpi-t1"
if "$tracesim" run -q "$work/mpi-thread/traces.otf2" -H "$work/t1.hyp" -o "$work/mpi-t1" \
  2> "$work/mpi.err"; then
  fail "mpi-thread: threads = 1 was taken"
fi
grep -q "t1.hyp:[0-9]*: .*threads = 1: rank 1, thread 1 calls MPI inside its rank's thread teams, and the rule leaves it out of them" \
  "$work/mpi.err" || fail "mpi-thread: the refusal of t1: $(cat "$work/mpi.err")"
[ ! -e "$work/mpi-t1" ] || fail "mpi-thread: the refused t1 wrote $work/mpi-t1"
rm -rf "$work/out-mpi"
"$tracesim" run -q "$work/mpi-thread/traces.otf2" -o "$work/out-mpi" 2> "$work/mpi.err" \
  || fail "mpi-thread: identity: $(cat "$work/mpi.err")"
near "$(value "$work/out-mpi/summary.json" "s['predicted']['runtime_s']")" 0.0070008192 1e-9 \
  || fail "mpi-thread: identity $(value "$work/out-mpi/summary.json" "s['predicted']['runtime_s']")"
otf2-print "$work/what-mpi-thread-fast/predicted/traces.otf2" 2> /dev/null \
  | grep -q 'MPI_ISEND *4294967297 *300[0-9]\{4\} ' \
  || fail "mpi-thread: the worker's Isend is not at 3 ms on its location"
[ "$(ws what-mpi-thread-fast predicted 1)" = 0.002000000 ] \
  || fail "mpi-thread: rank 1's barrier wait $(ws what-mpi-thread-fast predicted 1)"

# critical: scorep with lock 1 in a critical section on both threads
# (hybrid-gen.c): each master holds it from 2 to 3 ms, each worker's
# compute_kernel is cut at 2.5 ms by its own, which it waits for until 3 ms
# and holds until 4 ms; its 2 ms of compute_kernel after end the phase at
# 6 ms as in scorep. Identity: 7.0008192 ms (the worker's traced 0.5 ms
# wait is no work, and no residual: the replay's own wait gives the same 6
# ms). compute_kernel 2x faster: the master holds the lock from 1 to 2
# ms; its worker asks at 1.25 ms, waits until 2 ms, holds it until 3 ms,
# then 1 ms of compute_kernel: the phase ends at 4 ms, 5.0008192 ms. (Had
# the worker's traced wait stayed work, 4.7508192 ms; had no thread
# waited for the lock, 4.2508192 ms.)
"$gen" critical "$work/critical" || fail "critical: hybrid-gen"
rm -rf "$work/critical-id"
"$tracesim" run -q "$work/critical/traces.otf2" -o "$work/critical-id" 2> "$work/critical.err" \
  || fail "critical: $(cat "$work/critical.err")"
near "$(value "$work/critical-id/summary.json" "s['predicted']['runtime_s']")" 0.0070008192 1e-9 \
  || fail "critical: identity $(value "$work/critical-id/summary.json" "s['predicted']['runtime_s']")"
what critical fast 0.0050008192
# Lock contention: each worker's 0.5 ms as traced (2 ranks: 1 ms), the same
# predicted by the identity; 0.75 ms each with compute_kernel 2x faster.
for case in "critical-id 0.001 0.001" "what-critical-fast 0.001 0.0015"; do
  set -- $case
  lc=$(value "$work/$1/summary.json" "[s['wait_states'][t]['omp_lock_contention'] for t in ('original', 'predicted')]")
  near "$(echo "$lc" | tr -d '[]' | cut -d, -f1)" "$2" 1e-12 \
    && near "$(echo "$lc" | tr -d '[]' | cut -d, -f2)" "$3" 1e-12 || fail "$1: lock contention $lc"
done
otf2-print "$work/what-critical-fast/predicted/traces.otf2" 2> /dev/null \
  | awk '$1 == "THREAD_ACQUIRE_LOCK" && $2 == 4294967296 { print $3 }' > "$work/critical.take"
[ "$(cat "$work/critical.take")" = 2000000 ] \
  || fail "critical fast: rank 0's worker takes the lock at $(cat "$work/critical.take") ns, not 2 ms"

# Compute from CPU time on every thread (cpu: scorep with each thread's CPU
# time, its team's compute taken on a shared core; hybrid-gen.c). From
# wall time the identity is scorep's, 7.0008192 ms. From CPU time the
# master's compute_kernel is 1 ms and its worker's 3 ms; the 3 ms the
# worker's wall time had beyond are not the barrier's residual (the
# sharing is simulated anew): on the calibrated platform (a core a
# thread) the team ends at 3 ms, then the 1.0008192 ms after it as in
# scorep: 4.0008192 ms. compute_kernel 2x faster: 1.5 + 1.0008192 ms.
# On one core a host: the master's 1 ms and its worker's 3 ms run at half
# speed for 2 ms, the worker's last 2 ms alone: the team ends at 4 ms,
# 5.0008192 ms.
# cpu OUT EXPECTED OPTIONS...
cpu() {
  out=$1 expected=$2
  shift 2
  rm -rf "$work/$out"
  "$tracesim" run -q "$work/cpu/traces.otf2" "$@" -o "$work/$out" 2> "$work/cpu.err" \
    || fail "cpu $*: $(cat "$work/cpu.err")"
  got=$(value "$work/$out/summary.json" "s['predicted']['runtime_s']")
  near "$got" "$expected" 1e-9 || fail "cpu $*: predicted $got s, expected $expected s"
}
cpu cpu-wall 0.0070008192
cpu cpu-id 0.0040008192 --cpu-time
cpu cpu-fast 0.0025008192 --cpu-time -H "$work/fast.hyp"
cpu cpu-shared 0.0050008192 --cpu-time -p "$work/one-core.xml"
otf2-print "$work/cpu-id/predicted/traces.otf2" \
  | grep -q 'LEAVE *4294967296 *3000000 *Region: "compute_kernel"' \
  || fail "cpu: rank 0's worker does not end its 3 ms of compute_kernel at 3 ms"
echo "PASS: hybrid layouts read, their threads counted, MPI on a team's thread replayed"
