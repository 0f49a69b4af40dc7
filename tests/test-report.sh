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
#   error, non-zero, and no report.html;
# - the sentence at the top and the what-if's rules, on a what-if whose
#   numbers are derived below; the legend inside the timelines' figure and
#   its PNG twin; compute outside any region drawn, not white;
# - a window: tracesim report --from/--to (and its bad values), and the
#   page's zoom run by chromium;
# - every time on the run, sweep and advise pages as N s/ms/us/ns.
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

# The sentence and the rules. Rank 0 works 0.6 s, rank 1 0.2 s, then both
# meet in an MPI_Allreduce that ends at 0.6002 s: rank 1 waits 0.4 s
# (Wait at NxN). work made 2x faster: rank 0 works 0.3 s, rank 1 0.1 s,
# rank 1 waits 0.2 s. So work's exclusive time over ranks goes from 0.8 s
# to 0.4 s (-400 ms), wait_nxn from 0.4 s to 0.2 s (-200 ms), and the
# runtime from 0.6002 s to 0.3 s + the replayed allreduce: -50% (0.3001 s
# in summary.json: 0.3001 / 0.6002 - 1 = -0.49999).
cat > "$work/w.script" <<'EOS'
ranks 2
0 0.0 enter main
0 0.0 enter work
0 0.6 leave work
0 0.6 enter MPI_Allreduce
0 0.6 coll_begin
0 0.6002 coll_end allreduce comm=world root=none sent=8 recv=8
0 0.6002 leave MPI_Allreduce
0 0.6002 leave main
1 0.0 enter main
1 0.0 enter work
1 0.2 leave work
1 0.2 enter MPI_Allreduce
1 0.2 coll_begin
1 0.6002 coll_end allreduce comm=world root=none sent=8 recv=8
1 0.6002 leave MPI_Allreduce
1 0.6002 leave main
EOS
printf '[region:work]\nscale = 0.5   # twice as fast\n' > "$work/half.hyp"
"$builddir/ts-tracegen" script "$work/w.script" -o "$work/w" > /dev/null || fail "ts-tracegen (w)"
"$tracesim" run "$work/w/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -H "$work/half.hyp" -o "$work/wout" --report -q || fail "tracesim run --report (w)"
story=$(grep -o '<p class="story">.*</p>' "$work/wout/report.html")
[ "$story" = '<p class="story"><b>work</b> -400 ms &#8594; <b>wait_nxn</b> -200 ms &#8594; <b>runtime -50%</b> (600 ms &#8594; 300 ms)</p>' ] \
  || fail "the sentence is '$story'"
# The rules as written, the comment too, escaped as text.
tr '\n' '~' < "$work/wout/report.html" \
  | grep -qF '<pre>[region:work]~scale = 0.5   # twice as fast~</pre>' || fail "the rules are not shown"
# Exclusive beside inclusive: main holds 0.6002 + 0.6002 s inclusive as
# traced, 100% of the rank-time, and 0 s of its own (work and
# MPI_Allreduce fill it): its row reads 1.2 s (100%), then 0 s (0%).
grep -o '<tr class="region"><td[^>]*>main</td><td>[^<]*<small>[^<]*</small></td><td>[^<]*<small>[^<]*</small>' \
  "$work/wout/report.html" | grep -qF '<td>1.2 s <small>(100%)</small></td><td>0 s <small>(0%)</small>' \
  || fail "main's inclusive and exclusive times as traced"
# A hypothesis file changed since the run: the page says so.
printf '[region:work]\nscale = 0.25\n' > "$work/half.hyp"
"$tracesim" report "$work/wout" -q || fail "tracesim report (changed rules)"
grep -q 'changed since the run' "$work/wout/report.html" || fail "a changed hypothesis file is not said"

# The ls run's page again (the run above replaced its directory).
"$tracesim" report "$work/out" -q || fail "tracesim report (ls)"
# The legend is in the timelines' figure (so in its PNG twin): the ls run
# has 2 regions with time (main, MPI_Recv: MPI_Send enters and leaves at
# 0.8 s in both executions, an eager send) and 1 pattern (late_sender).
legend=$(sed -n '/<figure id="fig-timelines">/,/<\/figure>/p' "$html" | grep -o 'class="legend-entry"' | wc -l)
[ "$legend" -eq 3 ] || fail "the timelines' legend has $legend entries, expected 3"
# main, the largest region, takes the first compute colour, #229944; its
# swatch is drawn under the axis in the PNG twin (the axis line is at the
# data-y of the figure's <g class="axis">), where the rows are not.
grep -q '<g class="legend-entry" data-key="main"><rect [^>]*fill="#229944"' "$html" \
  || fail "main's legend swatch is not #229944"
