#!/bin/sh
# What drawing a report costs (issue 25, must-show 3): a 64-rank halo
# exchange (ts-tracegen stencil, rank 0 computing 1.5x longer, so the
# others wait) of about 1 M events, and the same 10x longer. For each:
# `tracesim report OUT` (both archives read, one a thread) against one
# `tracesim info` of the trace (first pass and identity replay), best of
# RUNS, with peak RSS and the page's size. Run on a quiet machine.
# Usage: bench/report-scale.sh   Environment: BUILD (default .), RUNS (3), WORK.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-report-scale.XXXXXX)}
T=$BUILD/tracesim

# best COMMAND...: "SECONDS KB", the best wall time of RUNS runs and its peak RSS
best() {
  b=""
  for i in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    b=$(printf '%s\n%s\n' "$(cat "$WORK/time")" "${b:-1e9 0}" | sort -g | head -1)
  done
  echo "$b"
}
printf '%-11s %10s %12s %12s %12s %12s %10s\n' iterations events report_s report_KB info_s info_KB html_KB
for it in 1250 12500; do
  "$BUILD/ts-tracegen" stencil -o "$WORK/t$it" --ranks 64 --iterations "$it" --imbalance 1.5 > /dev/null
  A=$WORK/t$it/traces.otf2
  events=$("$T" info --no-replay "$A" | sed -n 's/^events: *//p')
  "$T" run "$A" -o "$WORK/out$it" -q
  r=$(best "$T" report "$WORK/out$it" -q)
  i=$(best "$T" info "$A")
  kb=$(( $(wc -c < "$WORK/out$it/report.html") / 1024 ))
  printf '%-11s %10s %12s %12s %12s %12s %10s\n' "$it" "$events" ${r% *} ${r#* } ${i% *} ${i#* } "$kb"
done
