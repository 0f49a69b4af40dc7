#!/bin/sh
# Polling on shared cores (doc/architecture.md, "Polling on shared
# cores"): where a time-shared recording's MPI calls took their fair share
# of the cores (a library that polls, MPICH's default) and the compute
# between calls is shorter than a time slice of Linux's scheduler, the
# recording's time went to waiting for slices, which the replay's fluid
# sharing does not model: run, left to choose, takes the wall time, not
# the CPU time, and says why; --cpu-time still takes the CPU time.
#
# The trace (a script, derived by hand): 4 ranks on node "vm" of 2 cores,
# with CPU time; 10 iterations of 0.4 ms of compute (0.4 ms of CPU time)
# and an MPI_Barrier of 0.6 ms that took 0.3 ms of CPU time. The fair
# share of a core is 2 / 4 = 0.5, so the barriers took
# 0.3 / (0.6 x 0.5) = 100% of it; the compute between calls is 0.4 ms,
# less than the slice of a node of 2 cores, 0.75 ms x (1 + log2 2) = 1.5 ms.
# The identity replay in wall time is the trace: 10 x 1 ms = 10 ms.
# With the compute 4 ms instead (longer than a slice), run keeps the CPU
# time (the sharing then is fluid enough, tests/test-shared-cores.sh).
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work polled

# script COMPUTE_MS: the trace above with bursts of COMPUTE_MS.
script() {
  awk -v c="$1" 'BEGIN {
    print "ranks 4"; print "node vm 0 1 2 3 cores=2"; print "metric cpu_time s"
    for (r = 0; r < 4; r++) {
      t = 0; cpu = 0
      printf "%d 0 metric cpu_time 0\n%d 0 enter main\n", r, r
      for (i = 0; i < 10; i++) {
        t += c / 1000; cpu += c / 1000
        printf "%d %.6f metric cpu_time %.6f\n%d %.6f enter MPI_Barrier\n%d %.6f coll_begin\n", r, t, cpu, r, t, r, t
        t += 0.0006; cpu += 0.0003
        printf "%d %.6f coll_end barrier comm=world root=none\n%d %.6f metric cpu_time %.6f\n%d %.6f leave MPI_Barrier\n", r, t, r, t, cpu, r, t
      }
      printf "%d %.6f leave main\n", r, t
    } }'
}
script 0.4 > "$work/fine.script"
script 4 > "$work/coarse.script"
for s in fine coarse; do
  "$builddir/ts-tracegen" script "$work/$s.script" -o "$work/$s" > /dev/null || fail "ts-tracegen $s"
done
"$tracesim" run "$work/fine/traces.otf2" -o "$work/fine-run" -q --no-wait-states || fail "run fine"
[ "$(option "$work/fine-run" cpu_time)" = False ] || fail "fine: run took the CPU time of polling calls"
near "$(option "$work/fine-run" calls_fair_share)" 1.0 1e-6 || fail "fine: calls_fair_share $(option "$work/fine-run" calls_fair_share), not 1.0"
near "$(value "$work/fine-run/summary.json" 's["predicted"]["runtime_s"]')" 0.010 1e-6 \
  || fail "fine: identity $(value "$work/fine-run/summary.json" 's["predicted"]["runtime_s"]') s, not the trace's 10 ms"
"$tracesim" run "$work/fine/traces.otf2" -o "$work/fine-cpu" -q --no-wait-states --cpu-time || fail "run fine --cpu-time"
[ "$(option "$work/fine-cpu" cpu_time)" = True ] || fail "fine: --cpu-time was not taken"
"$tracesim" run "$work/coarse/traces.otf2" -o "$work/coarse-run" -q --no-wait-states || fail "run coarse"
[ "$(option "$work/coarse-run" cpu_time)" = True ] || fail "coarse: run did not take the CPU time"
"$tracesim" info "$work/fine/traces.otf2" > "$work/info.txt" || fail "info"
grep -q "compute:    wall time, not the CPU time: the MPI calls polled (they took 100% of their fair share" "$work/info.txt" \
  || fail "info does not say why: $(grep -A1 '^compute' "$work/info.txt")"
# info --json: the wall time, why, and a residual kept where it was (the
# sharing is not simulated).
"$tracesim" info "$work/fine/traces.otf2" --json > "$work/info.json" || fail "info --json"
[ "$(value "$work/info.json" 's["replay"]["compute_clock"]')" = "'wall'" ] || fail "info --json: not the wall time"
near "$(value "$work/info.json" 's["replay"]["calls_fair_share"]')" 1.0 1e-6 || fail "info --json: calls_fair_share"
[ "$(value "$work/info.json" 's["replay"]["residual"]["what_if"]')" = "'pinned'" ] \
  || fail "info --json: what-if residual $(value "$work/info.json" 's["replay"]["residual"]["what_if"]')"
# A sweep keeps its first pass under the clock asked for (here none: run's
# choice) with the choice in it: a second sweep into the same directory
# reads it, and its new point takes the wall time and the share as well.
printf '[region:main]\nscale = ${factor}\n' > "$work/main.hyp.in"
printf '[sweep]\ntrace = fine/traces.otf2\nhypothesis = main.hyp.in\n[parameters]\nfactor = %s\n' 0.5 \
  > "$work/one.sweep"
printf '[sweep]\ntrace = fine/traces.otf2\nhypothesis = main.hyp.in\n[parameters]\nfactor = %s\n' "0.5, 0.25" \
  > "$work/two.sweep"
"$tracesim" sweep "$work/one.sweep" -o "$work/sweep" > "$work/sweep1.log" 2>&1 || fail "sweep: $(cat "$work/sweep1.log")"
"$tracesim" sweep "$work/two.sweep" -o "$work/sweep" > "$work/sweep2.log" 2>&1 || fail "sweep 2: $(cat "$work/sweep2.log")"
grep -q "first pass read from" "$work/sweep2.log" || fail "the second sweep did not read the first pass: $(cat "$work/sweep2.log")"
for s in "$work/sweep/points/"*/summary.json; do
  [ "$(value "$s" 's["inputs"]["options"]["cpu_time"]')" = False ] || fail "sweep: $s took the CPU time"
  near "$(value "$s" 's["inputs"]["options"]["calls_fair_share"]')" 1.0 1e-6 || fail "sweep: $s lost the share"
done
echo "polled: fine-grained identity $(value "$work/fine-run/summary.json" 's["predicted"]["runtime_s"]') s in wall time; coarse keeps the CPU time"
