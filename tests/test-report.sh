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
  grep -q "^f [0-9]* [0-9.]* $f\$" "$work/out/.tracesim-manifest" || fail "$f is not in the manifest"
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
  d=$(sed 's/>/>\n/g' "$html" | sed -n "/class=\"rank-row\" data-run=\"$run\" data-rank=\"1\"/,/<\/g/p" \
      | sed -n 's/.*<path class="wait" data-pattern="late_sender" [^>]* d="\([^"]*\)".*/\1/p')
  [ -n "$d" ] || fail "$run: no Late Sender span on rank 1"
  # One subpath: M<x> <y>h<width>v<height>h-<width>z.
  echo "$d" | grep -Eq '^M360 [0-9.]+h500v[0-9.]+h-500z$' \
    || fail "$run: Late Sender drawn as '$d', expected one span at x = 360, width 500"
done
# The one message, in each timeline: from rank 0's send at 0.8 s, x = 60 +
# 0.8 / 0.80011 x 800 = 859.9, to the end of rank 1's MPI_Recv at 0.80011 s,
# x = 860.0.
lines=$(grep -o '<line class="message" data-from="0" data-to="1" x1="859.9" y1="[0-9.]*" x2="860.0"' "$html" | wc -l)
[ "$lines" -eq 2 ] || fail "expected the message drawn once per timeline, found $lines"
# Rank 0 never waits.
sed 's/>/>\n/g' "$html" | sed -n '/class="rank-row" data-run="[a-z]*" data-rank="0"/,/<\/g/p' \
  | grep -q 'class="wait"' && fail "rank 0 shows a wait state"

# chromium: the DOM it built, and a screenshot.
shoot() { # HTML PNG
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --hide-scrollbars --window-size=1200,1600 \
    --screenshot="$2" "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" > /dev/null 2>&1
}
dom() { # HTML
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --dump-dom \
    "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" 2> /dev/null
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
bars=$(grep -o 'class="advice-bar"' "$work/advice/report.html" | wc -l)
[ "$bars" -eq "$n" ] || fail "advise report: $bars bars for $n changes"
[ -s "$work/advice/report-advice.png" ] || fail "advise report: no PNG twin"

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
