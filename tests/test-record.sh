#!/bin/sh
# The recorder on a real MPI program (tests/mpi/halo.c) at 2 ranks,
# oversubscribed if need be: the trace it writes must carry every message's
# envelope (tracesim info: all MPI calls recorded, none inferred or missing)
# and replay. Skipped (77) when tracesim was built without MPI.
set -u
builddir=${top_builddir:-.}
lib=$builddir/.libs/libtracesim-record.so
prog=$builddir/tests/mpi-halo
if [ ! -f "$lib" ] || [ ! -x "$prog" ] || [ -z "${MPIEXEC:-}" ]; then
  echo "SKIP: no MPI (configure found neither MPICH nor Open MPI)"
  exit 77
fi
# A sanitizer build cannot preload its instrumented library ahead of the
# sanitizer runtime; the plain build runs this test.
if ldd "$lib" 2>/dev/null | grep -q -e libasan -e libubsan; then
  echo "SKIP: sanitizer build"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-record-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

TS_RECORD_LIB=$lib "$MPIEXEC" -n 2 sh "$builddir/recorder/tracesim-record" -o "$work/trace" \
  "$prog" > "$work/out" 2> "$work/err" || fail "the program failed: $(cat "$work/err")"
grep -q "^sum " "$work/out" || fail "the program's output is missing: $(cat "$work/out")"
[ -f "$work/trace/traces.otf2" ] || fail "no archive: $(cat "$work/err")"

"$builddir/tracesim" info "$work/trace/traces.otf2" > "$work/info" || fail "tracesim info failed"
# Both ranks ran on this machine: one node, named as MPI names the host,
# with the CPUs this machine has online (getconf, as the recorder's sysconf).
cores=$(getconf _NPROCESSORS_ONLN)
[ "$cores" = 1 ] && plural="" || plural=s
grep -q "^nodes:      1 ($(hostname): 2 ranks on $cores core$plural)" "$work/info" \
  || fail "the ranks' node and its cores are not recorded: $(grep '^nodes' "$work/info")"
# Every MPI call with a message has it recorded: nothing inferred or missing.
grep -Eq "inferred +0 calls" "$work/info" || fail "inferred calls: $(cat "$work/info")"
grep -Eq "missing +0 calls" "$work/info" || fail "missing calls: $(cat "$work/info")"
grep -Eq "recorded +[1-9][0-9]* calls \(100.0%\)" "$work/info" || fail "$(cat "$work/info")"
# 2 ranks x 10 iterations: 20 MPI_Irecv, 20 MPI_Isend, 20 MPI_Allreduce.
grep -Eq "MPI_Irecv +20 " "$work/info" || fail "MPI_Irecv visits: $(cat "$work/info")"
grep -Eq "MPI_Allreduce +20 " "$work/info" || fail "MPI_Allreduce visits: $(cat "$work/info")"
"$builddir/tracesim" run "$work/trace/traces.otf2" -o "$work/out-run" -q || fail "replay failed"
# The calibrated platform keeps the ranks together as traced: one host of
# two cores, and a hostfile putting both ranks on it.
grep -q 'radical="0-0"' "$work/out-run/platform.xml" && grep -q 'core="2"' "$work/out-run/platform.xml" \
  || fail "the calibrated platform does not hold the traced node: $(grep radical -A1 "$work/out-run/platform.xml")"
[ "$(grep -v '^#' "$work/out-run/hostfile" | tr '\n' ' ')" = "node-0 node-0 " ] \
  || fail "the ranks are not placed as traced: $(cat "$work/out-run/hostfile")"
"$builddir/ts-check-archive" "$work/out-run/predicted/traces.otf2" "$work/trace/traces.otf2" \
  2> "$work/check.err" || fail "not a valid trace: $(cat "$work/check.err")"
# Any OTF2 tool reads it without a warning.
"${OTF2_PRINT:-otf2-print}" "$work/trace/traces.otf2" > /dev/null 2> "$work/print.err" \
  || fail "otf2-print failed: $(cat "$work/print.err")"
if grep -qi warn "$work/print.err"; then fail "otf2-print warns: $(cat "$work/print.err")"; fi
# --cpu-time: a reading of the thread's CPU time ("cpu_time", nanoseconds)
# before every ENTER and LEAVE, at its time, which `run --cpu-time` takes
# compute from; the trace without them refuses --cpu-time, naming itself.
TS_RECORD_LIB=$lib "$MPIEXEC" -n 2 sh "$builddir/recorder/tracesim-record" -o "$work/cpu" \
  --cpu-time "$prog" > "$work/out-cpu" 2> "$work/err-cpu" || fail "--cpu-time: $(cat "$work/err-cpu")"
