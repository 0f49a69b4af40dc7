#!/bin/sh
# Identity accuracy: every trace under TRACES replayed with no hypothesis on
# the platform calibrated from the trace itself, predicted vs original
# (clock-aligned) runtime and worst per-rank end time, with the share of MPI
# time whose communication was missing from the trace.
#
# Usage: bench/identity.sh   Environment: BUILD (default .), TRACES (default
# ../shared/traces next to the source tree), WORK, TIMEOUT (seconds allowed
# for one replay, default 600). bench/corpus.sh runs it on the EZTrace corpus.
set -u
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
TRACES=${TRACES:-$SRC/../shared/traces}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-identity.XXXXXX)}
TIMEOUT=${TIMEOUT:-600}

printf '%-44s %5s %10s %10s %8s %9s %8s %8s %8s %8s\n' trace ranks orig_s pred_s "runtime" "worst_rk" missing "wall_s" residual kinds
find "$TRACES" -name '*.otf2' -not -path '*/.run/*' \
  -not -path '*/predicted/*' | sort | while read -r anchor; do
  rel=${anchor#"$TRACES"/}
  name=$(echo "$rel" | sed 's,/[^/]*_trace/.*,,; s,/traces.otf2$,,')
  # Several traces in one folder (probe/): each named by its own.
  case $name in */*) ;; *) name=$(echo "$rel" | sed 's,_trace/.*,,') ;; esac
  out="$WORK/$(echo "$name" | tr '/' '_')"
  timeout "$TIMEOUT" "$BUILD/tracesim" run "$anchor" -o "$out" -q 2> "$out.err"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 124 ] && echo "timed out after $TIMEOUT s" >> "$out.err"
    printf '%-44s %s\n' "$name" "FAILED: $(head -c 160 "$out.err" | tr '\n' ' ')"
    continue
  fi
  python3 - "$out/summary.json" "$name" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o, p = d["original"], d["predicted"]
err = lambda a, b: (b - a) / a if a else 0.0
worst = max((err(a, b) for a, b in zip(o["rank_end_s"], p["rank_end_s"])), key=abs)
print("%-44s %5d %10.4f %10.4f %+7.1f%% %+8.1f%% %7.1f%% %8.2f" % (
    sys.argv[2], d["ranks"], o["runtime_s"], p["runtime_s"],
    100 * err(o["runtime_s"], p["runtime_s"]), 100 * worst,
    100 * d["mpi_time_share"]["missing"], d["wall_s"]), end="")
# Each rank's work, simulated and residual seconds add up to its end
# (doc/architecture.md, "Three kinds of time"): the worst gap, relative.
gap = max(abs(p["work_s"][r] + p["simulated_s"][r] + p["residual_s"][r] - e) / max(e, 1e-12)
          for r, e in enumerate(p["rank_end_s"]))
res = sum(p["residual_s"]) / max(sum(p["rank_end_s"]), 1e-12)
print(" %7.1f%% %8s" % (100 * res, "ok" if gap < 1e-9 else "gap %.1e" % gap))
PY
done
echo "(runtime, worst_rk: predicted vs original, worst rank end; missing: share of MPI time whose messages the trace lacks;"
echo " residual: its share of all ranks' time; kinds: every rank's work + simulated + residual equals its end)"
