#!/bin/sh
# tracesim sweep end to end, on an 8-rank halo exchange (ts-tracegen):
# - 2 hypothesis values x 3 platforms x 2 placements give 12 rows, and each
#   row's predicted runtime is that of a separate `tracesim run` on the
#   same inputs (the point's filled hypothesis, the platform, the placement)
#   to 1e-9 relative;
# - a second run reuses every point; a changed value recomputes only the
#   points it changes;
# - a platform with too few cores fails its points, which show their error
#   in results.csv, while the others complete (exit 1);
# - the first pass is kept in OUT/inputs/first-pass.cache: Slurm tasks and
#   resumes read it, a changed trace or a damaged cache make it again;
# - SIGINT halfway keeps the finished points, and running again computes
#   only the missing ones;
# - a sweep file with an error stops before any point runs, naming the file
#   and line.
set -u
builddir=${top_builddir:-.}
tracesim=$builddir/tracesim
work=$builddir/tests/work/sweep
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$builddir/ts-tracegen" stencil -o "$work/trace" --ranks 8 --iterations 20 > /dev/null || fail "ts-tracegen"
"$tracesim" platform --nodes 4 --cores 2 -o "$work/flat.xml" > /dev/null || fail "platform"
"$tracesim" platform --topology torus:2,2 --cores 2 --network 1GBps,5us -o "$work/torus.xml" > /dev/null || fail "platform"
"$tracesim" platform --topology 'fat-tree:2;2,2;1,1;1,1' --cores 2 --network ib-hdr -o "$work/tree.xml" > /dev/null || fail "platform"
printf '[region:compute_kernel]\nscale = ${factor}\n' > "$work/kernel.hyp.in"
cat > "$work/a.sweep" <<EOS
[sweep]
trace = trace/traces.otf2
hypothesis = kernel.hyp.in
platform = flat.xml, torus.xml, tree.xml
[parameters]
factor = 0.5, 1.0
placement = block, cyclic
EOS
"$tracesim" sweep "$work/a.sweep" -o "$work/out" -j 2 -q > "$work/log" 2>&1 || fail "the sweep failed: $(cat "$work/log")"
rows=$(($(wc -l < "$work/out/results.csv") - 1))
[ "$rows" -eq 12 ] || fail "12 rows expected, got $rows: $(cat "$work/out/results.csv")"
# The parameters ([sweep]'s list first), the three promised columns, then the
# predicted wait states and the top regions (compute_kernel has the most time).
head -1 "$work/out/results.csv" | grep -q '^platform,factor,placement,predicted_runtime_s,speedup,error,late_sender_s,' \
  || fail "header: $(head -1 "$work/out/results.csv")"
head -1 "$work/out/results.csv" | grep -q ',region:main_s,region:compute_kernel_s,' \
  || fail "top regions: $(head -1 "$work/out/results.csv")"
[ "$(grep -c '"predicted_runtime_s"' "$work/out/results.json")" -eq 12 ] || fail "results.json: $(head -c 300 "$work/out/results.json")"

# Each row against a separate run: the point's inputs are its files.
i=0
tail -n +2 "$work/out/results.csv" | while IFS=, read -r platform factor placement runtime speedup error rest; do
  p=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[int(sys.argv[2])]["point"])' "$work/out/results.json" "$i")
  [ -z "$error" ] || fail "$p failed: $error"
  rm -rf "$work/sep"
  "$tracesim" run "$work/trace/traces.otf2" -H "$work/out/inputs/$p/hypothesis.hyp" -p "$platform" \
    --placement "$placement" -o "$work/sep" -q || fail "separate run of $p"
  sep=$(python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["predicted"]["runtime_s"]))' "$work/sep/summary.json")
  python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-9 * abs(b))' \
    "$runtime" "$sep" || fail "$p ($factor, $platform, $placement): sweep $runtime, separate run $sep"
  grep -q "scale = $factor" "$work/out/inputs/$p/hypothesis.hyp" || fail "$p: template not filled"
  i=$((i + 1))
