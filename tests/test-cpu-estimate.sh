#!/bin/sh
# Shared cores from wall time alone (doc/architecture.md, "Shared cores
# from wall time alone"): a trace that says its node had fewer cores than
# ranks but has no CPU time gets each burst's CPU time estimated from the
# node's load, and the replay time-shares the node's real cores with it.
#
# The trace (a script, derived by hand): 4 ranks on node "vm" of 2 cores,
# wall time only:
# - ranks 0 and 1 run "physics" from 0 to 1.75 s; rank 0 then sends 8
#   bytes (eager) to rank 2;
# - rank 3 sends 8 bytes to rank 2 at 0 (its MPI_Send and rank 2's
#   MPI_Recv take 1 us: the calibration's latency), then ranks 2 and 3 run
#   "solve" from 1 us to 1.0 s; rank 2 then waits in MPI_Recv for rank 0's
#   message; rank 3 ends.
# The load (ranks in compute): 2 on [0, 1 us), 4 on [1 us, 1.0), 2 on
# [1.0, 1.75). On 2 cores the share of a core is 1, 0.5, 1 there, so:
# - physics: 1e-6 + 0.5 x 0.999999 + 0.75 = 1.2500005 s of CPU time;
# - solve: 0.5 x 0.999999 = 0.4999995 s.
# Identity (the cores shared, rank 2's wait leaving its core): solve ends
# at 1e-6 + 0.999999 = 1.0; physics has done 1e-6 + 0.4999995 by then, and
# the 0.75 left at a full core end at 1.75: the trace, as recorded.
# "solve" 2x faster (0.24999975 s): it ends at 1e-6 + 0.4999995 =
# 0.5000005; physics has done 1e-6 + 0.24999975 = 0.25000075 by then, and
# the 0.99999975 left end at 1.50000025. With --wall-time nothing moves
# (physics keeps its 1.75 s of wall time); that was the prediction before.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work cpu-estimate

cat > "$work/shared.script" <<'EOS'
ranks 4
node vm 0 1 2 3 cores=2
0 0 enter main
0 0 enter physics
0 1.75 leave
0 1.75 enter MPI_Send
0 1.75 send 2 bytes=8
0 1.75 leave
0 1.75 leave
1 0 enter main
1 0 enter physics
1 1.75 leave
1 1.75 leave
2 0 enter main
2 0 enter MPI_Recv
2 0.000001 recv 3 bytes=8
2 0.000001 leave
2 0.000001 enter solve
2 1.0 leave
2 1.0 enter MPI_Recv
2 1.750001 recv 0 bytes=8
2 1.750001 leave
2 1.750001 leave
3 0 enter main
3 0 enter MPI_Send
3 0 send 2 bytes=8
3 0.000001 leave
3 0.000001 enter solve
3 1.0 leave
3 1.0 leave
EOS
printf '[region:solve]\nscale = 0.5\n' > "$work/solve.hyp"
"$builddir/ts-tracegen" script "$work/shared.script" -o "$work/t" > /dev/null || fail "ts-tracegen"
trace=$work/t/traces.otf2

run() { out=$1; shift; "$tracesim" run "$trace" -o "$work/$out" -q --no-wait-states "$@" || fail "run $out"; }
run identity
run solve -H "$work/solve.hyp"
run given -H "$work/solve.hyp" --cpu-estimate
run wall -H "$work/solve.hyp" --wall-time

for r in 0 1; do
  near "$(end_of "$work/identity" $r)" 1.75 1e-5 || fail "identity: rank $r ends at $(end_of "$work/identity" $r), not 1.75"
  near "$(end_of "$work/solve" $r)" 1.50000025 1e-6 || fail "solve 2x: rank $r ends at $(end_of "$work/solve" $r), not 1.50000025"
  near "$(end_of "$work/given" $r)" 1.50000025 1e-6 || fail "--cpu-estimate: rank $r ends at $(end_of "$work/given" $r)"
  near "$(end_of "$work/wall" $r)" 1.75 1e-5 || fail "--wall-time: rank $r ends at $(end_of "$work/wall" $r), not 1.75"
