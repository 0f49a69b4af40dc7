#!/bin/sh
# The oracle of a change that must not move what tracesim predicts (issue
# 41, must-show 3): `record` runs every case with one build and keeps what
# it wrote; `diff` compares two records case by case and file by file.
#
# A case is one replay, run the way its test or script runs it:
# - every scenarios/NAME with an expected.ini as tests/test-scenarios does
#   (its platform or [cluster] file, trace_of, options, hypotheses);
#   scenarios/partitioned as tests/test-partitioned does (ts-tracegen
#   partitioned nls, fls and vls, the variant's region x 0.5 on
#   two-hosts.xml); guessed-deadlock on four-hosts.xml and sender-faster
#   with --wait-regions as their tests do; every other trace.script
#   (two-nodes-identity, waits-*) and scorep-ring's traces.otf2 as the
#   default job on the platform calibrated from the trace;
# - `make demo` (ts-tracegen stencil, 8 ranks, 200 iterations);
# - every trace bench/identity.sh and bench/waitstates.sh replay (the same
#   command, so one case each) and bench/whatif.sh's three predictions from
#   the base trace (its replays of the real traces are identity cases).
# Traces of scenarios are written by BUILD's ts-tracegen, platforms of
# [cluster] files by BUILD's `tracesim platform`, as the tests do.
# Every path given to the tools is relative to one scratch directory (scen
# is SRC/scenarios, traces is TRACES), so the paths summary.json quotes do
# not depend on BUILD, OUT or the checkout.
#
# OUT/CASE/ keeps: command (the steps, without BUILD), status (the exit
# status of the first step that failed, 0 if none; 124 a timeout), stderr
# (all steps'), and when the run completed: summary.json without its
# wall-clock and memory figures (the top-level wall_s and max_rss_kib lines
# deleted, every other byte as tracesim wrote it), waitstates.csv,
# platform.xml when tracesim calibrated one, otf2-print.txt (`otf2-print` of
# OUT/predicted, the events) and otf2-print-G.txt (`otf2-print -G`, the
# global definitions). OUT/recorded.txt says which build and how long.
# `diff` prints every case and file that differs; for numbers (summary.json,
# waitstates.csv, and the ticks of otf2-print) the largest absolute
# difference when only numbers differ. It exits 0 only when A and B are
# identical (OUT/recorded.txt aside).
#
# Usage: bench/oracle.sh record BUILD OUT   (OUT must not exist, or be empty)
#        bench/oracle.sh diff A B
# Environment: TRACES (default ../shared/traces next to the source tree),
#   TIMEOUT (seconds allowed for one step of a case, default 600). Run it on
#   a quiet machine only if you read its recorded.txt times; the outputs do
#   not depend on load.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
TRACES=${TRACES:-$SRC/../shared/traces}
TIMEOUT=${TIMEOUT:-600}

usage() {
  echo "usage: bench/oracle.sh record BUILD OUT | bench/oracle.sh diff A B" >&2
  exit 2
}

# One step of case $1: BUILD's tool $2 with the remaining arguments, run in
# WORK. A case whose earlier step failed runs no more steps.
step() {
  c=$1 tool=$2
  shift 2
  [ "$(cat "$OUT/$c/status")" = 0 ] || return 1
  echo "$tool $*" >> "$OUT/$c/command"
  (cd "$WORK" && exec timeout "$TIMEOUT" "$BUILD/$tool" "$@") > /dev/null 2>> "$OUT/$c/stderr"
  rc=$?
  [ "$rc" -eq 124 ] && echo "timed out after $TIMEOUT s" >> "$OUT/$c/stderr"
  echo "$rc" > "$OUT/$c/status"
  [ "$rc" -eq 0 ]
}

begin() {
  mkdir -p "$OUT/$1" "$WORK/$1"
  echo 0 > "$OUT/$1/status"
  : > "$OUT/$1/command"
  : > "$OUT/$1/stderr"
}

# summary.json without the top-level wall_s and max_rss_kib members: their
# lines are deleted, and the comma that then ends the last member.
strip_summary() {
  awk '/^  "(wall_s|max_rss_kib)" : / { next }
       $0 == "}" && have { sub(/,$/, "", prev) }
       have { print prev }
       { prev = $0; have = 1 }
       END { if (have) print prev }' "$1"
}

# Keep what case $1's run (output directory WORK/$1/out) wrote, then drop
# the run.
keep() {
  c=$1 run=$WORK/$1/out
  if [ "$(cat "$OUT/$c/status")" = 0 ]; then
    strip_summary "$run/summary.json" > "$OUT/$c/summary.json"
    for f in waitstates.csv platform.xml; do
      [ -f "$run/$f" ] && cp "$run/$f" "$OUT/$c/$f"
    done
    if [ -f "$run/predicted/traces.otf2" ]; then
      (cd "$WORK" && otf2-print "$c/out/predicted/traces.otf2") > "$OUT/$c/otf2-print.txt" 2>&1 ||
        echo "otf2-print failed" >> "$OUT/$c/otf2-print.txt"
      (cd "$WORK" && otf2-print -G "$c/out/predicted/traces.otf2") > "$OUT/$c/otf2-print-G.txt" 2>&1 ||
        echo "otf2-print -G failed" >> "$OUT/$c/otf2-print-G.txt"
    fi
  fi
  rm -rf "${WORK:?}/$c"
  echo "$c: status $(cat "$OUT/$c/status")" >&2
}

