# Sourced by the shell tests (. "${top_srcdir:-.}/tests/lib.sh", then
# fresh_work NAME): the build's tools, a work directory of the test's own,
# and the helpers every test asserts with.
set -u
builddir=${top_builddir:-.}
tracesim=$builddir/tracesim
# fresh_work NAME: $work is tests/work/NAME of the build, emptied.
fresh_work() { work=$builddir/tests/work/$1; rm -rf "$work" && mkdir -p "$work"; }
fail() { echo "FAIL: $*"; exit 1; }
# value FILE EXPR: a Python expression of the JSON document s in FILE, as repr()
value() { python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(repr(eval(sys.argv[2])))' "$1" "$2"; }
# run_t OUT EXPECTED_RUNTIME [OPTIONS...]: $work/t/traces.otf2 replayed on
# $work/p.xml into $work/OUT; its predicted runtime must be EXPECTED (1e-12).
run_t() {
  out=$1 expected=$2
  shift 2
  rm -rf "$work/$out"
  "$tracesim" run -q "$work/t/traces.otf2" -p "$work/p.xml" "$@" -o "$work/$out" \
    2> "$work/$out.err" || fail "$out: run: $(cat "$work/$out.err")"
  got=$(value "$work/$out/summary.json" "s['predicted']['runtime_s']")
  near "$got" "$expected" 1e-12 || fail "$out: predicted $got s, expected $expected s"
}
# near A B TOL: |A - B| <= TOL
# A rank's predicted end, and an input option, from DIR/summary.json.
end_of() { value "$1/summary.json" "s[\"predicted\"][\"rank_end_s\"][$2]"; }
option() { value "$1/summary.json" "s[\"inputs\"][\"options\"][\"$2\"]"; }
# chooses_as_run OPTION CHANGED IDENTITY: a sweep of $work/t/traces.otf2
# with no cpu_time key, "solve" scaled by 0.5, and advise with no clock,
# take the clock run chose by itself: each point has OPTION True in its
# options and CHANGED's runtime (a run's output directory), and advise's
# baseline is IDENTITY's runtime.
chooses_as_run() {
  printf '[region:solve]\nscale = ${factor}\n' > "$work/solve.hyp.in"
  printf '[sweep]\ntrace = t/traces.otf2\nhypothesis = solve.hyp.in\n[parameters]\nfactor = 0.5\n' \
    > "$work/auto.sweep"
  "$tracesim" sweep "$work/auto.sweep" -o "$work/sweep-auto" -q > "$work/log" 2>&1 || fail "sweep: $(cat "$work/log")"
  for s in "$work/sweep-auto/points/"*/summary.json; do
    [ "$(value "$s" "s[\"inputs\"][\"options\"][\"$1\"]")" = True ] || fail "sweep: $s has no $1"
    near "$(value "$s" 's["predicted"]["runtime_s"]')" "$(value "$2/summary.json" 's["predicted"]["runtime_s"]')" 1e-9 \
      || fail "sweep: $s is not $2's"
  done
  "$tracesim" advise "$work/t/traces.otf2" -o "$work/advise" -q > "$work/log" 2>&1 || fail "advise: $(cat "$work/log")"
  base=$(awk -F, '$2 == "(as traced)" { print $4 }' "$work/advise/results.csv")
  near "$base" "$(value "$3/summary.json" 's["predicted"]["runtime_s"]')" 1e-9 \
    || fail "advise: baseline $base s is not $3's"
}
near() { python3 -c 'import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t)' "$1" "$2" "$3"; }
