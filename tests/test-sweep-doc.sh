#!/bin/sh
# Every example of doc/sweeps.md, run as written: the code blocks are taken
# from the doc here, so that an edit that breaks one fails this test.
# - a block whose first line is "# NAME" (ini) is the file NAME, written
#   into the work directory;
# - a sh block is commands, run in order from the work directory, each of
#   which must succeed;
# - a text block is a listing, not run; any other block fails the test
#   (an example this test would not run).
#
# The substitutions, all here:
# - app/traces.otf2 is a 4-rank halo exchange from ts-tracegen, and
#   app.npN/traces.otf2 the same at N ranks (the doc's program);
# - `tracesim` is the one built here;
# - `sbatch SCRIPT` runs the array's tasks here, one after the other, as
#   Slurm would run them (SLURM_ARRAY_TASK_ID from its #SBATCH --array=0-N);
# - a sweep of HEAVY (to 1,024 ranks) gets --dry-run.
HEAVY="ranks.sweep"
set -u
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
doc=$srcdir/doc/sweeps.md
work=$builddir/tests/work/sweep-doc
rm -rf "$work" && mkdir -p "$work/bin"
fail() { echo "FAIL: $*"; exit 1; }
builddir=$(cd "$builddir" && pwd)
work=$(cd "$work" && pwd)

for n in 4 8 16; do
  dir=app.np$n
  [ $n -eq 4 ] && dir=app
  "$builddir/ts-tracegen" stencil -o "$work/$dir" --ranks $n --iterations 10 > /dev/null \
    || fail "ts-tracegen at $n ranks"
done
cp -r "$work/app" "$work/app.np4"
cat > "$work/bin/tracesim" <<EOS
#!/bin/sh
for a in "\$@"; do
  for h in $HEAVY; do
    [ "\$a" = "\$h" ] && exec "$builddir/tracesim" "\$@" --dry-run
  done
done
exec "$builddir/tracesim" "\$@"
EOS
cat > "$work/bin/sbatch" <<'EOS'
#!/bin/sh
last=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\).*/\1/p' "$1")
[ -n "$last" ] || { echo "sbatch: no #SBATCH --array=0-N in $1" >&2; exit 1; }
k=0
while [ "$k" -le "$last" ]; do
  SLURM_ARRAY_TASK_ID=$k sh "$1" || exit 1
  k=$((k + 1))
done
echo "Submitted batch job 1 ($((last + 1)) tasks, run here)"
EOS
chmod +x "$work/bin/tracesim" "$work/bin/sbatch"

# The blocks, in the doc's order: KIND<TAB>FIRST-LINE-NUMBER, each block's
# text in work/blocks/N.
mkdir -p "$work/blocks"
awk -v out="$work/blocks" '
  /^```/ && !inside { inside = 1; n++; kind = substr($0, 4); if (kind == "") kind = "none";
                      printf "%s\t%d\n", kind, NR; file = out "/" n; printf "" > file; next }
  /^```/ && inside  { inside = 0; close (file); next }
  inside            { print >> file }
' "$doc" > "$work/blocks/index" || fail "reading $doc"

# The files first (the doc shows its commands before them), then the
# commands in the doc's order.
ran=0 files=0
for phase in files commands; do
  n=0
  while IFS="$(printf '\t')" read -r kind line; do
    n=$((n + 1))
    block=$work/blocks/$n
    case $phase:$kind in
      files:ini)
        name=$(sed -n '1s/^# \([A-Za-z0-9._-]*\)$/\1/p' "$block")
        [ -n "$name" ] || fail "$doc:$line: an ini block whose first line is not '# NAME'"
        cp "$block" "$work/$name"
        files=$((files + 1)) ;;
      commands:sh)
        while read -r cmd; do
          [ -n "$cmd" ] || continue
          (cd "$work" && PATH="$work/bin:$PATH" sh -c "$cmd") > "$work/out" 2>&1 \
            || fail "$doc:$line: '$cmd' failed: $(cat "$work/out")"
          cat "$work/out" >> "$work/log"
          ran=$((ran + 1))
        done < "$block" ;;
      *:ini | *:sh | *:text) ;;
      *) fail "$doc:$line: a '$kind' block this test does not run: give it sh, ini (# NAME) or text" ;;
    esac
  done < "$work/blocks/index"
done

# What the examples did: 5 + 1 commands, 5 files; the first sweep's
# 2 x 2 x 3 x 2 = 24 points, every one computed (no error in its table,
# which --collect wrote after the 24 tasks: all done before); the sweep to
# 1,024 ranks listed its 3 zipped points and ran nothing.
[ $ran -eq 6 ] || fail "6 commands expected in the doc's sh blocks, ran $ran"
[ $files -eq 5 ] || fail "5 files expected in the doc's ini blocks, wrote $files"
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
echo "sweep-doc: $ran commands and $files files of doc/sweeps.md, as written"
