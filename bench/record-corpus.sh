#!/bin/sh
# Records the corpus of real, incomplete EZTrace 2.0 OTF2 traces that
# bench/corpus.sh replays: Debian's EZTrace (`eztrace -t openmpi` or
# `-t mpich`, `-o DIR`, which writes DIR/<progname>_trace/), every run
# oversubscribed on this 2-core machine, the same way as the traces in
# ../shared/traces/real (see its README.md). Installs nothing: it checks for
# its tools and stops if one is missing.
#
# What it records, at each rank count of RANKS, into CORPUS/<name>_np<N>/:
#   lammps_peptide_openmpi  lmp, examples/peptide/in.peptide, run 300 -> 60
#                           steps, thermo 50 -> 20 (PPPM, SHAKE)
#   lammps_melt_openmpi     lmp, examples/melt/in.melt, unchanged (250 steps)
#   lammps_crack_openmpi    lmp, examples/crack/in.crack, run 5000 -> 1000
#   hpcc_openmpi            hpcc, doc/hpcc/examples/_hpccinf.txt with
#                           N 1000 -> 200, NB 80 -> 40, P x Q = 2 x N/2
#   scalapack_lu_openmpi    ScaLAPACK's xdlu (scalapack-mpi-test), LU of
#   scalapack_lu_mpich      M = N = 400, NB 32, grid 2 x N/2, tests "F"
#   scalapack_qr_openmpi    ScaLAPACK's xdqr, QR only, M = N = 400,
#   scalapack_qr_mpich      MB = NB = 32, grid 2 x N/2
#   anysource_openmpi       bench/apps/anysource.c, built with mpicc.openmpi
#   anysource_mpich         and with mpicc.mpich
# Debian builds lammps and hpcc against Open MPI only, so they have no MPICH
# case (ScaLAPACK's drivers come built for both).
#
# Each case: RUNS untraced and RUNS traced runs, interleaved; wall time of
# the whole mpirun command. The trace of the median traced run is kept:
#   CORPUS/<case>/<progname>_trace/eztrace_log.otf2   the anchor file
#   CORPUS/<case>/inputs/                             input files used
#   CORPUS/<case>/timing.txt                          commands, times, medians
#   CORPUS/<case>/program_output_{untraced,traced}.log
# and CORPUS/index.md gets a table of all cases (anchor, size, events from
# otf2-print, median wall times). A case that fails leaves CORPUS/<case>/FAILED.
#
# Usage: bench/record-corpus.sh
# Environment:
#   CORPUS   output directory (default /work/corpus); cases in it are redone
#   RANKS    rank counts (default "4 8")
#   RUNS     untraced and traced runs per case (default 3)
#   ONLY     space-separated shell patterns of case names, e.g.
#            'anysource_* hpcc_*' (default: every case)
#   TIMEOUT  seconds allowed for one run (default 300)
#   LAMMPS_EXAMPLES (/usr/share/lammps/examples), HPCC_INPUT
#   (/usr/share/doc/hpcc/examples/_hpccinf.txt), SCALAPACK_TESTS
#   (/usr/lib/x86_64-linux-gnu/scalapack): where the Debian files are.
# Tools: eztrace, otf2-print, mpirun.openmpi, mpirun.mpich, mpicc.openmpi,
# mpicc.mpich, lmp, hpcc (Debian packages eztrace, otf2-tools, openmpi-bin,
# mpich, libopenmpi-dev, libmpich-dev, lammps, lammps-examples, hpcc,
# scalapack-mpi-test).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-/work/corpus}
RANKS=${RANKS:-4 8}
RUNS=${RUNS:-3}
ONLY=${ONLY:-*}
TIMEOUT=${TIMEOUT:-300}
LAMMPS_EXAMPLES=${LAMMPS_EXAMPLES:-/usr/share/lammps/examples}
HPCC_INPUT=${HPCC_INPUT:-/usr/share/doc/hpcc/examples/_hpccinf.txt}
SCALAPACK_TESTS=${SCALAPACK_TESTS:-/usr/lib/x86_64-linux-gnu/scalapack}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

