#!/bin/sh
# The EZTrace corpus (recorded by bench/record-corpus.sh): every trace under
# CORPUS replayed as bench/identity.sh replays ../shared/traces, one row
# each (ranks, original and predicted runtime, runtime error, worst rank end
# error, share of MPI time whose messages the trace lacks, tracesim's wall
# time), or FAILED and the start of tracesim's error output.
#
# Usage: bench/corpus.sh   Environment: BUILD (directory of the tracesim
# binary, default .), CORPUS (default /work/corpus), WORK, TIMEOUT (seconds
# allowed for one replay, default 600).
set -u
CORPUS=${CORPUS:-/work/corpus}
[ -d "$CORPUS" ] || { echo "no corpus $CORPUS (bench/record-corpus.sh records it)" >&2; exit 1; }
TRACES=$(cd "$CORPUS" && pwd) exec sh "$(dirname "$0")/identity.sh"
