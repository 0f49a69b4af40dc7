/* Every point-to-point form the recorder handles, at 4 ranks, on the
 * communicator `pair` (MPI_Comm_split by rank / 2 with key -rank: world 1 is
 * rank 0 of {0, 1}, world 3 rank 0 of {2, 3}), so that a peer written as a
 * world rank instead of a rank of the communicator shows. In each pair,
 * "a" is rank 0 of the pair and "b" rank 1. tests/test-record-p2p.sh counts
 * the calls; each numbered step says what it records. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int wrank;
  MPI_Comm_rank (MPI_COMM_WORLD, &wrank);
  MPI_Comm pair;
  MPI_Comm_split (MPI_COMM_WORLD, wrank / 2, -wrank, &pair);
  int me;
  MPI_Comm_rank (pair, &me);
  int other = 1 - me;
  double out[N], in[N];
  for (int i = 0; i < N; i++)
    out[i] = wrank * 100 + i;
  int bufsize = 2 * (N * (int) sizeof (double) + MPI_BSEND_OVERHEAD);
  void *bsend_buf = malloc (bufsize);
  MPI_Buffer_attach (bsend_buf, bufsize);
  MPI_Request r[3];

  /* 1. a: MPI_Ssend, MPI_Bsend, MPI_Rsend; b: MPI_Recv x2 and MPI_Irecv +
   * MPI_Wait (the Rsend needs the receive posted: the barrier orders it). */
  if (me == 0)
    {
      MPI_Ssend (out, N, MPI_DOUBLE, other, 1, pair);
      MPI_Bsend (out, N, MPI_DOUBLE, other, 2, pair);
      MPI_Barrier (pair);
      MPI_Rsend (out, N, MPI_DOUBLE, other, 3, pair);
    }
  else
    {
      MPI_Recv (in, N, MPI_DOUBLE, other, 1, pair, MPI_STATUS_IGNORE);
      MPI_Recv (in, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, pair, MPI_STATUS_IGNORE);
      MPI_Irecv (in, N, MPI_DOUBLE, other, 3, pair, &r[0]);
      MPI_Barrier (pair);
      MPI_Wait (&r[0], MPI_STATUS_IGNORE);
    }

  /* 2. Both: MPI_Sendrecv and MPI_Sendrecv_replace with the other. */
  MPI_Sendrecv (out, N, MPI_DOUBLE, other, 4, in, N, MPI_DOUBLE, other, 4, pair,
                MPI_STATUS_IGNORE);
  MPI_Sendrecv_replace (in, N, MPI_DOUBLE, other, 5, other, 5, pair, MPI_STATUS_IGNORE);

  /* 3. b posts three receives and tests them with MPI_Testany and
   * MPI_Testsome before a sends anything (a waits in the barrier): both
   * fail, one MpiRequestTest per request each. Then a sends with MPI_Issend,
   * MPI_Ibsend, MPI_Irsend and completes them with three MPI_Waitany; b
   * completes its receives with MPI_Waitsome until all are done. */
  if (me == 0)
    {
      MPI_Barrier (pair);
      MPI_Issend (out, N, MPI_DOUBLE, other, 6, pair, &r[0]);
      MPI_Ibsend (out, N, MPI_DOUBLE, other, 7, pair, &r[1]);
      MPI_Irsend (out, N, MPI_DOUBLE, other, 8, pair, &r[2]);
      for (int k = 0; k < 3; k++)
        {
          int index;
          MPI_Waitany (3, r, &index, MPI_STATUS_IGNORE);
        }
    }
  else
    {
      double in3[3][N];
      for (int k = 0; k < 3; k++)
        MPI_Irecv (in3[k], N, MPI_DOUBLE, other, 6 + k, pair, &r[k]);
      int index, flag, outcount, indices[3];
      MPI_Testany (3, r, &index, &flag, MPI_STATUS_IGNORE);
      MPI_Testsome (3, r, &outcount, indices, MPI_STATUSES_IGNORE);
      if (flag || outcount != 0)
        {
          fprintf (stderr, "p2p: a test succeeded before the send\n");
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
      MPI_Barrier (pair);
      int done = 0;
      while (done < 3)
        {
          MPI_Waitsome (3, r, &outcount, indices, MPI_STATUSES_IGNORE);
          done += outcount;
        }
    }

  /* 4. Persistent: a MPI_Send_init, b MPI_Recv_init; three rounds of
   * MPI_Start (a) / MPI_Startall (b) and MPI_Wait; MPI_Request_free. */
  MPI_Request p;
  if (me == 0)
    MPI_Send_init (out, N, MPI_DOUBLE, other, 9, pair, &p);
  else
    MPI_Recv_init (in, N, MPI_DOUBLE, other, 9, pair, &p);
  for (int k = 0; k < 3; k++)
    {
      if (me == 0)
        MPI_Start (&p);
      else
        MPI_Startall (1, &p);
      MPI_Wait (&p, MPI_STATUS_IGNORE);
    }
  MPI_Request_free (&p);

  /* 5. b cancels a receive nobody sends to: MPI_Irecv, MPI_Cancel,
   * MPI_Wait (MpiRequestCancelled). */
  if (me == 1)
    {
      MPI_Irecv (in, N, MPI_DOUBLE, other, 99, pair, &r[0]);
      MPI_Cancel (&r[0]);
      MPI_Status st;
      MPI_Wait (&r[0], &st);
      int cancelled = 0;
      MPI_Test_cancelled (&st, &cancelled);
      if (!cancelled)
        {
          fprintf (stderr, "p2p: the receive was not cancelled\n");
          MPI_Abort (MPI_COMM_WORLD, 1);
        }
    }

  /* 6. MPI_PROC_NULL: nothing is recorded for the send, receive and isend
   * (nor the wait on it); of the MPI_Sendrecv, a's send half and b's
   * receive half. */
  MPI_Send (out, N, MPI_DOUBLE, MPI_PROC_NULL, 10, pair);
  MPI_Recv (in, N, MPI_DOUBLE, MPI_PROC_NULL, 10, pair, MPI_STATUS_IGNORE);
  MPI_Isend (out, N, MPI_DOUBLE, MPI_PROC_NULL, 10, pair, &r[0]);
  MPI_Wait (&r[0], MPI_STATUS_IGNORE);
  MPI_Sendrecv (out, N, MPI_DOUBLE, me == 0 ? other : MPI_PROC_NULL, 11, in, N, MPI_DOUBLE,
                me == 1 ? other : MPI_PROC_NULL, 11, pair, MPI_STATUS_IGNORE);

  /* 7. On a duplicate of MPI_COMM_WORLD: a ring exchange completed by
   * MPI_Waitall with MPI_STATUSES_IGNORE and by MPI_Testall in a loop. */
  MPI_Comm dup;
  MPI_Comm_dup (MPI_COMM_WORLD, &dup);
  int size;
  MPI_Comm_size (dup, &size);
  MPI_Irecv (in, N, MPI_DOUBLE, (wrank + size - 1) % size, 12, dup, &r[0]);
  MPI_Isend (out, N, MPI_DOUBLE, (wrank + 1) % size, 12, dup, &r[1]);
  MPI_Waitall (2, r, MPI_STATUSES_IGNORE);
  MPI_Irecv (in, N, MPI_DOUBLE, (wrank + size - 1) % size, 13, dup, &r[0]);
  MPI_Isend (out, N, MPI_DOUBLE, (wrank + 1) % size, 13, dup, &r[1]);
  int flag = 0;
  while (!flag)
    MPI_Testall (2, r, &flag, MPI_STATUSES_IGNORE);
  MPI_Comm_free (&dup);

  MPI_Buffer_detach (&bsend_buf, &bufsize);
  free (bsend_buf);
  MPI_Comm_free (&pair);
  if (wrank == 0)
    printf ("p2p done\n");
  MPI_Finalize ();
  return 0;
}
