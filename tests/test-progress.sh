#!/bin/sh
# --mpi-progress and a hypothesis file's [mpi] progress: when a rendezvous
# message moves (doc/architecture.md, "MPI progress"). The predictions
# themselves are golden scenarios (scenarios/rendezvous-in-calls*,
# rendezvous-async-faster, their derivations beside them); this test checks
# the ways to choose the mode, and that each choice is said.
#
# The trace is scenarios/rendezvous-in-calls' and the what-if its
# work-faster.hyp (rank 1's "work" 2x faster), as derived there:
# - in-calls (the default): rank 0's send waits for rank 1 to enter
#   MPI_Wait, which now happens at 0.501: runtime 0.5021 s;
# - async: the message moved at 0.1, and the 0.9 s rank 0 spent beyond it
#   in the trace stays pinned: runtime 1.0011 s.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work progress
srcdir=${srcdir:-.}
scen=$srcdir/scenarios
runtime() { value "$1/summary.json" 's["predicted"]["runtime_s"]'; }
mode() { value "$1/summary.json" 's["inputs"]["options"]["mpi_progress"]'; }

"$builddir/ts-tracegen" script "$scen/rendezvous-in-calls/trace.script" -o "$work/t" > /dev/null \
  || fail "ts-tracegen"
trace=$work/t/traces.otf2
platform=$scen/platforms/four-hosts.xml
faster=$scen/rendezvous-in-calls-faster/work-faster.hyp
run() { out=$1; shift; "$tracesim" run "$trace" -p "$platform" -H "$faster" -o "$work/$out" -q "$@"; }

run default || fail "run (default)"
near "$(runtime "$work/default")" 0.5021 1e-6 || fail "default: runtime $(runtime "$work/default"), not 0.5021"
[ "$(mode "$work/default")" = "'in-calls'" ] || fail "summary does not say in-calls"
run async --mpi-progress async || fail "run --mpi-progress async"
near "$(runtime "$work/async")" 1.0011 1e-6 || fail "async: runtime $(runtime "$work/async"), not 1.0011"
[ "$(mode "$work/async")" = "'async'" ] || fail "summary does not say async"

# The same as a what-if, which --mpi-progress overrides.
printf '# a library with a progress thread\n[mpi]\nprogress = async\n' > "$work/thread.hyp"
run hyp-async -H "$work/thread.hyp" || fail "run -H thread.hyp"
near "$(runtime "$work/hyp-async")" 1.0011 1e-6 || fail "[mpi] progress = async not applied"
run hyp-override -H "$work/thread.hyp" --mpi-progress in-calls || fail "run -H thread.hyp --mpi-progress in-calls"
near "$(runtime "$work/hyp-override")" 0.5021 1e-6 || fail "--mpi-progress in-calls does not override the file"

# A sweep over the mode: "what if the library had a progress thread".
cp "$platform" "$work/four-hosts.xml"
cp "$faster" "$work/work-faster.hyp"
printf '[sweep]\ntrace = t/traces.otf2\nhypothesis = work-faster.hyp\nplatform = four-hosts.xml\n[parameters]\nmpi_progress = in-calls, async\n' \
  > "$work/progress.sweep"
"$tracesim" sweep "$work/progress.sweep" -o "$work/sweep" -q > /dev/null 2> "$work/sweep.err" \
  || fail "sweep over mpi_progress: $(cat "$work/sweep.err")"
python3 - "$work/sweep/results.csv" <<'PY' || fail "sweep: mpi_progress not applied per point"
import csv, sys
rows = {r["mpi_progress"]: float(r["predicted_runtime_s"]) for r in csv.DictReader(open(sys.argv[1]))}
want = {"in-calls": 0.5021, "async": 1.0011}
sys.exit(any(abs(rows.get(k, -1) - v) > 1e-6 for k, v in want.items()))
PY
printf '[sweep]\ntrace = t/traces.otf2\n[parameters]\nmpi_progress = in-calls, soon\n' > "$work/bad.sweep"
if "$tracesim" sweep "$work/bad.sweep" -o "$work/bad-sweep" -q > /dev/null 2> "$work/bad-sweep.err"; then
  fail "sweep with mpi_progress = soon accepted"
fi
grep -q "mpi_progress = soon" "$work/bad-sweep.err" || fail "sweep mpi_progress = soon: $(cat "$work/bad-sweep.err")"

# What is not a mode is refused, by the option and at the file's line.
if run bad-option --mpi-progress eventually 2> "$work/bad-option.err"; then
  fail "--mpi-progress eventually accepted"
fi
grep -q "mpi-progress 'eventually': expected in-calls or async" "$work/bad-option.err" \
  || fail "--mpi-progress eventually: $(cat "$work/bad-option.err")"
printf '[mpi]\n\nprogress = sometimes\n' > "$work/bad.hyp"
if run bad-file -H "$work/bad.hyp" 2> "$work/bad-file.err"; then
  fail "progress = sometimes accepted"
fi
grep -q "bad.hyp:3: \[mpi\] progress takes in-calls or async, not 'sometimes'" "$work/bad-file.err" \
  || fail "progress = sometimes: $(cat "$work/bad-file.err")"
printf '[mpi]\nthread = yes\n' > "$work/key.hyp"
if run bad-key -H "$work/key.hyp" 2> "$work/bad-key.err"; then
  fail "[mpi] thread accepted"
fi
grep -q "key.hyp:2: unknown key 'thread' in \[mpi\] (known: progress)" "$work/bad-key.err" \
  || fail "[mpi] thread: $(cat "$work/bad-key.err")"
for d in bad-option bad-file bad-key bad-sweep; do
  [ ! -e "$work/$d" ] || fail "a refused run wrote $d"
done

# `info` says which mode its replay used.
"$tracesim" info "$trace" > "$work/info.txt" 2>&1 || fail "info"
grep -q "MPI progress in-calls" "$work/info.txt" || fail "info does not state the MPI progress mode"
"$tracesim" info "$trace" --mpi-progress async > "$work/info-async.txt" 2>&1 \
  || fail "info --mpi-progress async: $(cat "$work/info-async.txt")"
grep -q "MPI progress async" "$work/info-async.txt" || fail "info --mpi-progress async does not say so"
if "$tracesim" info "$trace" --mpi-progress later > "$work/info-bad.txt" 2>&1; then
  fail "info --mpi-progress later accepted"
fi
grep -q "mpi-progress: expected in-calls or async" "$work/info-bad.txt" \
  || fail "info --mpi-progress later: $(cat "$work/info-bad.txt")"
echo "progress: in-calls 0.5021 s, async 1.0011 s, by option and by [mpi]; errors at the file's line"
