#!/bin/sh
# Recording again into one -o (tests/mpi/halo.c, 2 ranks, MPICH's
# launcher): tracesim-record's own earlier recording is moved aside to
# DIR-YYYYMMDD_HHMMSS, kept whole, and the new one written (it ran the whole
# program, then failed "cannot create the OTF2 archive (is the directory
# writable?)"); a directory holding anything else is refused on every rank
# before the program starts and left as it was; the library alone (no
# script) leaves it too and says why. A start that fails after the move
# says where the earlier recording went and leaves no archive behind; a -o
# that is a symbolic link keeps leading to the new recording. Skipped (77)
# without MPI.
. "${top_srcdir:-.}/tests/test-record-lib.sh"
prog=$builddir/tests/mpi-halo
[ -x "$prog" ] || { echo "SKIP: tests/mpi-halo not built"; exit 77; }
# launch NAME [ENV...]: halo under tracesim-record into $to ($work/t
# unless set); its exit status in $work/NAME.rc, output and errors in .out
# and .err.
to=$work/t
launch() {
  name=$1
  shift
  env TS_RECORD_LIB="$lib" "$@" "$MPIEXEC" -n 2 sh "$builddir/recorder/tracesim-record" \
    -o "$to" "$prog" > "$work/$name.out" 2> "$work/$name.err"
  echo $? > "$work/$name.rc"
}
# sums DIR: a checksum of every file under DIR, by name.
sums() { (cd "$1" && find . -type f | sort | xargs cksum); }

# An empty directory is used as it is.
mkdir "$work/t"
launch first
[ "$(cat "$work/first.rc")" -eq 0 ] || fail "into an empty directory: $(cat "$work/first.err")"
grep -q "^sum " "$work/first.out" || fail "the program's output is missing"
[ -f "$work/t/traces.otf2" ] || fail "no archive in the empty directory"
grep -q "^Recorded by tracesim-record " "$work/t/tracesim-record.txt" || fail "no marker written"
grep -q "^ranks: 2$" "$work/t/tracesim-record.txt" || fail "the marker: $(cat "$work/t/tracesim-record.txt")"
grep -q "^MPI library: MPICH Version: [0-9]" "$work/t/tracesim-record.txt" \
  || fail "the marker does not name MPICH: $(cat "$work/t/tracesim-record.txt")"
sums "$work/t" > "$work/first.sums"
# The marker's time is the first recording's start, which names it aside.
aside=$work/t-$(date -r "$work/t/tracesim-record.txt" +%Y%m%d_%H%M%S)

# Again: the first recording moves aside, byte for byte, and the new one
# is complete. Its name is the first's start (the marker's time), said
# on stderr by rank 0 alone.
launch second
[ "$(cat "$work/second.rc")" -eq 0 ] || fail "recording again failed: $(cat "$work/second.err")"
grep -q "^sum " "$work/second.out" || fail "the program's output is missing the second time"
[ "$(ls -d "$work"/t-* | wc -l)" -eq 1 ] && [ -d "$aside" ] \
  || fail "expected the first recording in $aside: $(ls "$work")"
[ "$(grep -c "held an earlier recording: moved to $aside$" "$work/second.err")" -eq 1 ] \
  || fail "the move is not said once: $(cat "$work/second.err")"
sums "$aside" | cmp -s - "$work/first.sums" || fail "the first recording changed when moved aside"
"$builddir/tracesim" info --no-replay "$work/t/traces.otf2" > "$work/second.info" || fail "info on the second"
grep -Eq "missing +0 calls" "$work/second.info" || fail "the second recording: $(cat "$work/second.info")"
sums "$work/t" | cmp -s - "$work/first.sums" && fail "the second recording is the first"

# A file the user put there: refused on both ranks before the program
# starts (no output of it), exit 1, the directory as it was, nothing moved.
echo "my notes" > "$work/t/notes.txt"
sums "$work/t" > "$work/third.sums"
launch third
[ "$(cat "$work/third.rc")" -ne 0 ] || fail "a directory holding notes.txt was accepted"
[ "$(grep -c "tracesim-record: $work/t holds notes.txt, which tracesim-record did not write; nothing run" \
  "$work/third.err")" -eq 2 ] || fail "expected the refusal on each rank: $(cat "$work/third.err")"
[ ! -s "$work/third.out" ] || fail "the program ran: $(cat "$work/third.out")"
sums "$work/t" | cmp -s - "$work/third.sums" || fail "the refused directory changed"
[ "$(ls -d "$work"/t-* | wc -l)" -eq 1 ] || fail "a refused directory was moved: $(ls "$work")"

# The library alone (linked or preloaded without the script) checks too:
# the program runs unrecorded, rank 0 says what is there, nothing changes.
TS_RECORD_DIR=$work/t LD_PRELOAD=$lib "$MPIEXEC" -n 2 "$prog" > "$work/lib.out" 2> "$work/lib.err"
grep -q "^sum " "$work/lib.out" || fail "the program did not run under the library alone"
grep -q "rank 0: $work/t holds notes.txt, which tracesim-record did not write" "$work/lib.err" \
  || fail "the library does not say why: $(cat "$work/lib.err")"
grep -q "writable" "$work/lib.err" && fail "the wrong hint: $(cat "$work/lib.err")"
sums "$work/t" | cmp -s - "$work/third.sums" || fail "the library changed the directory"

