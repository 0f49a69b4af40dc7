#!/bin/sh
# setup.sh installs only what is missing, and calls no apt-get at all when
# nothing is (it listed "simgrid", which no Debian 12 source offers, so
# every run called apt-get update and install). The real setup.sh, copied
# into an empty scratch directory (so that it can build nothing here), runs
# with --packages-only and stubs first in PATH: apt-get and sudo write
# down every call; dpkg-query answers as a machine would.
# 1. dpkg-query says every package is installed: no call at all.
# 2. It says one package (the list's last, chromium) is missing: exactly
#    one "apt-get update" and one "apt-get install ... chromium".
# 3. Every name setup.sh lists is a package apt offers here (apt-cache
#    policy shows a candidate); skipped where apt's lists are empty (then
#    nothing has a candidate, bash included).
set -u
srcdir=${top_srcdir:-.}
# Nothing of tracesim's C runs here: the sanitized build (CI's last phase)
# has nothing to find, and the plain build's suite runs this.
if ldd "${top_builddir:-.}/tracesim" 2>/dev/null | grep -q -e libasan -e libubsan; then
  echo "SKIP: sanitizer build (setup.sh runs no C code)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-setup-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$work/bin" "$work/copy"
cp "$srcdir/setup.sh" "$work/copy/setup.sh"
for tool in apt-get sudo; do
  cat > "$work/bin/$tool" <<EOS
#!/bin/sh
echo "$tool \$*" >> "$work/calls.log"
[ "$tool" = sudo ] && exec "\$@"
exit 0
EOS
  chmod +x "$work/bin/$tool"
done
# dpkg-query -W -f='${Status}' NAME: installed unless NAME is in $MISSING.
cat > "$work/bin/dpkg-query" <<'EOS'
#!/bin/sh
for a in "$@"; do name=$a; done
case " ${MISSING:-} " in *" $name "*) exit 1 ;; esac
printf 'install ok installed'
EOS
chmod +x "$work/bin/dpkg-query"
[ "$(PATH=$work/bin:$PATH command -v apt-get)" = "$work/bin/apt-get" ] || fail "the stub is not first in PATH"

# 1. Everything installed.
PATH=$work/bin:$PATH sh "$work/copy/setup.sh" --packages-only > "$work/out" 2>&1 \
  || fail "setup.sh --packages-only exits $?: $(cat "$work/out")"
[ ! -s "$work/calls.log" ] || fail "with every package installed, setup.sh called: $(cat "$work/calls.log")"
[ "$(ls "$work/copy")" = "setup.sh" ] || fail "setup.sh --packages-only wrote $(ls "$work/copy")"

# 2. One package missing.
MISSING=chromium PATH=$work/bin:$PATH sh "$work/copy/setup.sh" --packages-only > "$work/out" 2>&1 \
  || fail "setup.sh --packages-only exits $? with chromium missing: $(cat "$work/out")"
calls=$(sed 's/^sudo //' "$work/calls.log" | grep -c '^apt-get')
[ "$calls" -eq 2 ] || fail "expected apt-get update and install, got: $(cat "$work/calls.log")"
grep -q '^apt-get update' "$work/calls.log" || fail "no apt-get update: $(cat "$work/calls.log")"
grep -Eq '^(sudo )?apt-get install .* chromium$' "$work/calls.log" \
  || fail "chromium not installed alone: $(cat "$work/calls.log")"
[ "$(grep '^apt-get install' "$work/calls.log" | wc -w)" -eq 5 ] \
  || fail "more than chromium installed: $(cat "$work/calls.log")"

# 3. Every listed name is a package apt offers.
candidate() { apt-cache policy "$1" 2> /dev/null | awk '/Candidate:/ { print $2 }'; }
if ! command -v apt-cache > /dev/null || [ -z "$(candidate bash)" ] || [ "$(candidate bash)" = "(none)" ]; then
  echo "PASS (1, 2); 3 skipped: apt's package lists are empty here"
  exit 0
fi
pkgs=$(sed -n '/^PKGS="/,/"$/p' "$srcdir/setup.sh" | sed 's/^PKGS="//; s/"$//; s/\\$//' | tr -s ' \n' '\n')
[ -n "$pkgs" ] || fail "no PKGS= list in setup.sh"
for p in $pkgs; do
  c=$(candidate "$p")
  { [ -n "$c" ] && [ "$c" != "(none)" ]; } || fail "setup.sh lists $p, which no apt source offers (apt-cache policy: no candidate)"
done
echo "PASS"
