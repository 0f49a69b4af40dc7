#!/bin/sh
# OpenMP locks (critical sections, omp_set_lock: OTF2's ThreadAcquireLock
# and ThreadReleaseLock) replayed as locks of the rank's threads
# (sim/lock.c), on a trace script (tools/tracegen/script.h) whose replay
# is derived here by hand.
#
# 2 ranks of 2 threads, on a platform of 2 nodes of 2 cores (a core a
# thread; 1 us and 10 GB/s between nodes: 8 bytes take 1.0008 us).
# Rank 0's own thread works 2 ms in `work`, enters `critical` at 2 ms and
# takes lock 7 at once, holds it 1 ms (to 3 ms), then works 1 ms: main
# ends at 4 ms. Its thread 1 works 2.5 ms in `work2`, enters `critical` at
# 2.5 ms and takes lock 7 at 3 ms (the 0.5 ms between are its wait for
# rank 0's own thread), holds it 1 ms, then sends rank 1 8 bytes at 4 ms;
# rank 1 receives them at 4.001 ms.
# - identity: the same, 4.0010008 ms: thread 1 waits from 2.5 to 3 ms,
#   takes the lock at 3 ms on its location (1 << 32 | 0 = 4294967296).
# - `work` 2x faster: the own thread holds the lock from 1 to 2 ms and
#   ends at 3 ms; thread 1 finds it free at 2.5 ms, takes it there, sends
#   at 3.5 ms: 3.5010008 ms. (Had its traced 0.5 ms wait been kept as
#   work, it would send at 4 ms: 4.0010008 ms.)
# - `work2` 2x faster: thread 1 asks first, at 1.25 ms, and holds the lock
#   to 2.25 ms; the own thread asks at 2 ms, waits 0.25 ms, holds it from
#   2.25 to 3.25 ms, and main ends 1 ms later: 4.25 ms (thread 1 sends at
#   2.25 ms, rank 1 ends at 2.2510008 ms).
# - a lock never released: the thread that asks for it waits forever,
#   reported as a deadlock naming it; nothing is written.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work locks

cat > "$work/t.script" <<'SCRIPT'
ranks 2 threads=2
0 0 enter main
0 0 enter work
0 0.002 leave work
0 0.002 enter critical
0 0.002 lock 7 acquire
0 0.003 lock 7 release
0 0.003 leave critical
0 0.004 leave main
0.1 0 enter work2
0.1 0.0025 leave work2
0.1 0.0025 enter critical
0.1 0.003 lock 7 acquire
0.1 0.004 lock 7 release
0.1 0.004 leave critical
0.1 0.004 enter MPI_Send
0.1 0.004 send 1 tag=1 bytes=8
0.1 0.004 leave MPI_Send
1 0 enter main
1 0 enter MPI_Recv
1 0.004001 recv 0 tag=1 bytes=8
1 0.004001 leave MPI_Recv
1 0.004001 leave main
SCRIPT
"$builddir/ts-tracegen" script "$work/t.script" -o "$work/t" > /dev/null || fail "ts-tracegen"
"$tracesim" platform --nodes 2 --cores 2 -o "$work/p.xml" > /dev/null || fail "platform"

# locks OUT: the predicted archive's lock events, "EVENT LOCATION TIME_NS"
locks() {
  otf2-print "$work/$1/predicted/traces.otf2" 2> /dev/null \
    | awk '$1 == "THREAD_ACQUIRE_LOCK" || $1 == "THREAD_RELEASE_LOCK" { print $1, $2, $3 }'
}
run_t identity 0.0040010008
printf '[region:work]\nscale = 0.5\n' > "$work/w.hyp"
run_t w 0.0035010008 -H "$work/w.hyp"
printf '[region:work2]\nscale = 0.5\n' > "$work/w2.hyp"
run_t w2 0.00425 -H "$work/w2.hyp"

[ "$(locks identity)" = "THREAD_ACQUIRE_LOCK 0 2000000
THREAD_RELEASE_LOCK 0 3000000
THREAD_ACQUIRE_LOCK 4294967296 3000000
THREAD_RELEASE_LOCK 4294967296 4000000" ] || fail "identity's locks: $(locks identity)"
[ "$(locks w)" = "THREAD_ACQUIRE_LOCK 0 1000000
THREAD_RELEASE_LOCK 0 2000000
THREAD_ACQUIRE_LOCK 4294967296 2500000
THREAD_RELEASE_LOCK 4294967296 3500000" ] || fail "w's locks: $(locks w)"
[ "$(locks w2)" = "THREAD_ACQUIRE_LOCK 4294967296 1250000
THREAD_ACQUIRE_LOCK 0 2250000
THREAD_RELEASE_LOCK 4294967296 2250000
THREAD_RELEASE_LOCK 0 3250000" ] || fail "w2's locks: $(locks w2)"

# omp_lock_contention (rank 0, in `critical`): traced, thread 1's 0.5 ms;
# predicted 0.5 ms (identity), none (work 2x: the lock is free when thread
# 1 asks), 0.25 ms (work2 2x: the own thread's wait).
contention() { value "$work/$1/summary.json" "s['wait_states']['$2'].get('omp_lock_contention')"; }
for case in "identity 0.0005 0.0005" "w 0.0005 0" "w2 0.0005 0.00025"; do
  set -- $case
  near "$(contention "$1" original)" "$2" 1e-12 && near "$(contention "$1" predicted)" "$3" 1e-12 \
    || fail "$1: lock contention $(contention "$1" original) traced, $(contention "$1" predicted) predicted"
done
grep -q '^predicted,omp_lock_contention,critical,0,0.000250000$' "$work/w2/waitstates.csv" \
  || fail "w2's waitstates.csv: $(grep lock "$work/w2/waitstates.csv")"

# Rank 0's own thread never releases the lock.
grep -v '^0 0.003 lock 7 release$' "$work/t.script" > "$work/dead.script"
"$builddir/ts-tracegen" script "$work/dead.script" -o "$work/dead" > /dev/null \
  || fail "ts-tracegen (dead)"
rm -rf "$work/dead-run"
if "$tracesim" run -q "$work/dead/traces.otf2" -p "$work/p.xml" -o "$work/dead-run" \
  2> "$work/dead.err"; then
  fail "a lock never released replayed"
fi
grep -q "rank 0, thread 1: OpenMP lock (a critical section or omp_set_lock) 7, held by its thread 0 after" \
  "$work/dead.err" || fail "the deadlock report: $(cat "$work/dead.err")"
[ ! -e "$work/dead-run" ] || fail "a deadlocked run left $work/dead-run"
echo "PASS: locks taken in the replay's order, their traced waits not work, a lock held forever reported"