axis=$(grep -o '<g class="axis" data-y="[0-9.]*"' "$html" | head -1 | sed 's/.*data-y="\([0-9.]*\)"/\1/')
python3 "$srcdir/tests/png-colours.py" "$work/out/report-timelines.png" --has 229944 \
  --below "$(printf '%.0f' "$axis")" > /dev/null || fail "no legend in the PNG twin below y = $axis"
# No two regions of the legend share a colour.
dups=$(grep -o '<g class="legend-entry" data-key="[^"]*"><rect [^>]*fill="#[0-9a-f]*"' "$html" \
  | sed 's/.*fill="//' | sort | uniq -d)
[ -z "$dups" ] || fail "legend colours used twice: $dups"

# A trace of MPI calls only: between them the rank computes outside any
# region, drawn in a colour of its own, not the page's white. Rank 0:
# MPI_Send [0, 0.1), then 0.4 s outside, MPI_Barrier [0.5, 0.6).
cat > "$work/mpi.script" <<'EOS'
ranks 2
0 0.0 enter MPI_Send
0 0.0 send 1 tag=0 bytes=8
0 0.1 leave MPI_Send
0 0.5 enter MPI_Barrier
0 0.5 coll_begin
0 0.6 coll_end barrier comm=world root=none
0 0.6 leave MPI_Barrier
1 0.0 enter MPI_Recv
1 0.1 recv 0 tag=0 bytes=8
1 0.1 leave MPI_Recv
1 0.5 enter MPI_Barrier
1 0.5 coll_begin
1 0.6 coll_end barrier comm=world root=none
1 0.6 leave MPI_Barrier
EOS
"$builddir/ts-tracegen" script "$work/mpi.script" -o "$work/mpi" > /dev/null || fail "ts-tracegen (mpi)"
"$tracesim" run "$work/mpi/traces.otf2" -p "$srcdir/scenarios/platforms/two-hosts.xml" \
  -o "$work/mpiout" --report -q || fail "tracesim run --report (mpi)"
fill=$(grep -o '<path fill="#[0-9a-f]*" d="[^"]*"><title>compute (no region)</title>' \
  "$work/mpiout/report.html" | head -1 | sed 's/<path fill="\(#[0-9a-f]*\)".*/\1/')
[ -n "$fill" ] || fail "MPI-only trace: the compute between calls is not drawn"
[ "$fill" != "#ffffff" ] || fail "MPI-only trace: compute drawn white"

# A window: --from 300ms --to 500ms of the ls run (T = 0.80011 s). A
# column is 0.2 s / 800 = 0.25 ms; rank 1's Late Sender [0.3, 0.8) fills
# the window: x = 60, width 800, in both timelines. The message (0.8 s to
# 0.80011 s) is outside it: no line. The axis starts at 300 ms.
"$tracesim" report "$work/out" --from 300ms --to '500 ms' -q || fail "tracesim report --from --to"
for run in original predicted; do
  d=$(wait_path "$html" "$run" 1 late_sender)
  echo "$d" | grep -Eq '^M60 [0-9.]+h800v[0-9.]+h-800z$' \
    || fail "window, $run: Late Sender drawn as '$d', expected x = 60, width 800"
done
grep -q '<line class="message"' "$html" && fail "window: a message outside it is drawn"
grep -q '<span id="window">300 ms to 500 ms</span> of 800 ms' "$html" || fail "window: not in the header"
grep -q 'text-anchor="middle">300 ms</text>' "$html" || fail "window: the axis does not start at 300 ms"
# Bad windows: a clear error, non-zero, the page left as it was.
before=$(cksum < "$html")
bad_window() { # WORDS ARGS...
  words=$1
  shift
  if "$tracesim" report "$work/out" "$@" > /dev/null 2> "$work/err.txt"; then
    fail "report $* succeeded"
  fi
  grep -q -- "$words" "$work/err.txt" || fail "report $*: expected '$words' in: $(cat "$work/err.txt")"
  [ "$(cksum < "$html")" = "$before" ] || fail "report $* changed report.html"
}
bad_window "span 0 s to 800 ms" --from 2s
bad_window "is not after --from 500 ms" --from 500ms --to 300ms
bad_window "no unit" --from 200

# The page's zoom, run by chromium: #zoom=0.3,0.5 narrows the plots'
# viewBox to columns 0.3 / T x 800 = 299.96 to 0.5 / T x 800 = 499.93 of
# the whole run (x = 60 + 299.96 = 359.96, width 199.97) and says the
# window as the page prints times.
"$tracesim" report "$work/out" -q || fail "tracesim report (whole run again)"
# shellcheck disable=SC2086
"$chromium" $chromium_flags --dump-dom "file://$(cd "$work/out" && pwd)/report.html#zoom=0.3,0.5" \
  > "$work/zdom.html" 2> /dev/null || fail "chromium --dump-dom (zoom)"
