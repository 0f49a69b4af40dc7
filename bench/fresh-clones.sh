#!/bin/sh
# The README's test command on fresh clones at paths of different lengths
# (issue 40: tests that failed only where the build path was long, a socket
# path over 108 bytes, or where a cache's bytes depended on the path).
# Usage: sh bench/fresh-clones.sh [REPO] [COMMIT]   (default: this checkout, HEAD)
# Clones REPO at COMMIT to three paths (a few characters, about 60, and
# 150), runs `sh setup.sh && make check` in each, one after the other, and
# prints a line per path: its length, PASS or FAIL, the suite's totals and
# the wall time. Needs root for /x; otherwise the short path is under $TMPDIR.
set -u
repo=${1:-$(git rev-parse --show-toplevel)}
commit=${2:-$(git -C "$repo" rev-parse HEAD)}
base=/x
mkdir -p "$base" 2>/dev/null || base=${TMPDIR:-/tmp}/x
long60=$(printf '%0.sd' $(seq 1 50))
long150=$(printf '%0.se' $(seq 1 145))
status=0
for path in "$base/t" "$base/$long60/tracesim" "$base/$long150/ts"; do
  rm -rf "$path"
  mkdir -p "$(dirname "$path")"
  git clone -q "$repo" "$path" && git -C "$path" checkout -q "$commit" || { echo "clone to $path failed"; exit 1; }
  start=$(date +%s)
  if (cd "$path" && sh setup.sh > setup.log 2>&1 && make check > check.log 2>&1); then r=PASS; else r=FAIL; status=1; fi
  totals=$(grep -E '^# (TOTAL|PASS|FAIL|ERROR|SKIP):' "$path/check.log" 2>/dev/null | tr -s ' ' | tr '\n' ' ')
  echo "path of ${#path} characters: $r in $(( $(date +%s) - start )) s: $totals"
  [ "$r" = PASS ] || grep -E '^(FAIL|ERROR):' "$path/check.log" 2>/dev/null
  [ "$r" = PASS ] && rm -rf "$path"
done
exit $status
