#!/bin/sh
# Real applications under tracesim-record: LAMMPS (the melt example) and
# HPCC, 4 ranks under Open MPI (the Debian packages lammps and hpcc are built
# with it), oversubscribed on this 2-core machine. For each: `tracesim info`
# must find every MPI call's messages recorded (none inferred or missing),
# and the identity replay is compared with the recorded runtime.
#
# Usage: bench/record-apps.sh   Environment: BUILD (default .), RANKS (4),
#        MPIRUN (mpirun.openmpi), TS_RECORD_LIB (the recorder built for Open
#        MPI; default BUILD/.libs/libtracesim-record-openmpi.so), WORK.
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RANKS=${RANKS:-4}
MPIRUN=${MPIRUN:-mpirun.openmpi}
TS_RECORD_LIB=${TS_RECORD_LIB:-$BUILD/.libs/libtracesim-record-openmpi.so}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-apps.XXXXXX)}
export TS_RECORD_LIB OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$TS_RECORD_LIB" ] || { echo "no recorder library $TS_RECORD_LIB" >&2; exit 1; }

record() { # name, command...
  name=$1; shift
  d=$WORK/$name
  rm -rf "$d/trace" "$d/out"
  (cd "$d" && "$MPIRUN" --oversubscribe -np "$RANKS" sh "$BUILD/recorder/tracesim-record" \
     -o "$d/trace" "$@" > "$d/program.log" 2> "$d/program.err") \
    || { echo "$name: the program failed: $(tail -3 "$d/program.err")"; return 1; }
  "$BUILD/tracesim" info "$d/trace/traces.otf2" > "$d/info.txt"
  "$BUILD/tracesim" run "$d/trace/traces.otf2" -o "$d/out" -q
  python3 - "$name" "$d" <<'PY'
import json, re, sys
name, d = sys.argv[1], sys.argv[2]
info = open(d + "/info.txt").read()
def share(kind):
    m = re.search(r"%s +(\d+) calls \( *([\d.]+)%%\) +([\d.]+) s" % kind, info)
    return int(m.group(1)), float(m.group(2))
s = json.load(open(d + "/out/summary.json"))
o, p = s["original"]["runtime_s"], s["predicted"]["runtime_s"]
worst = max(abs(b / a - 1) for a, b in zip(s["original"]["rank_end_s"], s["predicted"]["rank_end_s"]))
comms = re.search(r"comms: +(\d+)", info).group(1)
print("%-8s recorded %6d calls (%5.1f%%)  inferred %d  missing %d  comms %s  runtime %.4f -> %.4f s (%+.1f%%), worst rank %.1f%%"
      % (name, *share("recorded"), share("inferred")[0], share("missing")[0], comms, o, p, 100 * (p / o - 1), 100 * worst))
PY
}

mkdir -p "$WORK/lammps" "$WORK/hpcc"
cp "$SRC/bench/apps/in.melt" "$WORK/lammps/"
cp "$SRC/bench/apps/hpccinf.txt" "$WORK/hpcc/"
record lammps lmp -in in.melt -log none
record hpcc hpcc
echo "work files: $WORK"
