# Sourced by the tests/test-record-*.sh scripts: skip without MPI or under
# sanitizers, a scratch directory, and helpers to record a program and read
# what tracesim and otf2-print say about its trace.
builddir=${top_builddir:-.}
lib=$builddir/.libs/libtracesim-record.so
if [ ! -f "$lib" ] || [ -z "${MPIEXEC:-}" ]; then
  echo "SKIP: no MPI (configure found neither MPICH nor Open MPI)"
  exit 77
fi
# A sanitizer build cannot preload its instrumented library ahead of the
# sanitizer runtime; the plain build runs these tests.
if ldd "$lib" 2>/dev/null | grep -q -e libasan -e libubsan; then
  echo "SKIP: sanitizer build"
  exit 77
fi
# One MPI test at a time on this machine: MPI ranks poll while they wait,
# and two oversubscribed runs at once starve each other for whole rounds,
# which the timing checks (clock, partitioned) would see.
if command -v flock > /dev/null 2>&1; then
  exec 9> "${TMPDIR:-/tmp}/tracesim-record-mpi-tests.lock"
  flock 9
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-record-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# record NAME NP PROGRAM [ARGS...]: run PROGRAM on NP ranks under the
# recorder into $work/NAME; its output in $work/NAME.out, errors in .err,
# tracesim info in .info.
record() {
  name=$1 np=$2
  shift 2
  TS_RECORD_LIB=$lib "$MPIEXEC" -n "$np" sh "$builddir/recorder/tracesim-record" \
    -o "$work/$name" "$@" > "$work/$name.out" 2> "$work/$name.err" \
    || fail "$name: the program failed: $(cat "$work/$name.err")"
  [ -f "$work/$name/traces.otf2" ] || fail "$name: no archive: $(cat "$work/$name.err")"
  "$builddir/tracesim" info "$work/$name/traces.otf2" > "$work/$name.info" \
    || fail "$name: tracesim info failed"
}

# complete NAME: every MPI call with a message has it recorded (nothing
# inferred or missing), the trace replays, and otf2-print reads it without
# a warning.
complete() {
  grep -Eq "inferred +0 calls" "$work/$1.info" || fail "$1: inferred calls: $(cat "$work/$1.info")"
  grep -Eq "missing +0 calls" "$work/$1.info" || fail "$1: missing calls: $(cat "$work/$1.info")"
  "$builddir/tracesim" run "$work/$1/traces.otf2" -o "$work/$1-run" -q || fail "$1: replay failed"
  "$builddir/ts-check-archive" "$work/$1-run/predicted/traces.otf2" 2> "$work/$1.check" \
    || fail "$1: the predicted archive is not a valid trace: $(cat "$work/$1.check")"
  # The recorder's own archive is valid too.
  "$builddir/ts-check-archive" "$work/$1/traces.otf2" 2> "$work/$1.check" \
    || fail "$1: the recorded archive is not a valid trace: $(cat "$work/$1.check")"
  "${OTF2_PRINT:-otf2-print}" "$work/$1/traces.otf2" > "$work/$1.print" 2> "$work/$1.print.err" \
    || fail "$1: otf2-print failed: $(cat "$work/$1.print.err")"
  if grep -qi warn "$work/$1.print.err"; then fail "$1: otf2-print warns: $(cat "$work/$1.print.err")"; fi
}

# visits NAME REGION: the region's visits over all ranks (0 if absent), from
# the summary of the replay complete() ran.
visits() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(r["visits"] for r in d["regions"] if r["name"] == sys.argv[2]))' \
    "$work/$1-run/summary.json" "$2"
}

# expect_visits NAME REGION N
expect_visits() {
  v=$(visits "$1" "$2")
  [ "$v" -eq "$3" ] || fail "$1: $2 visited $v times, expected $3"
}

# events NAME RANK: rank RANK's events as otf2-print prints them.
events() {
  "${OTF2_PRINT:-otf2-print}" -L "$2" "$work/$1/traces.otf2" 2>/dev/null
}
