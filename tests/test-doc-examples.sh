#!/bin/sh
# Every example of README and doc/*.md, run as written (issue 40): the
# commands are taken from the documents by tests/doc-examples.py, whose
# header says what counts as an example and declares every substitution
# and every example not run here, with its reason. doc/sweeps.md is run by
# tests/test-sweep-doc.sh, which also checks what its examples did.
set -u
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
# A sanitizer build cannot preload its instrumented recorder ahead of the
# sanitizer runtime (tests/test-record.sh skips there too): the documents
# that record are not run, and say so; the plain build runs them.
if ldd "$builddir/.libs/libtracesim-record.so" 2> /dev/null | grep -q -e libasan -e libubsan; then
  MPIEXEC=
fi
exec python3 "$srcdir/tests/doc-examples.py" "$srcdir" "$builddir" --skip doc/sweeps.md
