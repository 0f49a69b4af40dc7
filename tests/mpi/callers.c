/* The caller of every MPI call, at 2 ranks (tests/test-record-callers.sh):
 * the program's MPI calls come from exactly three functions, two with
 * external linkage and one static, and main (MPI_Init, MPI_Finalize). Built
 * without -rdynamic, so dladdr names none of them: the names come from the
 * program's ELF symbol table, and from none in a stripped copy. Rank 1
 * opens a user region of its own first, so the callers' local region ids
 * differ between the ranks and the attribute's values must go through the
 * mapping. Each call follows some compute: its phase is CALL@FUNCTION. */
#include <mpi.h>
#include <stdio.h>

#include "recorder/tracesim-record.h"

#define STEPS 4

/* One function each, as written: no inlining, no clones renamed .isra. */
#if defined(__clang__)
#define KEEP __attribute__ ((noinline))
#else
#define KEEP __attribute__ ((noinline, noclone))
#endif

volatile double sink;

static void
spin (int n)
{
  double x = 0;
  for (int i = 0; i < n; i++)
    x += i * 0.5;
  sink += x;
}

KEEP void
halo_exchange (int rank, int size)
{
  double out = rank, in = 0;
  spin (200000);
  MPI_Sendrecv (&out, 1, MPI_DOUBLE, (rank + 1) % size, 0, &in, 1, MPI_DOUBLE,
                (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  sink += in;
}

KEEP double
global_sum (double x)
{
  double sum = 0;
  spin (300000);
  MPI_Allreduce (&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

KEEP static void
settle (void)
{
  spin (100000);
  MPI_Barrier (MPI_COMM_WORLD);
  /* Not the last statement: as a tail call, MPI_Barrier would return to
   * main, and main is what the recorder would see (doc/recorder.md). */
  sink += 1;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (rank == 1)
    {
      ts_region_begin ("warm-up");
      spin (1000);
      ts_region_end ("warm-up");
    }
  double total = 0;
  for (int s = 0; s < STEPS; s++)
    {
      halo_exchange (rank, size);
      total += global_sum (s);
      settle ();
    }
  if (rank == 0)
    printf ("callers done %g\n", total);
  MPI_Finalize ();
  return 0;
}