grep -q '<span id="window">300 ms to 500 ms</span>' "$work/zdom.html" || fail "zoom: the window is not said"
vb=$(grep -o '<svg class="plot"[^>]*viewBox="[^"]*"' "$work/zdom.html" | head -1 | sed 's/.*viewBox="\([^"]*\)"/\1/')
python3 -c 'import sys
x, y, w, h = (float(v) for v in sys.argv[1].split())
sys.exit(0 if abs(x - 359.96) < 0.05 and abs(w - 199.97) < 0.05 else 1)' "$vb" \
  || fail "zoom: the plots' viewBox is '$vb', expected x 359.96, width 199.97"

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
if "$tracesim" report "$work/swept" --from 0 > /dev/null 2> "$work/err.txt"; then
  fail "report --from on a sweep succeeded"
fi
grep -q "narrow a run's timelines" "$work/err.txt" || fail "report --from on a sweep: $(cat "$work/err.txt")"

# Every time a reader sees on the run, sweep and advise pages: N s, ms,
# us or ns with 1 <= N < 1000, no exponent, no 0.000.
python3 "$srcdir/tests/page-times.py" "$work/out/report.html" "$work/wout/report.html" \
  "$work/mout/report.html" "$work/mpiout/report.html" "$work/advice/report.html" \
  "$work/swept/report.html" > "$work/times.txt" || fail "times not as N s/ms/us/ns: $(cat "$work/times.txt")"

# doc/report.md's trace (tools/report-demo.py: 27 ranks, 22 regions) with
# its what-if: the page and its PNG twins are drawn (a share below 0.01%,
# early_reduce's 1.9 us in 15 s of rank-time, is "<0.01%", escaped: as
# raw markup it broke the SVG), its legend names 20 regions in 20
# colours, and its times are as above.
python3 "$srcdir/tools/report-demo.py" > "$work/demo.script" || fail "tools/report-demo.py"
"$builddir/ts-tracegen" script "$work/demo.script" -o "$work/demo" > /dev/null || fail "ts-tracegen (demo)"
printf '[region:CalcForce]\nbalance = min\n' > "$work/balance.hyp"
"$tracesim" run "$work/demo/traces.otf2" -H "$work/balance.hyp" -o "$work/demo-out" --report -q \
  > "$work/demo.txt" 2>&1 || fail "tracesim run --report (demo): $(cat "$work/demo.txt")"
[ -s "$work/demo-out/report-wait-states.png" ] || fail "demo: no report-wait-states.png: $(cat "$work/demo.txt")"
grep -q '&lt;0.01%' "$work/demo-out/report.html" || fail "demo: no share below 0.01%, escaped"
colours=$(grep -o '<g class="legend-entry" data-key="[^"]*"><rect [^>]*fill="#[0-9a-f]*"' \
  "$work/demo-out/report.html" | grep -v 'url(#' | sed 's/.*fill="//' | sort -u | wc -l)
[ "$colours" -eq 20 ] || fail "demo: $colours distinct colours in the legend, expected 20"
python3 "$srcdir/tests/page-times.py" "$work/demo-out/report.html" > "$work/times.txt" \
  || fail "demo: times not as N s/ms/us/ns: $(cat "$work/times.txt")"

# A run of 20 minutes: past 1000 s, times are whole seconds (no larger
# unit), and only there. Two ranks compute 1200 s and 1199.5 s, then meet
# in a barrier: the runtime is 1200 s, as traced and as predicted; rank 1
# waits 0.5 s, "500 ms".
cat > "$work/long.script" <<'EOS'
ranks 2
0 0 enter main
0 0 enter work
0 1200 leave work
0 1200 enter MPI_Barrier
0 1200 coll_begin
0 1200 coll_end barrier
0 1200 leave MPI_Barrier
0 1200 leave main
1 0 enter main
1 0 enter work
1 1199.5 leave work
1 1199.5 enter MPI_Barrier
1 1199.5 coll_begin
1 1200 coll_end barrier
1 1200 leave MPI_Barrier
1 1200 leave main
EOS
"$builddir/ts-tracegen" script "$work/long.script" -o "$work/long" > /dev/null || fail "ts-tracegen (long)"
"$tracesim" run "$work/long/traces.otf2" -o "$work/long-out" --report -q > "$work/long.txt" 2>&1 \
  || fail "run --report (long): $(cat "$work/long.txt")"
grep -q "<th>runtime as traced</th><td style=\"text-align:left\">1200 s</td>" "$work/long-out/report.html" \
  || fail "long: the runtime as traced is not '1200 s': $(grep -o '<th>runtime as traced</th><td>[^<]*' "$work/long-out/report.html")"
