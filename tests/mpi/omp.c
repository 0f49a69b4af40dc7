/* OpenMP teams under the recorder (tests/test-record-omp.sh), 2 threads a
 * rank (OMP_NUM_THREADS=2): 3 parallel regions, in each of which every
 * thread runs the user region "work" (ts_region_begin), meets the others at
 * an explicit barrier, runs "work" again, then shares a dynamic loop of 4
 * iterations, which ends at the loop's implicit barrier; then the ranks
 * meet at an MPI_Barrier.
 *
 * `omp critical` (tests/test-record-locks.sh): instead, in each of the 3
 * parallel regions both threads compute the same, then take the unnamed
 * critical section and compute in it, then take an omp_lock_t and compute
 * holding it. The threads arrive at each together, so one waits for the
 * other's section. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

typedef void (*RegionFn) (const char *name);

static double
spin (long n, double x)
{
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 1e-9;
  return x;
}

/* The critical sections and locks of `omp critical`. */
static double
critical_regions (void)
{
  omp_lock_t lock;
  omp_init_lock (&lock);
  double acc = 0;
  for (int i = 0; i < 3; i++)
    {
#pragma omp parallel reduction(+ : acc)
      {
        acc += spin (200000L, acc);
#pragma omp critical
        acc += spin (2000000L, acc);
        omp_set_lock (&lock);
        acc += spin (1000000L, acc);
        omp_unset_lock (&lock);
      }
    }
  omp_destroy_lock (&lock);
  return acc;
}

int
main (int argc, char **argv)
{
  int provided, rank;
  MPI_Init_thread (&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  RegionFn begin = (RegionFn) dlsym (RTLD_DEFAULT, "ts_region_begin");
  RegionFn end = (RegionFn) dlsym (RTLD_DEFAULT, "ts_region_end");
  double acc = 0;
  int threads = omp_get_max_threads ();
  if (argc > 1 && strcmp (argv[1], "critical") == 0)
    {
      acc = critical_regions ();
      MPI_Barrier (MPI_COMM_WORLD);
      if (rank == 0)
        printf ("critical done, %d threads, %g\n", threads, acc);
      MPI_Finalize ();
      return 0;
    }
  for (int i = 0; i < 3; i++)
    {
#pragma omp parallel reduction(+ : acc)
      {
        long n = 200000L * (1 + omp_get_thread_num ());
        begin ("work");
        acc += spin (n, acc);
        end ("work");
#pragma omp barrier
        begin ("work");
        acc += spin (n, acc);
        end ("work");
        /* A worksharing loop ending at its implicit barrier (GCC:
         * GOMP_loop_end; LLVM: a workshare barrier). */
#pragma omp for schedule(dynamic)
        for (int k = 0; k < 4; k++)
          acc += spin (20000L, acc);
      }
    }
  MPI_Barrier (MPI_COMM_WORLD);
  if (rank == 0)
    printf ("omp done, %d threads, %g\n", threads, acc);
  MPI_Finalize ();
  return 0;
}