# The value of KEY in FILE's [scenario] group (GKeyFile lists: ; between).
ini() {
  awk -v k="$2" '/^\[/ { s = ($0 == "[scenario]") }
    s && $1 == k && $2 == "=" { sub(/^[^=]*=[ \t]*/, ""); print; exit }' "$1"
}

# A scenario with an expected.ini, as tests/test-scenarios runs it.
scenario_case() {
  n=$1 c=scenario-$1 ini=$SRC/scenarios/$1/expected.ini
  begin "$c"
  of=$(ini "$ini" trace_of)
  step "$c" ts-tracegen script "scen/${of:-$n}/trace.script" -o "$c/trace"
  cluster=$(ini "$ini" cluster)
  if [ -n "$cluster" ]; then
    platform=$c/platform.xml
    step "$c" tracesim platform --config "scen/$n/$cluster" -o "$platform"
  else
    platform=scen/$(ini "$ini" platform)
  fi
  set -- run "$c/trace/traces.otf2" -p "$platform" -o "$c/out" -q
  for o in $(ini "$ini" options | tr ';' ' '); do set -- "$@" "$o"; done
  for h in $(ini "$ini" hypotheses | tr ';' ' '); do set -- "$@" -H "scen/$n/$h"; done
  step "$c" tracesim "$@"
  keep "$c"
}

# A trace script replayed with tracesim run's remaining arguments.
script_case() {
  c=$1 script=$2
  shift 2
  begin "$c"
  step "$c" ts-tracegen script "$script" -o "$c/trace"
  step "$c" tracesim run "$c/trace/traces.otf2" -o "$c/out" -q "$@"
  keep "$c"
}

# An archive replayed with tracesim run's remaining arguments.
trace_case() {
  c=$1 anchor=$2
  shift 2
  begin "$c"
  step "$c" tracesim run "$anchor" -o "$c/out" -q "$@"
  keep "$c"
}

scenarios() {
  for dir in "$SRC"/scenarios/*/; do
    n=$(basename "$dir")
    if [ -f "$dir/expected.ini" ]; then
      scenario_case "$n"
    elif [ -f "$dir/trace.script" ]; then
      script_case "scenario-$n" "scen/$n/trace.script"
    elif [ -f "$dir/traces.otf2" ]; then
      trace_case "scenario-$n" "scen/$n/traces.otf2"
    elif [ "$n" = partitioned ]; then
      for v in nls fls vls; do
        c=scenario-partitioned-$v
        begin "$c"
        printf '[region:%s]\nscale = 0.5\n' "$v" > "$WORK/$c/half.hyp"
        step "$c" ts-tracegen partitioned -o "$c/trace" --variant "$v" --send-partitions 4 \
          --recv-partitions 3 --reps 5 --delay 0.1
        step "$c" tracesim run "$c/trace/traces.otf2" -p scen/platforms/two-hosts.xml \
          -H "$c/half.hyp" -o "$c/out" -q
        keep "$c"
      done
    elif [ "$n" != platforms ] && [ "$n" != whatif ]; then
      echo "oracle.sh: scenarios/$n: no expected.ini, trace.script or traces.otf2, not run" >&2
    fi
  done
  # Their tests' other runs of two scenarios.
  script_case scenario-guessed-deadlock-four-hosts scen/guessed-deadlock/trace.script \
    -p scen/platforms/four-hosts.xml
  script_case scenario-sender-faster-wait-regions scen/sender-faster/trace.script \
    -p scen/platforms/two-hosts.xml -H scen/sender-faster/faster.hyp --wait-regions
}

demo() {
  begin demo
  step demo ts-tracegen stencil -o demo/trace --ranks 8 --iterations 200 --imbalance 1.5
  step demo tracesim run demo/trace/traces.otf2 -o demo/out -q
  keep demo
}

# bench/identity.sh's traces (waitstates.sh's are those without probe/),
# named as identity.sh names them.
traces() {
  find "$TRACES" -name '*.otf2' -not -path '*/.run/*' -not -path '*/predicted/*' | sort |
  while read -r anchor; do
    rel=${anchor#"$TRACES"/}
    name=$(echo "$rel" | sed 's,/[^/]*_trace/.*,,; s,/traces.otf2$,,')
    case $name in */*) ;; *) name=$(echo "$rel" | sed 's,_trace/.*,,') ;; esac
    trace_case "trace-$(echo "$name" | tr '/' '_')" "traces/$rel"
  done
  base=traces/whatif/trace_base_np2/whatif_trace/eztrace_log.otf2
  trace_case whatif-pred_fast "$base" -H scen/whatif/fast.hyp
  trace_case whatif-pred_balanced "$base" -H scen/whatif/balanced.hyp
  trace_case whatif-pred_fast_bal "$base" -H scen/whatif/fast.hyp -H scen/whatif/balanced.hyp
}

