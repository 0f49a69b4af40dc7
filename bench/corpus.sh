#!/bin/sh
# The EZTrace corpus (recorded by bench/record-corpus.sh): every trace under
# CORPUS replayed with no hypothesis on the platform calibrated from the
# trace itself, one row each as in bench/identity.sh (ranks, original and
# predicted runtime, runtime error, worst rank end error, share of MPI time
# whose messages the trace lacks, tracesim's wall time), or FAILED and the
# start of tracesim's error output when it exits non-zero (for example when
# the replay deadlocks on receives that EZTrace recorded without a peer).
#
# Usage: bench/corpus.sh   Environment: BUILD (directory of the tracesim
# binary, default .), CORPUS (default /work/corpus), WORK (default a new
# mktemp directory; each trace's output goes to WORK/<name>), TIMEOUT
# (seconds allowed for one replay, default 600).
set -u
BUILD=$(cd "${BUILD:-.}" && pwd)
CORPUS=${CORPUS:-/work/corpus}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-corpus.XXXXXX)}
TIMEOUT=${TIMEOUT:-600}
[ -x "$BUILD/tracesim" ] || { echo "no $BUILD/tracesim" >&2; exit 1; }
[ -d "$CORPUS" ] || { echo "no corpus $CORPUS (bench/record-corpus.sh records it)" >&2; exit 1; }
CORPUS=$(cd "$CORPUS" && pwd)

printf '%-44s %5s %10s %10s %8s %9s %8s %8s\n' trace ranks orig_s pred_s "runtime" "worst_rk" missing "wall_s"
find "$CORPUS" -name '*.otf2' -path '*_trace/*' | sort | while read -r anchor; do
  name=$(echo "${anchor#"$CORPUS"/}" | sed 's,/[^/]*_trace/.*,,')
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
    100 * d["mpi_time_share"]["missing"], d["wall_s"]))
PY
done
echo "(runtime, worst_rk: predicted vs original, worst rank end; missing: share of MPI time whose messages the trace lacks)"
echo "(outputs in $WORK)"
