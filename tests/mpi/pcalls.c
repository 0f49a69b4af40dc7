/* The rest of MPI-4's partitioned API, for tests/test-record-partitioned.sh
 * (2 ranks, MPICH): rank 0 sends 4 partitions to rank 1's 2, ROUNDS times.
 * Per round, after a barrier: rank 0 starts with MPI_Startall, sleeps
 * 50 ms, readies partitions 0-1 with MPI_Pready_range and 2-3 with
 * MPI_Pready_list, and completes with an MPI_Test loop; rank 1 starts with
 * MPI_Start, polls MPI_Parrived on partition 0 then 1 until each has
 * arrived (the first poll comes before the sender's 50 ms are over: at
 * least one unsuccessful MPI_Parrived per round), and completes with
 * MPI_Wait, polling every millisecond. Rank 1 prints the successful and failed MPI_Parrived counts. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define ROUNDS 2
#define N 64                 /* doubles per send partition */

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  static double buf[4 * N];
  MPI_Request req;
  if (rank == 0)
    MPI_Psend_init (buf, 4, N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  else if (rank == 1)
    MPI_Precv_init (buf, 2, 2 * N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  int arrived = 0, not_yet = 0;
  for (int k = 0; k < ROUNDS; k++)
    {
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank == 0)
        {
          MPI_Startall (1, &req);
          for (int i = 0; i < 4 * N; i++)
            buf[i] = k + 1;
          struct timespec ts = { 0, 50 * 1000 * 1000 };
          while (nanosleep (&ts, &ts) != 0)
            ;
          MPI_Pready_range (0, 1, req);
          int rest[2] = { 2, 3 };
          MPI_Pready_list (2, rest, req);
          int done = 0;
          while (!done)
            MPI_Test (&req, &done, MPI_STATUS_IGNORE);
        }
      else if (rank == 1)
        {
          MPI_Start (&req);
          for (int j = 0; j < 2; j++)
            {
              int flag = 0;
              while (MPI_Parrived (req, j, &flag), !flag)
                {
                  /* A millisecond between polls keeps the trace small. */
                  struct timespec ts = { 0, 1000 * 1000 };
                  nanosleep (&ts, NULL);
                  not_yet++;
                }
              arrived++;
            }
          MPI_Wait (&req, MPI_STATUS_IGNORE);
          if (buf[0] != k + 1 || buf[4 * N - 1] != k + 1)
            {
              fprintf (stderr, "round %d: wrong data\n", k);
              MPI_Abort (MPI_COMM_WORLD, 1);
            }
        }
    }
  if (rank < 2)
    MPI_Request_free (&req);
  if (rank == 1)
    printf ("parrived %d not_yet %d\n", arrived, not_yet);
  MPI_Finalize ();
  return 0;
}