missing=
for t in eztrace otf2-print mpirun.openmpi mpirun.mpich mpicc.openmpi mpicc.mpich \
         lmp hpcc timeout awk sed du; do
  command -v "$t" > /dev/null 2>&1 || missing="$missing $t"
done
for f in "$LAMMPS_EXAMPLES/peptide/in.peptide" "$LAMMPS_EXAMPLES/peptide/data.peptide" \
         "$LAMMPS_EXAMPLES/melt/in.melt" "$LAMMPS_EXAMPLES/crack/in.crack" "$HPCC_INPUT" \
         "$SCALAPACK_TESTS/openmpi-tests/xdlu" "$SCALAPACK_TESTS/mpich-tests/xdlu" \
         "$SCALAPACK_TESTS/openmpi-tests/xdqr" "$SCALAPACK_TESTS/mpich-tests/xdqr" \
         "$SRC/bench/apps/anysource.c"; do
  [ -e "$f" ] || missing="$missing $f"
done
[ -z "$missing" ] || { echo "record-corpus: missing:$missing" >&2; exit 1; }

mkdir -p "$CORPUS" || exit 1
CORPUS=$(cd "$CORPUS" && pwd)
BUILDDIR=$(mktemp -d "${TMPDIR:-/tmp}/record-corpus.XXXXXX") || exit 1
trap 'rm -rf "$BUILDDIR"' EXIT
for mpi in openmpi mpich; do
  mkdir -p "$BUILDDIR/$mpi"
  # named anysource so that EZTrace writes anysource_trace/
  "mpicc.$mpi" -O2 -o "$BUILDDIR/$mpi/anysource" "$SRC/bench/apps/anysource.c" \
    || { echo "record-corpus: mpicc.$mpi failed" >&2; exit 1; }
done

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
# sed SCRIPT IN OUT, failing when the output equals the input
shrink() {
  sed "$1" "$2" > "$3" || return 1
  if cmp -s "$2" "$3"; then
    echo "record-corpus: could not shrink $2 ($1)" >&2
    return 1
  fi
}

# inputs CASE NP DIR: put the case's input files in DIR
inputs() {
  case $1 in
    lammps_peptide_*)
      shrink 's/^run\t\t300$/run\t\t60/; s/^thermo\t\t50$/thermo\t\t20/' \
        "$LAMMPS_EXAMPLES/peptide/in.peptide" "$3/in.peptide" || return 1
      cp "$LAMMPS_EXAMPLES/peptide/data.peptide" "$3/" ;;
    lammps_melt_*)
      cp "$LAMMPS_EXAMPLES/melt/in.melt" "$3/" ;;
    lammps_crack_*)
      shrink 's/^run\t\t5000$/run\t\t1000/' "$LAMMPS_EXAMPLES/crack/in.crack" "$3/in.crack" ;;
    hpcc_*)
      shrink "s/^1000 \( *\)Ns/200  \1Ns/; s/^80 \( *\)NBs/40 \1NBs/;
              s/^2 \( *\)Qs/$(($2 / 2)) \1Qs/" "$HPCC_INPUT" "$3/hpccinf.txt" ;;
    scalapack_lu_*)
      cat > "$3/LU.dat" <<EOF
'SCALAPACK, LU factorization input file'
'MPI Machine'
'LU.out'		output file name (if any)
6			device out
1			number of problems sizes
400			values of M
400			values of N
1			number of NB's
32	 		values of NB
1			number of NRHS's
1			values of NRHS
1			Number of NBRHS's
1			values of NBRHS
1			number of process grids (ordered pairs of P & Q)
2			values of P
$(($2 / 2))			values of Q
1.0			threshold
F			(T or F) Test Cond. Est. and Iter. Ref. Routines
EOF
      ;;
    scalapack_qr_*)
      cat > "$3/QR.dat" <<EOF
