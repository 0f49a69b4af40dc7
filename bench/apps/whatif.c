/* The what-if programs of bench/apps-whatif.sh: four communication patterns
 * whose compute can be really made faster or balanced, to check tracesim's
 * predictions (from a trace of the unchanged run) against the changed runs.
 *
 *   whatif PATTERN FACTOR BALANCED [ITERATIONS]
 *
 * PATTERN is one of
 *   sendrecv  a 2-D periodic halo exchange on an MPI_Dims_create grid:
 *             MPI_Sendrecv of 32 KiB with the 4 neighbours, an
 *             MPI_Allreduce every 10 iterations;
 *   pipeline  rank 0 produces ITERATIONS items of 135 KiB (above both Open
 *             MPI's and MPICH's eager limits: rendezvous), every later rank
 *             is a stage that keeps two MPI_Irecv posted from the previous
 *             one, takes items with MPI_Waitany, computes, passes each on
 *             with MPI_Send and posts the receive again;
 *   halo      a 1-D ring halo exchange of 64 KiB (MPI_Irecv, MPI_Isend,
 *             MPI_Waitall), an MPI_Allreduce every 10 iterations, rank 0
 *             doing twice the work of the others;
 *   tree      a binomial-tree reduction of a 256 KiB vector to rank 0,
 *             written with MPI_Send / MPI_Recv (a chain of dependent
 *             receives), then MPI_Bcast of the result.
 *
 * Each iteration (each item, in the pipeline) a rank runs compute_kernel:
 * FACTOR x w(rank) units of work, a unit a dependent floating-point chain of
 * UNIT multiply-adds (about 0.35 ms on the 2-core development machine).
 * The weights are imbalanced on purpose, so that changing the kernel also
 * changes who waits: halo 2 on rank 0 and 1 elsewhere, the other patterns
 * 1 + rank / size (in the pipeline the last stage is the slowest, the
 * bottleneck). BALANCED=1 gives every rank the mean of the weights: the same
 * total work spread evenly, what the hypothesis `balance = mean` predicts.
 * Every rank visits compute_kernel equally often, so that `balance` pairs
 * the k-th visits of all ranks.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT 200000            /* dependent multiply-adds per work unit */
#define BASE_UNITS 12.0        /* units of a weight-1 rank per iteration at FACTOR 1 */
#define SENDRECV_DOUBLES 4096  /* 32 KiB to each of 4 neighbours */
#define ITEM_DOUBLES 17280     /* 135 KiB: rendezvous under Open MPI and MPICH */
#define HALO_DOUBLES 8192      /* 64 KiB to each ring neighbour */
#define TREE_DOUBLES 32768     /* 256 KiB */

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

typedef enum { SENDRECV, PIPELINE, HALO, TREE } Pattern;

static double
weight (Pattern p, int rank, int size)
{
  if (p == HALO)
    return rank == 0 ? 2.0 : 1.0;
  return 1.0 + (double) rank / size;
}

static double
mean_weight (Pattern p, int size)
{
  double sum = 0;
  for (int r = 0; r < size; r++)
    sum += weight (p, r, size);
  return sum / size;
}

/* Every tenth iteration the halo patterns agree on the mean of @acc over
 * the ranks (an MPI_Allreduce, as a solver's residual norm); @acc as it is
 * otherwise. */
