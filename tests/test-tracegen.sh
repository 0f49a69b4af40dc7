#!/bin/sh
# End-to-end test of ts-tracegen: the stencil workload and script errors,
# checked with otf2-print (OTF2's own reader) when it is installed.
# Exit 77 (skip) only when otf2-print is absent, after the checks that need
# no otf2-print have run.
set -u

builddir=${top_builddir:-.}
tracegen=$builddir/ts-tracegen
otf2_print=${OTF2_PRINT:-no}

if [ ! -x "$tracegen" ]; then
  echo "FAIL: $tracegen not built" >&2
  exit 99
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-tracegen-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
failures=0
fail () { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# --- the benchmark workload -------------------------------------------------
"$tracegen" stencil -o "$work/st" --ranks 4 --iterations 20 \
  || fail "ts-tracegen stencil exited with $?"
[ -f "$work/st/traces.otf2" ] || fail "no anchor file $work/st/traces.otf2"

"$tracegen" stencil -o "$work/imb" --ranks 4 --iterations 1 --imbalance 2 \
  --allreduce-every 1 || fail "ts-tracegen stencil --imbalance exited with $?"

# --- a script error: FILE:LINE on stderr, exit 1, nothing written -----------
printf 'ranks 2\n0 1.0 enter main\n0 0.5 leave main\n' > "$work/bad.txt"
"$tracegen" script "$work/bad.txt" -o "$work/bad" 2> "$work/bad.err"
status=$?
[ "$status" -eq 1 ] || fail "bad script: exit status $status, expected 1"
grep -q "bad.txt:3: time 0.5 of rank 0 is earlier" "$work/bad.err" \
  || fail "bad script: unexpected message: $(cat "$work/bad.err")"
ls -d "$work"/bad "$work"/bad.tmp-* > /dev/null 2>&1 \
  && fail "bad script left output behind"

# --- bad parameters are refused ---------------------------------------------
"$tracegen" stencil -o "$work/none" --ranks 0 --iterations 1 2> /dev/null \
  && fail "--ranks 0 accepted"
[ -e "$work/none" ] && fail "--ranks 0 left output behind"

if [ "$otf2_print" = no ] || [ ! -x "$otf2_print" ]; then
  echo "SKIP: otf2-print not available; archives not validated"
  exit 77
fi

# --- validation by otf2-print -----------------------------------------------
"$otf2_print" -A "$work/st/traces.otf2" > "$work/st.out" 2>&1 \
  || fail "otf2-print failed on the stencil archive"
grep -i warning "$work/st.out" && fail "otf2-print warns on the stencil archive"

# ENTER events, 4 ranks x 20 iterations, allreduce every 10 (the default):
#   per rank: main 1 + per iteration 4 (compute_kernel, MPI_Irecv, MPI_Isend,
#   MPI_Waitall) x 20 + MPI_Allreduce after iterations 10 and 20: 2  = 83
#   all ranks: 4 x 83 = 332
enters=$(grep -c '^ENTER ' "$work/st.out")
[ "$enters" -eq 332 ] || fail "stencil: $enters ENTER events, expected 332"

# End of main, all ranks alike (no imbalance):
#   one iteration: compute 1e-3, Irecv 1e-6, Isend 1e-6, then Waitall ends when
#   the left neighbour's message arrives: its isend at compute + 1e-6, plus
#   latency 1e-6 + 4096 B / 1e9 B/s = 5.096e-6; i.e. compute + 6.096e-6
#   = 1.006096e-3 s (later than the Waitall's own 1e-6 at compute + 3e-6).
#   Allreduce: all enter together, end + 2 * log2(4) * 1e-6 = 4e-6 s, twice.
#   20 * 1.006096e-3 + 2 * 4e-6 = 0.02012992 s = 20129920 ticks
ends=$(awk '$1 == "LEAVE" && /Region: "main"/ { print $3 }' "$work/st.out" | sort -u)
[ "$ends" = 20129920 ] || fail "stencil: main ends at '$ends', expected 20129920"

"$otf2_print" "$work/imb/traces.otf2" > "$work/imb.out" 2>&1 \
  || fail "otf2-print failed on the imbalanced archive"
grep -i warning "$work/imb.out" && fail "otf2-print warns on the imbalanced archive"
# One iteration, rank 0 computes 2e-3 s, the others 1e-3 s:
#   rank 1's left neighbour is rank 0, whose isend is at 2e-3 + 1e-6, so its
#   Waitall ends at 2.001e-3 + 5.096e-6 = 2.006096e-3 s -> 2006096 ticks;
#   that is the last arrival in the allreduce, which ends 4e-6 later for
#   everyone: 2.010096e-3 s -> 2010096 ticks, the end of main on all ranks.
waitall1=$(awk '$1 == "LEAVE" && $2 == 1 && /"MPI_Waitall"/ { print $3 }' "$work/imb.out")
[ "$waitall1" = 2006096 ] || fail "imbalance: rank 1 Waitall ends at '$waitall1', expected 2006096"
ends=$(awk '$1 == "LEAVE" && /Region: "main"/ { print $3 }' "$work/imb.out" | sort -u)
[ "$ends" = 2010096 ] || fail "imbalance: main ends at '$ends', expected 2010096"

[ "$failures" -eq 0 ] || exit 1
echo "PASS: ts-tracegen"
exit 0
