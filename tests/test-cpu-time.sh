#!/bin/sh
# --cpu-time wherever run has it: sweeps ([sweep] cpu_time = true) and
# advise (--cpu-time) take compute from the trace's CPU time as
# `run --cpu-time` does, and refuse a trace without it, naming it; the
# report of such a run says so.
#
# The trace (a script, derived by hand): two ranks, each in main: in
# MPI_Init from 0 to 0.001 s (CPU time 0 -> 0.0005 s), then in region
# "work", then in an MPI_Barrier that both leave at 1.101 s.
# - rank 0's work lasts 1.0 s of wall time (0.001 -> 1.001) but 0.5 s of
#   CPU time (0.0005 -> 0.5005): it shared its core;
# - rank 1's work lasts 0.2 s of both (0.001 -> 0.201), then it waits in
#   the barrier.
# Replayed with wall-clock compute the run ends near 1.0 s (rank 0's work);
# with CPU time near 0.5 s: the runtimes differ by 0.5 s (rank 0's 1.0 s of
# work becomes 0.5 s; everything else is the same in both). With "work" 2x
# faster under CPU time, rank 0's work is 0.25 s: 0.25 s less again.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work cpu-time
runtime() { python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["predicted"]["runtime_s"]))' "$1"; }

cat > "$work/shared.script" <<'EOS'
ranks 2
metric cpu_time s
0 0 metric cpu_time 0
0 0 enter main
0 0 enter MPI_Init
0 0.001 metric cpu_time 0.0005
0 0.001 leave
0 0.001 enter work
0 1.001 metric cpu_time 0.5005
0 1.001 leave
0 1.001 enter MPI_Barrier
0 1.001 coll_begin
0 1.101 coll_end barrier
0 1.101 metric cpu_time 0.5006
0 1.101 leave
0 1.101 enter MPI_Finalize
0 1.101 leave
0 1.101 leave
1 0 metric cpu_time 0
1 0 enter main
1 0 enter MPI_Init
1 0.001 metric cpu_time 0.0005
1 0.001 leave
1 0.001 enter work
1 0.201 metric cpu_time 0.2005
1 0.201 leave
1 0.201 enter MPI_Barrier
1 0.201 coll_begin
1 1.101 coll_end barrier
1 1.101 metric cpu_time 0.2006
1 1.101 leave
1 1.101 enter MPI_Finalize
1 1.101 leave
1 1.101 leave
EOS
"$builddir/ts-tracegen" script "$work/shared.script" -o "$work/trace" > /dev/null || fail "ts-tracegen"
trace=$work/trace/traces.otf2
"$tracesim" run "$trace" -o "$work/wall" -q || fail "run"
"$tracesim" run "$trace" --cpu-time -o "$work/cpu" -q || fail "run --cpu-time"
wall=$(runtime "$work/wall/summary.json")
cpu=$(runtime "$work/cpu/summary.json")
near "$(python3 -c "print($wall - $cpu)")" 0.5 1e-6 \
  || fail "run: wall-clock $wall s, CPU time $cpu s: 0.5 s apart expected"
grep -q '"cpu_time" : true' "$work/cpu/summary.json" || fail "summary.json does not say --cpu-time"
# The report says which clock the compute came from, and only then.
for d in cpu wall; do "$tracesim" report "$work/$d" -q || fail "report $d"; done
grep -q "taken from the trace's CPU time" "$work/cpu/report.html" || fail "the report of run --cpu-time does not say it"
grep -q "taken from the trace's CPU time" "$work/wall/report.html" && fail "the report of a wall-clock run says CPU time"

# A sweep: cpu_time = true gives run --cpu-time's runtime; without it, run's.
printf '[region:work]\nscale = ${factor}\n' > "$work/work.hyp.in"
for clock in cpu wall; do
  flag=$([ $clock = cpu ] && echo true || echo false)
  printf '[sweep]\ntrace = trace/traces.otf2\nhypothesis = work.hyp.in\ncpu_time = %s\n[parameters]\nfactor = 1.0, 0.5\n' \
    "$flag" > "$work/$clock.sweep"
  "$tracesim" sweep "$work/$clock.sweep" -o "$work/sweep-$clock" -q > "$work/log" 2>&1 \
    || fail "sweep cpu_time = $flag: $(cat "$work/log")"
done
# Rows in the file's order: factor 1.0 then 0.5.
row() { sed -n "$(($2 + 1))p" "$1/results.csv" | cut -d, -f2; }
near "$(row "$work/sweep-cpu" 1)" "$cpu" 1e-9 || fail "sweep cpu_time: $(row "$work/sweep-cpu" 1) s, run --cpu-time $cpu s"
near "$(row "$work/sweep-wall" 1)" "$wall" 1e-9 || fail "sweep: $(row "$work/sweep-wall" 1) s, run $wall s"
near "$(python3 -c "print($cpu - $(row "$work/sweep-cpu" 2))")" 0.25 1e-6 \
  || fail "sweep cpu_time, work 2x faster: $(row "$work/sweep-cpu" 2) s; $cpu - 0.25 expected"
# The points' keys differ: the CPU-time sweep reused none of the other's.
grep -q '"cpu_time" : true' "$work/sweep-cpu/points/"*/summary.json || fail "a point's summary.json does not say --cpu-time"

# advise --cpu-time: its baseline is run --cpu-time's prediction, and work
# 2x faster saves rank 0's 0.25 s of CPU time (not 0.5 s of wall time).
"$tracesim" advise "$trace" --cpu-time -o "$work/advise" -q > "$work/advise.out" 2>&1 \
  || fail "advise --cpu-time: $(cat "$work/advise.out")"
# Columns: hypothesis, region, change, predicted_runtime_s, ...
base=$(awk -F, '$2 == "(as traced)" { print $4 }' "$work/advise/results.csv")
faster=$(awk -F, '$2 == "work" && $3 == "faster" { print $4 }' "$work/advise/results.csv")
[ -n "$base" ] && [ -n "$faster" ] || fail "advise rows: $(cat "$work/advise/results.csv")"
near "$base" "$cpu" 1e-9 || fail "advise --cpu-time baseline $base s, run --cpu-time $cpu s"
near "$(python3 -c "print($base - $faster)")" 0.25 1e-6 || fail "advise --cpu-time: work faster saves $base - $faster"

# Refused where the trace has no CPU time, naming it, with nothing left.
"$builddir/ts-tracegen" script /dev/stdin -o "$work/plain" > /dev/null <<'EOS' || fail "ts-tracegen plain"
ranks 1
0 0 enter MPI_Init
0 0.001 leave
0 0.5 enter MPI_Finalize
0 0.5 leave
EOS
printf '[sweep]\ntrace = plain/traces.otf2\ncpu_time = true\n' > "$work/plain.sweep"
"$tracesim" sweep "$work/plain.sweep" -o "$work/sweep-plain" -q > "$work/log" 2>&1 \
  && fail "sweep cpu_time accepted a trace without CPU time"
grep -q "plain/traces.otf2: no CPU time metric" "$work/log" || fail "sweep: $(cat "$work/log")"
"$tracesim" advise "$work/plain/traces.otf2" --cpu-time -o "$work/advise-plain" -q > "$work/log" 2>&1 \
  && fail "advise --cpu-time accepted a trace without CPU time"
grep -q "plain/traces.otf2: no CPU time metric" "$work/log" || fail "advise: $(cat "$work/log")"
rm -rf "$work"
echo "PASS"
