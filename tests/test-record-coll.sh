#!/bin/sh
# The recorder on every collective (tests/mpi/coll.c, 4 ranks): each call
# recorded with its communicator, root (a rank of that communicator) and
# bytes by Score-P's convention; non-blocking ones completed in the wait or
# test that completes them; one definition per communicator however many
# ranks hold it. Skipped (77) without MPI.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
record coll 4 "$builddir/tests/mpi-coll"
grep -q "^coll done" "$work/coll.out" || fail "the program's output is missing"
complete coll

for c in Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall Alltoallv \
         Alltoallw Reduce Reduce_scatter Reduce_scatter_block Scan Exscan \
         Ibarrier Ibcast Igather Igatherv Iscatter Iscatterv Iallgather Iallgatherv \
         Ialltoall Ialltoallv Ialltoallw Ireduce Iallreduce Ireduce_scatter \
         Ireduce_scatter_block Iscan Iexscan; do
  expect_visits coll "MPI_$c" 4        # once per rank
done
expect_visits coll MPI_Barrier 8       # on half, and on its duplicate
expect_visits coll MPI_Allreduce 8     # on half, and on the cartesian one
expect_visits coll MPI_Wait 4          # the MPI_Ibarrier of each rank
expect_visits coll MPI_Waitall 4
# 7 communicators: world, self, the two halves, the cartesian one and the
# two duplicates of the halves; each held by 2 or 4 ranks, defined once.
grep -Eq "^comms: +7$" "$work/coll.info" || fail "communicators: $(cat "$work/coll.info")"

# World rank 2 is rank 1 of half {0, 2} (n = 2), the root of its rooted
# blocking collectives; world 0 is rank 0 there. Blocks are 4 ints = 16 B.
# Score-P's bytes (sent, received): Bcast root (n b, b), other (0, b);
# Reduce root (b, n b), other (b, 0); Allreduce (n b, n b);
# Scan rank i (n - i) b, (i + 1) b; Exscan (n - i - 1) b, i b.
events coll 2 > "$work/r2"
events coll 0 > "$work/r0"
check() { # FILE OP ROOT SENT RECEIVED
  grep -Eq "MPI_COLLECTIVE_END .*Operation: $2, Communicator: \"comm [0-9]+\" <[0-9]+>, Root: $3.*Sent: $4, Received: $5\$" "$1" \
    || fail "$(basename "$1"): $2 should be root $3, sent $4, received $5: $(grep "Operation: $2," "$1")"
}
check "$work/r2" BCAST 1 32 16
check "$work/r0" BCAST 1 0 16
check "$work/r2" REDUCE 1 16 32
check "$work/r0" REDUCE 1 16 0
check "$work/r2" ALLREDUCE NONE 32 32
check "$work/r0" SCAN NONE 32 16
check "$work/r2" SCAN NONE 16 32
check "$work/r0" EXSCAN NONE 16 0
check "$work/r2" EXSCAN NONE 0 16
# Non-blocking on the world (n = 4), root 3: world 2 receives the Ibcast's
# 16 B and sends its 16 B of the Igather, in the completion record.
grep -Eq "NON_BLOCKING_COLLECTIVE_COMPLETE .*Operation: BCAST, Communicator: \"MPI_COMM_WORLD\" <0>, Root: 3 .*Sent: 0, Received: 16" "$work/r2" \
  || fail "Ibcast completion: $(grep "Operation: BCAST" "$work/r2")"
grep -Eq "NON_BLOCKING_COLLECTIVE_COMPLETE .*Operation: GATHER, .*Root: 3 .*Sent: 16, Received: 0" "$work/r2" \
  || fail "Igather completion"
n=$(grep -c "NON_BLOCKING_COLLECTIVE_REQUEST" "$work/r2")
[ "$n" -eq 17 ] || fail "non-blocking collective requests: $n, expected 17"
n=$(grep -c "NON_BLOCKING_COLLECTIVE_COMPLETE" "$work/r2")
[ "$n" -eq 17 ] || fail "non-blocking collective completions: $n, expected 17"
echo "PASS"
