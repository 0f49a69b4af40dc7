# Sourced by the shell tests (. "${top_srcdir:-.}/tests/lib.sh", then
# fresh_work NAME): the build's tools, a work directory of the test's own,
# and the helpers every test asserts with.
set -u
builddir=${top_builddir:-.}
tracesim=$builddir/tracesim
# fresh_work NAME: $work is tests/work/NAME of the build, emptied.
fresh_work() { work=$builddir/tests/work/$1; rm -rf "$work" && mkdir -p "$work"; }
fail() { echo "FAIL: $*"; exit 1; }
# value FILE EXPR: a Python expression of the JSON document s in FILE, as repr()
value() { python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(repr(eval(sys.argv[2])))' "$1" "$2"; }
# near A B TOL: |A - B| <= TOL
near() { python3 -c 'import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t)' "$1" "$2" "$3"; }