record() {
  BUILD=$(cd "$1" && pwd) || exit 1
  OUT=$2
  [ -x "$BUILD/tracesim" ] || { echo "oracle.sh: no $BUILD/tracesim" >&2; exit 1; }
  [ -d "$TRACES" ] || { echo "oracle.sh: no trace folder $TRACES (set TRACES)" >&2; exit 1; }
  if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    echo "oracle.sh: $OUT exists and is not empty: give a new directory" >&2
    exit 1
  fi
  mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
  WORK=$(mktemp -d /tmp/tracesim-oracle.XXXXXX) || exit 1
  trap 'rm -rf "$WORK"' EXIT
  trap 'exit 130' INT TERM
  ln -s "$SRC/scenarios" "$WORK/scen"
  ln -s "$(cd "$TRACES" && pwd)" "$WORK/traces"
  t0=$(date +%s)
  scenarios
  demo
  traces
  ncases=$(find "$OUT" -mindepth 2 -maxdepth 2 -name status | wc -l)
  failed=$(grep -lvx 0 "$OUT"/*/status | wc -l)
  {
    echo "build: $BUILD ($(git -C "$BUILD" describe --always --dirty 2>/dev/null || echo 'not a git checkout'))"
    echo "scenarios: $SRC/scenarios; traces: $TRACES"
    echo "cases: $ncases, of which failed: $failed"
    echo "wall: $(($(date +%s) - t0)) s, recorded $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } > "$OUT/recorded.txt"
  cat "$OUT/recorded.txt"
}

compare() {
  python3 - "$1" "$2" <<'PY'
import itertools, os, re, sys

a_root, b_root = sys.argv[1], sys.argv[2]
NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

def cases(root):
    return {d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "status"))}

def same_bytes(p, q):
    if os.path.getsize(p) != os.path.getsize(q):
        return False
    with open(p, "rb") as f, open(q, "rb") as g:
        while True:
            x, y = f.read(1 << 20), g.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True

def explain(p, q):
    """Lines that differ, the first of them, and, when the lines differ only
    in their numbers, the largest absolute difference of those numbers."""
    differing, first, worst, shape = 0, None, (0.0, None), True
    with open(p, errors="replace") as f, open(q, errors="replace") as g:
        for n, (x, y) in enumerate(itertools.zip_longest(f, g), 1):
            if x == y:
                continue
            differing += 1
            first = first or (n, x, y)
            if x is None or y is None or NUM.sub("#", x) != NUM.sub("#", y):
                shape = False
                continue
            for u, v in zip(NUM.findall(x), NUM.findall(y)):
                d = abs(float(u) - float(v))
                if d > worst[0]:
                    worst = (d, (n, u, v))
    n, x, y = first
    print("    %d line(s) differ; first at line %d:" % (differing, n))
    print("      A: %s" % (x.rstrip("\n") if x is not None else "(end of file)"))
    print("      B: %s" % (y.rstrip("\n") if y is not None else "(end of file)"))
    if shape:
        d, at = worst
        if os.path.basename(p) in ("summary.json", "waitstates.csv"):
            totals["worst"] = max(totals["worst"], d)
        print("    only numbers differ; largest absolute difference %.17g (line %d: %s vs %s)"
              % (d, at[0], at[1], at[2]) if at else "    only numbers' spelling differs")
    else:
        print("    more than numbers differ")
        totals["shapes"] += 1

totals = {"worst": 0.0, "shapes": 0}
different = False
a_cases, b_cases = cases(a_root), cases(b_root)
for c in sorted(a_cases ^ b_cases):
    print("%s: only in %s" % (c, "A" if c in a_cases else "B"))
    different = True
for c in sorted(a_cases & b_cases):
    a, b = os.path.join(a_root, c), os.path.join(b_root, c)
    fa, fb = set(os.listdir(a)), set(os.listdir(b))
    for f in sorted(fa ^ fb):
        print("%s/%s: only in %s" % (c, f, "A" if f in fa else "B"))
        different = True
    for f in sorted(fa & fb):
        p, q = os.path.join(a, f), os.path.join(b, f)
        if not same_bytes(p, q):
            print("%s/%s: differs" % (c, f))
            explain(p, q)
            different = True
print("%d cases in A, %d in B: %s" % (len(a_cases), len(b_cases),
                                      "differences above" if different else "identical"))
if different:
    print("largest absolute difference of numbers in summary.json and waitstates.csv: %.17g;"
          " files that differ in more than numbers: %d" % (totals["worst"], totals["shapes"]))
sys.exit(1 if different else 0)
PY
}

[ $# -eq 3 ] || usage
case $1 in
  record) record "$2" "$3" ;;
  diff)
    for d in "$2" "$3"; do
      [ -d "$d" ] || { echo "oracle.sh: no record $d" >&2; exit 1; }
    done
    compare "$2" "$3"
    ;;
  *) usage ;;
esac