done || exit 1

# The same sweep given by another path is the same points: run from its
# directory as where.sweep, then as an absolute path from /, the second run
# runs none of its 2 (a list's files, and the trace, count as the sweep file
# writes them; resolved from the path typed, both differed and all ran).
abs_work=$(cd "$work" && pwd)
abs_tracesim=$(cd "$builddir" && pwd)/tracesim
printf '[sweep]\ntrace = trace/traces.otf2\nhypothesis = kernel.hyp.in\nplatform = flat.xml, torus.xml\n[parameters]\nfactor = 0.5\n' > "$work/where.sweep"
(cd "$work" && "$abs_tracesim" sweep where.sweep -o where-out -q) > "$work/log" 2>&1 || fail "where.sweep: $(cat "$work/log")"
grep -q "2 points: 2 run, 0 reused, 0 failed" "$work/log" || fail "where.sweep: $(cat "$work/log")"
(cd / && "$abs_tracesim" sweep "$abs_work/where.sweep" -o "$abs_work/where-out" -q) > "$work/log" 2>&1 \
  || fail "where.sweep by its absolute path: $(cat "$work/log")"
grep -q "2 points: 0 run, 2 reused, 0 failed" "$work/log" \
  || fail "the sweep file given by another path ran points again: $(cat "$work/log")"

# As a Slurm array would: --slurm measures point 0 and writes the script;
# each task runs one point (--point K); --collect gathers the same table as
# the local run, to the byte. (tests/test-slurm.sh does it on a real Slurm.)
"$tracesim" sweep "$work/a.sweep" -o "$work/tasks" --slurm > "$work/log" || fail "--slurm: $(cat "$work/log")"
grep -q '^#SBATCH --array=0-11$' "$work/tasks/sweep.sbatch" || fail "$(cat "$work/tasks/sweep.sbatch")"
grep -q -- '--point "$SLURM_ARRAY_TASK_ID"' "$work/tasks/sweep.sbatch" || fail "$(cat "$work/tasks/sweep.sbatch")"
# --slurm made the first pass and kept it; every task reads it (the table
# below, to the byte, then says a first pass read back replays as one made).
[ -s "$work/tasks/inputs/first-pass.cache" ] || fail "--slurm kept no first pass"
run_tasks() { # first, last + 1
  k=$1
  while [ $k -lt $2 ]; do
    "$tracesim" sweep "$work/a.sweep" -o "$work/tasks" --point $k > /dev/null 2> "$work/log" \
      || fail "--point $k: $(cat "$work/log")"
    grep -q "^sweep: first pass read from $work/tasks/inputs/first-pass.cache$" "$work/log" \
      || fail "--point $k made the first pass again: $(cat "$work/log")"
    k=$((k + 1))
  done
}
run_tasks 1 10
[ ! -e "$work/tasks/results.csv" ] || fail "a task wrote the table"
# A point out of the sweep is a usage error (2), naming the range, as a
# negative one is (-5 was taken as no --point and ran every point).
for k in 12 -5; do
  "$tracesim" sweep "$work/a.sweep" -o "$work/tasks" --point "$k" > /dev/null 2> "$work/err"
  status=$?
  [ $status -eq 2 ] || fail "--point $k: exit $status, not 2: $(cat "$work/err")"
  grep -qF -- "--point $k: the sweep has points 0 to 11" "$work/err" || fail "--point $k: $(cat "$work/err")"
done
[ ! -e "$work/tasks/results.csv" ] || fail "--point -5 ran the sweep"
# Points 10 and 11 not run yet: --collect counts them as missing, apart from
# failures (none), names them (the last two of platform x factor x
# placement: tree.xml, 1.0, block and cyclic) and exits 1.
"$tracesim" sweep "$work/a.sweep" -o "$work/tasks" --collect > "$work/log" 2> "$work/err"
[ $? -eq 1 ] || fail "--collect with 2 points missing did not exit 1"
grep -q "12 points: 0 run, 10 reused, 0 failed, 2 missing$" "$work/log" \
  || fail "--collect with 2 points missing: $(cat "$work/log" "$work/err")"
