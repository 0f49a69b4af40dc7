#!/bin/sh
# An interrupted `tracesim run` leaves nothing behind: SIGINT, SIGTERM or SIGHUP at
# several moments of a run of about 2.5 s (64-rank halo exchange, 1500
# iterations), in the first pass, the replay (SimGrid installs a SIGINT
# handler of its own) and the writing. Each either finished (exit 0, a
# complete output) or was interrupted: exit 130 / 143 / 129, one line saying
# which signal and which output it was writing (or that it wrote nothing yet),
# no temporary beside the output directory nor a scratch directory in
# TMPDIR, and the output directory either absent or, if the signal came after
# it was renamed into place, complete. At least one run must have been
# interrupted.
set -u
builddir=${top_builddir:-.}
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-interrupt-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
"$builddir/ts-tracegen" stencil -o "$work/trace" --ranks 64 --iterations 1500 > /dev/null \
  || { echo "FAIL: ts-tracegen"; exit 1; }
mkdir "$work/tmp" "$work/outputs"
failures=0
interrupted=0
# A run that does not end within a minute of its signal hangs: say where
# (each thread's stack when gdb is there, the kernel's wait channel), kill
# it and fail, rather than wait for CI's own limit.
watch_for_hang () {
  i=0
  while [ ! -e "$work/ended" ] && [ "$i" -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
  [ -e "$work/ended" ] && return 0
  echo "FAIL: $2 at $3 s: no exit a minute after the signal; pid $1:"
  ps -o pid,ppid,stat,wchan:32,args -p "$1" 2> /dev/null
  for c in $(ps -o pid= --ppid "$1" 2> /dev/null); do ps -o pid,ppid,stat,wchan:32,args -p "$c"; done
  command -v gdb > /dev/null && gdb -p "$1" -batch -ex 'thread apply all bt 25' 2>&1 | grep '^#'
  kill -KILL "$1"
  touch "$work/hung"
}
for delay in 0.1 0.5 1.0 1.5 2.0; do
  for sig in INT TERM HUP; do
    TMPDIR="$work/tmp" "$builddir/tracesim" run "$work/trace/traces.otf2" \
      -o "$work/outputs/out" -q 2> "$work/err" &
    pid=$!
    sleep "$delay"
    kill -"$sig" "$pid" 2> /dev/null
    rm -f "$work/ended"
    watch_for_hang "$pid" "$sig" "$delay" &
    watcher=$!
    wait "$pid"
    rc=$?
    touch "$work/ended"
    wait "$watcher"
    if [ -e "$work/hung" ]; then
      rm -f "$work/hung"
      failures=$((failures + 1))
      rm -rf "$work/outputs/"* "$work/outputs/".??* "$work/tmp/"*
      continue
    fi
    left=$(ls -A "$work/outputs" "$work/tmp" | grep -v '^$' | grep -v ':$' | tr '\n' ' ')
    if [ "$rc" -eq 0 ]; then
      [ -f "$work/outputs/out/summary.json" ] || { echo "FAIL: $sig at $delay s: exit 0 without summary.json"; failures=$((failures + 1)); }
      [ "$left" = "out " ] || { echo "FAIL: $sig at $delay s: finished, but left: $left"; failures=$((failures + 1)); }
    else
      interrupted=$((interrupted + 1))
      want=130; [ "$sig" = TERM ] && want=143; [ "$sig" = HUP ] && want=129
      [ "$rc" -eq "$want" ] || { echo "FAIL: $sig at $delay s: exit $rc, not $want: $(cat "$work/err")"; failures=$((failures + 1)); }
      # AddressSanitizer's builds warn (3 lines) when SimGrid switches stacks.
      sed -i '/^==[0-9]*==WARNING: ASan is ignoring requested __asan_handle_no_return/,+2d' "$work/err"
      said=$(cat "$work/err")
      case "$said" in
        "tracesim: "*" (SIG$sig) while writing $work/outputs/out: nothing of it was written"*|\
        "tracesim: "*" (SIG$sig) before writing anything") ;;
        # Before main() installed the handlers (AddressSanitizer's start-up
        # is slow): ended by the signal itself, with nothing to say or remove.
        "") [ -z "$left" ] || { echo "FAIL: $sig at $delay s: silent, and left $left"; failures=$((failures + 1)); } ;;
        *) echo "FAIL: $sig at $delay s: not the one line expected: $said"; failures=$((failures + 1)) ;;
      esac
      [ "$(wc -l < "$work/err")" -le 1 ] || { echo "FAIL: $sig at $delay s: more than one line: $said"; failures=$((failures + 1)); }
      # Interrupted after the output was renamed into place, it is complete;
      # before, nothing is there.
      if [ "$left" = "out " ]; then
        [ -f "$work/outputs/out/summary.json" ] || { echo "FAIL: $sig at $delay s: incomplete output left"; failures=$((failures + 1)); }
      elif [ -n "$left" ]; then
        echo "FAIL: $sig at $delay s: left behind: $left"; failures=$((failures + 1))
      fi
    fi
    # Each run on its own: what one left must not fail the next ones.
    rm -rf "$work/outputs/"* "$work/outputs/".??* "$work/tmp/"*
  done
done
[ "$interrupted" -gt 0 ] || { echo "FAIL: no run was interrupted (all finished in 0.1 s?)"; failures=$((failures + 1)); }
echo "$interrupted of 15 runs interrupted, $failures failures"
[ "$failures" -eq 0 ]
