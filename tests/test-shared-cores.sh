#!/bin/sh
# Shared cores simulated (doc/architecture.md, "Shared cores"): a trace that
# says its node had fewer cores than ranks, replayed with --cpu-time, runs
# the ranks' CPU time on the node's real cores, where SimGrid time-shares
# them; a rank waiting in an MPI call polls and takes its share of a core
# (--mpi-wait busy, the default) or leaves it (--mpi-wait blocking).
#
# The trace (a script, derived by hand): 4 ranks on node "vm" of 2 cores
# (node ... cores=2, as tracesim-record writes it), compute in CPU time:
# - ranks 0 and 1 run "physics", 1.0 s of CPU time each; rank 0 then sends
#   8 bytes (eager) to rank 2;
# - ranks 2 and 3 run "solve", 0.5 s of CPU time each; rank 2 then waits in
#   MPI_Recv for rank 0's message, polling; rank 3 ends.
# As recorded (and replayed, identity): 4 on 2 cores, each at half speed
# until ranks 2 and 3 have their 0.5 s at t = 1.0 (wall time of "solve":
# 1.0 s); then ranks 0, 1 and rank 2's polling share 2 cores, 2/3 each:
# the 0.5 s of CPU time ranks 0 and 1 have left take 0.75 s, to t = 1.75.
# Rank 2 receives the message at 1.75 (plus its transfer). A first message
# of 8 bytes from rank 3 to rank 2 at t = 0 gives the calibration a receive
# that did not wait (1 us: the latency); it delays nothing by more than that
# (tolerance 1e-5 s). Rank 2's receives took half a core: 0.5 us of CPU
# time in the first (1 us), 0.375 s in the second (0.75 s).
# Those rows are --mpi-wait busy (a full share). The default, recorded,
# gives rank 2's polling the share its calls took before (0.5, from the
# first receive): ranks 0 and 1 then get (2 - 0.5) / 2 = 0.75 of a core
# each once ranks 2 and 3 are done:
# - identity: 0.5 s left at 0.75 from t = 1.0: t = 1.6667;
# - solve 2x: 0.75 s left at 0.75 from t = 0.5: t = 1.5.
# What if "solve" were 2x faster (ranks 2 and 3: 0.25 s of CPU time):
# - busy (default): 4 share until t = 0.5, when ranks 2 and 3 are done;
#   ranks 0 and 1 have 1.0 - 0.25 = 0.75 s left at 2/3: 1.125 s, to
#   t = 1.625;
# - blocking: rank 2 leaves its core: 0.75 s at full speed, to t = 1.25;
# - with --wall-time (a core per rank, wall time): ranks 0 and 1 keep
#   their 1.75 s of "physics": nothing moves.
# - with neither option, the trace says it was time-shared and has CPU
#   time, so run takes --cpu-time by itself: the recorded case, 1.5; and
#   --cpu-time with --wall-time is refused.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work shared-cores
ends() { value "$1/summary.json" 's["predicted"]["rank_end_s"]'; }

cat > "$work/shared.script" <<'EOS'
ranks 4
node vm 0 1 2 3 cores=2
metric cpu_time s
0 0 metric cpu_time 0
0 0 enter main
0 0 enter physics
0 1.75 metric cpu_time 1.0
0 1.75 leave
0 1.75 enter MPI_Send
0 1.75 send 2 bytes=8
0 1.75 metric cpu_time 1.0
0 1.75 leave
0 1.75 leave
1 0 metric cpu_time 0
1 0 enter main
1 0 enter physics
1 1.75 metric cpu_time 1.0
1 1.75 leave
1 1.75 leave
2 0 metric cpu_time 0
2 0 enter main
2 0 enter MPI_Recv
2 0.000001 recv 3 bytes=8
2 0.000001 metric cpu_time 0.0000005
2 0.000001 leave
2 0.000001 enter solve
2 1.0 metric cpu_time 0.5000005
2 1.0 leave
2 1.0 enter MPI_Recv
2 1.750001 recv 0 bytes=8
2 1.750001 metric cpu_time 0.8750005
2 1.750001 leave
2 1.750001 leave
3 0 metric cpu_time 0
3 0 enter main
3 0 enter MPI_Send
3 0 send 2 bytes=8
3 0.000001 metric cpu_time 0
3 0.000001 leave
3 0.000001 enter solve
3 1.0 metric cpu_time 0.5
3 1.0 leave
3 1.0 leave
EOS
printf '[region:solve]\nscale = 0.5\n' > "$work/solve.hyp"
"$builddir/ts-tracegen" script "$work/shared.script" -o "$work/t" > /dev/null || fail "ts-tracegen"
trace=$work/t/traces.otf2

"$tracesim" info "$trace" --no-replay > "$work/info.txt" || fail "info"
grep -q "vm: 4 ranks on 2 cores" "$work/info.txt" || fail "info does not give the node's cores: $(grep nodes "$work/info.txt")"
grep -q "time-shared: more ranks than cores" "$work/info.txt" || fail "info does not say the run was time-shared"
# Its identity replay is run's: the CPU time, the cores shared, no residual
# (the recorded identity derived above, 1.6667 s).
"$tracesim" info "$trace" > "$work/info-replay.txt" || fail "info with its replay"
grep -q "identity, on the cluster calibrated from the trace (compute from CPU time, cores shared as recorded): 1.67 s predicted" \
  "$work/info-replay.txt" || fail "info's identity is not run's: $(grep replay: "$work/info-replay.txt")"
