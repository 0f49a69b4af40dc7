#!/bin/sh
# A sweep over rank counts ([sweep] extrapolate, [parameters] ranks), on a
# halo exchange on a periodic 2-D grid, strong scaling (ts-tracegen grid:
# 10 iterations, 0.01 s of compute and faces of 9600 bytes in all, an
# allreduce every 5), traced at 4, 9 and 16 ranks:
# - ranks = 16, 64, 256 give 3 rows; each row equals, to the last digit,
#   a separate `tracesim extrapolate --ranks P` and `tracesim run` of its
#   output (the sweep's promise for every point);
# - the 64-rank row is within 1% of the run of the workload written at 64
#   ranks: extrapolating this workload gives the same partners, bytes and
#   compute (test-extrapolate), only the MPI calls keep the 16-rank
#   template's durations: its Waitall took 2.4 us, twice the 64-rank
#   trace's (its messages are twice as large), its Allreduce 8 us against
#   12 us (2 log2 P latencies: log2 16 = 4 against 6);
#   measured: 0.0016837 s against 0.0016797 s;
# - each rank count is extrapolated once: a second run reuses every point
#   and extrapolates nothing; an input traced again makes every point again,
#   and --collect before that shows them as not run;
# - as a Slurm task: --point 1 extrapolates its own rank count only;
# - a rank count the inputs cannot give is a failed row with the refusal;
# - an exchange with every rank traced at 2 and 4 ranks is a failed row at
#   8 unless all_to_all = true, and then equals extrapolate --all-to-all;
# - errors in the sweep file name the file and line, and nothing runs.
. "${top_srcdir:-.}/tests/lib.sh"
fresh_work sweep-ranks
runtime() { python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["predicted"]["runtime_s"]))' "$1"; }

for p in 4 9 16 64; do
  "$builddir/ts-tracegen" grid -o "$work/g$p" --ranks $p --iterations 10 --strong --compute 0.01 \
    --bytes 9600 --allreduce-every 5 > /dev/null || fail "ts-tracegen grid $p"
done
cat > "$work/s.sweep" <<EOS
[sweep]
extrapolate = g4/traces.otf2, g9/traces.otf2, g16/traces.otf2
[parameters]
ranks = 16, 64, 256
EOS
"$tracesim" sweep "$work/s.sweep" -o "$work/out" -j 2 > "$work/log" 2>&1 || fail "the sweep failed: $(cat "$work/log")"
[ "$(grep -c 'sweep: extrapolated the trace at' "$work/log")" -eq 3 ] || fail "3 extrapolations expected: $(cat "$work/log")"
head -1 "$work/out/results.csv" | grep -q '^ranks,predicted_runtime_s,speedup,error,' || fail "header: $(head -1 "$work/out/results.csv")"
[ "$(tail -n +2 "$work/out/results.csv" | cut -d, -f1 | tr '\n' ' ')" = "16 64 256 " ] || fail "ranks column: $(cat "$work/out/results.csv")"

tail -n +2 "$work/out/results.csv" | while IFS=, read -r ranks rt speedup error rest; do
  [ -z "$error" ] || fail "ranks $ranks failed: $error"
  rm -rf "$work/sep" "$work/sep-run"
  "$tracesim" extrapolate "$work/g4/traces.otf2" "$work/g9/traces.otf2" "$work/g16/traces.otf2" \
    --ranks "$ranks" -o "$work/sep" -q || fail "separate extrapolation to $ranks"
  "$tracesim" run "$work/sep/traces.otf2" -o "$work/sep-run" -q || fail "separate run at $ranks"
  python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$rt" \
    "$(runtime "$work/sep-run/summary.json")" || fail "ranks $ranks: sweep $rt, separate $(runtime "$work/sep-run/summary.json")"
done || exit 1

"$tracesim" run "$work/g64/traces.otf2" -o "$work/real64" -q || fail "run of the real 64-rank trace"
rt64=$(sed -n 3p "$work/out/results.csv" | cut -d, -f2)
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 0.01 * b)' \
  "$rt64" "$(runtime "$work/real64/summary.json")" \
  || fail "64 ranks: extrapolated $rt64, real $(runtime "$work/real64/summary.json")"

# Again: nothing to extrapolate or run.
"$tracesim" sweep "$work/s.sweep" -o "$work/out" -j 2 > "$work/log" 2>&1 || fail "rerun: $(cat "$work/log")"
grep -q '3 points: 0 run, 3 reused, 0 failed' "$work/log" || fail "rerun: $(cat "$work/log")"
grep -q 'sweep: extrapolated' "$work/log" && fail "rerun extrapolated again: $(cat "$work/log")"
# An input traced again: --collect shows every point as not run; a run
# extrapolates each rank count again and runs every point.
cp "$work/out/results.csv" "$work/before.csv"
touch "$work/g9/traces.otf2"
"$tracesim" sweep "$work/s.sweep" -o "$work/out" --collect > "$work/log" 2>&1
[ "$(grep -c ',not run' "$work/out/results.csv")" -eq 3 ] || fail "collect after a change: $(cat "$work/out/results.csv")"
"$tracesim" sweep "$work/s.sweep" -o "$work/out" -j 2 > "$work/log" 2>&1 || fail "after a change: $(cat "$work/log")"
grep -q '3 points: 3 run, 0 reused, 0 failed' "$work/log" || fail "after a change: $(cat "$work/log")"
cmp -s "$work/before.csv" "$work/out/results.csv" || fail "the same inputs gave another table"