grep -q "^  point 10: platform=$work/tree.xml factor=1.0 placement=block$" "$work/err" \
  && grep -q "^  point 11: platform=$work/tree.xml factor=1.0 placement=cyclic$" "$work/err" \
  || fail "--collect does not name the missing points: $(cat "$work/err")"
[ "$(grep -c '^  point' "$work/err")" -eq 2 ] || fail "not 2 points named: $(cat "$work/err")"
run_tasks 10 12
"$tracesim" sweep "$work/a.sweep" -o "$work/tasks" --collect -q > /dev/null || fail "--collect"
cmp -s "$work/tasks/results.csv" "$work/out/results.csv" \
  || fail "the tasks' table differs: $(diff "$work/tasks/results.csv" "$work/out/results.csv" | head -5)"

# Again: nothing to run. A changed value: only its points run (6 of 12).
"$tracesim" sweep "$work/a.sweep" -o "$work/out" -q | grep -q "12 points: 0 run, 12 reused, 0 failed" \
  || fail "the second run recomputed points"
sed -i 's/factor = 0.5, 1.0/factor = 0.25, 1.0/' "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/out" -q | grep -q "12 points: 6 run, 6 reused, 0 failed" \
  || fail "a changed factor did not recompute exactly its 6 points"
# A point is its values: factors added in the middle shift every later
# point's number (platform x factor x placement: 3 x 4 x 2 = 24), yet only
# the 3 x 2 = 6 points of the new value 0.75 run; those of 0.5, removed by
# the change above, are there still and reused (their inputs unchanged).
# The page drawn before gives the new total, the table the new rows.
"$tracesim" report "$work/out" > /dev/null || fail "report"
sed -i 's/factor = 0.25, 1.0/factor = 0.25, 0.5, 0.75, 1.0/' "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/out" -q > "$work/log" || fail "grown: $(cat "$work/log")"
grep -q "24 points: 6 run, 18 reused, 0 failed" "$work/log" \
  || fail "a sweep grown by one value did not run only its 6 new points: $(cat "$work/log")"
grep -q "<h1>tracesim sweep: 24 points</h1>" "$work/out/report.html" \
  || fail "report.html: $(grep -o '<h1>[^<]*' "$work/out/report.html")"
[ "$(grep -c '^[^,]*,0.75,[^,]*,[0-9]' "$work/out/results.csv")" -eq 6 ] || fail "$(cat "$work/out/results.csv")"
# Parameters in another order are the same points.
sed -i 's/^factor = 0.25, 0.5, 0.75, 1.0$/placement = block, cyclic/; t; s/^placement = block, cyclic$/factor = 0.25, 0.5, 0.75, 1.0/' "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/out" -q | grep -q "24 points: 0 run, 24 reused, 0 failed" \
  || fail "the parameters reordered ran points again: $(cat "$work/a.sweep")"
sed -i 's/^placement = block, cyclic$/factor = 0.25, 1.0/; t; s/^factor = 0.25, 0.5, 0.75, 1.0$/placement = block, cyclic/' "$work/a.sweep"

# Too few cores: 8 ranks on 2 nodes of 2 cores fail, the others complete.
"$tracesim" platform --nodes 2 --cores 2 -o "$work/small.xml" > /dev/null || fail "platform"
sed -i 's/platform = flat.xml, torus.xml, tree.xml/platform = flat.xml, small.xml/' "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/out2" -q > "$work/log" 2>&1
[ $? -eq 1 ] || fail "a sweep with failed points must exit 1: $(cat "$work/log")"
grep -q "8 points: 4 run, 0 reused, 4 failed" "$work/log" || fail "$(cat "$work/log")"
[ "$(grep -c '8 ranks need 8 cores' "$work/out2/results.csv")" -eq 4 ] \
  || fail "the failed rows do not say why: $(cat "$work/out2/results.csv")"

