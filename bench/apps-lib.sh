# Sourced by bench/apps-whatif.sh and bench/hybrid-whatif.sh: launching a
# what-if program (recorded or not), predicting from its trace, and the
# medians of what was measured. Uses MPIEXEC, over (the launcher's options),
# prog, BUILD, WORK, die(), and RANGE_FORMAT (printf format of a number,
# default %.3f).

# run NP FILE [tracesim-record OPTION...] -- PROGRAM-ARG...: one launch;
# appends the loop's seconds to FILE.
run() {
  np=$1 file=$2
  shift 2
  rec=
  while [ "$1" != -- ]; do rec="$rec $1"; shift; done
  shift
  # shellcheck disable=SC2086
  if [ -n "$rec" ]; then
    "$MPIEXEC" $over -n "$np" sh "$BUILD/recorder/tracesim-record" $rec "$prog" "$@" \
      > "$WORK/out" 2> "$WORK/err" || die "recording failed: $(cat "$WORK/err")"
  else
    "$MPIEXEC" $over -n "$np" "$prog" "$@" > "$WORK/out" 2> "$WORK/err" \
      || die "run failed: $(cat "$WORK/err")"
  fi
  [ "$(sed -n 's/^ranks //p' "$WORK/out")" = "$np" ] \
    || die "$prog $* did not run on $np ranks under $MPIEXEC (another MPI library's launcher?): $(cat "$WORK/out")"
  sed -n 's/^loop_s //p' "$WORK/out" >> "$file"
}

# predict TRACE FILE [OPTION...]: replays TRACE; appends the predicted
# seconds of the region loop over the ranks to FILE.
predict() {
  trace=$1 file=$2
  shift 2
  rm -rf "$WORK/pred"
  # shellcheck disable=SC2086 # PREDICT_OPTIONS is a list of words
  "$BUILD/tracesim" run "$trace" "$@" ${PREDICT_OPTIONS:-} -o "$WORK/pred" -q \
    || die "tracesim run $trace $* ${PREDICT_OPTIONS:-} failed"
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
loop = [r for r in s["regions"] if r["name"] == "loop"][0]
print(loop["predicted_s"] / s["ranks"])' "$WORK/pred/summary.json" >> "$file"
}

# stats FILE: median min max
stats() {
  sort -g "$1" | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR] }'
}
range() {
  f=${RANGE_FORMAT:-%.3f}
  # shellcheck disable=SC2059 # the format is ours
  printf "$f [$f, $f]" "$1" "$2" "$3"
}
