#!/bin/sh
# The wait-state analyses run beside the replay up to 21,845 ranks and
# after it beyond (pipeline/run-waits.c). Both paths must give the same
# outputs: on an 8-rank stencil whose rank 0 computes twice as long (its
# neighbours wait for it in both executions), with --wait-regions (the
# predicted archive then carries the analysis' metrics and regions), the
# default run and one with TS_WAIT_STATES_BESIDE_RANKS=0 (both analyses
# after the replay, as at 131,072 ranks) write the same waitstates.csv,
# summary.json (but its wall-clock and memory figures) and otf2-print of
# the predicted archive, and each log says which path it took.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work waits-after

"$builddir/ts-tracegen" stencil -o "$work/trace" --ranks 8 --iterations 50 --imbalance 2 > /dev/null || fail "ts-tracegen"
for mode in beside after; do
  limit=$([ $mode = after ] && echo 0 || echo 21845)
  TS_WAIT_STATES_BESIDE_RANKS=$limit G_MESSAGES_DEBUG=ts-run "$tracesim" run "$work/trace/traces.otf2" \
    --wait-regions -o "$work/$mode" -q > "$work/$mode.log" 2>&1 || fail "$mode: $(cat "$work/$mode.log")"
  grep -v '"wall_s"\|"max_rss_kib"' "$work/$mode/summary.json" > "$work/$mode.summary"
  "${OTF2_PRINT:-otf2-print}" "$work/$mode/predicted/traces.otf2" > "$work/$mode.print" 2>&1 \
    || fail "$mode: otf2-print"
done
grep -q "on a thread beside the replay" "$work/beside.log" || fail "the default run did not analyse beside: $(cat "$work/beside.log")"
grep -q "on a thread beside" "$work/after.log" && fail "TS_WAIT_STATES_BESIDE_RANKS=0 still analysed beside"
grep -q "wait states: after the replay" "$work/after.log" || fail "after: $(cat "$work/after.log")"
# Something to compare: the stencil's ranks wait for each other in both
# executions, and the predicted archive carries those waits.
grep -q "^predicted,late_sender," "$work/after/waitstates.csv" || fail "no predicted Late Sender: $(cat "$work/after/waitstates.csv")"
grep -q "^original,late_sender," "$work/after/waitstates.csv" || fail "no original Late Sender"
grep -q 'METRIC .*"late_sender"' "$work/after.print" || fail "no late_sender metric in the predicted archive"
cmp -s "$work/beside/waitstates.csv" "$work/after/waitstates.csv" \
  || fail "waitstates.csv differs: $(diff "$work/beside/waitstates.csv" "$work/after/waitstates.csv" | head -5)"
cmp -s "$work/beside.summary" "$work/after.summary" \
  || fail "summary.json differs: $(diff "$work/beside.summary" "$work/after.summary" | head -5)"
cmp -s "$work/beside.print" "$work/after.print" \
  || fail "the predicted archive differs: $(diff "$work/beside.print" "$work/after.print" | head -5)"
rm -rf "$work"
echo "PASS"
