/* The hybrid what-if program of bench/hybrid-whatif.sh: MPI + OpenMP, to
 * check tracesim's replay of thread teams against really changed runs.
 *
 *   hybrid FACTOR BALANCED [ITERATIONS]
 *
 * Each iteration every rank runs an OpenMP parallel region in which thread
 * t computes compute_kernel: FACTOR x BASE x (1 + 2t) units of work (a
 * unit a dependent chain of UNIT multiply-adds, about 0.35 ms here), so the
 * master waits at the implicit barrier for the slowest thread; BALANCED=1
 * gives every thread the mean. Then the master exchanges an 8 KiB halo
 * with both ring neighbours (MPI_Irecv, MPI_Isend, MPI_Waitall) and, every
 * fifth iteration, takes part in an MPI_Allreduce. The threads come from
 * OMP_NUM_THREADS.
 *
 * HYBRID_MODE (environment) says which threads call MPI:
 *   funneled   the master, after the parallel region (the default;
 *              MPI_THREAD_FUNNELED);
 *   multiple   every thread, inside the parallel region after its kernel,
 *              exchanges a halo of its own with the same thread of both
 *              neighbours (tags 2t and 2t + 1); the master then takes part
 *              in the Allreduce (MPI_THREAD_MULTIPLE);
 *   other      the team's last thread, inside the parallel region after its
 *              kernel, makes the rank's exchange and Allreduce while the
 *              others wait at the region's end (MPI_THREAD_SERIALIZED: MPI
 *              on a thread other than MPI_Init's).
 *
 * The loop is the user region "loop", closed after a barrier; rank 0
 * prints the number of ranks and the loop's wall time:
 *   ranks <size>
 *   loop_s <seconds>
 * Regions are recorded through ts_region_begin / ts_region_end when the
 * recorder is preloaded (tracesim-record), looked up with dlsym so that the
 * program runs without it too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT 200000      /* dependent multiply-adds per work unit */
#define BASE 4.0         /* units of thread 0 per iteration at FACTOR 1 */
#define HALO_DOUBLES 1024

typedef void (*RegionFn) (const char *name);
static RegionFn region_begin, region_end;

static double
compute_kernel (double units, double seed)
{
  if (region_begin)
    region_begin ("compute_kernel");
  long n = (long) (units * UNIT);
  double x = seed;
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  if (region_end)
    region_end ("compute_kernel");
  return x;
}

/* An 8 KiB halo with both ring neighbours, on tags @tag (to the right) and
 * @tag + 1 (to the left). */
static void
exchange (double out[2][HALO_DOUBLES], double in[2][HALO_DOUBLES], int left, int right, int tag,
          double value)
{
  MPI_Request req[4];
  out[0][0] = out[1][0] = value;
  MPI_Irecv (in[0], HALO_DOUBLES, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv (in[1], HALO_DOUBLES, MPI_DOUBLE, right, tag + 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend (out[0], HALO_DOUBLES, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &req[2]);
  MPI_Isend (out[1], HALO_DOUBLES, MPI_DOUBLE, left, tag + 1, MPI_COMM_WORLD, &req[3]);
  MPI_Waitall (4, req, MPI_STATUSES_IGNORE);
}

static int rank, size, left, right;

/* An iteration whose MPI is inside the team (HYBRID_MODE multiple or
 * other): each thread's own halo, or the last thread's for the rank. */
static double
in_team_iteration (int it, int multiple, double factor, int balanced, double mean, double acc)
{
  static double tout[64][2][HALO_DOUBLES], tin[64][2][HALO_DOUBLES];
  int threads = omp_get_max_threads ();
#pragma omp parallel reduction(+ : acc)
  {
    int t = omp_get_thread_num ();
    double mine = compute_kernel (factor * BASE * (balanced ? mean : 1 + 2 * t), acc);
    if (multiple || t == threads - 1)
      {
        int k = multiple ? t : 0;
        exchange (tout[k], tin[k], left, right, 2 * k, mine);
        mine = (mine + tin[k][0][0] + tin[k][1][0]) * 1e-3;
        if (!multiple && it % 5 == 4)
          {
            double local = mine, total = 0;
            MPI_Allreduce (&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            mine = total / size;
          }
      }
    acc += mine;
  }
  if (multiple && it % 5 == 4)
    {
      double sum = 0;
      MPI_Allreduce (&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      acc = sum / size;
    }
  return acc;
}

int
main (int argc, char **argv)
{
  int provided;
  const char *mode = getenv ("HYBRID_MODE") ? getenv ("HYBRID_MODE") : "funneled";
  int multiple = strcmp (mode, "multiple") == 0, other = strcmp (mode, "other") == 0;
  int level = multiple ? MPI_THREAD_MULTIPLE : other ? MPI_THREAD_SERIALIZED : MPI_THREAD_FUNNELED;
  MPI_Init_thread (&argc, &argv, level, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  if (provided < level || (!multiple && !other && strcmp (mode, "funneled") != 0))
    {
      if (rank == 0)
        fprintf (stderr, "hybrid: HYBRID_MODE=%s: unknown, or the MPI library does not provide "
                 "its thread level\n", mode);
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  if (argc < 3)
    {
      if (rank == 0)
        fprintf (stderr, "usage: hybrid FACTOR BALANCED [ITERATIONS]\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  double factor = atof (argv[1]);
  int balanced = atoi (argv[2]), iterations = argc > 3 ? atoi (argv[3]) : 50;
  region_begin = (RegionFn) dlsym (RTLD_DEFAULT, "ts_region_begin");
  region_end = (RegionFn) dlsym (RTLD_DEFAULT, "ts_region_end");
  int threads = omp_get_max_threads ();
  double mean = 0;
  for (int t = 0; t < threads; t++)
    mean += 1 + 2 * t;
  mean /= threads;

  static double out[2][HALO_DOUBLES], in[2][HALO_DOUBLES];
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  double acc = rank, sum = 0;
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  if (region_begin)
    region_begin ("loop");
  for (int it = 0; it < iterations; it++)
    {
      if (multiple || other)
        {
          acc = in_team_iteration (it, multiple, factor, balanced, mean, acc);
          continue;
        }
#pragma omp parallel reduction(+ : acc)
      {
        int t = omp_get_thread_num ();
        acc += compute_kernel (factor * BASE * (balanced ? mean : 1 + 2 * t), acc);
      }
      out[0][0] = out[1][0] = acc;
      exchange (out, in, left, right, 0, acc);
      acc = (acc + in[0][0] + in[1][0]) * 1e-3;
      if (it % 5 == 4)
        {
          MPI_Allreduce (&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
          acc = sum / size;
        }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (region_end)
    region_end ("loop");
  double t1 = MPI_Wtime ();
  if (rank == 0)
    printf ("ranks %d\nloop_s %.6f\nthreads %d\nchecksum %g\n", size, t1 - t0, threads, acc);
  MPI_Finalize ();
  return 0;
}