grep -q "a what-if leaves it out too" "$work/info-replay.txt" || fail "info does not say a what-if leaves the residual out"

run() { out=$1; shift; "$tracesim" run "$trace" -o "$work/$out" -q --no-wait-states "$@" || fail "run $out"; }
run identity --cpu-time --mpi-wait busy
run busy --cpu-time -H "$work/solve.hyp" --mpi-wait busy
run blocking --cpu-time -H "$work/solve.hyp" --mpi-wait blocking
run recorded-identity --cpu-time
run recorded --cpu-time -H "$work/solve.hyp"
run wall -H "$work/solve.hyp" --wall-time
run auto -H "$work/solve.hyp"

[ "$(value "$work/identity/summary.json" 's["inputs"]["options"]["shared_cores"]')" = True ] \
  || fail "identity: the summary does not say the cores are shared"
[ "$(value "$work/identity/summary.json" 's["inputs"]["options"]["residual"]')" = "'none'" ] \
  || fail "identity: the residual is not left out where the sharing is simulated"
for r in 0 1; do
  near "$(end_of "$work/identity" $r)" 1.75 1e-5 || fail "identity: rank $r ends at $(end_of "$work/identity" $r), not 1.75"
  near "$(end_of "$work/busy" $r)" 1.625 1e-5 || fail "busy: rank $r ends at $(end_of "$work/busy" $r), not 1.625"
  near "$(end_of "$work/blocking" $r)" 1.25 1e-5 || fail "blocking: rank $r ends at $(end_of "$work/blocking" $r), not 1.25"
  near "$(end_of "$work/wall" $r)" 1.75 1e-5 || fail "wall: rank $r ends at $(end_of "$work/wall" $r), not 1.75"
  near "$(end_of "$work/recorded-identity" $r)" 1.666667 1e-5 \
    || fail "recorded identity: rank $r ends at $(end_of "$work/recorded-identity" $r), not 1.6667"
  near "$(end_of "$work/recorded" $r)" 1.5 1e-5 || fail "recorded: rank $r ends at $(end_of "$work/recorded" $r), not 1.5"
  near "$(end_of "$work/auto" $r)" 1.5 1e-5 || fail "no clock given: rank $r ends at $(end_of "$work/auto" $r), not 1.5"
done
[ "$(value "$work/auto/summary.json" 's["inputs"]["options"]["cpu_time"]')" = True ] \
  || fail "no clock given: the summary does not say the CPU time was taken"
[ "$(value "$work/wall/summary.json" 's["inputs"]["options"]["cpu_time"]')" = False ] \
  || fail "--wall-time: the summary says the CPU time was taken"
if "$tracesim" run "$trace" -o "$work/both" -q --cpu-time --wall-time 2> "$work/both.err"; then
  fail "--cpu-time with --wall-time accepted"
fi
grep -q "\-\-cpu-time, --cpu-estimate and --wall-time: give one" "$work/both.err" || fail "--cpu-time --wall-time: $(cat "$work/both.err")"
[ ! -e "$work/both" ] || fail "a refused run wrote its output"
near "$(end_of "$work/identity" 3)" 1.0 1e-5 || fail "identity: rank 3 ends at $(end_of "$work/identity" 3), not 1.0"
near "$(end_of "$work/busy" 3)" 0.5 1e-5 || fail "busy: rank 3 ends at $(end_of "$work/busy" 3), not 0.5"
# Rank 2 receives after rank 0's send, within a transfer of 8 bytes.
near "$(end_of "$work/identity" 2)" 1.75 1e-5 || fail "identity: rank 2 ends at $(end_of "$work/identity" 2)"
near "$(end_of "$work/blocking" 2)" 1.25 1e-5 || fail "blocking: rank 2 ends at $(end_of "$work/blocking" 2)"
# A sweep with no cpu_time key and advise with no clock take it by
# themselves too: the sweep's "solve 2x" point is the recorded case, and
# advise's baseline the recorded identity.
chooses_as_run cpu_time "$work/recorded" "$work/recorded-identity"
# A bad mode is refused.
if "$tracesim" run "$trace" -o "$work/bad" -q --cpu-time --mpi-wait spin 2> "$work/bad.err"; then
  fail "--mpi-wait spin accepted"
fi
grep -q "mpi-wait 'spin': expected recorded, busy or blocking" "$work/bad.err" || fail "--mpi-wait spin: $(cat "$work/bad.err")"
[ ! -e "$work/bad" ] || fail "a refused run wrote its output"
echo "shared cores: identity $(ends "$work/identity"), solve 2x: busy $(ends "$work/busy"), blocking $(ends "$work/blocking"), recorded $(ends "$work/recorded"), wall $(ends "$work/wall")"