# SIGINT halfway through a sweep of 16 points, one at a time: the finished
# points stay, nothing half-written, and the rerun computes the rest.
sed -i 's/placement = block, cyclic/placement = block, cyclic\nrepeat_ = 1:4:1/; s/scale = ${factor}/scale = ${factor}\n# ${repeat_}/' "$work/a.sweep" "$work/kernel.hyp.in"
sed -i 's/platform = flat.xml, small.xml/platform = flat.xml/' "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/out3" -j 1 -q > /dev/null 2>&1 &
pid=$!
i=0
while [ "$(ls "$work/out3/points" 2> /dev/null | grep -c '\.key$')" -lt 4 ] && [ $i -lt 600 ]; do
  sleep 0.1; i=$((i + 1))
done
kill -INT $pid; wait $pid
# The running point ends with the sweep (SIGTERM from the kernel when its
# parent dies) and removes what it was writing.
i=0
while ls "$work/out3/points" | grep -q 'tmp-' && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
done_before=$(ls "$work/out3/points" | grep -c '\.key$')
[ "$done_before" -lt 16 ] || fail "the sweep finished before SIGINT"
if ls "$work/out3/points" | grep -q 'tmp-'; then fail "left behind: $(ls "$work/out3/points")"; fi
"$tracesim" sweep "$work/a.sweep" -o "$work/out3" > "$work/log" 2>&1 || fail "rerun: $(cat "$work/log")"
grep -q "16 points: $((16 - done_before)) run, $done_before reused, 0 failed" "$work/log" \
  || fail "after SIGINT with $done_before done: $(cat "$work/log")"
grep -q "^sweep: first pass read from" "$work/log" || fail "the resume made the first pass again: $(cat "$work/log")"

# The kept first pass and points are the trace's as it is: after a trace
# file is touched, every point and the first pass are made again (and said);
# a damaged cache is made again too. The table stays the same.
cp "$work/out3/results.csv" "$work/results3.csv"
touch "$(ls "$work"/trace/traces/*.evt | head -1)"
"$tracesim" sweep "$work/a.sweep" -o "$work/out3" > "$work/log" 2>&1 || fail "after touch: $(cat "$work/log")"
grep -q "16 points: 16 run, 0 reused, 0 failed" "$work/log" || fail "stale points reused: $(cat "$work/log")"
grep -q "^sweep: first pass computed (the cache there was of another trace, of this one before it changed" "$work/log" \
  || fail "a touched trace file reused the first pass: $(cat "$work/log")"
