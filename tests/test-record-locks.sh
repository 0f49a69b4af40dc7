#!/bin/sh
# The recorder on OpenMP critical sections and locks (tests/mpi/omp.c critical,
# 2 ranks of 2 threads, GCC's libgomp): recorded on the thread that takes
# them as Score-P writes them (doc/recorder.md), replayed as locks
# (doc/threads.md, "Locks and critical sections"). Hand counts, per
# thread: 3 parallel regions, each with one critical section (ENTER
# "!$omp critical", THREAD_ACQUIRE_LOCK, THREAD_RELEASE_LOCK, LEAVE) and
# one omp_set_lock / omp_unset_lock pair: 6 acquisitions and 6 releases,
# on each of the 4 locations; 2 locks a rank (ids 1 and 2), each acquired
# 6 times a rank, in orders 0 to 5. Both threads reach each section
# together, so one waits for the other's: the trace has lock contention,
# and the identity replay, which orders the locks anew, predicts it too.
# Where clang and LLVM's runtime are installed, the same for the program
# built on them (its critical sections from OMPT's mutex callbacks).
# Where gfortran is, tests/mpi/locks.f90 (2 ranks of 2 threads, each thread
# taking one lock 3 times with omp_set_lock / omp_unset_lock from Fortran,
# which libgomp's omp_set_lock_ serves without calling the interposable
# omp_set_lock): 3 acquisitions and 3 releases on each of the 4 locations,
# the rank's one lock (id 1) acquired in orders 0 to 5, the regions named
# as C's routines (6 ENTERs of "omp_set_lock" a rank); the program prints
# "taken 6".
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
[ -x "$builddir/tests/mpi-omp" ] || { echo "SKIP: no OpenMP test program"; exit 77; }
value_ws() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["wait_states"])' "$1"; }
# locks NAME PROGRAM: PROGRAM's critical mode recorded as NAME and checked.
locks() {
  OMP_NUM_THREADS=2 record "$1" 2 "$2" critical
  grep -q "^critical done, 2 threads" "$work/$1.out" \
    || fail "the program's output: $(cat "$work/$1.out")"
  complete "$1"
  # Per location: acquisitions, releases.
  awk '$1 == "THREAD_ACQUIRE_LOCK" { a[$2]++ } $1 == "THREAD_RELEASE_LOCK" { r[$2]++ }
    END { for (l in a) print l, a[l], r[l] }' "$work/$1.print" | sort > "$work/per-location"
  printf '%s\n' "0 6 6" "1 6 6" "4294967296 6 6" "4294967297 6 6" | diff - "$work/per-location" > /dev/null \
    || fail "$1: acquisitions and releases per location: $(cat "$work/per-location")"
  # Per rank and lock, the acquisition orders 0 to 5.
  awk '$1 == "THREAD_ACQUIRE_LOCK" { split ($0, f, "Lock: "); split (f[2], g, ","); split ($0, o, "Acquisition Order: ");
    print $2 % 4294967296, g[1], o[2] + 0 }' "$work/$1.print" | sort -n -k1,1 -k2,2 -k3,3 \
    | awk '{ k = $1 " " $2; s[k] = s[k] " " $3 } END { for (k in s) print k ":" s[k] }' | sort \
    > "$work/orders"
  printf '%s\n' "0 1: 0 1 2 3 4 5" "0 2: 0 1 2 3 4 5" "1 1: 0 1 2 3 4 5" "1 2: 0 1 2 3 4 5" \
    | diff - "$work/orders" > /dev/null || fail "$1: acquisition orders: $(cat "$work/orders")"
  s=$work/$1-run/summary.json
  python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["wait_states"]
sys.exit(not (w["original"]["omp_lock_contention"] > 0 and w["predicted"]["omp_lock_contention"] > 0))' "$s" \
    || fail "$1: lock contention $(value_ws "$s")"
}
locks critical "$builddir/tests/mpi-omp"
# The same program built by clang on LLVM's runtime: its critical sections
# through OMPT's mutex callbacks (recorder/record-ompt.c), its lock
# routines through their entry points.
if [ -x "$builddir/tests/mpi-omp-llvm" ]; then
  locks critical-llvm "$builddir/tests/mpi-omp-llvm"
fi
if command -v gfortran > /dev/null; then
  if ldd "$lib" | grep -q libmpich; then fc=mpif90.mpich; else fc=mpifort.openmpi; fi
  "$fc" -fopenmp -o "$work/locks-f90.exe" "${top_srcdir:-.}/tests/mpi/locks.f90" 2> "$work/fc.err" \
    || fail "$fc: $(cat "$work/fc.err")"
  OMP_NUM_THREADS=2 record locks-f90 2 "$work/locks-f90.exe"
  grep -q "^taken 6" "$work/locks-f90.out" || fail "locks-f90: $(cat "$work/locks-f90.out")"
  complete locks-f90
  awk '$1 == "THREAD_ACQUIRE_LOCK" { a[$2]++ } $1 == "THREAD_RELEASE_LOCK" { r[$2]++ }
    END { for (l in a) print l, a[l], r[l] }' "$work/locks-f90.print" | sort > "$work/f90-per-location"
  printf '%s\n' "0 3 3" "1 3 3" "4294967296 3 3" "4294967297 3 3" \
    | diff - "$work/f90-per-location" > /dev/null \
    || fail "locks-f90: acquisitions and releases per location: $(cat "$work/f90-per-location")"
  awk '$1 == "THREAD_ACQUIRE_LOCK" { split ($0, f, "Lock: "); split (f[2], g, ","); split ($0, o, "Acquisition Order: ");
    print $2 % 4294967296, g[1], o[2] + 0 }' "$work/locks-f90.print" | sort -n -k1,1 -k2,2 -k3,3 \
    | awk '{ k = $1 " " $2; s[k] = s[k] " " $3 } END { for (k in s) print k ":" s[k] }' | sort \
    > "$work/f90-orders"
  printf '%s\n' "0 1: 0 1 2 3 4 5" "1 1: 0 1 2 3 4 5" | diff - "$work/f90-orders" > /dev/null \
    || fail "locks-f90: acquisition orders: $(cat "$work/f90-orders")"
  sets=$(grep -c '^ENTER .*"omp_set_lock"' "$work/locks-f90.print")
  [ "$sets" = 12 ] || fail "locks-f90: $sets ENTERs of omp_set_lock, not 12"
fi
echo "PASS: critical sections and locks recorded on every thread, their contention replayed"
