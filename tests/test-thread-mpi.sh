#!/bin/sh
# MPI from a thread other than its rank's own (a pthread), replayed as a
# location of its own beside the rank's (doc/threads.md), on a trace
# script (tools/tracegen/script.h) whose replay is derived here by hand.
#
# 2 ranks of 2 threads. Rank 0's own thread enters main at 0, enters
# MPI_Recv from rank 1 (tag 1, 8 bytes) at 1 ms, which the message ends at
# 4.001 ms, and leaves main at 5.001 ms (1 ms of work after the receive). Rank 1's
# own thread works 1 ms in main and makes no MPI call. Rank 1's thread 1
# works in `work` from 0 to 4 ms and sends the message at 4 ms.
#
# On a platform of 2 nodes of 2 cores (1 Gflop/s each, 1 us and 10 GB/s
# between nodes), every thread has a core, and the message takes
# 1 us + 8 B / 10 GB/s = 1.0008 us:
# - identity: the receive ends at 4.0010008 ms, main at 5.0010008 ms: the
#   runtime (rank 1 ends at 4 ms, its thread's end). Had the thread's MPI
#   been dropped, rank 0 would wait forever; had it been replayed on rank
#   1's own stream, after its 1 ms of main, the message would leave at 5 ms.
# - `work` 2x faster: the thread sends at 2 ms, the receive ends at
#   2.0010008 ms, main at 3.0010008 ms. Rank 0 waited in MPI_Recv 3 ms
#   for a late sender (from 1 ms to the send at 4 ms), and waits 1 ms.
# - the thread's events are on its own location in the predicted archive
#   (4294967297 = 1 << 32 | 1): its MPI_SEND at 4 ms (2 ms with the rule).
# - a thread whose receive no one sends to deadlocks: reported by rank
#   and thread, nothing written.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work thread-mpi

cat > "$work/t.script" <<'SCRIPT'
ranks 2 threads=2
0 0 enter main
0 0.001 enter MPI_Recv
0 0.004001 recv 1 tag=1 bytes=8
0 0.004001 leave MPI_Recv
0 0.005001 leave main
1 0 enter main
1 0.001 leave main
1.1 0 enter work
1.1 0.004 enter MPI_Send
1.1 0.004 send 0 tag=1 bytes=8
1.1 0.004 leave MPI_Send
1.1 0.004 leave work
SCRIPT
"$builddir/ts-tracegen" script "$work/t.script" -o "$work/t" > /dev/null || fail "ts-tracegen"
"$tracesim" platform --nodes 2 --cores 2 -o "$work/p.xml" > /dev/null || fail "platform"

"$tracesim" info --json --no-replay "$work/t/traces.otf2" > "$work/t.json" || fail "info"
[ "$(value "$work/t.json" "s['threads']['mpi_threads_replayed']")" = 1 ] \
  && [ "$(value "$work/t.json" "s['threads']['mpi_calls_replayed']")" = 1 ] \
  && [ "$(value "$work/t.json" "s['threads']['mpi_calls_not_replayed']")" = 0 ] \
  || fail "info's threads: $(value "$work/t.json" "s['threads']")"

run_t identity 0.0050010008
printf '[region:work]\nscale = 0.5\n' > "$work/fast.hyp"
run_t fast 0.0030010008 -H "$work/fast.hyp"

send_at() {
  otf2-print "$work/$1/predicted/traces.otf2" | awk '$1 == "MPI_SEND" { print $2, $3 }'
}
[ "$(send_at identity)" = "4294967297 4000000" ] || fail "identity's send: $(send_at identity)"
[ "$(send_at fast)" = "4294967297 2000000" ] || fail "fast's send: $(send_at fast)"
ls_wait() { value "$work/$1/summary.json" "s['wait_states']['$2']['late_sender']"; }
near "$(ls_wait fast original)" 0.003 1e-12 && near "$(ls_wait fast predicted)" 0.001 1e-12 \
  || fail "late sender: $(ls_wait fast original) traced, $(ls_wait fast predicted) predicted"

# A rule across ranks per occurrence (balance, set) on the thread's `work`
# would take its rank's visits, on the rank's own stream, for the thread's:
# refused, naming the thread, nothing written. One selecting rank 0 only
# does not reach it: the identity, 5.0010008 ms.
printf '[region:work]\nbalance = mean\n' > "$work/bal.hyp"
rm -rf "$work/bal"
if "$tracesim" run -q "$work/t/traces.otf2" -p "$work/p.xml" -H "$work/bal.hyp" -o "$work/bal" \
  2> "$work/bal.err"; then
  fail "balance across ranks on a thread's stream was taken"
fi
grep -q "bal.hyp:1: \[region:work\] balance: rank 1, thread 1 runs the selected compute in a stream of its own" \
  "$work/bal.err" || fail "the refusal of balance: $(cat "$work/bal.err")"
[ ! -e "$work/bal" ] || fail "the refused balance wrote $work/bal"
printf '[region:work]\nbalance = mean\nranks = 0\n' > "$work/bal0.hyp"
run_t bal0 0.0050010008 -H "$work/bal0.hyp"

# The thread waits for a message rank 0 never sends.
sed 's/^1.1 0.004 send 0 tag=1 bytes=8$/1.1 0.004 recv 0 tag=2 bytes=8/' "$work/t.script" \
  > "$work/dead.script"
"$builddir/ts-tracegen" script "$work/dead.script" -o "$work/dead" > /dev/null \
  || fail "ts-tracegen (dead)"
rm -rf "$work/dead-run"
if "$tracesim" run -q "$work/dead/traces.otf2" -p "$work/p.xml" -o "$work/dead-run" \
  2> "$work/dead.err"; then
  fail "a deadlock replayed"
fi
grep -q "2 of 3 locations are blocked forever" "$work/dead.err" \
  && grep -q "rank 0: receive from rank 1 (communicator MPI_COMM_WORLD, tag 1, 8 bytes)" "$work/dead.err" \
  && grep -q "rank 1, thread 1: receive from rank 0 (communicator MPI_COMM_WORLD, tag 2, 8 bytes)" "$work/dead.err" \
  || fail "the deadlock report: $(cat "$work/dead.err")"
[ ! -e "$work/dead-run" ] || fail "a deadlocked run left $work/dead-run"
echo "PASS: a thread's MPI replayed on its own location, moved by a what-if, its deadlock reported"