static double
every_tenth_mean (int it, double acc, int size)
{
  if (it % 10 != 9)
    return acc;
  double sum;
  MPI_Allreduce (&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / size;
}

static double
run_sendrecv (int rank, int size, double units, int iterations)
{
  int dims[2] = { 0, 0 };
  MPI_Dims_create (size, 2, dims);
  /* Row-major grid, periodic in both directions (a neighbour may be the
     rank itself, e.g. the 2 x 1 grid of 2 ranks). */
  int row = rank / dims[1], col = rank % dims[1];
  int west = row * dims[1] + (col + dims[1] - 1) % dims[1];
  int east = row * dims[1] + (col + 1) % dims[1];
  int north = ((row + dims[0] - 1) % dims[0]) * dims[1] + col;
  int south = ((row + 1) % dims[0]) * dims[1] + col;
  int to[4] = { east, west, south, north }, from[4] = { west, east, north, south };
  static double out[4][SENDRECV_DOUBLES], in[4][SENDRECV_DOUBLES];
  double acc = 0;
  for (int it = 0; it < iterations; it++)
    {
      acc += compute_kernel (units, acc + it);
      for (int d = 0; d < 4; d++)
        {
          out[d][0] = acc;
          MPI_Sendrecv (out[d], SENDRECV_DOUBLES, MPI_DOUBLE, to[d], d,
                        in[d], SENDRECV_DOUBLES, MPI_DOUBLE, from[d], d,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      acc = every_tenth_mean (it, 0.25 * (in[0][0] + in[1][0] + in[2][0] + in[3][0]) * 1e-3,
                              size);
    }
  return acc;
}

static double
run_pipeline (int rank, int size, double units, int items)
{
  static double buf[2][ITEM_DOUBLES];
  double acc = 0;
  if (rank == 0)
    {
      for (int i = 0; i < items; i++)
        {
          acc += compute_kernel (units, acc + i);
          buf[0][0] = acc;
          if (size > 1)
            MPI_Send (buf[0], ITEM_DOUBLES, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        }
      return acc;
    }
  /* A stage: two receives posted from the previous stage, so that the next
     item can arrive while this one is computed; the one that completes
     first is taken. */
  MPI_Request req[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
  int posted = 0;
  for (int s = 0; s < 2 && posted < items; s++, posted++)
    MPI_Irecv (buf[s], ITEM_DOUBLES, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, &req[s]);
  for (int i = 0; i < items; i++)
    {
      int s;
      MPI_Waitany (2, req, &s, MPI_STATUS_IGNORE);
      acc += compute_kernel (units, buf[s][0] + i);
      buf[s][0] = acc * 1e-3;
      if (rank + 1 < size)
        MPI_Send (buf[s], ITEM_DOUBLES, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
      if (posted < items)
        {
          MPI_Irecv (buf[s], ITEM_DOUBLES, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, &req[s]);
          posted++;
        }
    }
  return acc;
}

static double
run_halo (int rank, int size, double units, int iterations)
{
  static double out_l[HALO_DOUBLES], out_r[HALO_DOUBLES], in_l[HALO_DOUBLES], in_r[HALO_DOUBLES];
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double acc = 0;
  for (int it = 0; it < iterations; it++)
    {
      acc += compute_kernel (units, acc + it);
      out_l[0] = out_r[0] = acc;
      MPI_Request req[4];
      MPI_Irecv (in_l, HALO_DOUBLES, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
      MPI_Irecv (in_r, HALO_DOUBLES, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
      MPI_Isend (out_r, HALO_DOUBLES, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
      MPI_Isend (out_l, HALO_DOUBLES, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
      MPI_Waitall (4, req, MPI_STATUSES_IGNORE);
      acc = every_tenth_mean (it, 0.5 * (in_l[0] + in_r[0]) * 1e-3, size);
    }
  return acc;
}

static double
run_tree (int rank, int size, double units, int iterations)
{
  static double vec[TREE_DOUBLES], in[TREE_DOUBLES];
  double acc = 0;
  for (int it = 0; it < iterations; it++)
    {
      acc += compute_kernel (units, acc + it);
      for (int k = 0; k < TREE_DOUBLES; k++)
        vec[k] = acc + k * 1e-9;
      /* Binomial tree toward rank 0: a rank receives from rank + 1, + 2,
         + 4... while that bit of its rank is clear, then sends its partial
         sum to rank - mask; rank 0's receives wait on the whole chain. */
      for (int mask = 1; mask < size; mask <<= 1)
        {
          if (rank & mask)
            {
              MPI_Send (vec, TREE_DOUBLES, MPI_DOUBLE, rank - mask, 3, MPI_COMM_WORLD);
              break;
            }
          if (rank + mask < size)
            {
              MPI_Recv (in, TREE_DOUBLES, MPI_DOUBLE, rank + mask, 3, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
              for (int k = 0; k < TREE_DOUBLES; k++)
                vec[k] += in[k];
            }
        }
      MPI_Bcast (vec, TREE_DOUBLES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      acc = vec[0] / size * 1e-3;
    }
  return acc;
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
  static const char *const names[] = { "sendrecv", "pipeline", "halo", "tree" };
  int pattern = -1;
  for (int p = 0; argc > 1 && p < 4; p++)
    if (strcmp (argv[1], names[p]) == 0)
      pattern = p;
  double factor = argc > 2 ? atof (argv[2]) : 0;
  int balanced = argc > 3 ? atoi (argv[3]) : -1;
  int iterations = argc > 4 ? atoi (argv[4]) : 100;
  if (pattern < 0 || factor <= 0 || (balanced != 0 && balanced != 1) || iterations <= 0
      || argc > 5)
    {
      if (rank == 0)
        fprintf (stderr, "usage: whatif sendrecv|pipeline|halo|tree FACTOR BALANCED(0|1) [ITERATIONS]\n");
      MPI_Abort (MPI_COMM_WORLD, 2);
    }
  double w = balanced ? mean_weight (pattern, size) : weight (pattern, rank, size);
  double units = BASE_UNITS * factor * w;
  double acc = 0;

  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  begin ("loop");
  switch ((Pattern) pattern)
    {
    case SENDRECV:
      acc = run_sendrecv (rank, size, units, iterations);
      break;
    case PIPELINE:
      acc = run_pipeline (rank, size, units, iterations);
      break;
    case HALO:
      acc = run_halo (rank, size, units, iterations);
      break;
    case TREE:
      acc = run_tree (rank, size, units, iterations);
      break;
    }
  MPI_Barrier (MPI_COMM_WORLD);
  end ("loop");
  double t1 = MPI_Wtime ();
  /* Every rank's result, so that no rank's kernel is dead code. */
  double sum;
  MPI_Reduce (&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    /* ranks: a launcher of another MPI library than the program's starts
       singletons, each rank 0 of 1; the script checks this line. */
    printf ("ranks %d\nloop_s %.6f\nchecksum %g\n", size, t1 - t0, sum);
  MPI_Finalize ();
  return 0;
}