cmp -s "$work/out3/results.csv" "$work/results3.csv" || fail "the table changed after touch"
rm -f $(ls "$work/out3"/points/*.key | head -2)
size=$(stat -c %s "$work/out3/inputs/first-pass.cache")
# The middle byte's bits flipped (its complement), so that it changes
# whatever it was (writing a fixed byte changed nothing where the cache,
# whose layout depends on the paths it records, held that byte already).
cp "$work/out3/inputs/first-pass.cache" "$work/cache.before"
byte=$(od -A n -t u1 -j $((size / 2)) -N 1 "$work/cache.before" | tr -d ' ')
printf "\\$(printf %o $((255 - byte)))" \
  | dd of="$work/out3/inputs/first-pass.cache" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
cmp -s "$work/cache.before" "$work/out3/inputs/first-pass.cache" && fail "the cache was not damaged"
"$tracesim" sweep "$work/a.sweep" -o "$work/out3" > "$work/log" 2>&1 || fail "damaged cache: $(cat "$work/log")"
grep -q "^sweep: first pass computed (the cache there was damaged: its checksum differs)" "$work/log" \
  || fail "a damaged cache was used: $(cat "$work/log")"
cmp -s "$work/out3/results.csv" "$work/results3.csv" || fail "the table changed after a damaged cache"

# A sweep's directory of the layout before points had names (points/pNNNN,
# numbered in the sweep's order, inputs in inputs/pNNNN/ and named so by its
# summary.json, the key over the parameters in the file's order): its points
# are carried over to their names, not run again, its out-of-date ones
# removed, and what the carried summaries name exists. The parameters are
# put out of sorted order first (factor last: the same points, 0 run), so
# that the old keys are not today's and the legacy key is what carries.
sed -i '/^factor = /{h;d}; /^repeat_ = /G' "$work/a.sweep"
"$tracesim" sweep "$work/a.sweep" -o "$work/out3" -q > "$work/log" 2>&1 || fail "reordered: $(cat "$work/log")"
grep -q "16 points: 0 run, 16 reused, 0 failed" "$work/log" || fail "reordered: $(cat "$work/log")"
cp "$work/out3/results.csv" "$work/results3.csv"
# Each old key as the layout before made it (pipeline/sweep.c, key_head,
# point_input, and sweep-run.c, with_trace): the SHA-256 of the trace's path
# as resolved, "\nNAME=VALUE" per parameter in the file's order, the
# template, the filled template and the platform file; then the SHA-256 of
# that digest, "\n" and the trace's state, which the first-pass cache's key
# holds, less its last lines ("wait states", and "clock chosen" where the
# sweep leaves the clock to run).
python3 - "$work/a.sweep" "$work/out3" <<'EOF' || fail "making the old layout"
import hashlib, json, os, re, sys
sweep, out = sys.argv[1], sys.argv[2]
d = os.path.dirname(sweep)
template = open(os.path.join(d, "kernel.hyp.in")).read()
platform = open(os.path.join(d, "flat.xml")).read()
cache = open(os.path.join(out, "inputs", "first-pass.cache"), "rb").read()
key = re.search(rb"tracesim [^\x00]*?wait states\n(clock chosen\n)?(?=\x00)", cache).group(0).decode()
state = re.sub(r"(no )?wait states\n(clock chosen\n)?$", "", key)
sha = lambda text: hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()
for i, row in enumerate(json.load(open(os.path.join(out, "results.json")))):
    name, old, params = row["point"], "p%04u" % i, row["parameters"]
    filled = template
    for n, v in params.items():
        filled = filled.replace("${%s}" % n, v)
    inner = sha(os.path.join(d, "trace/traces.otf2") + "".join("\n%s=%s" % nv for nv in params.items())
                + template + filled + platform)
    points = os.path.join(out, "points")
    os.rename(os.path.join(points, name), os.path.join(points, old))
    os.remove(os.path.join(points, name + ".key"))
    open(os.path.join(points, old + ".key"), "w").write(sha(inner + "\n" + state) + "\n")
    os.rename(os.path.join(out, "inputs", name), os.path.join(out, "inputs", old))
    # Its summary names its inputs in inputs/pNNNN/, its manifest lists it so.
    path = os.path.join(points, old, "summary.json")
    text = open(path).read().replace("/inputs/%s/" % name, "/inputs/%s/" % old).encode()
    open(path, "wb").write(text)
    st = os.stat(path)
    manifest = os.path.join(points, old, ".tracesim-manifest")
    lines = open(manifest).read().split("\n")
    for j, line in enumerate(lines):
        f = line.split(" ")
        if f[-1] == "summary.json" and f[0] == "file":
            lines[j] = " ".join(["file", str(len(text)), f[2], sha(text), "summary.json"])
        elif f[-1] == "summary.json" and f[0] == "f":
            lines[j] = "f %d %d.%09d summary.json" % ((len(text),) + divmod(st.st_mtime_ns, 10**9))
    open(manifest, "w").write("\n".join(lines))
EOF
cp -r "$work/out3/points/p0000" "$work/out3/points/p0099" && echo stale > "$work/out3/points/p0099.key"
echo "it failed" > "$work/out3/points/p0098.error"
echo "not tracesim's" > "$work/out3/points/p0097.notes"
"$tracesim" sweep "$work/a.sweep" -o "$work/out3" > "$work/log" 2>&1 || fail "old layout: $(cat "$work/log")"
grep -q "16 points: 0 run, 16 reused, 0 failed" "$work/log" || fail "old layout: $(cat "$work/log")"
grep -q "16 points of the old layout (pNNNN) carried over, 2 out of date removed" "$work/log" \
  || fail "old layout: $(cat "$work/log")"
if ls "$work/out3/points" "$work/out3/inputs" | grep -v '^p0097.notes$' | grep -q '^p[0-9]'; then
  fail "left: $(ls "$work/out3/points")"
fi
[ -f "$work/out3/points/p0097.notes" ] || fail "a file not of the old layout was removed"
cmp -s "$work/out3/results.csv" "$work/results3.csv" || fail "the table changed after carrying over"
# What each carried summary names is there, as its SHA-256 says.
python3 - "$work/out3" <<'EOF' || fail "a carried point names inputs that are gone"
import hashlib, json, os, sys
out = sys.argv[1]
for row in json.load(open(os.path.join(out, "results.json"))):
    s = json.load(open(os.path.join(out, "points", row["point"], "summary.json")))
    for f in s["inputs"]["hypotheses"] + [s["inputs"]["platform"]]:
        if not os.path.isfile(f["path"]) or hashlib.sha256(open(f["path"], "rb").read()).hexdigest() != f["sha256"]:
            sys.exit("%s names %s" % (row["point"], f["path"]))
EOF

# Errors in the sweep file: file and line, nothing run.
expect_error() { # file, message
  "$tracesim" sweep "$1" -o "$work/bad-out" -q > /dev/null 2> "$work/err" && fail "$1 accepted"
  grep -qF "$2" "$work/err" || fail "expected '$2', got: $(cat "$work/err")"
  [ ! -e "$work/bad-out" ] || fail "$1: something ran"
}
printf '[sweep]\ntrace = trace/traces.otf2\ntraec = x\n' > "$work/b1.sweep"
expect_error "$work/b1.sweep" "b1.sweep:3: unknown key 'traec' in [sweep]"
printf '[sweep]\ntrace = missing/traces.otf2\n' > "$work/b2.sweep"
expect_error "$work/b2.sweep" "b2.sweep:2: $work/missing/traces.otf2: no such trace"
printf '[region:compute_kernel]\n\nscale = ${facter}\n' > "$work/typo.hyp.in"
printf '[sweep]\ntrace = trace/traces.otf2\nhypothesis = typo.hyp.in\n[parameters]\nfactor = 1, 2\n' > "$work/b3.sweep"
expect_error "$work/b3.sweep" "typo.hyp.in:3: \${facter} names no parameter of $work/b3.sweep"
# Two points of the same values (one directory): refused, naming the line
# and the value. a x tag = 2 x 2 points, the last varies fastest: points 0
# (a=1 tag=x) and 1 (a=1 tag=x) are one; zipped, points 1 and 2 are both
# (nodes=2 tag=y); a list of files given the same file twice, points 0, 1.
printf '[sweep]\ntrace = trace/traces.otf2\nlabels = a; tag\n[parameters]\na = 1, 2\ntag = x, x\n' > "$work/b4.sweep"
expect_error "$work/b4.sweep" "b4.sweep:6: tag = x twice: points 0 and 1 would be one (a=1 tag=x)"
printf '[sweep]\ntrace = trace/traces.otf2\nzip = true\nlabels = nodes; tag\n[parameters]\nnodes = 1, 2, 2\ntag = x, y, y\n' > "$work/b5.sweep"
expect_error "$work/b5.sweep" "b5.sweep:6: nodes = 2 twice: points 1 and 2 would be one (nodes=2 tag=y)"
printf '[sweep]\ntrace = trace/traces.otf2\nplatform = flat.xml, flat.xml\n' > "$work/b6.sweep"
expect_error "$work/b6.sweep" "b6.sweep:3: platform = flat.xml twice: points 0 and 1 would be one"
echo "sweep: 12 rows equal separate runs; resume, change, failures, SIGINT and errors as expected"
