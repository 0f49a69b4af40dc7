#!/bin/sh
# Rank-count extrapolation against real runs (doc/extrapolation.md): each
# program is recorded with tracesim-record at 1, 2, 4 and 8 ranks (Open MPI,
# oversubscribed on this machine), the 8-rank trace is extrapolated from the
# 1-, 2- and 4-rank traces and compared with the real one: partners and
# messages per rank, bytes, compute, and the replayed runtime of each on one
# platform (calibrated from the real 8-rank trace).
#
# LAMMPS and HPCC compute: they are recorded with --cpu-time and their
# compute is their CPU time (extrapolate, --compare and the real trace's
# replay with --cpu-time): on this 2-core machine 4 and 8 ranks share the
# cores, which stretches wall-clock compute (bench/cpu-time.sh), and the
# question is the run with a core per rank. The stencil sleeps instead of
# computing for the same reason; its compute is its wall time.
#
# Programs: bench/apps/stencil2d.c (a 2-D periodic halo exchange whose
# scaling is known by construction) strong and weak; LAMMPS's melt on a 2-D
# process grid (bench/apps/in.melt.scaling), the fixed problem and the one
# scaled with the ranks; HPCC; meep, an FDTD code (bench/apps/fdtd-periodic.ctl,
# a fixed cell; Debian's meep-openmpi); mpgrafic, Fortran cosmological
# initial conditions on a 128^3 grid (FFTW 2's MPI transposes; Debian's
# mpgrafic, its example input), extrapolated with --all-to-all: an FFT's
# transposes exchange with every rank at any P. NAS Parallel Benchmarks
# (NPB 3.4's MPI FT, MG, CG and LU at class S, built beside the project
# from the public sources into NPB_BIN with the MPI library MPIRUN and
# TS_RECORD_LIB belong to; not committed): run them with
#   SERIES="npb-ft npb-mg npb-cg npb-lu" INPUTS="1 2 4 8" TARGET=16 \
#   NPB_BIN=.../NPB3.4-MPI/bin MPIRUN=mpiexec.mpich MPIRUN_FLAGS= \
#   TS_RECORD_LIB=.libs/libtracesim-record.so bench/extrapolation.sh
# MG's grid is periodic, LU's open (extrapolate --boundaries). LULESH
# (LLNL's public 2.0 source, built with MPI and without OpenMP into
# LULESH, 6^3 elements a rank, 20 iterations) needs cubes:
#   SERIES=lulesh INPUTS="1 8 27" TARGET=64 LULESH=.../lulesh2.0 \
#   MPIRUN=mpiexec.mpich MPIRUN_FLAGS= TS_RECORD_LIB=... bench/extrapolation.sh
# HPCG (its public 3.1 source, MPI without OpenMP, into HPCG; 16^3 a rank,
# one set: --rt=0) from 2, 4 and 8 ranks (its serial run calls
# MPI_Allreduce 549 times, the others 555) to 16; its grid numbers x
# fastest: --grid-order largest-last.
#   SERIES=hpcg INPUTS="2 4 8" TARGET=16 HPCG=.../xhpcg ...
#
# Usage: bench/extrapolation.sh   Environment: BUILD (default .), MPIRUN
#        (mpirun.openmpi), TS_RECORD_LIB, WORK, INPUTS ("1 2 4"), TARGET (8),
#        SERIES (all of: stencil-strong stencil-weak lammps-strong lammps-weak hpcc meep
#        mpgrafic mpgrafic-weak),
#        LAMMPS_STEPS (1000: long enough that a rank's compute is not noise),
#        NPB_BIN (NPB's bin directory), LULESH, HPCG (their binaries), MPIRUN_FLAGS
#        (--oversubscribe),
#        REUSE (set: keep the traces a previous run recorded in WORK).
set -eu
BUILD=$(cd "${BUILD:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
MPIRUN=${MPIRUN:-mpirun.openmpi}
MPIRUN_FLAGS=${MPIRUN_FLAGS---oversubscribe}
NPB_BIN=${NPB_BIN:-/nonexistent}
LULESH=${LULESH:-lulesh2.0}
HPCG=${HPCG:-xhpcg}
TS_RECORD_LIB=${TS_RECORD_LIB:-$BUILD/.libs/libtracesim-record-openmpi.so}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-extrap.XXXXXX)}
INPUTS=${INPUTS:-"1 2 4"}
TARGET=${TARGET:-8}
SERIES=${SERIES:-"stencil-strong stencil-weak lammps-strong lammps-weak hpcc meep mpgrafic mpgrafic-weak"}
export TS_RECORD_LIB OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$TS_RECORD_LIB" ] || { echo "no recorder library $TS_RECORD_LIB" >&2; exit 1; }
mkdir -p "$WORK"
mpicc.openmpi -O2 -o "$WORK/stencil2d" "$SRC/bench/apps/stencil2d.c"

# MPI_Dims_create (P, 2): the most balanced factors, larger first.
dims() {
  python3 -c "import sys; p=int(sys.argv[1]); a=max(d for d in range(1,p+1) if p%d==0 and d*d<=p); print(p//a, a)" "$1"
}

lammps="lmp -in $SRC/bench/apps/in.melt.scaling -log none -var steps ${LAMMPS_STEPS:-1000}"

