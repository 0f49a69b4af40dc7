#!/bin/sh
# What-if predictions against reality: the what-if program of
# ../shared/traces/whatif was really run four ways. From the `base` trace
# alone, each hypothesis predicts a run; the reference is what tracesim
# reports for the real changed run's trace (the same replay, no hypothesis),
# and the real trace's own runtime is shown too.
#
# Usage: bench/whatif.sh   Environment: BUILD (default .), TRACES, WORK.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
TRACES=${TRACES:-$SRC/../shared/traces}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-whatif.XXXXXX)}
H=$SRC/scenarios/whatif
trace() { echo "$TRACES/whatif/trace_$1_np2/whatif_trace/eztrace_log.otf2"; }
runtime() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]]['runtime_s'])" "$1/summary.json" "$2"; }

printf '%-10s %-28s %12s %14s %12s %9s\n' real hypotheses predicted_s "tracesim(real)" real_trace_s error
for case in fast balanced fast_bal; do
  case $case in
    fast) hyps="-H $H/fast.hyp" ;;
    balanced) hyps="-H $H/balanced.hyp" ;;
    fast_bal) hyps="-H $H/fast.hyp -H $H/balanced.hyp" ;;
  esac
  # shellcheck disable=SC2086
  "$BUILD/tracesim" run "$(trace base)" $hyps -o "$WORK/pred_$case" -q
  "$BUILD/tracesim" run "$(trace "$case")" -o "$WORK/real_$case" -q
  p=$(runtime "$WORK/pred_$case" predicted)
  r=$(runtime "$WORK/real_$case" predicted)
  o=$(runtime "$WORK/real_$case" original)
  awk -v c="$case" -v h="$(echo "$hyps" | sed "s,-H $H/,,g")" -v p="$p" -v r="$r" -v o="$o" \
    'BEGIN { printf "%-10s %-28s %12.4f %14.4f %12.4f %+8.1f%%\n", c, h, p, r, o, 100 * (p - r) / r }'
done
echo "(error: predicted from base vs tracesim's replay of the real trace)"
