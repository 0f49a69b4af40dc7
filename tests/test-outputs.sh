#!/bin/sh
# What `tracesim run` writes, on hostile names and failing disks:
# 1. Region names and a path holding quotes, backslashes, commas and
#    non-ASCII characters: summary.json parses with Python's json (json-glib
#    is checked in tests/test-output.c) and gives the names back unchanged;
#    waitstates.csv quotes the names as RFC 4180 says; run --json and
#    waitstates --json print the same on stdout, and nothing else; a copy
#    of a run directory (cp -r) stays usable, one with a byte changed not.
# 2. A full disk (a small tmpfs in a user namespace) at every phase of the
#    writing, and a read-only output file system: exit 1, an error naming
#    the file and the system's reason, and nothing left behind.
#    Skipped (77) only where a tmpfs cannot be mounted, after part 1 ran.
set -u
builddir=${top_builddir:-.}
tracesim=$builddir/tracesim
tracegen=$builddir/ts-tracegen
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-outputs-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
failures=0
fail () { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# --- 1. hostile names ---------------------------------------------------------
# Rank 1 receives 1 s late-sent data inside a region whose name needs quoting
# in both formats: Late Sender of 1 s in MPI_Recv, region na"me\x,é 1 s.
dir="$work/dir \"quoted\" \\ é"
mkdir -p "$dir"
cat > "$work/names.script" <<'SCRIPT'
ranks 2
0 0.0 enter na"me\x,é
0 1.0 leave
0 1.0 enter MPI_Send
0 1.0 send 1 tag=0 bytes=8
0 1.0 leave MPI_Send
1 0.0 enter MPI_Recv
1 1.0 recv 0 tag=0 bytes=8
1 1.0 leave MPI_Recv
SCRIPT
"$tracegen" script "$work/names.script" -o "$dir/trace" || fail "ts-tracegen failed"
"$tracesim" run "$dir/trace/traces.otf2" -o "$dir/out" -q || fail "tracesim run failed"
"$builddir/ts-check-archive" "$dir/out/predicted/traces.otf2" 2> "$dir/check.err" \
  || fail "the predicted archive is not a valid trace: $(cat "$dir/check.err")"
python3 - "$dir/out/summary.json" "$dir/trace/traces.otf2" <<'PY' || fail "summary.json: see above"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [r["name"] for r in d["regions"]]
assert 'na"me\\x,é' in names, names
assert d["trace"] == sys.argv[2], (d["trace"], sys.argv[2])
assert d["inputs"]["trace"] == sys.argv[2]
# late sender: rank 1 waits from 0 to 1 s in MPI_Recv
assert abs(d["wait_states"]["original"]["late_sender"] - 1.0) < 1e-9, d["wait_states"]
PY
# The region holds no wait state; the CSV row names MPI_Recv. A quoted name
# is checked on the CSV writer itself in tests/test-output.c.
grep -q '^original,late_sender,MPI_Recv,1,1.000000000$' "$dir/out/waitstates.csv" \
  || fail "waitstates.csv: $(cat "$dir/out/waitstates.csv")"

# --json prints what a script needs on stdout and nothing else: run the
# summary.json it writes, byte for byte; waitstates the CSV's rows (1 here:
# rank 1's late sender of 1 s in MPI_Recv, as above), numbers as numbers.
"$tracesim" run "$dir/trace/traces.otf2" -o "$dir/json-out" --json > "$work/run.json" \
  || fail "run --json failed"
python3 -m json.tool "$work/run.json" > /dev/null \
  || fail "run --json: not JSON: $(head -c 300 "$work/run.json")"
cmp -s "$work/run.json" "$dir/json-out/summary.json" || fail "run --json differs from summary.json"
"$tracesim" waitstates "$dir/trace/traces.otf2" --json -o "$work/w.csv" > "$work/w.json" \
  || fail "waitstates --json failed"
python3 - "$work/w.json" "$work/w.csv" <<'PY' || fail "waitstates --json: see above"
import csv, json, sys
rows = json.load(open(sys.argv[1], encoding="utf-8"))
table = list(csv.DictReader(open(sys.argv[2], encoding="utf-8", newline="")))
assert len(rows) == len(table) == 1, (rows, table)
for r, t in zip(rows, table):
    assert set(r) == set(t), (r, t)
    assert isinstance(r["rank"], int) and isinstance(r["seconds"], float), r
    assert [r["timeline"], r["pattern"], r["region"], r["rank"], r["seconds"]] == \
        [t["timeline"], t["pattern"], t["region"], int(t["rank"]), float(t["seconds"])], (r, t)
assert rows[0]["seconds"] == 1.0 and rows[0]["region"] == "MPI_Recv", rows
PY
# waitstates -o replaces its own CSV (written just above), never a file of
# the user's: a notes file is refused before the analysis, and kept.
"$tracesim" waitstates "$dir/trace/traces.otf2" -o "$work/w.csv" > /dev/null \
  || fail "waitstates -o its own CSV again failed"
printf 'my notes\n' > "$work/notes.csv"
if "$tracesim" waitstates "$dir/trace/traces.otf2" -o "$work/notes.csv" > /dev/null 2> "$work/err"; then
  fail "waitstates -o replaced a file it did not write"
fi
grep -q "notes.csv already exists and tracesim did not write it" "$work/err" \
  || fail "waitstates -o a user's file: $(cat "$work/err")"
[ "$(cat "$work/notes.csv")" = "my notes" ] || fail "the user's file changed"

# A run directory copied with cp -r (new mtimes) is still tracesim's: report
# draws into the copy and run -o replaces it. A copy with one byte of
# report.html changed (its bits flipped, and checked to differ) is refused
# by both, and left as it is.
"$tracesim" run "$dir/trace/traces.otf2" -o "$work/orig" -q --report || fail "run --report failed"
cp -r "$work/orig" "$work/copy" && cp -r "$work/orig" "$work/edited"
"$tracesim" report "$work/copy" > /dev/null 2> "$work/err" \
  || fail "report on a cp -r copy: $(cat "$work/err")"
"$tracesim" run "$dir/trace/traces.otf2" -o "$work/copy" -q 2> "$work/err" \
  || fail "run -o a cp -r copy: $(cat "$work/err")"
python3 - "$work/edited/report.html" <<'PY' || fail "could not change a byte of the copy"
import sys
data = bytearray(open(sys.argv[1], "rb").read())
old = data[len(data) // 2]
data[len(data) // 2] ^= 0xFF
assert data[len(data) // 2] != old
open(sys.argv[1], "wb").write(data)
PY
cp "$work/edited/report.html" "$work/edited.html"
# Every file of the report is checked before the first is written: the
# refusal leaves the PNG twins too as they were (same bytes and times).
ls -l --time-style=full-iso "$work/edited"/*.png > "$work/pngs-before"
"$tracesim" report "$work/edited" > /dev/null 2> "$work/err"
[ $? -eq 1 ] && grep -q "report.html" "$work/err" \
  || fail "report on an edited copy: $(cat "$work/err")"
"$tracesim" run "$dir/trace/traces.otf2" -o "$work/edited" -q 2> "$work/err"
[ $? -eq 1 ] && grep -q "its 'report.html' changed since tracesim wrote it" "$work/err" \
  || fail "run -o an edited copy: $(cat "$work/err")"
cmp -s "$work/edited/report.html" "$work/edited.html" || fail "the edited report.html was touched"
ls -l --time-style=full-iso "$work/edited"/*.png | cmp -s - "$work/pngs-before" \
  || fail "a refused report rewrote its PNGs: $(ls -l --time-style=full-iso "$work/edited"/*.png)"

# --- 2. full and read-only disks --------------------------------------------------
trace=$dir/trace/traces.otf2
mnt="$work/mnt"
mkdir -p "$mnt"
if ! unshare -rm sh -c "mount -t tmpfs -o size=64k tmpfs '$mnt'" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs in a user namespace here; full-disk cases not run" >&2
  [ $failures -eq 0 ] && exit 77 || exit 1
fi
# run_on SIZE_KIB [ro]: replay onto a fresh tmpfs of SIZE_KIB, print the exit
# status, stderr and what the file system holds afterwards.
run_on () {
  unshare -rm sh -c "
    mount -t tmpfs -o size=$1k tmpfs '$mnt' || exit 99
    echo keep > '$mnt/notes.txt'
    [ '${2:-}' = ro ] && mount -o remount,ro '$mnt'
    '$tracesim' run '$trace' -o '$mnt/out' -q 2> '$work/err'
    echo \"exit \$?\"
    ls -A '$mnt'"
}
# Sizes from far too small to enough: every one that fails must fail cleanly,
# and the largest must succeed (the sweep crosses every phase of the writing).
succeeded=no
for size in 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 128; do
  got=$(run_on $size)
  if [ "$(echo "$got" | head -1)" = "exit 0" ]; then
    succeeded=yes
    continue
  fi
  [ "$(echo "$got" | head -1)" = "exit 1" ] || fail "${size}k: $(echo "$got" | head -1), want exit 1"
  left=$(echo "$got" | tail -n +2 | tr '\n' ' ')
  [ "$left" = "notes.txt " ] || fail "${size}k: left behind: $left"
  grep -q "$mnt/out" "$work/err" || fail "${size}k: error does not name the output: $(cat "$work/err")"
done
[ $succeeded = yes ] || fail "no size up to 128k let the run succeed"
got=$(run_on 128 ro)
[ "$(echo "$got" | head -1)" = "exit 1" ] || fail "read-only: $(echo "$got" | head -1), want exit 1"
grep -q "Read-only file system" "$work/err" || fail "read-only: $(cat "$work/err")"
[ $failures -eq 0 ] || exit 1
echo "PASS: hostile names, full disks and a read-only file system"
