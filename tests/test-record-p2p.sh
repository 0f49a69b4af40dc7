#!/bin/sh
# The recorder on every point-to-point form (tests/mpi/p2p.c, 4 ranks): all
# calls recorded with their messages, peers as ranks of the communicator,
# completions in every wait and test variant, persistent and cancelled
# requests, MPI_PROC_NULL. Skipped (77) without MPI.
set -u
. "${top_srcdir:-.}/tests/test-record-lib.sh"
record p2p 4 "$builddir/tests/mpi-p2p"
grep -q "^p2p done" "$work/p2p.out" || fail "the program's output is missing"
complete p2p

# Hand counts from tests/mpi/p2p.c; "a" = world ranks 1 and 3 (rank 0 of
# their pair), "b" = world 0 and 2: sums over the 4 ranks.
expect_visits p2p MPI_Ssend 2          # step 1, a
expect_visits p2p MPI_Bsend 2          # step 1, a
expect_visits p2p MPI_Rsend 2          # step 1, a
expect_visits p2p MPI_Recv 4           # step 1, b x 2 (step 6's from MPI_PROC_NULL: none)
expect_visits p2p MPI_Send 0           # step 6 only, to MPI_PROC_NULL: not recorded
expect_visits p2p MPI_Sendrecv 8       # step 2 x 4 + step 6 x 4 (one real half each)
expect_visits p2p MPI_Sendrecv_replace 4
expect_visits p2p MPI_Issend 2         # step 3, a
expect_visits p2p MPI_Ibsend 2
expect_visits p2p MPI_Irsend 2
expect_visits p2p MPI_Waitany 6        # step 3, a x 3
expect_visits p2p MPI_Testany 2        # step 3, b
expect_visits p2p MPI_Testsome 2       # step 3, b
expect_visits p2p MPI_Irecv 18         # b: 1 (step 1) + 3 (step 3) + 1 (step 5), x 2; all: 2 x 4 (step 7)
expect_visits p2p MPI_Isend 8          # step 7, 2 x 4 (step 6's to MPI_PROC_NULL: none)
expect_visits p2p MPI_Send_init 2
expect_visits p2p MPI_Recv_init 2
expect_visits p2p MPI_Start 6          # 3 rounds, a
expect_visits p2p MPI_Startall 6       # 3 rounds, b
expect_visits p2p MPI_Wait 16          # b: 1 (step 1) + 1 (step 5); all: 3 (step 4); step 6's: none
expect_visits p2p MPI_Request_free 4
expect_visits p2p MPI_Cancel 2         # step 5, b
expect_visits p2p MPI_Waitall 4        # step 7
# 5 communicators: world, self, the two pairs, the duplicate of the world.
grep -Eq "^comms: +5$" "$work/p2p.info" || fail "communicators: $(cat "$work/p2p.info")"

events p2p 1 > "$work/a"   # world 1: rank 0 of pair {0, 1}, whose rank 1 is world 0
events p2p 0 > "$work/b"
# Peers are ranks of the pair, not of the world: a sends to 1, b hears from 0.
n=$(grep -c "MPI_SEND .*Receiver: 1 .*Communicator: \"comm 2\"" "$work/a")
[ "$n" -eq 6 ] || fail "a's MPI_SEND to pair rank 1: $n, expected 6 (steps 1, 2, 6): $(grep MPI_SEND "$work/a")"
n=$(grep -c "MPI_RECV .*Sender: 0 .*Communicator: \"comm 2\"" "$work/b")
[ "$n" -eq 5 ] || fail "b's MPI_RECV from pair rank 0: $n, expected 5 (steps 1, 2, 6)"
# Step 3: b's failed MPI_Testany and MPI_Testsome looked at 3 requests each.
n=$(grep -c "MPI_REQUEST_TEST" "$work/b")
[ "$n" -ge 6 ] || fail "b's MPI_REQUEST_TEST: $n, expected at least 6"
# Step 5: the cancelled receive.
n=$(grep -c "MPI_REQUEST_CANCELLED" "$work/b")
[ "$n" -eq 1 ] || fail "b's MPI_REQUEST_CANCELLED: $n, expected 1"
# a's isends: 3 (step 3) + 3 persistent starts (step 4) + 2 (step 7), each
# its own request id, each completed once.
n=$(grep "MPI_ISEND " "$work/a" | sed 's/.*Request: //' | sort -u | wc -l)
[ "$n" -eq 8 ] || fail "a's distinct MPI_ISEND request ids: $n, expected 8"
n=$(grep -c "MPI_ISEND_COMPLETE" "$work/a")
[ "$n" -eq 8 ] || fail "a's MPI_ISEND_COMPLETE: $n, expected 8"
echo "PASS"
