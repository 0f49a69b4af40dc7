#!/bin/sh
# Replay consistency of wait states: for every trace under TRACES, the
# original execution's wait states (from the trace) and the predicted ones
# (from tracesim's own predicted archive) with no hypothesis, totals per
# pattern over all ranks, and the relative difference.
#
# Usage: bench/waitstates.sh   Environment: BUILD (default .), TRACES, WORK.
set -u
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
TRACES=${TRACES:-$SRC/../shared/traces}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-waitstates.XXXXXX)}
find "$TRACES" -name '*.otf2' -not -path '*/probe/*' -not -path '*/predicted/*' | sort |
while read -r anchor; do
  name=$(echo "${anchor#"$TRACES"/}" | sed 's,/[^/]*_trace/.*,,; s,/traces.otf2$,,')
  out="$WORK/$(echo "$name" | tr '/' '_')"
  if ! "$BUILD/tracesim" run "$anchor" -o "$out" -q 2> "$out.err"; then
    echo "$name: FAILED: $(head -c 160 "$out.err")"
    continue
  fi
  python3 - "$out/summary.json" "$name" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["wait_states"]
o, p = d["original"], d["predicted"]
cells = []
for k in o:  # every pattern summary.json has, in its order
    if o[k] == 0 and p[k] == 0:
        continue
    diff = "%+.1f%%" % (100 * (p[k] - o[k]) / o[k]) if o[k] else "new"
    cells.append("%s %.4f->%.4f (%s)" % (k, o[k], p[k], diff))
print("%-32s %s" % (sys.argv[2], "; ".join(cells) or "no wait states"))
PY
done