# The command line of @series at @ranks.
command_of() {
  ranks=$2
  set -- $(dims "$2") "$1"
  px=$1 py=$2
  case $3 in
    stencil-strong) echo "$WORK/stencil2d strong 100 65536 0.4" ;;
    stencil-weak)   echo "$WORK/stencil2d weak 100 16384 0.004" ;;
    lammps-strong)  echo "$lammps -var px $px -var py $py -var bx 10 -var by 10" ;;
    lammps-weak)    echo "$lammps -var px $px -var py $py -var bx $((10 * px)) -var by $((10 * py))" ;;
    hpcc)           echo "hpcc" ;;
    meep)           echo "meep $SRC/bench/apps/fdtd-periodic.ctl" ;;
    mpgrafic)       echo "mpgrafic --np=128" ;;
    # N^3 / P about constant (262,144, 256,000, 250,000, 262,144 points a
    # rank at 1, 2, 4, 8), N divisible by P for FFTW's slabs.
    mpgrafic-weak)  echo "mpgrafic --np=$(case $ranks in 1) echo 64 ;; 2) echo 80 ;; 4) echo 100 ;; *) echo 128 ;; esac)" ;;
    npb-*)          echo "$NPB_BIN/${3#npb-}.S.x" ;;
    lulesh)         echo "$LULESH -s 6 -i 20 -q" ;;
    hpcg)           echo "$HPCG --nx=16 --ny=16 --nz=16 --rt=0" ;;
  esac
}

# What @series reads on its standard input.
input_of() {
  case $1 in mpgrafic*) echo /usr/share/doc/mpgrafic/examples/Input.stdin ;; *) echo /dev/null ;; esac
}

# What the user says of @series's partners.
pattern_of() {
  case $1 in mpgrafic*) echo --all-to-all ;; hpcg) echo --grid-order largest-last ;; esac
}

# Whether @series's grid wraps around where the inputs cannot show it.
boundaries_of() {
  case $1 in npb-lu|lulesh|hpcg) echo open ;; *) echo periodic ;; esac
}

# Whether @series's compute is taken from CPU time.
cpu_time() {
  case $1 in stencil-*) ;; *) echo --cpu-time ;; esac
}

record() { # series ranks
  d=$WORK/$1/np$2
  [ -n "${REUSE:-}" ] && [ -f "$d/trace/traces.otf2" ] && return 0
  rm -rf "$d"
  mkdir -p "$d"
  [ "$1" = hpcc ] && cp "$SRC/bench/apps/hpccinf.txt" "$d/"
  (cd "$d" && "$MPIRUN" $MPIRUN_FLAGS -np "$2" sh "$BUILD/recorder/tracesim-record" \
     -o "$d/trace" $(cpu_time "$1") $(command_of "$1" "$2") < "$(input_of "$1")" \
     > "$d/program.log" 2> "$d/program.err") \
    || { echo "$1 at $2 ranks: the program failed: $(tail -3 "$d/program.err")" >&2; return 1; }
}

printf '%-15s %-9s %-9s %9s %9s %9s %21s\n' series partners messages "msg %" "bytes %" \
  "compute %" "runtime extrap/real"
for s in $SERIES; do
  program=$(command_of "$s" 1 | cut -d' ' -f1)
  command -v "$program" > /dev/null || [ -x "$program" ] \
    || { printf '%-15s not run: no %s (apt-get install meep-openmpi, lammps, hpcc; NPB_BIN)\n' "$s" "$program"; continue; }
  for p in $INPUTS $TARGET; do record "$s" "$p"; done
  traces=""
  for p in $INPUTS; do traces="$traces $WORK/$s/np$p/trace/traces.otf2"; done
  real=$WORK/$s/np$TARGET/trace/traces.otf2
  if ! "$BUILD/tracesim" extrapolate $traces --ranks "$TARGET" --boundaries "$(boundaries_of "$s")" $(cpu_time "$s") $(pattern_of "$s") \
         -o "$WORK/$s/extrapolated" --compare "$real" > "$WORK/$s/compare.txt" \
         2> "$WORK/$s/refused.txt"; then
    printf '%-15s refused: %s\n' "$s" "$(grep -v warning: "$WORK/$s/refused.txt" | head -1 | cut -c1-300)"
    continue
  fi
  "$BUILD/tracesim" calibrate "$real" -o "$WORK/$s/platform.xml" > /dev/null
  "$BUILD/tracesim" run "$real" -p "$WORK/$s/platform.xml" -o "$WORK/$s/run-real" -q $(cpu_time "$s")
  "$BUILD/tracesim" run "$WORK/$s/extrapolated/traces.otf2" -p "$WORK/$s/platform.xml" \
    -o "$WORK/$s/run-extrapolated" -q
  python3 - "$s" "$WORK/$s" <<'PY'
import json, re, sys
name, d = sys.argv[1], sys.argv[2]
c = open(d + "/compare.txt").read()
def pct(what):
    return float(re.search(r"%s .*?\(([-+\d.]+)%%\)" % what, c).group(1))
partners = re.search(r"partners +the same on (\d+ of \d+)", c).group(1)
same_msgs = re.search(r"as many to each partner on (\d+ of \d+)", c).group(1)
runtime = lambda run: json.load(open(d + "/" + run + "/summary.json"))["predicted"]["runtime_s"]
e, r = runtime("run-extrapolated"), runtime("run-real")
print("%-15s %-9s %-9s %+8.1f%% %+8.1f%% %+8.1f%% %8.4f/%.4f s %+.1f%%"
      % (name, partners.replace(" of ", "/"), same_msgs.replace(" of ", "/"), pct("messages"),
         pct("bytes"), pct("compute"), e, r, 100 * (e / r - 1)))
PY
done
echo "(work files in $WORK)"
