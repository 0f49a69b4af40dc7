#!/bin/sh
# setup.sh on a machine where it installed everything already calls no
# apt-get (it listed "simgrid", which no Debian 12 source offers, so every
# run called apt-get update and install). The real setup.sh, copied into an
# empty scratch directory (so that whatever it does, it can build nothing
# here), runs with --packages-only and with stubs of apt-get and sudo first
# in PATH that write down every call. A package it wants that apt offers but
# this machine lacks skips the test (the machine is not fully installed);
# one that apt does not offer at all fails it, named.
set -u
srcdir=${top_srcdir:-.}
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-setup-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v dpkg-query > /dev/null || { echo "SKIP: not a Debian system (no dpkg-query)"; exit 77; }

mkdir "$work/bin" "$work/copy"
cp "$srcdir/setup.sh" "$work/copy/setup.sh"
for tool in apt-get sudo; do
  # Each call appended to calls.log; sudo runs the rest (the stub apt-get).
  cat > "$work/bin/$tool" <<EOS
#!/bin/sh
echo "$tool \$*" >> "$work/calls.log"
[ "$tool" = sudo ] && exec "\$@"
exit 0
EOS
  chmod +x "$work/bin/$tool"
done
[ "$(PATH=$work/bin:$PATH command -v apt-get)" = "$work/bin/apt-get" ] || fail "the stub is not first in PATH"

PATH=$work/bin:$PATH sh "$work/copy/setup.sh" --packages-only > "$work/out" 2>&1
rc=$?
if [ -s "$work/calls.log" ]; then
  # Which packages it wanted, and why each is not installed here.
  wanted=$(sed -n 's/^apt-get install -y -qq //p' "$work/calls.log" | tr ' ' '\n' | grep . | sort -u)
  unoffered= offered=
  for p in $wanted; do
    candidate=$(apt-cache policy "$p" 2> /dev/null | awk '/Candidate:/ { print $2 }')
    if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
      unoffered="$unoffered $p"
    else
      offered="$offered $p"
    fi
  done
  [ -z "$unoffered" ] || fail "setup.sh lists$unoffered, which no apt source offers (apt-cache policy: no candidate), so every run calls apt-get: $(cat "$work/calls.log")"
  [ -n "$wanted" ] || fail "setup.sh called apt-get without installing anything: $(cat "$work/calls.log")"
  echo "SKIP: this machine lacks$offered, which setup.sh installs"
  exit 77
fi
[ "$rc" -eq 0 ] || fail "setup.sh --packages-only exits $rc: $(cat "$work/out")"
# --packages-only built nothing in its directory.
[ "$(ls "$work/copy")" = "setup.sh" ] || fail "setup.sh --packages-only wrote $(ls "$work/copy")"
echo "PASS"