# A Slurm task: its own rank count only.
"$tracesim" sweep "$work/s.sweep" -o "$work/task" --point 1 > "$work/log" 2>&1 || fail "--point 1: $(cat "$work/log")"
[ -f "$work/task/inputs/extrapolated/np64/traces.otf2" ] || fail "--point 1 did not extrapolate 64"
[ ! -e "$work/task/inputs/extrapolated/np16" ] || fail "--point 1 extrapolated 16"

# Open grids at 9, 16 and 25 ranks cannot give 4 (2x2 has fewer ranks along
# an open dimension than 5x5): that row fails with the refusal, 36 completes.
for p in 9 16 25; do
  "$builddir/ts-tracegen" grid -o "$work/o$p" --ranks $p --iterations 4 --open > /dev/null || fail "grid $p"
done
printf '[sweep]\nextrapolate = o9/traces.otf2, o16/traces.otf2, o25/traces.otf2\n[parameters]\nranks = 4, 36\n' > "$work/o.sweep"
"$tracesim" sweep "$work/o.sweep" -o "$work/oout" -j 2 -q > "$work/log" 2>&1 && fail "a failed point must fail the sweep"
grep -q '^4,,,cannot extrapolate: .*fewer ranks along open dimension 1' "$work/oout/results.csv" \
  || fail "refusal row: $(cat "$work/oout/results.csv")"
grep -q '^36,[0-9]' "$work/oout/results.csv" || fail "36 ranks: $(cat "$work/oout/results.csv")"

# An exchange with every other rank, traced at 2 and 4 ranks, where a
# stencil with diagonal neighbours would reach every rank too, and the
# message sizes, which grow with the sender's rank, do not tell the two
# apart: a failed row unless all_to_all = true says so (as extrapolate
# --all-to-all), and then the row equals `extrapolate --all-to-all` + `run`
# (each rank: one MPI_Sendrecv of 100 (r + 1) bytes with rank r + k and
# r - k, k = 1 .. P - 1).
for p in 2 4; do
  { echo "ranks $p"
    r=0; while [ $r -lt $p ]; do
      echo "$r 0 enter main"; k=1
      while [ $k -lt $p ]; do
        echo "$r 0.00$k enter MPI_Sendrecv"
        echo "$r 0.00$k send $(( (r + k) % p )) bytes=$(( 100 * (r + 1) ))"
        echo "$r 0.00$k recv $(( (r - k + p) % p )) bytes=$(( 100 * ((r - k + p) % p + 1) ))"
        echo "$r 0.00$k leave"; k=$((k + 1))
      done
      echo "$r 0.01 leave"; r=$((r + 1))
    done; } > "$work/a$p.script"
  "$builddir/ts-tracegen" script "$work/a$p.script" -o "$work/a$p" > /dev/null || fail "a$p"
done
printf '[sweep]\nextrapolate = a2/traces.otf2, a4/traces.otf2\n[parameters]\nranks = 8\n' > "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/aout" -q > /dev/null 2>&1 && fail "an undecided all-to-all must fail its row"
grep -q '^8,,,"cannot extrapolate: .*diagonal neighbours' "$work/aout/results.csv" \
  || fail "all-to-all refusal row: $(cat "$work/aout/results.csv")"
printf '[sweep]\nextrapolate = a2/traces.otf2, a4/traces.otf2\nall_to_all = true\n[parameters]\nranks = 8\n' > "$work/a2a.sweep"
"$tracesim" sweep "$work/a2a.sweep" -o "$work/a2aout" -q || fail "all_to_all = true"
"$tracesim" extrapolate "$work/a2/traces.otf2" "$work/a4/traces.otf2" --ranks 8 --all-to-all \
  -o "$work/a8" -q || fail "extrapolate --all-to-all"
"$tracesim" run "$work/a8/traces.otf2" -o "$work/a8run" -q || fail "run a8"
rt8=$(sed -n 2p "$work/a2aout/results.csv" | cut -d, -f2)
python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$rt8" \
  "$(runtime "$work/a8run/summary.json")" \
  || fail "all_to_all row $rt8, separate $(runtime "$work/a8run/summary.json")"

