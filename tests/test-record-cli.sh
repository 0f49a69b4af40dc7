#!/bin/sh
# tracesim-record's own command line, without MPI: --help and --version
# answer and exit 0 (they ran the word as a program and exited 127), an
# unknown option or a missing -o argument before PROGRAM is a usage error
# (exit 2, naming it) that runs nothing.
set -u
builddir=${top_builddir:-.}
script=$builddir/recorder/tracesim-record
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-record-cli.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

sh "$script" --help > "$work/help" 2> "$work/help.err" || fail "--help exits $?: $(cat "$work/help.err")"
[ ! -s "$work/help.err" ] || fail "--help wrote to stderr: $(cat "$work/help.err")"
grep -q "^Usage: tracesim-record \[OPTION...\] PROGRAM \[ARGS...\]" "$work/help" \
  || fail "--help has no usage line: $(head -3 "$work/help")"
# Every option the script parses, and every variable it or the library reads.
for word in "-o, --output DIR" "--cpu-time" "-h, --help" "-V, --version" \
  TS_RECORD_LIB TS_RECORD_LIBDIR TS_RECORD_CPU_TIME TS_RECORD_EXCLUDE TS_RECORD_CLOCK_SYNC \
  traces.otf2 "Exit status"; do
  grep -q -e "$word" "$work/help" || fail "--help does not mention '$word'"
done
sh "$script" -h | cmp -s - "$work/help" || fail "-h differs from --help"

# --version: the package's version, which tracesim --version prints too
# ("tracesim X.Y"), so configure's is the one substituted.
sh "$script" --version > "$work/version" || fail "--version exits $?"
expected="tracesim-record (tracesim) $("$builddir/tracesim" --version | sed 's/^tracesim //')"
[ "$(cat "$work/version")" = "$expected" ] || fail "--version says '$(cat "$work/version")', not '$expected'"
sh "$script" -V | cmp -s - "$work/version" || fail "-V differs from --version"

# usage_error ARGS...: exit 2, the message names what is wrong, the
# program (touch) not run.
usage_error() {
  expect=$1
  shift
  sh "$script" "$@" > "$work/out" 2> "$work/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "'$*' exits $rc, not 2: $(cat "$work/err")"
  grep -q -e "$expect" "$work/err" || fail "'$*': the message does not say '$expect': $(cat "$work/err")"
  [ ! -e "$work/ran" ] || fail "'$*' ran the program"
}
usage_error "unknown option '--bogus'" --bogus touch "$work/ran"
usage_error "unknown option '-x'" -o "$work/t" -x touch "$work/ran"
usage_error "-o needs a directory" -o
usage_error "no PROGRAM given" --cpu-time
echo "PASS"
