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
  if ! "$BUILD/tracesim" run "$trace" "$@" ${PREDICT_OPTIONS:-} -o "$WORK/pred" -q \
    2> "$WORK/pred.err"; then
    # A what-if tracesim says it does not model: no prediction, the table
    # says so.
    grep -q "not modelled" "$WORK/pred.err" && return 0
    die "tracesim run $trace $* ${PREDICT_OPTIONS:-} failed: $(cat "$WORK/pred.err")"
  fi
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

# hybrid_round NP DIR PREDICT TRACE FAST_HYP BALANCED_HYP: a round of the
# hybrid what-if benches after the recording: the program really run base,
# fast (FACTOR 0.5) and balanced, into DIR/real-V; and PREDICT (predict, or
# the bench's own) from TRACE unchanged and with each hypothesis, into
# DIR/pred-V.
hybrid_round() {
  run "$1" "$2/real-base" -- 1 0 "$ITERATIONS"
  run "$1" "$2/real-fast" -- 0.5 0 "$ITERATIONS"
  run "$1" "$2/real-balanced" -- 1 1 "$ITERATIONS"
  "$3" "$4" "$2/pred-base"
  "$3" "$4" "$2/pred-fast" -H "$5"
  "$3" "$4" "$2/pred-balanced" -H "$6"
}

# hybrid_table: the rows of the hybrid what-if benches (NPS, THREADS,
# cores, WORK/npN/real-V and pred-V): per rank count and variant (recorded,
# base, fast, balanced; recorded against the base prediction), the real
# and the predicted median [min, max], the error of the one median against
# the other, and "ok" within 5% (10% where the threads outnumber the
# cores) or inside the real runs' range.
hybrid_table() {
  printf '%2s %-9s %-27s | %-27s %7s %s\n' NP variant real predicted err verdict
  for np in $NPS; do
    d=$WORK/np$np
    tol=5
    [ $((np * THREADS)) -gt "$cores" ] && tol=10
    for v in recorded base fast balanced; do
      pv=$v
      [ "$v" = recorded ] && pv=base
      # shellcheck disable=SC2046
      set -- $(stats "$d/real-$v")
      rmed=$1 rmin=$2 rmax=$3
      line=$(printf '%2s %-9s %-27s' "$np" "$v" "$(range "$rmed" "$rmin" "$rmax")")
      if [ -f "$d/pred-$pv" ]; then
        # shellcheck disable=SC2046
        set -- $(stats "$d/pred-$pv")
        err=$(awk -v p="$1" -v r="$rmed" 'BEGIN { printf "%+.1f", 100 * (p / r - 1) }')
        verdict=$(awk -v e="$err" -v t="$tol" -v p="$1" -v lo="$rmin" -v hi="$rmax" \
          'BEGIN { print ((e <= t && e >= -t) || (p >= lo && p <= hi)) ? "ok" : "off" }')
        line=$(printf '%s | %-27s %6s%% %s' "$line" "$(range "$1" "$2" "$3")" "$err" "$verdict")
      else
        line=$(printf '%s | %-27s %7s %s' "$line" "- (not modelled)" - -)
      fi
      echo "$line"
    done
  done
}