python3 "$srcdir/tests/page-times.py" "$work/long-out/report.html" > "$work/times.txt" \
  || fail "long: times not as N s/ms/us/ns or whole seconds: $(cat "$work/times.txt")"
# A hybrid trace (tests/hybrid-gen.c, scorep layout): 2 ranks of 2 threads.
# Each master runs compute_kernel 0-2 ms and waits at the implicit barrier
# until its worker's compute_kernel ends at 6 ms; the run ends at T = 7 ms.
# Every thread has a row after its rank's, labelled rank:thread, in both
# timelines and both heat maps. The worker's row: compute_kernel over
# [0, 6 ms) of 800 columns of 7/800 ms: columns 0 to 685 (column 685 holds
# [5.99375, 6.0025) ms, 0.71 of it the kernel), x = 60, width 686, then
# nothing (the thread idles after its team). With the kernel 2x faster
# (bench/apps/fast.hyp) the predicted worker's kernel is [0, 3 ms) on the
# same axis (the original's 7 ms the longer): columns 0 to 342 (column 342
# holds [2.9925, 3.00125) ms, 0.86 of it), width 343; the heat map's thread
# row says 6 ms in the original and 3 ms predicted.
"$builddir/tests/hybrid-gen" scorep "$work/hybrid" || fail "hybrid-gen"
"$tracesim" run "$work/hybrid/traces.otf2" -H "$srcdir/bench/apps/fast.hyp" -o "$work/hout" \
  --report -q 2> /dev/null || fail "run --report (hybrid)"
hhtml=$work/hout/report.html
# thread_path RUN RANK: the compute_kernel path of RANK's thread 1's row.
thread_path() {
  sed 's/>/>\n/g' "$hhtml" | sed -n "/class=\"rank-row\" data-run=\"$1\" data-rank=\"$2\" data-thread=\"1\"/,/<\/g/p" \
    | grep -B0 -A2 '<path fill' | tr -d '\n' | sed -n 's/.*d="\([^"]*\)">.*<title>compute_kernel<.*/\1/p'
}
for r in 0 1; do
  d=$(thread_path original $r)
  echo "$d" | grep -Eq '^M60 [0-9.]+h686v[0-9.]+h-686z$' \
    || fail "hybrid: rank $r thread 1's original kernel drawn as '$d', expected x = 60, width 686"
  d=$(thread_path predicted $r)
  echo "$d" | grep -Eq '^M60 [0-9.]+h343v[0-9.]+h-343z$' \
    || fail "hybrid: rank $r thread 1's predicted kernel drawn as '$d', expected x = 60, width 343"
done
# The rows in order: each rank's own, then its thread's, labelled 0, 0:1, 1, 1:1.
order=$(sed 's/>/>\n/g' "$hhtml" | grep -o 'class="rank-row" data-run="original" data-rank="[0-9]"\( data-thread="[0-9]"\)\?' \
  | sed 's/.*data-rank="\([0-9]\)"\( data-thread="\([0-9]\)"\)\?/\1\3/' | tr '\n' ' ')
[ "$order" = "0 01 1 11 " ] || fail "hybrid: rows in the order '$order', expected '0 01 1 11 '"
grep -q '>0:1</text>' "$hhtml" || fail "hybrid: no row labelled 0:1"
grep -q '<title>rank 0 thread 1: 6 ms (100% of the slowest)</title>' "$hhtml" \
  || fail "hybrid: the original heat map's thread row does not say 6 ms"
grep -q '<title>rank 0 thread 1: 3 ms (100% of the slowest)</title>' "$hhtml" \
  || fail "hybrid: the predicted heat map's thread row does not say 3 ms"
# The deviation bars stay one a rank (threads have their own mean): 2.
[ "$(grep -o 'class="rank-bar" data-key="[^"]*"' "$hhtml" | tr '\n' ' ')" \
  = 'class="rank-bar" data-key="rank 0" class="rank-bar" data-key="rank 1" ' ] \
  || fail "hybrid: deviation bars $(grep -o 'class="rank-bar" data-key="[^"]*"' "$hhtml")"
dom "$hhtml" > "$work/hdom.html" || fail "chromium --dump-dom (hybrid)"
[ "$(grep -o 'class="rank-row"' "$work/hdom.html" | wc -l)" -eq 8 ] \
  || fail "hybrid: chromium's DOM has $(grep -o 'class="rank-row"' "$work/hdom.html" | wc -l) rows, expected 8 (4 a timeline)"
[ "$(grep -o 'class="heat-row"' "$work/hdom.html" | wc -l)" -eq 8 ] || fail "hybrid: heat map rows"
echo "PASS"
