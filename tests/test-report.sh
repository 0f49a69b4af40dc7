#!/bin/sh
# tracesim's visual report (doc/report.md), drawn and opened in Debian's
# chromium, headless:
# - a Late Sender placed mid-run: its hatched span in both timelines sits
#   at the pixel columns derived below;
# - chromium renders the page (a screenshot that is not blank) with the
#   expected rank rows and pattern bars in its DOM;
# - tracesim report redraws a finished run, which a later run may then
#   replace (report.html joins the manifest); an advise run's report ranks
#   its changes;
# - bad input: no directory, no summary.json, an older summary.json, an
#   interrupted run's temporary directory, an unfinished sweep: a clear
#   error, non-zero, and no report.html.
set -u
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
tracesim=$builddir/tracesim
work=$builddir/tests/work/report
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || fail "no chromium: setup.sh installs Debian's chromium"
chromium_flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir=$work/profile"

# wait_path HTML RUN RANK PATTERN: the d attribute of that row's hatch, or nothing.
wait_path() {
  sed 's/>/>\n/g' "$1" | sed -n "/class=\"rank-row\" data-run=\"$2\" data-rank=\"$3\"/,/<\/g/p" \
    | sed -n "s/.*<path class=\"wait\" data-pattern=\"$4\" [^>]* d=\"\([^\"]*\)\".*/\1/p"
}

# Rank 1 enters MPI_Recv at 0.3 s; rank 0 computes until 0.8 s, then sends
# 1000 bytes. On two-hosts.xml (CM02, no factors) the message takes
# 1e-4 + 1000/1e8 s, so the run takes T = 0.80011 s, as traced and as
# predicted. Late Sender on rank 1: [0.3, 0.8).
cat > "$work/ls.script" <<'EOF'
ranks 2
0 0.0 enter main
0 0.8 enter MPI_Send
0 0.8 send 1 tag=0 bytes=1000
0 0.8 leave MPI_Send
0 0.8 leave main
1 0.0 enter main
1 0.3 enter MPI_Recv
1 0.80011 recv 0 tag=0 bytes=1000
1 0.80011 leave MPI_Recv
1 0.80011 leave main
EOF
"$builddir/ts-tracegen" script "$work/ls.script" -o "$work/ls" > /dev/null || fail "ts-tracegen"
"$tracesim" run "$work/ls/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -o "$work/out" --report -q || fail "tracesim run --report"
html=$work/out/report.html
[ -s "$html" ] || fail "no report.html"
# The page and the PNG twin of each of its 6 figures, all in the manifest.
for f in report.html report-timelines.png report-wait-states.png report-regions.png \
         report-heat-original.png report-heat-predicted.png report-deviation.png; do
  [ -s "$work/out/$f" ] || fail "no $f"
  grep -qE "^file [0-9]+ [0-9.]+ [0-9a-f]{64} $(echo "$f" | sed 's/[.]/[.]/g')\$" \
    "$work/out/.tracesim-manifest" || fail "$f is not in the manifest"
done
python3 "$srcdir/tests/png-colours.py" "$work/out/report-timelines.png" 4 0.05 \
  || fail "the timelines' PNG twin is blank"

# 800 columns over T: a column is T/800 = 1.0001375e-3 s, the timeline's
# left edge at x = 60. A column is hatched when the pattern fills at least
# half of it. Column 299 holds [0.2990411, 0.3000413): 0.041 of it waits,
# no; column 300 starts after 0.3: the first. 0.8 s falls in column 799
# ([0.7991099, 0.80011): 0.89 of it waits, yes): the last. So x = 60 + 300
# = 360, width 500, in the original and the predicted timeline alike.
for run in original predicted; do
  d=$(wait_path "$html" "$run" 1 late_sender)
  [ -n "$d" ] || fail "$run: no Late Sender span on rank 1"
  # One subpath: M<x> <y>h<width>v<height>h-<width>z.
  echo "$d" | grep -Eq '^M360 [0-9.]+h500v[0-9.]+h-500z$' \
    || fail "$run: Late Sender drawn as '$d', expected one span at x = 360, width 500"
