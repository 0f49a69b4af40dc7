#!/bin/sh
# Every example of doc/sweeps.md, run as written by tests/doc-examples.py
# (which takes the code blocks from the doc, so that an edit that breaks
# one fails this test; its header says what an example is and declares
# the substitutions: app/traces.otf2 a 4-rank ts-tracegen halo exchange,
# app.npN/traces.otf2 the same at N ranks, `sbatch SCRIPT` running the
# array's tasks here one after the other, --dry-run for the sweep to
# 1,024 ranks). Then what the examples did, checked here.
set -u
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
work=$builddir/tests/work/sweep-doc
mkdir -p "$work" && work=$(cd "$work" && pwd)
python3 "$srcdir/tests/doc-examples.py" "$srcdir" "$builddir" --doc doc/sweeps.md --keep "$work" \
  > "$work.out" 2>&1 || fail "$(cat "$work.out")"
grep -q "^6 examples of 1 documents run, 0 failed$" "$work.out" \
  || fail "6 commands expected in the doc's sh blocks: $(cat "$work.out")"
files=$(ls "$work"/*.sweep "$work"/*.in 2> /dev/null | wc -l)
[ "$files" -eq 5 ] || fail "5 files expected from the doc's ini blocks, found $files"
cp "$work/examples.log" "$work/log"

# What the examples did: 5 + 1 commands, 5 files; the first sweep's
# 2 x 2 x 3 x 2 = 24 points, every one computed (no error in its table,
# which --collect wrote after the 24 tasks: all done before); the sweep to
# 1,024 ranks listed its 3 zipped points and ran nothing.
rows=$(($(wc -l < "$work/results/results.csv") - 1))
[ "$rows" -eq 24 ] || fail "24 rows expected in results.csv, got $rows"
head -1 "$work/results/results.csv" | grep -q '^factor,nodes,ranks_per_node,net,predicted_runtime_s,speedup,error,' \
  || fail "header: $(head -1 "$work/results/results.csv")"
failed=$(python3 -c 'import csv, sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["error"]))' "$work/results/results.csv")
[ "$failed" = 0 ] || fail "$failed failed points: $(cat "$work/results/results.csv")"
grep -q "results/results.csv: 24 points: 0 run, 24 reused, 0 failed$" "$work/log" \
  || fail "--collect: $(cat "$work/log")"
grep -q "Submitted batch job 1 (24 tasks, run here)" "$work/log" || fail "sbatch: $(cat "$work/log")"
grep -q "^extrapolated from 3 traces: 3 points: 3 to run" "$work/log" || fail "ranks: $(cat "$work/log")"
grep -q "  2  [0-9a-f]*  ranks=1024 nodes=128  (to run)" "$work/log" || fail "ranks: $(cat "$work/log")"
[ ! -e "$work/ranks" ] || fail "the dry run wrote $work/ranks"
echo "sweep-doc: 6 commands and $files files of doc/sweeps.md, as written"