# Recursive doubling (one MPI_Sendrecv of 8 bytes with r XOR 1, 2, ...)
# traced at 2, 4 and 8 ranks, where a periodic grid of 2s describes it too:
# at 16 the grid's reading cannot settle its boundaries, so the row fails
# and names the other reading; recursive_doubling = true takes it, and the
# row equals `extrapolate --recursive-doubling` + `run`.
for p in 2 4 8; do
  { echo "ranks $p"
    r=0; while [ $r -lt $p ]; do
      echo "$r 0 enter main"; b=1
      while [ $b -lt $p ]; do
        echo "$r 0.00$b enter MPI_Sendrecv"
        echo "$r 0.00$b send $(( r ^ b )) bytes=8"
        echo "$r 0.00$b recv $(( r ^ b )) bytes=8"
        echo "$r 0.00$b leave"; b=$((b * 2))
      done
      echo "$r 0.01 leave"; r=$((r + 1))
    done; } > "$work/d$p.script"
  "$builddir/ts-tracegen" script "$work/d$p.script" -o "$work/d$p" > /dev/null || fail "d$p"
done
printf '[sweep]\nextrapolate = d2/traces.otf2, d4/traces.otf2, d8/traces.otf2\n[parameters]\nranks = 16\n' \
  > "$work/d.sweep"
"$tracesim" sweep "$work/d.sweep" -o "$work/dout" -q > /dev/null 2>&1 && fail "a grid of 2s must fail its row"
grep -q 'recursive-doubling reads them so' "$work/dout/results.csv" \
  || fail "doubling refusal row: $(cat "$work/dout/results.csv")"
printf '[sweep]\nextrapolate = d2/traces.otf2, d4/traces.otf2, d8/traces.otf2\nrecursive_doubling = true\n[parameters]\nranks = 16\n' \
  > "$work/dd.sweep"
"$tracesim" sweep "$work/dd.sweep" -o "$work/ddout" -q || fail "recursive_doubling = true"
"$tracesim" extrapolate "$work/d2/traces.otf2" "$work/d4/traces.otf2" "$work/d8/traces.otf2" \
  --ranks 16 --recursive-doubling -o "$work/d16" -q || fail "extrapolate --recursive-doubling"
"$tracesim" run "$work/d16/traces.otf2" -o "$work/d16run" -q || fail "run d16"
rt16=$(sed -n 2p "$work/ddout/results.csv" | cut -d, -f2)
python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$rt16" \
  "$(runtime "$work/d16run/summary.json")" \
  || fail "recursive_doubling row $rt16, separate $(runtime "$work/d16run/summary.json")"
printf '[sweep]\ntrace = d2/traces.otf2\nrecursive_doubling = true\n' > "$work/b0.sweep"

# Errors in the sweep file: file and line, nothing run.
expect_error() { # file, message
  "$tracesim" sweep "$1" -o "$work/bad-out" -q > /dev/null 2> "$work/err" && fail "$1 accepted"
  grep -qF "$2" "$work/err" || fail "expected '$2', got: $(cat "$work/err")"
  [ ! -e "$work/bad-out" ] || fail "$1: something ran"
}
expect_error "$work/b0.sweep" "b0.sweep:3: recursive_doubling is for extrapolate = ..."
printf '[sweep]\ntrace = g4/traces.otf2\n[parameters]\nranks = 8, 16\n' > "$work/b1.sweep"
expect_error "$work/b1.sweep" "b1.sweep:4: ranks needs the traces to extrapolate from"
printf '[sweep]\nextrapolate = g4/traces.otf2, g9/traces.otf2\n' > "$work/b2.sweep"
expect_error "$work/b2.sweep" "b2.sweep:2: extrapolate = ... needs a parameter ranks"
printf '[sweep]\ntrace = g4/traces.otf2\nextrapolate = g4/traces.otf2, g9/traces.otf2\n' > "$work/b3.sweep"
expect_error "$work/b3.sweep" "b3.sweep:3: give the trace (trace = ...) or the traces to extrapolate from"
printf '[sweep]\nextrapolate = g4/traces.otf2, g9/traces.otf2\nboundaries = round\n[parameters]\nranks = 8\n' > "$work/b4.sweep"
expect_error "$work/b4.sweep" "b4.sweep:3: boundaries = round: give periodic or open"
printf '[sweep]\nextrapolate = g4/traces.otf2, g9/traces.otf2\n[parameters]\nranks = 0, 8\n' > "$work/b5.sweep"
expect_error "$work/b5.sweep" "b5.sweep:4: ranks = 0: give rank counts from 1 to"
printf '[sweep]\ntrace = g4/traces.otf2\nall_to_all = true\n' > "$work/b6.sweep"
expect_error "$work/b6.sweep" "b6.sweep:3: all_to_all is for extrapolate = ..."
printf '[sweep]\nextrapolate = g4/traces.otf2, g9/traces.otf2\nall_to_all = maybe\n[parameters]\nranks = 8\n' > "$work/b7.sweep"
expect_error "$work/b7.sweep" "b7.sweep:3: all_to_all: give true or false"
echo "sweep over ranks: rows equal separate extrapolations and runs; 64 ranks within 1% of the real trace; reuse, change, task, refusal and errors as expected"
