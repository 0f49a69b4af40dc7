#!/bin/sh
# What `tracesim advise` costs against the whole jobs it stands for, on a
# 64-rank trace with 10 user regions (issue 24, must-show 4). The trace is
# written here from a trace script: RANKS ranks, ITERATIONS iterations of
# 10 regions (region k takes (k + 1) x 100 us, rank r x (1 + r / RANKS)
# of it, so each is imbalanced) and one MPI_Allreduce of 8 bytes, which
# every rank leaves 5 us after the last one entered.
#
# advise --top 10 runs 23 points: the run as traced, each region 2x faster
# and balanced (20), the network 2x faster and ideal. Measured, each best
# of RUNS, sequentially on a quiet machine (no build beside it):
#   job     one whole `tracesim run` (first pass, replay, both executions'
#           wait states, predicted archive)
#   replay  one `tracesim run --no-wait-states` (first pass, replay,
#           archive: what a point cannot avoid but for the first pass)
#   advise  `tracesim advise --top 10 -j 1`: one first pass (with the
#           original wait states), 23 points that compute their runtime
#           only, and the few points whose speed-up fell short again with
#           their wait states (OUT/explain), to say where the time went
# and prints advise / (23 x job) and advise / (first pass + 23 replays).
# Usage: bench/advise-cost.sh   Environment: BUILD (default .), RANKS (64),
#        ITERATIONS (200), RUNS (3), WORK (scratch dir).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
RANKS=${RANKS:-64}
ITERATIONS=${ITERATIONS:-200}
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-advise-cost.XXXXXX)}
T=$BUILD/tracesim

python3 - "$RANKS" "$ITERATIONS" > "$WORK/a.script" <<'PY'
import sys
ranks, iterations = int(sys.argv[1]), int(sys.argv[2])
print("ranks %d" % ranks)
t = [0.0] * ranks
for r in range(ranks):
    print("%d %.9f enter main" % (r, 0.0))
for i in range(iterations):
    for r in range(ranks):
        for k in range(10):
            print("%d %.9f enter region_%d" % (r, t[r], k))
            t[r] += (k + 1) * 100e-6 * (1 + r / ranks)
            print("%d %.9f leave region_%d" % (r, t[r], k))
        print("%d %.9f enter MPI_Allreduce" % (r, t[r]))
        print("%d %.9f coll_begin" % (r, t[r]))
    end = max(t) + 5e-6
    for r in range(ranks):
        print("%d %.9f coll_end allreduce sent=8 recv=8" % (r, end))
        print("%d %.9f leave MPI_Allreduce" % (r, end))
        t[r] = end
for r in range(ranks):
    print("%d %.9f leave main" % (r, t[r]))
PY
"$BUILD/ts-tracegen" script "$WORK/a.script" -o "$WORK/t" > /dev/null
A=$WORK/t/traces.otf2
events=$("$T" info --no-replay "$A" | sed -n 's/^events: *//p')

# best DIR COMMAND...: the best wall time of RUNS runs of COMMAND, each
# into a fresh DIR (advise would resume a finished sweep instantly).
best() {
  dir=$1; shift
  b=""
  for i in $(seq "$RUNS"); do
    rm -rf "$dir"
    s=$(date +%s.%N); "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; e=$(date +%s.%N)
    b=$(echo "$s $e ${b:-1e9}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
  done
  echo "$b"
}
first=$(best "$WORK/none" "$T" hypotheses check /dev/null "$A")
job=$(best "$WORK/job" "$T" run "$A" -o "$WORK/job" -q)
replay=$(best "$WORK/replay" "$T" run "$A" -o "$WORK/replay" -q --no-wait-states)
advise=$(best "$WORK/advise" "$T" advise "$A" -o "$WORK/advise" -j 1 --top 10 -q)
points=$(($(wc -l < "$WORK/advise/results.csv") - 1))
explained=0
[ -f "$WORK/advise/explain/results.csv" ] && explained=$(($(wc -l < "$WORK/advise/explain/results.csv") - 1))
echo "trace: $RANKS ranks, 10 regions, $ITERATIONS iterations, $events events; advise ran $points points, $explained again with wait states"
awk -v f="$first" -v j="$job" -v r="$replay" -v a="$advise" -v n="$points" 'BEGIN {
  printf "first pass (hypotheses check)  %8.3f s\n", f
  printf "whole job (tracesim run)        %8.3f s\n", j
  printf "replay (run --no-wait-states)   %8.3f s\n", r
  printf "advise -j 1 (%d points)         %8.3f s  = %.3f s a point\n", n, a, a / n
  printf "advise / (%d whole jobs)        %8.2f\n", n, a / (n * j)
  printf "advise / (first pass + %d replays) %5.2f\n", n, a / (f + n * r)
}'