done
near "$(end_of "$work/solve" 3)" 0.5000005 1e-5 || fail "solve 2x: rank 3 ends at $(end_of "$work/solve" 3), not 0.5000005"
[ "$(option "$work/solve" cpu_time_estimated)" = True ] || fail "the summary does not say the CPU time was estimated"
[ "$(option "$work/solve" shared_cores)" = True ] || fail "the estimate does not share the node's cores"
# Waiting ranks were taken to leave their core: recorded waits block.
[ "$(option "$work/solve" mpi_wait)" = "'blocking'" ] || fail "mpi_wait is $(option "$work/solve" mpi_wait), not blocking"
[ "$(option "$work/wall" cpu_time_estimated)" = False ] || fail "--wall-time: the summary says the CPU time was estimated"
# info says what compute is taken from, and why.
"$tracesim" info "$trace" > "$work/info.txt" || fail "info"
# The load: 2 x 1e-6 + 4 x 0.999999 + 2 x 0.75 = 5.50 s of compute, which
# had 2 x 1e-6 + 2 x 0.999999 + 2 x 0.75 = 3.50 s of the cores (64%).
grep -q "estimated from the nodes' load (run --cpu-estimate): vm 3.50 s of CPU time in 5.50 s of compute (64%)" "$work/info.txt" \
  || fail "info does not give the estimate: $(grep -A1 "cpu time" "$work/info.txt")"
grep -q "compute from CPU time estimated from the nodes' load, cores shared as recorded): 1.75 s predicted" "$work/info.txt" \
  || fail "info's identity does not say it estimated: $(grep replay: "$work/info.txt")"
# info --json says the same: the clock, and a residual left out in a
# what-if too (the sharing is simulated).
"$tracesim" info "$trace" --json > "$work/info.json" || fail "info --json"
[ "$(value "$work/info.json" 's["replay"]["compute_clock"]')" = "'cpu_estimated'" ] \
  || fail "info --json: compute_clock $(value "$work/info.json" 's["replay"]["compute_clock"]')"
[ "$(value "$work/info.json" 's["replay"]["residual"]["what_if"]')" = "'none'" ] \
  || fail "info --json: what-if residual $(value "$work/info.json" 's["replay"]["residual"]["what_if"]')"
# The report says what compute was.
"$tracesim" run "$trace" -o "$work/report" -q --report -H "$work/solve.hyp" || fail "run --report"
grep -q "<code>--cpu-estimate</code>: the trace has no CPU time" "$work/report/report.html" \
  || fail "the report does not say the compute was estimated"
# A sweep with no cpu_time key and advise with no clock take the estimate
# by themselves too: the sweep's "solve 2x" point is run's (1.50000025 s),
# and advise's baseline run's identity.
chooses_as_run cpu_time_estimated "$work/solve" "$work/identity"
# A trace with no nodes has no load to estimate from: refused, nothing written.
grep -v '^node' "$work/shared.script" > "$work/nonode.script"
"$builddir/ts-tracegen" script "$work/nonode.script" -o "$work/nonode" > /dev/null || fail "ts-tracegen nonode"
if "$tracesim" run "$work/nonode/traces.otf2" -o "$work/bad" -q --cpu-estimate 2> "$work/bad.err"; then
  fail "--cpu-estimate without nodes accepted"
fi
grep -q "names no node its ranks ran on" "$work/bad.err" || fail "no nodes: $(cat "$work/bad.err")"
[ ! -e "$work/bad" ] || fail "a refused run wrote its output"
# Nor one with threads (2 ranks of 2 threads on 2 cores): their work is
# their teams' phases, whose load is not estimated; run, left to choose,
# replays it in wall time as before.
printf 'ranks 2 threads=2\nnode vm 0 1 cores=2\n0 0 enter main\n0.1 0 enter work\n0.1 0.001 leave work\n0 0.002 leave main\n1 0 enter main\n1 0.002 leave main\n' \
  > "$work/threads.script"
"$builddir/ts-tracegen" script "$work/threads.script" -o "$work/threads" > /dev/null || fail "ts-tracegen threads"
if "$tracesim" run "$work/threads/traces.otf2" -o "$work/bad" -q --cpu-estimate 2> "$work/bad.err"; then
  fail "--cpu-estimate with threads accepted"
fi
grep -q "has threads besides its ranks" "$work/bad.err" || fail "threads: $(cat "$work/bad.err")"
[ ! -e "$work/bad" ] || fail "a refused run wrote its output"
"$tracesim" run "$work/threads/traces.otf2" -o "$work/threads-run" -q || fail "run threads"
[ "$(option "$work/threads-run" cpu_time_estimated)" = False ] || fail "threads: run estimated by itself"
echo "cpu estimate: identity $(end_of "$work/identity" 0), solve 2x $(end_of "$work/solve" 0), wall $(end_of "$work/wall" 0)"
