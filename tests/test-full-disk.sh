#!/bin/sh
# A full disk: `tracesim run` writes its output into a small tmpfs, once for
# every size from 4 KiB up to what the output needs, so that the disk fills
# while writing the predicted trace, its manifest, waitstates.csv and
# summary.json in turn. Every run that cannot finish must exit 1 with one
# message naming the file (as the user knows it, not a temporary name) and
# "No space left on device", and leave nothing on the tmpfs. The run with
# room enough must succeed.
#
# The tmpfs is mounted in a user and mount namespace of the test's own
# (unshare -rm); where the system does not allow that, the test is skipped
# and says so.
set -u
builddir=${top_builddir:-.}
work=$builddir/tests/work/full-disk
rm -rf "$work" && mkdir -p "$work/mnt"
work=$(cd "$work" && pwd)
tracesim=$(cd "$builddir" && pwd)/tracesim

if ! unshare -rm sh -c "mount -t tmpfs -o size=4k tmpfs '$work/mnt' && umount '$work/mnt'" 2>"$work/why"; then
  echo "SKIP: cannot mount a tmpfs in a user namespace here: $(cat "$work/why")"
  exit 77
fi

"$builddir/ts-tracegen" stencil -o "$work/trace" --ranks 8 --iterations 50 >/dev/null || exit 1
"$tracesim" run "$work/trace/traces.otf2" -o "$work/ref" -q || { echo "FAIL: the reference run"; exit 1; }
# tmpfs counts whole pages: every file and directory of the output takes at
# least one, hence the margin.
need=$(( $(du -sk "$work/ref" | cut -f1) + 16 ))

cat > "$work/runs.sh" <<EOS
set -u
# AddressSanitizer's builds warn (3 lines) when SimGrid switches stacks.
asan_noise='/^==[0-9]*==WARNING: ASan is ignoring requested __asan_handle_no_return/,+2d'
k=4
while [ \$k -le $need ]; do
  mount -t tmpfs -o size=\${k}k tmpfs '$work/mnt' || exit 2
  '$tracesim' run '$work/trace/traces.otf2' -o '$work/mnt/out' -q > '$work/out' 2> '$work/err'
  echo "\$k \$? [\$(ls -A '$work/mnt' | tr '\n' ',')] \$(sed "\$asan_noise" '$work/err' | tr '\n' ' ')"
  umount '$work/mnt'
  k=\$((k + 4))
done
EOS
unshare -rm sh "$work/runs.sh" > "$work/results" 2>&1 || { echo "FAIL: $(cat "$work/results")"; exit 1; }

fail=0
full=0; trace=0; file=0
while read -r size rc left message; do
  case "$rc" in
    0) full=$((full + 1))
       [ "$left" = "[out,]" ] || { echo "FAIL: ${size}k: succeeded but left $left"; fail=1; } ;;
    1) [ "$left" = "[]" ] || { echo "FAIL: ${size}k: left $left"; fail=1; }
       case "$message" in
         "tracesim run: $work/mnt/out/"*": cannot write the trace: No space left on device")
           trace=$((trace + 1)) ;;
         "tracesim run: $work/mnt/out/"*": cannot write: No space left on device")
           file=$((file + 1)) ;;
         *) echo "FAIL: ${size}k: unclear message: $message"; fail=1 ;;
       esac ;;
    *) echo "FAIL: ${size}k: exit $rc: $message"; fail=1 ;;
  esac
done < "$work/results"
# The disk filled at least once in the trace and once in a file after it,
# and the largest tmpfs had room for everything.
[ "$trace" -gt 0 ] || { echo "FAIL: the disk never filled while writing the trace"; fail=1; }
[ "$file" -gt 0 ] || { echo "FAIL: the disk never filled while writing a file after the trace"; fail=1; }
[ "$full" -gt 0 ] || { echo "FAIL: no tmpfs had room for the whole output (${need}k)"; fail=1; }
echo "full disk: $trace runs stopped in the trace, $file in a later file, $full finished"
[ $fail -eq 0 ] || cat "$work/results"
exit $fail