done
# The shipped late-sender scenario: rank 1 waits in MPI_Recv from 0 until
# rank 0 sends at 1.0 s, and the run takes T = 1.00011 s. A column is
# T/800 = 1.2501375e-3 s; column 799 holds [0.9988600, 1.00011), 0.91 of it
# waiting: the span covers columns 0 to 799, x = 60, width 800.
"$builddir/ts-tracegen" script "$srcdir/scenarios/late-sender/trace.script" -o "$work/ls0" > /dev/null \
  || fail "ts-tracegen (late-sender)"
"$tracesim" run "$work/ls0/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -o "$work/out0" --report -q || fail "tracesim run --report (late-sender)"
d=$(wait_path "$work/out0/report.html" predicted 1 late_sender)
echo "$d" | grep -Eq '^M60 [0-9.]+h800v[0-9.]+h-800z$' \
  || fail "late-sender scenario: Late Sender drawn as '$d', expected x = 60, width 800"
# Rank 0 has its rows, and never waits.
[ "$(grep -c 'class="rank-row" data-run="[a-z]*" data-rank="0"' "$html")" -ge 1 ] \
  || fail "no row of rank 0"
for run in original predicted; do
  for p in late_sender late_receiver wait_nxn; do
    [ -z "$(wait_path "$html" "$run" 0 "$p")" ] || fail "rank 0 shows $p ($run)"
  done
done

# chromium: the DOM it built, and a screenshot.
shoot() { # HTML PNG
  # shellcheck disable=SC2086
  "$chromium" $chromium_flags --hide-scrollbars --window-size=1200,1600 --screenshot="$2" \
    "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" > /dev/null 2>&1
}
dom() { # HTML
  # shellcheck disable=SC2086
  "$chromium" $chromium_flags --dump-dom "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" \
    2> /dev/null
}
dom "$html" > "$work/dom.html" || fail "chromium --dump-dom failed"
# 2 ranks in each of the 2 timelines; one pattern (Late Sender) in either run.
rows=$(grep -o 'class="rank-row"' "$work/dom.html" | wc -l)
bars=$(grep -o 'class="pattern-bar"' "$work/dom.html" | wc -l)
[ "$rows" -eq 4 ] || fail "chromium's DOM has $rows rank rows, expected 4"
[ "$bars" -eq 1 ] || fail "chromium's DOM has $bars pattern bars, expected 1"
shoot "$html" "$work/shot.png"
[ -s "$work/shot.png" ] || fail "chromium took no screenshot"
python3 "$srcdir/tests/png-colours.py" "$work/shot.png" 8 0.03 \
  || fail "the screenshot is blank or nearly so"

# A message whose send record comes after its call's entry, and a region
# named with markup: rank 0 enters MPI_Send at 0.2 s (the record at
# 0.25 s), rank 1 leaves MPI_Recv at 0.3 s. The line runs from the call's
# entry, x1 = 60 + 0.2 / T x 800, to x2 = 60 + 0.3 / T x 800, T the
# longer runtime (summary.json). The name a"<b& is escaped: the DOM keeps
# it whole as the region's title, and its PNG twins draw.
cat > "$work/m.script" <<'EOF'
ranks 2
0 0.0 enter main
0 0.0 enter a"<b&
0 0.2 leave a"<b&
0 0.2 enter MPI_Send
0 0.25 send 1 tag=0 bytes=8
0 0.25 leave MPI_Send
0 0.5 leave main
1 0.0 enter main
1 0.1 enter MPI_Recv
1 0.3 recv 0 tag=0 bytes=8
1 0.3 leave MPI_Recv
1 0.5 leave main
EOF
"$builddir/ts-tracegen" script "$work/m.script" -o "$work/m" > /dev/null || fail "ts-tracegen (m)"
"$tracesim" run "$work/m/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -o "$work/mout" --report -q || fail "tracesim run --report (m)"
span=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print(max(s["original"]["runtime_s"], s["predicted"]["runtime_s"]))' "$work/mout/summary.json")
x=$(grep -o '<line class="message" data-from="0" data-to="1" x1="[0-9.]*" y1="[0-9.]*" x2="[0-9.]*"' \
    "$work/mout/report.html" | head -1)
python3 -c 'import re, sys
x1, x2 = (float(v) for v in re.findall(r"x[12]=\"([0-9.]+)\"", sys.argv[1]))
span = float(sys.argv[2])
sys.exit(0 if abs(x1 - (60 + 0.2 / span * 800)) < 0.06 and abs(x2 - (60 + 0.3 / span * 800)) < 0.06 else 1)' \
  "$x" "$span" || fail "message drawn as '$x' (T = $span s): expected x1 at 0.2 s, x2 at 0.3 s"