'ScaLAPACK, Orthogonal factorizations input file'
'MPI machine'
'QR.out'			output file name (if any)
6				device out
1				number of factorizations
'QR'				factorizations: QR, QL, LQ, RQ, QP, TZ
1				number of problems sizes
400				values of M
400				values of N
1				number of blocking sizes
32				values of MB
32				values of NB
1				number of process grids (ordered pairs P & Q)
2				values of P
$(($2 / 2))				values of Q
5.0				threshold
EOF
      ;;
    anysource_*)
      cp "$SRC/bench/apps/anysource.c" "$3/" ;;
  esac
}

# program CASE: print the command (relative to the run directory) and the
# name EZTrace gives the trace directory, as "PROGNAME COMMAND..."
program() {
  case $1 in
    lammps_peptide_*) echo "lmp lmp -in in.peptide -log none" ;;
    lammps_melt_*) echo "lmp lmp -in in.melt -log none" ;;
    lammps_crack_*) echo "lmp lmp -in in.crack -log none" ;;
    hpcc_*) echo "hpcc hpcc" ;;
    scalapack_lu_openmpi) echo "xdlu $SCALAPACK_TESTS/openmpi-tests/xdlu" ;;
    scalapack_lu_mpich) echo "xdlu $SCALAPACK_TESTS/mpich-tests/xdlu" ;;
    scalapack_qr_openmpi) echo "xdqr $SCALAPACK_TESTS/openmpi-tests/xdqr" ;;
    scalapack_qr_mpich) echo "xdqr $SCALAPACK_TESTS/mpich-tests/xdqr" ;;
    anysource_openmpi) echo "anysource $BUILDDIR/openmpi/anysource" ;;
    anysource_mpich) echo "anysource $BUILDDIR/mpich/anysource" ;;
  esac
}

# record CASE MPI NP
record() {
  name=${1}_np$3
  d=$CORPUS/$name
  rm -rf "$d"
  mkdir -p "$d/inputs" "$d/.run"
  inputs "$1" "$3" "$d/inputs" || { echo "inputs" > "$d/FAILED"; return 1; }
  # shellcheck disable=SC2046 # split into progname and command words
  set -- "$1" "$2" "$3" $(program "$1")
  mpi=$2 np=$3 progname=$4
  shift 4
  if [ "$mpi" = openmpi ]; then
    launch="mpirun.openmpi --oversubscribe -np $np"
  else
    launch="mpirun.mpich -np $np"
  fi
  {
    echo "# $name  $(date -u +%Y-%m-%dT%H:%M:%SZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  $(nproc) cores"
    echo "# run directory: a copy of inputs/"
    echo "# untraced: $launch $*"
    echo "# traced:   $launch eztrace -t $mpi -o <outdir> $*"
  } > "$d/timing.txt"
  echo "== $name" >&2
  i=1
  while [ "$i" -le "$RUNS" ]; do
    for kind in untraced traced; do
      rm -rf "$d/.run/cwd"
      cp -r "$d/inputs" "$d/.run/cwd"
      l=$(load)
      t0=$(now)
      # shellcheck disable=SC2086 # $launch is split into words
      if [ "$kind" = untraced ]; then
        (cd "$d/.run/cwd" && timeout "$TIMEOUT" $launch "$@") > "$d/.run/$kind$i.log" 2>&1
      else
        (cd "$d/.run/cwd" && timeout "$TIMEOUT" $launch eztrace -t "$mpi" -o "$d/.run/trace$i" "$@") \
          > "$d/.run/$kind$i.log" 2>&1
      fi
      rc=$?
      t1=$(now)
      [ -f "$d/.run/cwd/hpccoutf.txt" ] && cat "$d/.run/cwd/hpccoutf.txt" >> "$d/.run/$kind$i.log"
      echo "$kind $i $(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }') rc=$rc load=$l" >> "$d/timing.txt"
    done
    i=$((i + 1))
  done
  rm -rf "$d/.run/cwd"
  for kind in untraced traced; do
    grep "^$kind .* rc=0 " "$d/timing.txt" | sort -k3,3g | awk -v k="$kind" '
      { t[NR] = $3; r[NR] = $2 }
      END { if (NR == 0) { print "MEDIAN " k " none (no run succeeded)"; exit }
            m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
            printf "MEDIAN %s %.3f s (min %.3f max %.3f n=%d) run %d\n", k, m, t[1], t[NR], NR, r[int((NR + 1) / 2)] }'
  done > "$d/.run/medians"
  cat "$d/.run/medians" >> "$d/timing.txt"
  keep=$(sed -n 's/^MEDIAN untraced .* run \([0-9]*\)$/\1/p' "$d/timing.txt")
  [ -n "$keep" ] && cp "$d/.run/untraced$keep.log" "$d/program_output_untraced.log"
  keep=$(sed -n 's/^MEDIAN traced .* run \([0-9]*\)$/\1/p' "$d/timing.txt")
  if [ -z "$keep" ] || [ ! -f "$d/.run/trace$keep/${progname}_trace/eztrace_log.otf2" ]; then
    cp "$d/.run/traced$RUNS.log" "$d/program_output_traced.log"
    echo "no traced run succeeded: $(tail -c 300 "$d/program_output_traced.log")" > "$d/FAILED"
    rm -rf "$d/.run"
    echo "   FAILED: see $d/FAILED" >&2
    return 1
  fi
  echo "kept: the trace of traced run $keep (the median)" >> "$d/timing.txt"
  cp "$d/.run/traced$keep.log" "$d/program_output_traced.log"
  mv "$d/.run/trace$keep/${progname}_trace" "$d/"
  rm -rf "$d/.run"
  tail -3 "$d/timing.txt" | sed 's/^/   /' >&2
}

