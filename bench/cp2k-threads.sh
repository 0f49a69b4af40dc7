#!/bin/sh
# A Debian-packaged hybrid code (issue 43, must-show 1): CP2K's cp2k.psmp
# (apt-get install cp2k), its example H2O.inp as an MD run of STEPS steps,
# recorded with tracesim-record at NP ranks x 1 and x 2 OpenMP threads
# (OMP_WAIT_POLICY=passive: under the default, GCC's runtime spins, and two
# ranks of two spinning threads on two cores take 30x longer). From each
# trace tracesim predicts the run unchanged (identity: against the
# recording's own runtime); from the one-thread trace, the run at 2
# threads (`threads = 2` on every parallel region, bench/apps/threads2.hyp),
# against the recorded 2-thread runs: as the hypothesis says, and with the
# runtime's fork and barrier costs that a one-thread trace cannot show,
# measured first on this machine by tracesim-omp-cost (--omp-costs).
# Recorded runs are compared with recorded runs: the recorder's own cost
# is in both.
#
# RUNS rounds, interleaved; medians and ranges of the recordings' runtimes
# and of the predictions; ok: identity within 5%, the thread-count what-if
# within 15% (the issue's bounds) or inside the real runs' range.
#
# Usage: flock /tmp/tracesim-cpu.lock sh bench/cp2k-threads.sh
# Environment: BUILD (.), RUNS (3), STEPS (10), NPS ("1 2"), MPIEXEC (Open
# MPI's, which Debian's cp2k.psmp is built for), WORK (a new directory
# under /dev/shm; kept).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
STEPS=${STEPS:-10}
NPS=${NPS:-1 2}
MPIEXEC=${MPIEXEC:-mpiexec.openmpi}
WORK=${WORK:-$(mktemp -d /dev/shm/tracesim-cp2k.XXXXXX)}
mkdir -p "$WORK"
die() { echo "cp2k-threads: $*" >&2; exit 1; }
command -v cp2k.psmp > /dev/null || die "no cp2k.psmp: apt-get install cp2k"
example=/usr/share/doc/cp2k/examples/H2O.inp
[ -r "$example" ] || die "no $example"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
export CP2K_DATA_DIR=${CP2K_DATA_DIR:-/usr/share/cp2k} TS_RECORD_LIBDIR="$BUILD/.libs"
sed "s/STEPS [0-9]*/STEPS $STEPS/" "$example" > "$WORK/H2O.inp"
hyp=$SRC/bench/apps/threads2.hyp
costs=$("$BUILD/tracesim-omp-cost" 2) || die "tracesim-omp-cost failed"
echo "$costs" | head -1
costs=$(echo "$costs" | tail -1)

# runtime SUMMARY KEY: original or predicted runtime_s
runtime() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["runtime_s"])' "$1" "$2"
}
# predict TRACE FILE [OPTION...]: appends TRACE's predicted runtime to FILE
predict() {
  rm -rf "$WORK/pred"
  trace=$1 file=$2
  shift 2
  "$BUILD/tracesim" run -q "$trace" "$@" -o "$WORK/pred" 2> "$WORK/err" \
    || die "tracesim run $trace $*: $(cat "$WORK/err")"
  runtime "$WORK/pred/summary.json" predicted >> "$file"
}

start=$(date +%s)
r=1
while [ "$r" -le "$RUNS" ]; do
  for np in $NPS; do
    for t in 1 2; do
      d=$WORK/np$np-t$t
      mkdir -p "$d"
      rm -rf "$d/trace"
      (cd "$d" && OMP_NUM_THREADS=$t "$MPIEXEC" --oversubscribe --bind-to none -n "$np" \
         sh "$BUILD/recorder/tracesim-record" -o "$d/trace" cp2k.psmp -i "$WORK/H2O.inp" \
         > "$d/out" 2>&1) || die "recording $np x $t failed: $(tail -5 "$d/out")"
      predict "$d/trace/traces.otf2" "$d/identity"
      runtime "$WORK/pred/summary.json" original >> "$d/recorded"
      if [ "$t" = 1 ]; then
        predict "$d/trace/traces.otf2" "$d/threads2" -H "$hyp"
        # shellcheck disable=SC2086 # --omp-costs and its value
        predict "$d/trace/traces.otf2" "$d/threads2-costs" -H "$hyp" $costs
      fi
    done
  done
  echo "round $r of $RUNS done ($(( $(date +%s) - start )) s)" >&2
  r=$((r + 1))
done

stats() {
  sort -g "$1" | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f [%.3f, %.3f]", m, v[1], v[NR] }'
}
# row LABEL PREDICTED REAL TOL
row() {
  p=$(stats "$2") q=$(stats "$3")
  python3 -c '
import sys
p, q, tol = sys.argv[2].split(), sys.argv[3].split(), float(sys.argv[4])
pm, qm = float(p[0]), float(q[0])
lo, hi = float(q[1].strip("[,")), float(q[2].strip("]"))
err = 100 * (pm - qm) / qm
ok = "ok" if abs(err) <= tol or lo <= pm <= hi else "OFF"
print("%-36s %-26s %-26s %+6.1f%%  %s" % (sys.argv[1], sys.argv[2], sys.argv[3], err, ok))' \
    "$1" "$p" "$q" "$4"
}
echo "CP2K $(cp2k.psmp --version 2>/dev/null | sed -n 's/^ *CP2K version *//p' | head -1), H2O.inp $STEPS MD steps," \
  "OMP_WAIT_POLICY=passive, $(nproc) cores, $RUNS rounds; runtime seconds: median [min, max]"
printf '%-36s %-26s %-26s %7s\n' "ranks x threads" predicted recorded err
for np in $NPS; do
  for t in 1 2; do
    row "$np x $t identity" "$WORK/np$np-t$t/identity" "$WORK/np$np-t$t/recorded" 5
  done
  row "$np x 1 -> 2 threads" "$WORK/np$np-t1/threads2" "$WORK/np$np-t2/recorded" 15
  row "  with $costs" "$WORK/np$np-t1/threads2-costs" "$WORK/np$np-t2/recorded" 15
done
echo "took $(( $(date +%s) - start )) s; work files: $WORK"
