#!/bin/sh
# A 24-point sweep (4 kernel factors x 3 platforms x 2 placements) with
# `tracesim sweep -j JOBS`, against the same 24 points as separate
# `tracesim run` calls, JOBS at a time (xargs -P), on a 64-rank halo
# exchange: the sweep makes the trace's first pass and original wait states
# once, the separate runs 24 times. Prints both wall times and the ratio.
# Run on a quiet machine (no build, no fuzzer beside it).
# Usage: bench/sweep-vs-runs.sh   Environment: BUILD (default .), JOBS (2),
#        RANKS (64), ITERATIONS (400), WORK (scratch dir).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
JOBS=${JOBS:-2}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-bench.XXXXXX)}
T=$BUILD/tracesim
now() { date +%s.%N; }
"$BUILD/ts-tracegen" stencil -o "$WORK/trace" --ranks "${RANKS:-64}" --iterations "${ITERATIONS:-400}" > /dev/null
n=$(( ${RANKS:-64} / 4 ))
"$T" platform --nodes "$n" --cores 4 -o "$WORK/flat.xml" > /dev/null
"$T" platform --nodes "$n" --cores 4 --network ib-hdr -o "$WORK/hdr.xml" > /dev/null
"$T" platform --nodes "$n" --cores 4 --network 100gbe -o "$WORK/gbe.xml" > /dev/null
printf '[region:compute_kernel]\nscale = ${factor}\n' > "$WORK/k.hyp.in"
cat > "$WORK/s.sweep" <<EOS
[sweep]
trace = trace/traces.otf2
hypothesis = k.hyp.in
platform = flat.xml, hdr.xml, gbe.xml
[parameters]
factor = 0.25, 0.5, 0.75, 1.0
placement = block, cyclic
EOS
t0=$(now)
"$T" sweep "$WORK/s.sweep" -o "$WORK/out" -j "$JOBS" -q > /dev/null
t1=$(now)
# The same points as separate runs, from the sweep's own inputs.
i=0; : > "$WORK/cmds"
for p in flat hdr gbe; do for f in 1 2 3 4; do for pl in block cyclic; do
  printf '%s run %s -H %s -p %s --placement %s -o %s -q\n' "$T" "$WORK/trace/traces.otf2" \
    "$WORK/out/inputs/$(printf p%04u $i)/hypothesis.hyp" "$WORK/$p.xml" "$pl" "$WORK/sep$i" >> "$WORK/cmds"
  i=$((i + 1))
done; done; done
t2=$(now)
xargs -P "$JOBS" -I{} sh -c '{}' < "$WORK/cmds"
t3=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v j="$JOBS" 'BEGIN {
  printf "24 points, %d at a time: sweep %.2f s, separate runs %.2f s, ratio %.2fx\n", j, b - a, d - c, (d - c) / (b - a) }'
echo "work files: $WORK"
