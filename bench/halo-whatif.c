/* A halo-exchange program for bench/halo-whatif.sh: what tracesim predicts
 * from a trace of this program at one kernel factor, against the program
 * really run at another.
 *
 *   halo-whatif FACTOR [ITERATIONS]
 *
 * Every iteration, each rank runs compute_kernel (FACTOR x (1 + rank / 4)
 * units of floating-point work, a unit about 0.5 ms here: the ranks are imbalanced on purpose, so
 * that halving the kernel also changes who waits), exchanges 64 KiB with
 * both ring neighbours (MPI_Irecv, MPI_Isend, MPI_Waitall) and joins an
 * MPI_Allreduce every 10 iterations. The loop is the user region
 * "halo_loop", closed after a barrier; rank 0 prints its wall time:
 *   loop_s <seconds>
 * Regions are recorded through ts_region_begin / ts_region_end when the
 * recorder is preloaded (tracesim-record), looked up with dlsym so that the
 * program runs without it too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MSG_DOUBLES 8192     /* 64 KiB */
#define UNIT 200000          /* dependent multiply-adds per work unit */

typedef void (*RegionFn) (const char *name);
static RegionFn region_begin, region_end;

static void
begin (const char *name)
{
  if (region_begin)
    region_begin (name);
}

static void
end (const char *name)
{
  if (region_end)
    region_end (name);
}

/* A dependent chain the compiler cannot shorten. */
static double
compute_kernel (double units, double seed)
{
  begin ("compute_kernel");
  long n = (long) (units * UNIT);
  double x = seed;
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  end ("compute_kernel");
  return x;
}

int
main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  region_begin = (RegionFn) dlsym (RTLD_DEFAULT, "ts_region_begin");
  region_end = (RegionFn) dlsym (RTLD_DEFAULT, "ts_region_end");
  int rank, size;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  double factor = argc > 1 ? atof (argv[1]) : 1.0;
  int iterations = argc > 2 ? atoi (argv[2]) : 100;
  if (factor <= 0 || iterations <= 0)
    {
      if (rank == 0)
        fprintf (stderr, "usage: halo-whatif FACTOR [ITERATIONS]\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  static double out_l[MSG_DOUBLES], out_r[MSG_DOUBLES], in_l[MSG_DOUBLES], in_r[MSG_DOUBLES];
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double units = 10 * factor * (1 + rank / 4.0);
  double acc = 0;

  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  begin ("halo_loop");
  for (int it = 0; it < iterations; it++)
    {
      acc += compute_kernel (units, acc + it);
      out_l[0] = out_r[0] = acc;
      MPI_Request req[4];
      MPI_Irecv (in_l, MSG_DOUBLES, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
      MPI_Irecv (in_r, MSG_DOUBLES, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
      MPI_Isend (out_r, MSG_DOUBLES, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
      MPI_Isend (out_l, MSG_DOUBLES, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
      MPI_Status status[4];
      MPI_Waitall (4, req, status);
      acc = 0.5 * (in_l[0] + in_r[0]) * 1e-3;
      if (it % 10 == 9)
        {
          double sum;
          MPI_Allreduce (&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
          acc = sum / size;
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  end ("halo_loop");
  double t1 = MPI_Wtime ();
  if (rank == 0)
    printf ("loop_s %.6f\nchecksum %g\n", t1 - t0, acc);
  MPI_Finalize ();
  return 0;
}
