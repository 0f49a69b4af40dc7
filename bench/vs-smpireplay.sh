#!/bin/sh
# tracesim vs SimGrid's own smpireplaymain on the same workload, in one run.
#
# For each rank count, the repo's generator writes a halo-exchange trace
# (compute, irecv left, isend right, waitall, an allreduce every 10 iterations)
# sized to about ACTIONS SimGrid actions; `tracesim convert --to ti` feeds it to
# smpirun -replay. Both replay it on the same cluster platform (written by
# `tracesim calibrate`). Timed, interleaved, RUNS times each, best wall time:
#   job      `tracesim run -q`: what users run, with both executions' wait
#            states and the predicted archive
#   replay   `tracesim run -q --no-wait-states`: the replay (and archive) alone
#   smpi     smpireplaymain with SimGrid's default SMPI network model
#   smpi_cm  smpireplaymain with the model tracesim uses (CM02, no
#            cross-traffic) and the same allreduce (recursive doubling)
#   floor    bench/ts-simgrid-floor: SimGrid alone making the simcalls the
#            replay makes for this workload, one for one (one actor per
#            rank, the C API, tracesim's model and allocator), with no trace
#            read and no output: no replay making those simcalls can be
#            faster, so smpi/floor is the most it can reach against
#            smpireplaymain
#   maestro  with MAESTRO=path, bench/maestro-floor.cpp built by hand (an
#            experiment in C++: the same workload driven from maestro, no
#            actor, no context switch); "-" without it
# and prints each of job and replay against each of smpi and smpi_cm, and
# the wait-state phase's rate: the trace's events over the time the job's
# log (G_MESSAGES_DEBUG=ts-run) gives its original wait states (their own
# time on the thread that analyses them beside the replay, sharing the 2
# cores with the simulation and the predicted analysis), and what both
# executions' wait states add to the job's wall time (job - replay).
#
# tracesim is linked with tcmalloc when configure finds it, and SimGrid's
# allocations are a good part of any replay's time. For a like-for-like view
# the script also runs smpi_cm with that allocator preloaded (smpi_alloc; "-"
# when tracesim uses glibc malloc), against the replay.
#
# Usage: bench/vs-smpireplay.sh [RANKS...]   (default: 16 64 256 1024)
# Environment: BUILD (dir with tracesim, ts-tracegen and bench/ts-simgrid-floor,
#              default .),
#              ACTIONS (default 1000000), RUNS (default 3), WORK (scratch dir).
# Run it on a quiet machine: nothing else (no build) beside it.
set -eu
BUILD=${BUILD:-.}
ACTIONS=${ACTIONS:-1000000}
RUNS=${RUNS:-3}
SMPIRUN=${SMPIRUN:-smpirun}
REPLAYMAIN=${REPLAYMAIN:-/usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain}
WORK=${WORK:-$(mktemp -d /tmp/tracesim-bench.XXXXXX)}
TRACESIM=$(cd "$BUILD" && pwd)/tracesim
TRACEGEN=$(cd "$BUILD" && pwd)/ts-tracegen
FLOOR=$(cd "$BUILD" && pwd)/bench/ts-simgrid-floor
[ $# -gt 0 ] || set -- 16 64 256 1024

now() { date +%s.%N; }
ALLOC=$(ldd "$TRACESIM" | awk '/tcmalloc/ { print $3; exit }')
best() { sort -g | head -1; }

printf '%6s %6s %9s | %8s %8s | %8s %8s | %8s %8s %8s %8s | %8s %7s | %7s %8s | %9s %7s | %8s %10s %10s %10s %7s | %9s %10s\n' \
  ranks iters ti_acts job_s replay_s smpi_s smpi_cm_s job/smpi job/cm rep/smpi rep/cm \
  smpi_alloc rep/alc sim_diff% events wait_ev/s waits_s floor_s smpi/floor ts_simcalls fl_simcalls \
  fl_diff% maestro_s smpi/maes
for n in "$@"; do
  # The TI trace has 5 actions per rank and iteration (compute, irecv,
  # compute for the call cost, isend, waitall) plus the allreduces.
  iters=$((ACTIONS / (5 * n)))
  [ "$iters" -ge 10 ] || iters=10
  d=$WORK/n$n
  rm -rf "$d"; mkdir -p "$d"
  "$TRACEGEN" stencil -o "$d/trace" --ranks "$n" --iterations "$iters" >/dev/null
  "$TRACESIM" calibrate "$d/trace/traces.otf2" -o "$d/platform.xml" >/dev/null
  "$TRACESIM" convert "$d/trace/traces.otf2" --to ti -o "$d/ti" -q
  i=0; : > "$d/ti/hosts"
  while [ $i -lt "$n" ]; do echo "node-$i" >> "$d/ti/hosts"; i=$((i + 1)); done
  ti_actions=$(cat "$d"/ti/ranks/*.txt | wc -l)
  events=$("$TRACESIM" info --no-replay "$d/trace/traces.otf2" | sed -n 's/^events: *//p')

  # time FILE COMMAND...: append COMMAND's wall time to FILE (X.times); its
  # output goes to X.out, the last run's kept
  time_to() {
    f=$1; shift
    t0=$(now); "$@" > "${f%.times}.out" 2>&1; t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$f"
  }
  smpi() { # [LD_PRELOAD value] smpirun options...
    pre=$1; shift
    (cd "$d/ti" && LD_PRELOAD=$pre "$SMPIRUN" -np "$n" -platform ../platform.xml -hostfile hosts \
       -replay traces.txt --log=root.thres:warning --log=smpi_replay.thres:info "$@" \
       "$REPLAYMAIN" > ../smpi.log 2>&1)
  }
  for f in job replay smpi smpi_cm smpi_alloc floor maestro; do : > "$d/$f.times"; done
  floor() { # PROGRAM: a floor program on this workload, with tracesim's network model
    "$1" "$d/platform.xml" "$n" "$iters" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
      --log=root.thres:critical
  }
  r=0
  while [ $r -lt "$RUNS" ]; do
    time_to "$d/job.times" "$TRACESIM" run "$d/trace/traces.otf2" -p "$d/platform.xml" -o "$d/job" -q
    time_to "$d/replay.times" "$TRACESIM" run "$d/trace/traces.otf2" -p "$d/platform.xml" -o "$d/out" -q \
      --no-wait-states
    time_to "$d/smpi.times" smpi ""
    time_to "$d/smpi_cm.times" smpi "" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
      --cfg=smpi/allreduce:rdb
    [ -z "$ALLOC" ] || time_to "$d/smpi_alloc.times" smpi "$ALLOC" --cfg=network/model:CM02 \
      --cfg=network/crosstraffic:0 --cfg=smpi/allreduce:rdb
    time_to "$d/floor.times" floor "$FLOOR"
    [ -z "${MAESTRO:-}" ] || time_to "$d/maestro.times" floor "$MAESTRO"
    r=$((r + 1))
  done
  # The wait-state phase: the original's, as the job's log times it.
  G_MESSAGES_DEBUG=ts-run "$TRACESIM" run "$d/trace/traces.otf2" -p "$d/platform.xml" -o "$d/job" -q \
    > "$d/job.log" 2>&1
  # On a thread beside the replay, the analysis logs its own time; run
  # after it (no thread), its phase's.
  waits=$(awk '/replay and predicted wait states: done at/ { a = $(NF - 2) }
               /original wait states: done at/ { b = $(NF - 2) }
               /original wait states: .* s, on a thread/ { t = $(NF - 7) }
               END { print (t != "" ? t : b - a) }' "$d/job.log")
  ts_sim=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["predicted"]["runtime_s"])' "$d/out/summary.json")
  smpi_sim=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$d/smpi.log")
  ts_simcalls=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["simcalls"])' "$d/out/summary.json")
  # The floor's own count and simulated time, as its last timed run printed them.
  fl_sim=$(sed -n 's/^simulated time \([0-9.e+-]*\) s, \([0-9]*\) simcalls$/\1/p' "$d/floor.out")
  fl_simcalls=$(sed -n 's/^simulated time \([0-9.e+-]*\) s, \([0-9]*\) simcalls$/\2/p' "$d/floor.out")
  awk -v n="$n" -v it="$iters" -v a="$ti_actions" -v j="$(best < "$d/job.times")" \
      -v rp="$(best < "$d/replay.times")" -v s="$(best < "$d/smpi.times")" \
      -v sc="$(best < "$d/smpi_cm.times")" -v sa="$(best < "$d/smpi_alloc.times")" \
      -v ts="$ts_sim" -v ss="$smpi_sim" -v ev="$events" -v w="$waits" \
      -v fl="$(best < "$d/floor.times")" -v tc="$ts_simcalls" -v ma="$(best < "$d/maestro.times")" \
      -v fc="$fl_simcalls" -v fs="$fl_sim" 'BEGIN {
    if (sa == "") { sa_s = "-"; ra_s = "-" } else { sa_s = sprintf ("%.3f", sa); ra_s = sprintf ("%.2fx", sa / rp) }
    if (ma == "") { ma_s = "-"; mr_s = "-" } else { ma_s = sprintf ("%.3f", ma); mr_s = sprintf ("%.2fx", s / ma) }
    printf "%6d %6d %9d | %8.3f %8.3f | %8.3f %8.3f | %7.2fx %7.2fx %7.2fx %7.2fx | %8s %7s | %7.3f %8d | %9.0f %7.3f | %8.3f %9.2fx %10d %10d %7.3f | %9s %10s\n",
      n, it, a, j, rp, s, sc, s / j, sc / j, s / rp, sc / rp, sa_s, ra_s, 100 * (ts - ss) / ss, ev,
      (w > 0 ? ev / w : 0), j - rp, fl, s / fl, tc, fc, 100 * (ts - fs) / fs, ma_s, mr_s }'
done
echo "(x/y = y wall / x wall: above 1, tracesim is faster; sim_diff = simulated time, tracesim vs"
echo " smpi_cm's; wait_ev/s = events / the original wait states' time in the job; waits_s = job - replay;"
echo " floor = SimGrid alone making the replay's simcalls, one actor per rank on SimGrid's C API: smpi/floor"
echo " bounds rep/smpi for any replay making them; ts_simcalls / fl_simcalls: the replay's simcalls and the floor's;"
echo " fl_diff = simulated time, tracesim vs the floor's (the floor sleeps nominal call costs);"
echo " maestro = the same workload driven from maestro in C++ (MAESTRO=path), no actor at all)"
echo "work files: $WORK"