"${OTF2_PRINT:-otf2-print}" -G "$work/cpu/traces.otf2" 2> /dev/null \
  | grep -q 'METRIC_MEMBER .*"cpu_time".*Exponent: -9, Unit: "s"' || fail "no cpu_time metric defined"
"${OTF2_PRINT:-otf2-print}" "$work/cpu/traces.otf2" 2> /dev/null | awk '
  $1 == "METRIC" { pending[$2] = $3; metrics++ }
  $1 == "ENTER" || $1 == "LEAVE" { regions++; if (pending[$2] != $3) bad++; pending[$2] = "" }
  END { exit !(metrics == regions && regions > 0 && bad == 0) }' \
  || fail "not one reading at the time of every ENTER and LEAVE"
"$builddir/tracesim" run "$work/cpu/traces.otf2" --cpu-time -o "$work/run-cpu" -q || fail "run --cpu-time failed"
"$builddir/tracesim" info --no-replay "$work/cpu/traces.otf2" | grep -q "^cpu time:   recorded" \
  || fail "info does not say the CPU time is recorded"
"$builddir/tracesim" info --no-replay "$work/trace/traces.otf2" | grep -q "^cpu time:   not recorded" \
  || fail "info does not say the CPU time is not recorded"
"$builddir/tracesim" run "$work/trace/traces.otf2" --cpu-time -o "$work/run-nocpu" -q 2> "$work/err-nocpu" \
  && fail "--cpu-time accepted a trace without CPU time"
grep -q "$work/trace/traces.otf2: no CPU time metric" "$work/err-nocpu" || fail "$(cat "$work/err-nocpu")"
[ ! -e "$work/run-nocpu" ] || fail "a refused run left its output"
# An unwritable directory: one warning per rank, the program runs on, and
# tracesim-record says on each rank that no trace was written (exit 3, which
# the launcher passes on as a failure).
TS_RECORD_LIB=$lib "$MPIEXEC" -n 2 sh "$builddir/recorder/tracesim-record" -o /proc/nowhere/trace \
  "$prog" > "$work/out2" 2> "$work/err2" && fail "no trace written, yet the launch succeeded"
grep -q "^sum " "$work/out2" || fail "the program's output is missing"
[ "$(grep -c "recording stops, the program runs on" "$work/err2")" -eq 2 ] \
  || fail "expected one warning per rank: $(cat "$work/err2")"
[ "$(grep -c "finished but wrote no trace in /proc/nowhere/trace" "$work/err2")" -eq 2 ] \
  || fail "expected one 'no trace' line per rank: $(cat "$work/err2")"
# A full disk: a 64 KiB tmpfs, too small for 200 iterations of
# bench/apps/whatif's ring halo (about 58 KB of events per rank). One warning per rank, the
# program's output intact, and no incomplete archive left behind. Needs
# the right to mount (root): skipped, and said so, without it.
full=$work/full
mkdir -p "$full"
if [ -x "$builddir/bench/apps/whatif" ] && mount -t tmpfs -o size=64k tmpfs "$full" 2> /dev/null; then
  TS_RECORD_LIB=$lib "$MPIEXEC" -n 2 sh "$builddir/recorder/tracesim-record" -o "$full/trace" \
    "$builddir/bench/apps/whatif" halo 0.1 0 200 > "$work/out3" 2> "$work/err3"
  rc=$?
  leftover=$(find "$full/trace" -type f 2> /dev/null | wc -l)
  umount "$full"
  [ "$rc" -ne 0 ] || fail "full disk: no trace written, yet the launch succeeded"
  grep -q "^loop_s " "$work/out3" || fail "the program's output is missing on a full disk"
  [ "$(grep -c "finished but wrote no trace" "$work/err3")" -eq 2 ] \
    || fail "full disk: expected one 'no trace' line per rank: $(cat "$work/err3")"
  [ "$(grep -c "recording stops, the program runs on" "$work/err3")" -eq 2 ] \
    || fail "full disk: expected one warning per rank: $(cat "$work/err3")"
  [ "$leftover" -eq 0 ] || fail "full disk: $leftover files of an incomplete archive left"
else
  echo "full-disk check skipped: cannot mount a tmpfs here"
fi
echo "PASS"
