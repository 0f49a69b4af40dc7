#!/bin/sh
# Small enough to read: no function of the library, the recorder or the
# trace generator over 80 lines and no file over 800, unless a comment with
# "size-ok:" in the 3 lines before the function (or anywhere in the file)
# says why. Functions are found as written here (GNU style: the name at
# column 0, the braces at column 0; in C++, SimGrid's style: the type before
# the name on its line). Fails naming every one too long.
srcdir=${top_srcdir:-$(dirname "$0")/..}
status=0
for f in "$srcdir"/model/*.c "$srcdir"/calibrate/*.c "$srcdir"/hypotheses/*.c \
         "$srcdir"/sim/*.c "$srcdir"/sim/*.cpp "$srcdir"/analysis/*.c "$srcdir"/output/*.c \
         "$srcdir"/extrap/*.c "$srcdir"/pipeline/*.c "$srcdir"/cli/*.c "$srcdir"/recorder/*.c \
         "$srcdir"/tools/tracegen/*.c; do
  [ -f "$f" ] || continue
  name=${f#"$srcdir"/}
  lines=$(wc -l < "$f")
  if [ "$lines" -gt 800 ] && ! grep -q 'file-size-ok:' "$f"; then
    echo "$name: $lines lines (more than 800)"
    status=1
  fi
  long=$(awk -v file="$name" '
    { recent[NR % 4] = $0 }
    /^[a-zA-Z_][a-zA-Z0-9_]* *\(/ || (file ~ /\.cpp$/ && /^[a-zA-Z_][^;]*[a-zA-Z0-9_] *\(/) {
      fn = $0; sub(/ *\(.*/, "", fn); sub(/.*[ *&]/, "", fn)
      ok = 0; for (i = 1; i <= 3; i++) if (recent[(NR - i) % 4] ~ /size-ok:/) ok = 1
    }
    /^\{/ { start = NR }
    /^\}/ { if (start && NR - start + 1 > 80 && !ok)
              printf "%s:%d: %s is %d lines (more than 80)\n", file, start, fn, NR - start + 1
            start = 0 }' "$f")
  if [ -n "$long" ]; then
    echo "$long"
    status=1
  fi
done
[ $status -eq 0 ] && echo "sizes: no function over 80 lines, no file over 800"
exit $status