# An OTF2 archive without the marker (another tool's, or the recorder's
# before it wrote one): refused too, named.
rm "$work/t/notes.txt" "$work/t/tracesim-record.txt"
launch fourth
[ "$(cat "$work/fourth.rc")" -ne 0 ] || fail "an archive without the marker was accepted"
grep -q "holds an OTF2 archive (traces[.a-z0-9]*) without tracesim-record.txt" "$work/fourth.err" \
  || fail "$(cat "$work/fourth.err")"
[ ! -s "$work/fourth.out" ] || fail "the program ran on an unmarked archive"
TS_RECORD_DIR=$work/t LD_PRELOAD=$lib "$MPIEXEC" -n 2 "$prog" > "$work/lib2.out" 2> "$work/lib2.err"
grep -q "rank 0: $work/t holds an OTF2 archive without tracesim-record.txt" "$work/lib2.err" \
  || fail "the library on an unmarked archive: $(cat "$work/lib2.err")"

# Opening the archive fails after the move: tests/mpi/fail-open.c makes
# rank 1's last step of it fail (EMFILE, strerror "Too many open files")
# once rank 0 has made f/ and f/traces/. Rank 0 still says where the
# earlier recording went; rank 1 gives its own reason, not "already holds
# one" for the traces/ rank 0 made in this same run; and rank 0 removes
# what the run made of the archive, so that the next recording into f is
# not refused as an archive without the marker.
shim=$builddir/tests/.libs/libts-fail-open.so
[ -f "$shim" ] || fail "$shim is not built (make check builds it)"
to=$work/f
launch fail1
[ "$(cat "$work/fail1.rc")" -eq 0 ] || fail "into f: $(cat "$work/fail1.err")"
sums "$work/f" > "$work/fail1.sums"
faside=$work/f-$(date -r "$work/f/tracesim-record.txt" +%Y%m%d_%H%M%S)
launch fail2 LD_PRELOAD="$shim" TS_TEST_FAIL_OPEN_RANK=1 LC_ALL=C
# The program ran and succeeded, no trace was written: 3 (the script's).
[ "$(cat "$work/fail2.rc")" -eq 3 ] || fail "a failed open: rc $(cat "$work/fail2.rc"): $(cat "$work/fail2.err")"
grep -q "^sum " "$work/fail2.out" || fail "the program did not run after a failed open"
[ "$(grep -c "tracesim-record: $work/f held an earlier recording: moved to $faside$" "$work/fail2.err")" -eq 1 ] \
  || fail "a failed open does not say where the earlier recording went: $(cat "$work/fail2.err")"
sums "$faside" | cmp -s - "$work/fail1.sums" || fail "the earlier recording changed when moved aside"
grep -q "^tracesim-record: rank 1: cannot create the OTF2 archive in $work/f: Too many open files;" \
  "$work/fail2.err" || fail "rank 1 does not give its reason: $(cat "$work/fail2.err")"
grep -q "already holds" "$work/fail2.err" && fail "blamed an archive of this run: $(cat "$work/fail2.err")"
grep -q "^tracesim-record: rank 0: another rank cannot create the OTF2 archive;" "$work/fail2.err" \
  || fail "rank 0: $(cat "$work/fail2.err")"
[ -d "$work/f" ] && [ -z "$(ls -A "$work/f")" ] \
  || fail "the failed open left its archive: $(ls -AR "$work/f")"
launch fail3
[ "$(cat "$work/fail3.rc")" -eq 0 ] || fail "recording after a failed open: $(cat "$work/fail3.err")"
[ -f "$work/f/traces.otf2" ] || fail "no archive after a failed open"
[ "$(ls -d "$work"/f-* | wc -l)" -eq 1 ] || fail "f (empty) was moved: $(ls "$work")"

# -o a symbolic link to a directory (trace -> /scratch/me/trace): the
# recording it leads to is moved aside beside the target (real-STAMP), not
# the link, and the new one lands in the target again, where the link
# still leads.
mkdir "$work/real"
ln -s real "$work/link"
to=$work/link
launch link1
[ "$(cat "$work/link1.rc")" -eq 0 ] || fail "into a linked directory: $(cat "$work/link1.err")"
[ -f "$work/real/traces.otf2" ] || fail "the first recording is not in the link's target"
sums "$work/real" > "$work/link1.sums"
# The target's own path (pwd -P: $work's may lead through links too),
# stamped with the first recording's start, as above.
raside=$(cd "$work/real" && pwd -P)-$(date -r "$work/real/tracesim-record.txt" +%Y%m%d_%H%M%S)
launch link2
[ "$(cat "$work/link2.rc")" -eq 0 ] || fail "again into a linked directory: $(cat "$work/link2.err")"
[ -L "$work/link" ] && [ "$(readlink "$work/link")" = real ] \
  || fail "the link was moved or replaced: $(ls -l "$work")"
[ -z "$(ls -d "$work"/link-* 2> /dev/null)" ] || fail "the link was moved aside: $(ls -l "$work")"
[ -d "$raside" ] || fail "expected the first recording in $raside: $(ls -l "$work")"
sums "$raside" | cmp -s - "$work/link1.sums" || fail "the first recording changed when moved aside"
[ -f "$work/real/traces.otf2" ] || fail "the new recording is not in the link's target"
sums "$work/real" | cmp -s - "$work/link1.sums" && fail "the link's target holds the first recording"
[ "$(grep -c "held an earlier recording: moved to $raside$" "$work/link2.err")" -eq 1 ] \
  || fail "the move is not said once: $(cat "$work/link2.err")"
echo "PASS"