dom "$work/mout/report.html" > "$work/mdom.html" || fail "chromium --dump-dom (m)"
grep -qF '<title>a"&lt;b&amp;</title>' "$work/mdom.html" || fail "the region name a\"<b& is not one title"
[ "$(grep -o 'class="rank-row"' "$work/mdom.html" | wc -l)" -eq 4 ] || fail "(m) rank rows"
[ -s "$work/mout/report-timelines.png" ] || fail "(m) no PNG twin"
# --no-wait-states: the page draws no hatches, and says why.
"$tracesim" run "$work/ls/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -o "$work/nows" --report --no-wait-states -q || fail "tracesim run --no-wait-states --report"
grep -q 'class="wait"' "$work/nows/report.html" && fail "--no-wait-states: hatches drawn"
grep -q -- "--no-wait-states" "$work/nows/report.html" || fail "--no-wait-states: not said"

# tracesim report redraws it; then a run may replace the directory.
rm "$html"
"$tracesim" report "$work/out" -q || fail "tracesim report"
[ -s "$html" ] || fail "tracesim report wrote nothing"
"$tracesim" report "$work/out" -q || fail "tracesim report could not replace its own report"
"$tracesim" run "$work/ls/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -o "$work/out" -q || fail "a run cannot replace a directory holding its report"

# An advise run: a bar per change (2 regions' phases x 2 changes + 2
# network rows = 6 rows besides the baseline). The trace: main encloses
# two compute phases per rank, so advise ranks phases (MPI_Send's and
# MPI_Recv's bursts: 2 phases).
"$tracesim" advise "$work/ls/traces.otf2" -o "$work/advice" -j 1 -q > /dev/null \
  || fail "tracesim advise"
"$tracesim" report "$work/advice" -q || fail "tracesim report (advise)"
n=$(($(wc -l < "$work/advice/results.csv") - 2))
[ "$n" -eq 6 ] || fail "advise: $n changes, expected 6"
bars=$(grep -o 'class="advice-bar"' "$work/advice/report.html" | wc -l)
[ "$bars" -eq "$n" ] || fail "advise report: $bars bars for $n changes"
[ -s "$work/advice/report-advice.png" ] || fail "advise report: no PNG twin"

# A sweep: its table (a row per point) and its plot, embedded.
cat > "$work/s.sweep" <<EOS
[sweep]
trace = ls/traces.otf2
platform = $(cd "$srcdir" && pwd)/scenarios/platforms/two-hosts.xml
[parameters]
eager_threshold = 100, 100000
EOS
"$tracesim" sweep "$work/s.sweep" -o "$work/swept" -j 1 -q > /dev/null 2>&1 || fail "tracesim sweep"
"$tracesim" report "$work/swept" -q || fail "tracesim report (sweep)"
rows=$(grep -o '<tr class="result">' "$work/swept/report.html" | wc -l)
[ "$rows" -eq 2 ] || fail "sweep report: $rows rows, expected 2"
grep -q '<img class="plot" alt="plot-eager_threshold.svg" src="data:image/svg+xml;base64,' \
  "$work/swept/report.html" || fail "sweep report: no embedded plot of eager_threshold"

# Bad input: an error that says what, non-zero, nothing written.
expect_refusal() { # DIR WORDS
  if "$tracesim" report "$1" > "$work/err.out" 2> "$work/err.txt"; then
    fail "report $1 succeeded"
  fi
  grep -q "$2" "$work/err.txt" || fail "report $1: expected '$2' in: $(cat "$work/err.txt")"
  [ ! -e "$1/report.html" ] || fail "report $1 left a report.html"
}
expect_refusal "$work/none" "no such directory"
mkdir -p "$work/empty"
expect_refusal "$work/empty" "summary.json: no such file"
mkdir -p "$work/old"
echo '{"tracesim_version": "0.0.1", "original": {"runtime_s": 1}}' > "$work/old/summary.json"
expect_refusal "$work/old" "has no 'predicted': written by 0.0.1"
mkdir -p "$work/out2.tmp-AbC123"
expect_refusal "$work/out2.tmp-AbC123" "did not finish"
mkdir -p "$work/sweep" && : > "$work/sweep/.tracesim-sweep"
expect_refusal "$work/sweep" "the sweep did not finish"
echo "PASS"
