/* User regions, both ways, at 2 ranks: built with -finstrument-functions
 * (and -rdynamic, so that dladdr names the functions) and linked with
 * -ltracesim-record for ts_region_begin/end. Each rank calls compute_kernel
 * KERNELS times, tiny() (excluded by TS_RECORD_EXCLUDE in the test) as
 * often, and opens the region "phase" PHASES times; rank 1 meets "phase"
 * before compute_kernel, rank 0 after, so their local region ids differ and
 * the trace needs the mapping. "unclosed" is still open at MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

#include "recorder/tracesim-record.h"

#define KERNELS 5
#define PHASES 3

volatile double sink;

void
tiny (int i)
{
  sink += i;
}

void
compute_kernel (int n)
{
  double x = 0;
  for (int i = 0; i < n; i++)
    x += i * 0.5;
  sink += x;
  tiny (n);
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  if (rank == 1)
    {
      ts_region_begin ("phase");
      ts_region_end ("phase");
    }
  for (int k = 0; k < KERNELS; k++)
    compute_kernel (100000);
  for (int p = (rank == 1); p < PHASES; p++)
    {
      ts_region_begin ("phase");
      MPI_Barrier (MPI_COMM_WORLD);
      ts_region_end ("phase");
    }
  if (rank == 1)
    MPI_Barrier (MPI_COMM_WORLD); /* the barrier rank 1's first phase skipped */
  ts_region_begin ("unclosed");
  if (rank == 0)
    printf ("regions done\n");
  MPI_Finalize ();
  return 0;
}