# index: a markdown table of every recorded case in CORPUS
index() {
  echo "| anchor | program | MPI | ranks | size | events | untraced median s | traced median s |"
  echo "|---|---|---|---|---|---|---|---|"
  for anchor in "$CORPUS"/*/*_trace/eztrace_log.otf2; do
    [ -f "$anchor" ] || continue
    d=$(dirname "$(dirname "$anchor")")
    name=$(basename "$d")
    np=${name##*_np}
    rest=${name%_np*}
    mpi=${rest##*_}
    prog=${rest%_*}
    size=$(du -sh "$(dirname "$anchor")" | cut -f1)
    events=$(otf2-print "$anchor" 2> /dev/null | awk '$2 ~ /^[0-9]+$/ && $1 ~ /^[A-Z][A-Z_0-9]*$/' | wc -l)
    u=$(sed -n 's/^MEDIAN untraced \([0-9.]*\) s.*/\1/p' "$d/timing.txt")
    t=$(sed -n 's/^MEDIAN traced \([0-9.]*\) s.*/\1/p' "$d/timing.txt")
    echo "| ${anchor#"$CORPUS"/} | $prog | $mpi | $np | $size | $events | ${u:--} | ${t:--} |"
  done
}

failed=0
set -f   # ONLY holds patterns
for np in $RANKS; do
  for c in lammps_peptide:openmpi lammps_melt:openmpi lammps_crack:openmpi hpcc:openmpi \
           scalapack_lu:openmpi scalapack_lu:mpich scalapack_qr:openmpi scalapack_qr:mpich \
           anysource:openmpi anysource:mpich; do
    case_=${c%:*}_${c#*:}
    selected=no
    for pat in $ONLY; do
      # shellcheck disable=SC2254
      case $case_ in $pat) selected=yes ;; esac
    done
    [ "$selected" = yes ] || continue
    record "$case_" "${c#*:}" "$np" || failed=$((failed + 1))
  done
done
set +f
index > "$CORPUS/index.md"
cat "$CORPUS/index.md"
echo "$failed case(s) failed"
[ "$failed" -eq 0 ]
