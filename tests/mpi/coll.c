/* Every collective the recorder handles, at 4 ranks: the blocking ones on
 * `half` (MPI_Comm_split by rank % 2: {0, 2} and {1, 3}), the non-blocking
 * ones on MPI_COMM_WORLD, completed by MPI_Wait, MPI_Waitall and an
 * MPI_Test loop, then an MPI_Allreduce on a 2 x 2 MPI_Cart_create
 * communicator and an MPI_Barrier on an MPI_Comm_dup of `half`.
 * tests/test-record-coll.sh checks calls, communicators, roots and bytes.
 * Every buffer is N ints (4 N bytes). */
#include <mpi.h>
#include <stdio.h>

#define N 4
#define MAXR 4

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int wrank, wsize;
  MPI_Comm_rank (MPI_COMM_WORLD, &wrank);
  MPI_Comm_size (MPI_COMM_WORLD, &wsize);
  if (wsize != 4)
    {
      fprintf (stderr, "coll: run with 4 ranks\n");
      MPI_Abort (MPI_COMM_WORLD, 1);
    }
  MPI_Comm half;
  MPI_Comm_split (MPI_COMM_WORLD, wrank % 2, wrank, &half);
  int n;
  MPI_Comm_size (half, &n);
  int s[N * MAXR], r[N * MAXR], counts[MAXR], displs[MAXR];
  MPI_Datatype types[MAXR];
  for (int i = 0; i < N * MAXR; i++)
    s[i] = wrank + i;
  for (int i = 0; i < MAXR; i++)
    {
      counts[i] = N;
      displs[i] = N * i;
      types[i] = MPI_INT;
    }

  /* Blocking, on half; rooted ones at root 1 of half (world 2 or 3). */
  MPI_Barrier (half);
  MPI_Bcast (s, N, MPI_INT, 1, half);
  MPI_Gather (s, N, MPI_INT, r, N, MPI_INT, 1, half);
  MPI_Gatherv (s, N, MPI_INT, r, counts, displs, MPI_INT, 1, half);
  MPI_Scatter (s, N, MPI_INT, r, N, MPI_INT, 1, half);
  MPI_Scatterv (s, counts, displs, MPI_INT, r, N, MPI_INT, 1, half);
  MPI_Allgather (s, N, MPI_INT, r, N, MPI_INT, half);
  MPI_Allgatherv (s, N, MPI_INT, r, counts, displs, MPI_INT, half);
  MPI_Alltoall (s, N, MPI_INT, r, N, MPI_INT, half);
  MPI_Alltoallv (s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, half);
  int wdispls[MAXR];
  for (int i = 0; i < MAXR; i++)
    wdispls[i] = displs[i] * (int) sizeof (int);
  MPI_Alltoallw (s, counts, wdispls, types, r, counts, wdispls, types, half);
  MPI_Reduce (s, r, N, MPI_INT, MPI_SUM, 1, half);
  MPI_Allreduce (s, r, N, MPI_INT, MPI_SUM, half);
  MPI_Reduce_scatter (s, r, counts, MPI_INT, MPI_SUM, half);
  MPI_Reduce_scatter_block (s, r, N, MPI_INT, MPI_SUM, half);
  MPI_Scan (s, r, N, MPI_INT, MPI_SUM, half);
  MPI_Exscan (s, r, N, MPI_INT, MPI_SUM, half);

  /* Non-blocking, on the world; rooted ones at root 3. */
  MPI_Request q[17];
  int k = 0;
  int rbig[N * MAXR][MAXR];
  MPI_Ibarrier (MPI_COMM_WORLD, &q[k++]);
  MPI_Ibcast (s, N, MPI_INT, 3, MPI_COMM_WORLD, &q[k++]);
  MPI_Igather (s, N, MPI_INT, rbig[0], N, MPI_INT, 3, MPI_COMM_WORLD, &q[k++]);
  MPI_Igatherv (s, N, MPI_INT, rbig[1], counts, displs, MPI_INT, 3, MPI_COMM_WORLD, &q[k++]);
  MPI_Iscatter (s, N, MPI_INT, rbig[2], N, MPI_INT, 3, MPI_COMM_WORLD, &q[k++]);
  MPI_Iscatterv (s, counts, displs, MPI_INT, rbig[3], N, MPI_INT, 3, MPI_COMM_WORLD, &q[k++]);
  MPI_Iallgather (s, N, MPI_INT, rbig[4], N, MPI_INT, MPI_COMM_WORLD, &q[k++]);
  MPI_Iallgatherv (s, N, MPI_INT, rbig[5], counts, displs, MPI_INT, MPI_COMM_WORLD, &q[k++]);
  MPI_Ialltoall (s, N, MPI_INT, rbig[6], N, MPI_INT, MPI_COMM_WORLD, &q[k++]);
  MPI_Ialltoallv (s, counts, displs, MPI_INT, rbig[7], counts, displs, MPI_INT, MPI_COMM_WORLD,
                  &q[k++]);
  MPI_Ialltoallw (s, counts, wdispls, types, rbig[8], counts, wdispls, types, MPI_COMM_WORLD,
                  &q[k++]);
  MPI_Ireduce (s, rbig[9], N, MPI_INT, MPI_SUM, 3, MPI_COMM_WORLD, &q[k++]);
  MPI_Iallreduce (s, rbig[10], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]);
  MPI_Ireduce_scatter (s, rbig[11], counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]);
  MPI_Ireduce_scatter_block (s, rbig[12], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]);
  MPI_Iscan (s, rbig[13], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]);
  MPI_Iexscan (s, rbig[14], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[k++]);
  /* The first with MPI_Wait, 15 with MPI_Waitall, the last by testing. */
  MPI_Wait (&q[0], MPI_STATUS_IGNORE);
  MPI_Waitall (15, &q[1], MPI_STATUSES_IGNORE);
  int flag = 0;
  while (!flag)
    MPI_Test (&q[16], &flag, MPI_STATUS_IGNORE);

  /* Derived communicators. */
  MPI_Comm cart, dup;
  int dims[2] = { 2, 2 }, periods[2] = { 1, 1 };
  MPI_Cart_create (MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Allreduce (s, r, N, MPI_INT, MPI_SUM, cart);
  MPI_Comm_dup (half, &dup);
  MPI_Barrier (dup);
  MPI_Comm_free (&dup);
  MPI_Comm_free (&cart);
  MPI_Comm_free (&half);
  if (wrank == 0)
    printf ("coll done\n");
  MPI_Finalize ();
  return 0;
}
