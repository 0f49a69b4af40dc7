#!/bin/sh
# The fuzz targets (tests/fuzz/README) on their seed corpora and on every
# hostile input of tests/hostile/, once each; then, where clang's libFuzzer
# built them (HAVE_LIBFUZZER), a bounded fuzzing run of each: a few thousand
# new inputs, failing on any crash, hang (10 s), memory over 2 GiB or broken
# promise about errors (the targets' g_error()).
set -u
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
runs=${TS_FUZZ_RUNS:-3000}
work=$builddir/tests/work/fuzz
rm -rf "$work" && mkdir -p "$work"
fail=0

seeds_trace="$srcdir/tests/fuzz/corpus/trace"
seeds_hypotheses="$srcdir/tests/fuzz/corpus/hypotheses $(ls "$srcdir"/tests/hostile/hyp-*.hyp | tr '\n' ' ')"
seeds_platform="$srcdir/tests/fuzz/corpus/platform $srcdir/scenarios/platforms \
$(ls "$srcdir"/tests/hostile/platform-*.xml | tr '\n' ' ')"

# One fuzzing run, as doc/fuzzing.md runs them for 30 minutes: a hang is an
# input that takes 10 s, memory is bounded by the RSS limit (2 GiB) and,
# in tracesim's own process, by the targets' allocation hook (256 MiB).
# libFuzzer's own malloc limit is off: it would also fire in the children
# tracesim forks to try what may blow up (the anchor probe), which are
# bounded by their own limits instead. A small quarantine keeps the process
# small, so that those forks stay cheap (20 ms a fork at 360 MB). OTF2 leaks
# a file handle when it refuses a file (tests/fuzz/lsan.supp). OTF2 trusts
# an event's array count and allocates it (17 GB for one corrupt metric
# record): glibc hands back untouched pages and OTF2 then refuses the
# record, but AddressSanitizer poisons the shadow of all of it (2 GB
# resident); allocations above 4 GiB fail here, as OTF2 expects.
run_fuzzer() {
  fuzzer=$1; shift
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=4096:quarantine_size_mb=16:malloc_context_size=10 \
  LSAN_OPTIONS=suppressions=$srcdir/tests/fuzz/lsan.supp:print_suppressions=0 \
  "$fuzzer" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1000000 -max_total_time=600 \
    -artifact_prefix="$work/$(basename "$fuzzer")-" -print_final_stats=1 "$@"
}

for target in trace hypotheses platform; do
  eval "seeds=\$seeds_$target"
  # The corpora replayed by the build of the project's own compiler.
  # shellcheck disable=SC2086
  if ! "$builddir/tests/fuzz/fuzz-$target" $seeds >"$work/$target.replay" 2>&1; then
    echo "FAIL: fuzz-$target on its corpus:"; tail -20 "$work/$target.replay"; fail=1
  else
    cat "$work/$target.replay"
  fi
  fuzzer=$builddir/tests/fuzz/libfuzzer/fuzz-$target
  if [ "${HAVE_LIBFUZZER:-no}" != yes ]; then
    continue
  fi
  if [ ! -x "$fuzzer" ]; then
    echo "FAIL: $fuzzer was not built (make fuzz)"; fail=1; continue
  fi
  # New inputs go to a scratch corpus (the first directory), never into
  # the source tree; a finding is written as $work/<target>-crash-* and the
  # like. libFuzzer takes directories: the seeds are copied into one.
  mkdir -p "$work/$target.new" "$work/$target.seeds"
  for s in $seeds; do
    if [ -d "$s" ]; then cp "$s"/* "$work/$target.seeds/"; else cp "$s" "$work/$target.seeds/"; fi
  done
  if ! run_fuzzer "$fuzzer" -runs="$runs" "$work/$target.new" "$work/$target.seeds" \
       >"$work/$target.fuzz" 2>&1; then
    echo "FAIL: fuzz-$target found something (input: $work/$target-*):"
    grep -v '^#[0-9]' "$work/$target.fuzz" | tail -40; fail=1
  else
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done' "$work/$target.fuzz" \
      | sed "s|^|fuzz-$target: |"
  fi
done
[ "${HAVE_LIBFUZZER:-no}" = yes ] || echo "libFuzzer not available: corpora replayed, nothing fuzzed (install clang)"
exit $fail
