#!/bin/sh
# tracesim sweep --slurm against a real Slurm: Debian's munge, slurmctld and
# slurmd started on localhost inside the test (../shared/notes/
# slurm-on-one-machine.md), everything in one scratch directory, nothing
# under /etc touched. The job array sweep.sbatch is submitted as written,
# the test waits for its tasks, collects, and compares the table with a
# local run's: identical, byte for byte; then the same for a sweep over
# rank counts (extrapolated by the tasks themselves). Skipped, saying why, only where
# Slurm cannot be started (not root, packages missing); CI runs it as root.
set -u
builddir=${top_builddir:-.}
tracesim=$(cd "$builddir" && pwd)/tracesim
work=$(cd "$builddir" && pwd)/tests/work/slurm
for p in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$p" > /dev/null || PATH=$PATH:/usr/sbin
  command -v "$p" > /dev/null || { echo "SKIP: $p is not installed (setup.sh installs slurm-wlm and munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a one-node Slurm needs root (SlurmUser=root)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && chmod 755 "$work"
# Unix sockets (munge's, and slurmd's per job step in its spool directory)
# have paths of at most 108 bytes: they live in a short directory of their
# own, not under a build tree that may be deep. Removed at exit.
short=$(mktemp -d /tmp/ts-slurm.XXXXXX) || { echo "FAIL: no scratch directory in /tmp"; exit 1; }
trap 'rm -rf "$short"' EXIT   # until the daemons' own clean-up takes over below
mkdir "$short/state" "$short/spool" && chmod 755 "$short"
# The work directory, reached through a path of over 150 characters (a
# symbolic link in the short directory): every path the test gives Slurm
# but the sockets' is that long, as in a build tree that deep (issue 40:
# munged refused a socket path of 110 bytes there).
deep=$short/$(printf 'd%.0s' $(seq 1 150))
ln -s "$work" "$deep" && work=$deep
fail() { echo "FAIL: $*"; for f in "$work"/*.log; do echo "== $f"; tail -5 "$f"; done; exit 1; }
# signal SIG: send it to every daemon started; true if one received it.
signal() {
  sent=1
  for f in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munged.pid"; do
    [ -s "$f" ] && kill "$1" "$(cat "$f")" 2> /dev/null && sent=0
  done
  return $sent
}
stop() {
  signal -TERM
  # The daemons gone (at most 5 s), their sockets go with the directory.
  i=0
  while [ $i -lt 50 ] && signal -0; do i=$((i + 1)); sleep 0.1; done
  rm -rf "$short"
}
trap stop EXIT

# munge, on a socket of its own.
head -c 1024 /dev/urandom > "$work/munge.key" && chmod 600 "$work/munge.key"
munged --key-file="$work/munge.key" --socket="$short/munge.socket" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed" --force || fail "munged did not start"

# Ports nobody uses: chosen from the process id, checked free.
port=$((20000 + $$ % 20000))
mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 / 2 }' /proc/meminfo)
cat > "$work/slurm.conf" <<EOS
ClusterName=tracesim-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$short/munge.socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$short/state
SlurmdSpoolDir=$short/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
NodeName=localhost CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOS
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
i=0
until sinfo -h -o %T 2> /dev/null | grep -q idle; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "the node never became idle: $(sinfo 2>&1)"; sleep 0.1
done

# A sweep file @1 run locally into @2-local and as a job array (@3 tasks at
# once) into @2-slurm, collected: the tables must be the same, byte for
# byte. Sets job to the array's job id.
local_and_slurm() {
  "$tracesim" sweep "$1" -o "$2-local" -q > /dev/null || fail "the local sweep $1"
  "$tracesim" sweep "$1" -o "$2-slurm" --slurm --array-parallel "$3" > "$2.log" \
    || fail "--slurm $1: $(cat "$2.log")"
  job=$(sbatch --parsable "$2-slurm/sweep.sbatch") || fail "sbatch refused $2-slurm/sweep.sbatch"
  i=0
  while squeue -h -j "$job" 2> /dev/null | grep -q .; do
    i=$((i + 1)); [ $i -lt 1200 ] || fail "job $job still queued after 120 s: $(squeue)"; sleep 0.1
  done
  "$tracesim" sweep "$1" -o "$2-slurm" --collect -q > /dev/null \
    || fail "--collect $1: a task failed: $(cat "$2"-slurm/slurm/*.out)"
  cmp -s "$2-slurm/results.csv" "$2-local/results.csv" \
    || fail "Slurm's table differs: $(diff "$2-slurm/results.csv" "$2-local/results.csv" | head)"
}

# The sweep: 2 factors x 2 platforms x 2 placements on an 8-rank halo exchange.
"$builddir/ts-tracegen" stencil -o "$work/trace" --ranks 8 --iterations 20 > /dev/null || fail "ts-tracegen"
"$tracesim" platform --nodes 4 --cores 2 -o "$work/flat.xml" > /dev/null || fail "platform"
"$tracesim" platform --topology torus:2,2 --cores 2 -o "$work/torus.xml" > /dev/null || fail "platform"
printf '[region:compute_kernel]\nscale = ${factor}\n' > "$work/k.hyp.in"
printf '[sweep]\ntrace = trace/traces.otf2\nhypothesis = k.hyp.in\nplatform = flat.xml, torus.xml\n[parameters]\nfactor = 0.5, 1\nplacement = block, cyclic\n' > "$work/s.sweep"
local_and_slurm "$work/s.sweep" "$work/s" 2
tasks=$(ls "$work/s-slurm/slurm" | grep -c "^${job}_")
first=$job

# A sweep over rank counts: 2 rank counts x 2 placements. Points 0 and 1
# (16 ranks) and 2 and 3 (36) are neighbours in the array, which runs as
# many tasks at once as the node has CPUs, so the two tasks of a rank count
# can start together: they take turns on its lock (one makes np<P>/, the
# other reads it). Their table equals a local run's, byte for byte.
for p in 4 9 16; do
  "$builddir/ts-tracegen" grid -o "$work/g$p" --ranks $p --iterations 5 --strong > /dev/null \
    || fail "ts-tracegen grid $p"
done
printf '[sweep]\nextrapolate = g4/traces.otf2, g9/traces.otf2, g16/traces.otf2\n[parameters]\nranks = 16, 36\nplacement = block, cyclic\n' > "$work/r.sweep"
local_and_slurm "$work/r.sweep" "$work/r" 4
for p in 16 36; do
  [ -f "$work/r-slurm/inputs/extrapolated/np$p.key" ] || fail "np$p was not extrapolated whole"
done
echo "slurm: job $first ran $tasks tasks, job $job a sweep over rank counts; the collected tables equal the local runs'"
