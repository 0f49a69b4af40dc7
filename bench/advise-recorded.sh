#!/bin/sh
# `tracesim advise` on a trace recorded with tracesim-record from a program
# built without instrumentation (issue 24, must-show 2): Debian's LAMMPS
# (the melt example, bench/apps/in.melt), RANKS ranks under Open MPI,
# oversubscribed on this machine. The trace has MPI calls only, each with
# its caller, so advise ranks phases (CALL@FUNCTION). The script then
# writes the top phase's hypothesis as a user would ([phase:NAME], scale =
# 0.5) and checks that `tracesim run` with it predicts what advise's point
# did, to the printed digit.
# Usage: bench/advise-recorded.sh   Environment: BUILD (default .), RANKS (4),
#        MPIRUN (mpirun.openmpi), TS_RECORD_LIB (default the Open MPI build
#        of the recorder), WORK (scratch dir; REUSE=1 keeps its trace).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RANKS=${RANKS:-4}
MPIRUN=${MPIRUN:-mpirun.openmpi}
TS_RECORD_LIB=${TS_RECORD_LIB:-$BUILD/.libs/libtracesim-record-openmpi.so}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-advise-recorded.XXXXXX)}
export TS_RECORD_LIB OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$BUILD/tracesim
command -v lmp > /dev/null || { echo "no lmp: apt-get install lammps" >&2; exit 1; }
mkdir -p "$WORK"
if [ "${REUSE:-0}" != 1 ] || [ ! -f "$WORK/trace/traces.otf2" ]; then
  rm -rf "$WORK/trace"
  cp "$SRC/bench/apps/in.melt" "$WORK/"
  (cd "$WORK" && "$MPIRUN" --oversubscribe -np "$RANKS" sh "$BUILD/recorder/tracesim-record" \
     -o "$WORK/trace" lmp -in in.melt -log none > program.log 2> program.err) \
    || { echo "lammps failed: $(tail -3 "$WORK/program.err")" >&2; exit 1; }
fi
A=$WORK/trace/traces.otf2
rm -rf "$WORK/advice"
"$T" advise "$A" -o "$WORK/advice" -j 2 --top 5 -q | tee "$WORK/advice.txt"
# The top phase made faster, from results.csv: its name and runtime.
top=$(python3 - "$WORK/advice/results.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["change"] == "faster" and r["region"].startswith("phase:")]
best = max(rows, key=lambda r: float(r["saving_s"]))
print("%s\t%s" % (best["region"][len("phase:"):], best["predicted_runtime_s"]))
PY
)
name=$(printf '%s' "$top" | cut -f1)
advised=$(printf '%s' "$top" | cut -f2)
printf '[phase:%s]\nscale = 0.5\n' "$name" > "$WORK/top.hyp"
rm -rf "$WORK/run"
"$T" run "$A" -H "$WORK/top.hyp" -o "$WORK/run" -q
ran=$(python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["predicted"]["runtime_s"]))' \
  "$WORK/run/summary.json")
echo "top phase: $name"
echo "  advise's point:            $advised s"
echo "  tracesim run -H top.hyp:   $ran s"
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("  equal" if abs(a - b) <= 1e-12 * max(a, b) else "  DIFFER by %g s" % (a - b)); sys.exit(abs(a - b) > 1e-12 * max(a, b))' "$advised" "$ran"
