/* A small MPI program for the recorder test: every rank exchanges 1000
 * bytes with its neighbours ITER times (MPI_Irecv, MPI_Isend, a test loop
 * until the receive completes, MPI_Waitall), then an MPI_Allreduce.
 * bench/record-overhead.sh runs it longer: `mpi-halo ITERATIONS COMPUTE_US`
 * adds COMPUTE_US microseconds of computation per iteration and prints the
 * time between MPI_Init and MPI_Finalize ("elapsed"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITER 10
#define N 1000

static void
compute (double us)
{
  double end = MPI_Wtime () + us * 1e-6;
  while (MPI_Wtime () < end)
    ;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int iterations = argc > 1 ? atoi (argv[1]) : ITER;
  double compute_us = argc > 2 ? atof (argv[2]) : 0;
  double start = MPI_Wtime ();
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  char out[N], in[N];
  memset (out, rank, sizeof out);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double sum = 0;
  for (int i = 0; i < iterations; i++)
    {
      if (compute_us > 0)
        compute (compute_us);
      MPI_Request req[2];
      MPI_Irecv (in, N, MPI_CHAR, left, 7, MPI_COMM_WORLD, &req[0]);
      MPI_Isend (out, N, MPI_CHAR, right, 7, MPI_COMM_WORLD, &req[1]);
      int done = 0;
      MPI_Test (&req[0], &done, MPI_STATUS_IGNORE);
      if (!done)
        MPI_Wait (&req[0], MPI_STATUS_IGNORE);
      MPI_Request sends[1] = { req[1] };
      MPI_Waitall (1, sends, MPI_STATUSES_IGNORE);
      double x = in[0], y;
      MPI_Allreduce (&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      sum += y;
    }
  if (rank == 0)
    printf ("sum %g\n", sum);
  if (rank == 0 && argc > 1)
    printf ("elapsed %.6f\n", MPI_Wtime () - start);
  MPI_Finalize ();
  return 0;
}
